"""The model of the project (rosetta/model.py): every TOML file read and checked in one place, a misspelt key
named with the file and the nearest known key, on the real files and on a tiny project's, and on the command
line (one error, exit 2, before anything runs)."""
import shutil
import subprocess
import sys

import pytest
from test_tiny_site import make_project

from rosetta import model
from rosetta.build import lessons
from rosetta.project import REPO_ROOT, Project, UsageError
from rosetta.site import systems


def test_every_file_of_the_real_project_passes_its_check(project):
    model.check_project(project)
    assert lessons.all_lessons(project)[1] == [], "every lesson.toml loads"
    assert systems.load_systems(project), "docs/systems.toml loads"


@pytest.fixture
def tiny(tmp_path):
    return Project(root=make_project(tmp_path / "tiny").resolve())


def test_a_misspelt_key_of_a_row_is_one_error_naming_the_file_the_key_and_the_nearest(tiny):
    path = tiny.envs / "alpha.toml"
    path.write_text(path.read_text().replace("label =", "lable ="))
    with pytest.raises(UsageError) as info:
        model.check_project(tiny)
    assert str(info.value).startswith(f"{path}: unknown key 'lable'. Did you mean 'label'? Known: label, api,")
    assert str(info.value).count("\n") == 0, "one line: the other files are fine"


def test_keys_are_checked_inside_tables_and_arrays_of_tables(tiny):
    row = tiny.envs / "beta.toml"
    row.write_text(row.read_text() + '\n[data_parallel]\nevn = { RANK = "$rank" }\n'
                   '[[data_parallel.helpers]]\nname = "server"\ncdoe = "pass"\n')
    example = tiny.snippets / "tiny" / "example.toml"
    example.write_text(example.read_text() + '\n[[left_out]]\nrows = ["beta"]\nwy = "no reason"\n')
    with pytest.raises(UsageError) as info:
        model.check_project(tiny)
    lines = str(info.value).splitlines()
    assert f"{row}: unknown key [data_parallel] 'evn'. Did you mean 'env'?" in "\n".join(lines)
    assert f"{row}: unknown key [data_parallel] [[helpers]] #1 'cdoe'. Did you mean 'code'?" in "\n".join(lines)
    assert f"{example}: unknown key [[left_out]] #1 'wy'. Did you mean 'why'?" in "\n".join(lines)
    assert len(lines) == 3, "every unknown key of every file, each once"


def test_a_misspelt_key_of_a_lesson_is_that_lesson_s_problem_and_the_others_still_load(tiny):
    path = tiny.lessons / "sleepy" / "lesson.toml"
    shutil.copytree(path.parent, tiny.lessons / "awake")
    path.write_text(path.read_text().replace("claim =", "cliam =", 1))
    found, problems = lessons.all_lessons(tiny)
    assert "awake" in [lesson.name for lesson in found] and "sleepy" not in [lesson.name for lesson in found]
    expected = f"{path}: unknown key 'cliam'. Did you mean 'claim'? Known: " + ", ".join(model.LESSON) + "."
    assert [line for line in problems if "sleepy" in line] == [expected]


def test_a_file_is_read_again_when_it_changes_and_no_reader_can_change_another_s_copy(tiny):
    path = tiny.snippets / "tiny" / "example.toml"
    first = model.read(path)
    first["title"] = "changed by a reader"
    assert model.read(path)["title"] == "Tiny sums"
    path.write_text(path.read_text().replace("Tiny sums", "Tiny totals"))
    assert model.read(path)["title"] == "Tiny totals"


def test_the_command_line_says_so_once_and_runs_nothing(tiny):
    path = tiny.snippets / "slow" / "example.toml"
    path.write_text(path.read_text().replace("timed_step =", "timed_stpe =", 1))
    done = subprocess.run([sys.executable, str(REPO_ROOT / "build_docs.py"), "--root", str(tiny.root),
                           "--profile", "smoke", "--no-sphinx"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr == f"error: {path}: unknown key 'timed_stpe'. Did you mean 'timed_step'? Known: " \
        + ", ".join(model.EXAMPLE) + ".\n"
    assert not (tiny.root / "results").exists() and not (tiny.root / "_build").exists()
