"""Path settings of the build that point nowhere are named in a warning (variables.path_problems),
against the real project's data modules (their LOOKED_FOR names). The build prints them: test_faults."""
from __future__ import annotations

import pytest

from rosetta.build import cli, lessons, variables


def path_problems(project):
    """As the build reads them: every setting once, checked against the examples' and lessons' data modules."""
    modules = cli.data_modules(project.examples(), lessons.all_lessons(project)[0])
    return variables.path_problems(variables.read(), modules)


@pytest.fixture(autouse=True)
def no_settings(monkeypatch):
    for name in ("ROSETTA_DATA", "ROSETTA_CACHE", "ROSETTA_VENVS"):
        monkeypatch.delenv(name, raising=False)


def test_nothing_set_is_nothing_to_say(project):
    assert path_problems(project) == []


def test_a_data_folder_that_does_not_exist_or_is_a_file_is_named(project, tmp_path, monkeypatch):
    afile = tmp_path / "a-file"
    afile.write_text("")
    monkeypatch.setenv("ROSETTA_DATA", f"{tmp_path / 'nowhere'}:{afile}")
    problems = path_problems(project)
    assert problems == [f"ROSETTA_DATA entry {tmp_path / 'nowhere'}: no such folder (ignored: data is looked for "
                        "in the other entries and the cache)",
                        f"ROSETTA_DATA entry {afile}: not a folder (ignored: data is looked for in the other "
                        "entries and the cache)"]


def test_a_data_folder_with_nothing_usable_is_named_with_what_was_looked_for(project, tmp_path, monkeypatch):
    (tmp_path / "holiday-photos").mkdir()
    monkeypatch.setenv("ROSETTA_DATA", str(tmp_path))
    [problem] = path_problems(project)
    assert problem.startswith(f"ROSETTA_DATA entry {tmp_path}: holds none of the data this build reads")
    for name in ("cifar-10-python.tar.gz", "cifar10*.tar.gz", "aclImdb_v1.tar.gz", "aclImdb"):
        assert name in problem


@pytest.mark.parametrize("name", ["cifar10-jpeg.tar.gz", "aclImdb-labelled.tar.gz", "cifar-10-batches-py"])
def test_a_folder_holding_one_data_set_is_usable(project, tmp_path, monkeypatch, name):
    (tmp_path / name).mkdir() if "." not in name else (tmp_path / name).write_bytes(b"")
    monkeypatch.setenv("ROSETTA_DATA", str(tmp_path))
    assert path_problems(project) == []


def test_cache_and_venv_settings_that_cannot_be_folders_are_named(project, tmp_path, monkeypatch):
    afile = tmp_path / "a-file"
    afile.write_text("")
    monkeypatch.setenv("ROSETTA_CACHE", str(afile))
    monkeypatch.setenv("ROSETTA_VENVS", str(afile / "below-a-file"))
    assert path_problems(project) == [f"ROSETTA_CACHE={afile}: not a folder",
                                                    f"ROSETTA_VENVS={afile / 'below-a-file'}: cannot be created "
                                                    f"({afile} is a file)"]
    monkeypatch.setenv("ROSETTA_CACHE", str(tmp_path / "new" / "cache"))     # made when first used: fine
    monkeypatch.delenv("ROSETTA_VENVS")
    assert path_problems(project) == []
