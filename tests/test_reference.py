"""The reference results kept in the repository are current for this checkout, and a stale one is named
with the one command that re-measures it."""
from __future__ import annotations

import json
import shutil

import pytest

from rosetta.build import lessons, reference, store
from rosetta.project import REFERENCE_RESULTS, REPO_ROOT, Project


@pytest.fixture(scope="module")
def project():
    return Project(root=REPO_ROOT)


def test_no_reference_result_is_stale_for_this_code(project):
    stale = reference.stale_rows(project, REPO_ROOT / REFERENCE_RESULTS)
    assert not stale, (
        f"{len(stale)} reference result(s) measured code that has changed since: "
        + ", ".join(f"{row} ({row.profile} on {row.machine})" for row in stale)
        + f". Re-measure only these, on a machine of the reference's kind: {reference.refresh_command(stale)}")


def test_the_store_reads_every_reference_result_as_it_was_written(project):
    """The store's layout and formats are those of the results on record: every file of every kind under
    benchmarks/reference is found where the store looks and read without a problem, each of its own kind."""
    root = REPO_ROOT / REFERENCE_RESULTS
    read = {kind.name: 0 for kind in (store.BENCHMARK, store.LESSON, store.CHECK)}
    for machine, profile in reference.stored_profiles(root):
        folder = root / machine / profile
        for kind in (store.BENCHMARK, store.LESSON, store.CHECK):
            for path in kind.files(folder):
                if kind is store.BENCHMARK and path.parent.name.startswith("_"):
                    continue             # (a check's file sits one level down, like a row's)
                result = store.load(kind, path)
                name, row = (path.parent.name, path.stem) if kind.rows else (path.stem, "")
                assert kind.path(root, machine, profile, name, row) == path
                assert result.get("profile", profile) == profile
                read[kind.name] += 1
    assert all(read.values()), read
    assert len(store.all_stored(project, store.BENCHMARK, "cnn_cifar10")) >= 5      # (a build reads them beside
    assert len(store.all_stored(project, store.LESSON, "momentum")) >= 1            # its own, through the store)


def test_the_reference_keeps_lessons_and_equivalence_checks(project):
    """Per profile, over its machines (a check re-measured alone may come from another machine of the kind):
    every lesson a machine without a GPU can run (every lesson, with one), and every example's check."""
    root = REPO_ROOT / REFERENCE_RESULTS
    profiles = reference.stored_profiles(root)
    assert profiles, "no reference results"
    for profile in {profile for _, profile in profiles}:
        machines = [machine for machine, p in profiles if p == profile]
        with_gpu = any(json.loads((root / machine / "machine.json").read_text()).get("gpus") for machine in machines)
        assert {p.parent.name for machine in machines for p in (root / machine / profile).glob("_lessons/*/*.json")} \
            == {lesson.name for lesson in lessons.all_lessons(project)[0]
                if profile in lesson.profiles and (with_gpu or lesson.requires != "gpu")}, \
            "every lesson these machines can run was measured"
        checks = {p.stem for machine in machines for p in (root / machine / profile).glob("_equivalence/*.json")}
        assert sorted(checks) == sorted(ex.name for ex in project.examples() if (ex.folder / "equivalence").is_dir())


def test_a_changed_result_is_named_with_the_command_that_remeasures_only_it(project, tmp_path):
    root = tmp_path / "reference"
    shutil.copytree(REPO_ROOT / REFERENCE_RESULTS, root)
    result = next(root.glob("*/*/cnn_cifar10/pytorch.json"))      # (the reference may span machines)
    machine, profile = result.parent.parent.parent.name, result.parent.parent.name
    data = json.loads(result.read_text())
    data["provenance"]["code"]["snippet_identity"] = "0" * 64            # measured other code
    result.write_text(json.dumps(data))
    lesson = next((root / machine / profile / "_lessons" / "momentum").glob("chainer.json"))
    data = json.loads(lesson.read_text())
    data["provenance"]["code"]["definition_identity"] = "0" * 64          # other settings
    lesson.write_text(json.dumps(data))
    check = next(root.glob("*/*/_equivalence/gru_imdb.json"))
    data = json.loads(check.read_text())
    data["cache_key"] = "0" * 64
    check.write_text(json.dumps(data))
    stale = reference.stale_rows(project, root)
    assert sorted(str(row) for row in stale) == ["cnn_cifar10/pytorch", "gru_imdb/equivalence",
                                                 "momentum/chainer"]      # (in the order of their folders)
    assert reference.refresh_command(stale) == \
        'make reference ROWS="cnn_cifar10/pytorch gru_imdb/equivalence momentum/chainer"'


def test_a_refresh_measures_each_example_or_lesson_once_with_only_its_named_rows(project):
    assert reference.selections(project, ["cnn_cifar10/pytorch", "cnn_cifar10/jax", "momentum/chainer", "gru_imdb"]) \
        == [["--examples", "cnn_cifar10", "--lessons", "none", "--frameworks", "jax,pytorch"],
            ["--examples", "none", "--lessons", "momentum", "--frameworks", "chainer"],
            ["--examples", "gru_imdb", "--lessons", "none"]]
    assert reference.selections(project, ["momentum", "softmax_twice", "adam_epsilon/jax"]) \
        == [["--examples", "none", "--lessons", "adam_epsilon", "--frameworks", "jax"],
            ["--examples", "none", "--lessons", "momentum,softmax_twice"]], "whole lessons: one build"
    assert reference.selections(project, ["resnet50_features/equivalence", "gru_imdb/equivalence", "gru_imdb"]) \
        == [["--examples", "gru_imdb", "--lessons", "none"],
            ["--examples", "resnet50_features", "--lessons", "none", "--equivalence-only"]]
    # An example's ONNX conversions run with its check: their record is copied with it (their .onnx files are not).
    assert reference.measured_files(project, ["gru_imdb/equivalence"]) == ["_equivalence/gru_imdb.json",
                                                                           "_conversion/gru_imdb.json"]
    assert reference.measured_files(project, ["momentum/chainer"]) == ["_lessons/momentum/chainer.json",
                                                                       "_lessons/momentum/chainer.ipynb"]
    with pytest.raises(SystemExit, match="'cnn/pytorch': no example or lesson 'cnn'"):
        reference.selections(project, ["cnn/pytorch"])
    # Every benchmark row of the reference is the median of 3 runs, the spread kept beside it.
    commands = reference.build_commands(project, ["cnn_cifar10/pytorch", "momentum"], "cpu")
    assert [command[2:7] for command in commands] == [["--measure-only", "--profile", "cpu", "--repeats", "3"]] * 2


def test_the_whole_reference_is_every_example_and_every_lesson_the_machine_can_run_each_run_again(project):
    """make reference (no ROWS): each example whole (its rows, check and conversions) and each lesson of the
    profile, a GPU lesson only on a machine with one; --force, so a row this checkout already holds runs again."""
    every = reference.every_row(project, "cpu", with_gpu=False)
    found = lessons.all_lessons(project)[0]
    assert every[:len(project.examples())] == [ex.name for ex in project.examples()]
    assert sorted(every[len(project.examples()):]) == sorted(
        lesson.name for lesson in found if "cpu" in lesson.profiles and lesson.requires != "gpu")
    gpu_only = {lesson.name for lesson in found if "cpu" in lesson.profiles and lesson.requires == "gpu"}
    assert set(reference.every_row(project, "cpu", with_gpu=True)) == set(every) | gpu_only
    commands = reference.build_commands(project, every, "cpu", force=True)
    assert len(commands) == len(project.examples()) + 1 and all("--force" in command for command in commands)
    assert commands[-1][-4:] == ["--examples", "none", "--lessons", ",".join(every[len(project.examples()):])], \
        "the lessons in one build"
    assert not any("--force" in command for command in reference.build_commands(project, every, "cpu"))


def test_a_whole_run_supersedes_only_the_folders_of_its_own_kind_of_machine(tmp_path):
    """Another band or day of this hardware is removed after a whole run here; another CPU, and another profile
    of this hardware, are kept."""
    def machine(name: str, cpu: str, gflops: float, profiles=("cpu",)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "machine.json").write_text(json.dumps(
            {"cpu": cpu, "cpu_flags": "AVX-512", "cores": 2, "gpus": [], "float32_matmul": {"gflops": gflops}}))
        (tmp_path / name / "environments.json").write_text("{}")
        for profile in profiles:
            (tmp_path / name / profile / "cnn_cifar10").mkdir(parents=True)
    machine("epyc-200-400", "AMD EPYC", 250)
    machine("epyc-100-200", "AMD EPYC", 190)
    machine("epyc-old-smoke", "AMD EPYC", 300, profiles=("cpu", "smoke"))
    machine("xeon-200-400", "Intel Xeon", 350)
    superseded = reference.same_kind(tmp_path, "epyc-100-200", "cpu")
    assert superseded == [tmp_path / "epyc-200-400" / "cpu", tmp_path / "epyc-old-smoke" / "cpu"]
    reference.remove_superseded(superseded)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["epyc-100-200", "epyc-old-smoke", "xeon-200-400"]
    assert [p.name for p in (tmp_path / "epyc-old-smoke").iterdir() if p.is_dir()] == ["smoke"]


def test_a_publishing_build_takes_as_its_own_the_machine_that_measured_the_rows(tmp_path):
    """A check re-measured alone on another machine of the kind sits in the same folder as the machine that
    measured the rows: the rows' machine is the pages' own, whichever name sorts first."""
    from rosetta.build import stages
    folder = tmp_path / "reference"
    (folder / "a-checks-only" / "cpu" / "_equivalence").mkdir(parents=True)
    (folder / "a-checks-only" / "cpu" / "_equivalence" / "cnn_cifar10.json").write_text("{}")
    (folder / "b-rows" / "cpu" / "cnn_cifar10").mkdir(parents=True)
    (folder / "b-rows" / "cpu" / "cnn_cifar10" / "pytorch.json").write_text("{}")
    (folder / "b-rows" / "smoke" / "cnn_cifar10").mkdir(parents=True)
    found = [(folder, "a-checks-only", "cpu"), (folder, "b-rows", "cpu"), (folder, "b-rows", "smoke")]
    assert stages.pages_own([folder], found) == (folder, "b-rows", "cpu")
    assert stages.pages_own([tmp_path / "other", folder], [(tmp_path / "other", "c", "smoke"), *found]) == \
        (tmp_path / "other", "c", "smoke"), "the first folder given comes first"


def test_no_reference_notebook_keeps_a_path_of_the_machine_that_measured_it(project, tmp_path):
    """Warnings print their file's path; a stored notebook keeps the package's file, not the machine's folders."""
    from rosetta.build import store
    found = [str(path) for path in (project.root / "benchmarks" / "reference").rglob("*.ipynb")
             if store.LOCAL_PATH.search(path.read_text())]
    assert found == [], found
    warning = "/home/me/rosetta/.envs/pytorch/lib/python3.11/site-packages/torch/jit/_script.py:1491: FutureWarning"
    store.save(store.LESSON, tmp_path / "pytorch.json", {"status": "ok"}, '{"text": "' + warning + '"}')
    assert (tmp_path / "pytorch.ipynb").read_text() == \
        '{"text": "<environment>/site-packages/torch/jit/_script.py:1491: FutureWarning"}'


def test_a_refresh_copies_measurements_only_and_names_the_rows_left_out(tmp_path):
    """A row that found no data (or failed, or had no environment) is no measurement: it is not copied into the
    reference, nor its notebook, and the refresh says which and why; an equivalence check is copied whatever it
    found."""
    project = Project(root=REPO_ROOT, results=tmp_path / "results")
    here = project.results / "box" / "cpu"
    for row, status in (("pytorch", "ok"), ("jax", "data-error")):
        folder = here / store.LESSON.folder / "momentum"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{row}.json").write_text(json.dumps({"status": status, "reason": "CIFAR-10 not found"}))
        (folder / f"{row}.ipynb").write_text("{}")
    (here / store.CHECK.folder).mkdir(parents=True)
    (here / store.CHECK.folder / "cnn_cifar10.json").write_text(json.dumps({"passed": False}))
    for name in ("machine.json", "environments.json"):
        (project.results / "box" / name).write_text("{}")
    target = tmp_path / "reference"
    copied, refused = reference.copy_measured(project, "box", "cpu", ["momentum", "cnn_cifar10/equivalence"], target)
    assert sorted(copied) == ["box/cpu/_equivalence/cnn_cifar10.json", "box/cpu/_lessons/momentum/pytorch.ipynb",
                              "box/cpu/_lessons/momentum/pytorch.json"]
    assert refused == ["_lessons/momentum/jax: data-error: CIFAR-10 not found"]
    assert not (target / "box" / "cpu" / "_lessons" / "momentum" / "jax.ipynb").exists()


def test_a_whole_reference_replaces_its_machines_folder_only_when_every_row_was_measured(tmp_path):
    """make reference (whole): a result left in the machine's folder by an older run (a row since removed) goes
    when every row was measured; when one row found no data, the old folder keeps its results."""
    project = Project(root=REPO_ROOT, results=tmp_path / "results")
    here = project.results / "box" / "cpu" / store.LESSON.folder / "momentum"
    here.mkdir(parents=True)
    (here / "pytorch.json").write_text(json.dumps({"status": "ok"}))
    for name in ("machine.json", "environments.json"):
        (project.results / "box" / name).write_text("{}")
    target = tmp_path / "reference"
    old = target / "box" / "cpu" / store.LESSON.folder / "removed_lesson" / "pytorch.json"
    old.parent.mkdir(parents=True)
    old.write_text("{}")
    (here / "jax.json").write_text(json.dumps({"status": "data-error", "reason": "CIFAR-10 not found"}))
    assert reference.copy_measured(project, "box", "cpu", ["momentum"], target, whole=True)[1] != []
    assert old.exists(), "a row not measured: the older results stay"
    (here / "jax.json").write_text(json.dumps({"status": "ok"}))
    copied, refused = reference.copy_measured(project, "box", "cpu", ["momentum"], target, whole=True)
    assert refused == [] and not old.exists()
    assert sorted(copied) == ["box/cpu/_lessons/momentum/jax.json", "box/cpu/_lessons/momentum/pytorch.json"]


def test_a_script_that_no_machine_measured_is_named_missing(project, tmp_path):
    """A new script (a row added to a lesson or an example) is named with the rows to measure, like a stale one;
    a row measured on any machine of the profile is not missing."""
    root = tmp_path / "reference"
    shutil.copytree(REPO_ROOT / REFERENCE_RESULTS, root)
    for path in [*root.glob("*/cpu/_lessons/momentum/chainer.*"), *root.glob("*/cpu/gru_imdb/jax.*")]:
        path.unlink()                                            # as if these scripts were new
    keep = sorted(root.glob("*/cpu/_lessons/dropout_at_test/pytorch.json"))
    for path in keep[1:]:
        path.unlink()                                            # still measured on one machine
    missing = [row for row in reference.stale_rows(project, root) if row.state == "missing"]
    assert sorted(str(row) for row in missing) == ["gru_imdb/jax", "momentum/chainer"]
    assert {row.profile for row in missing} == {"cpu"}
