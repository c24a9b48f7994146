"""The real site at the smoke profile: every snippet executed in its own environment, `sphinx-build -W`."""
from __future__ import annotations

import json
import re

import pytest
from conftest import REPO

from rosetta.build import lessons, results, store, variables
from rosetta.project import Project

pytestmark = pytest.mark.envs

ROWS = Project(root=REPO).frameworks()
WITHOUT_ZOO = {"tensorflow", "jax", "theano"}       # ResNet-50 written in the snippet, seeded random weights
EXAMPLES = {"cnn_cifar10": ["setup", "data", "model", "train", "infer"],
            "resnet50_features": ["setup", "data", "model", "infer"],
            "gru_imdb": ["setup", "data", "model", "train", "infer"]}
# Not every row has every example (the coverage matrix says "not written"): what is written here.
COVERAGE = {"mxnet-module": {"cnn_cifar10", "gru_imdb"}, "convnetjs": {"cnn_cifar10"},
            "tensorflowjs": {"cnn_cifar10", "gru_imdb"}}


def written(example: str) -> list[str]:
    """The rows with a script for this example."""
    folder = REPO / "snippets" / example
    return [fw.name for fw in ROWS if fw.script(folder).exists()]


def tabs(example: str) -> int:
    """One tab per program (Keras 3: one tab, three rows)."""
    return len({fw.program for fw in ROWS if fw.name in written(example)})


PAIRS = [(example, name) for example in EXAMPLES for name in written(example)]


def test_every_row_has_the_examples_it_should():
    for fw in ROWS:
        assert {ex for ex in EXAMPLES if fw.name in written(ex)} == COVERAGE.get(fw.name, set(EXAMPLES)), fw.name


def lesson_scripts() -> list[tuple[str, str]]:
    project = Project(root=REPO)
    found, _ = lessons.all_lessons(project)
    return [(item.name, fw.name) for item in found for fw in item.frameworks(project.frameworks())]


def test_site_builds_with_warnings_as_errors(smoke_site):
    """Sphinx -W made the site. A tab that failed makes the --strict build exit 1 after that, and the build's
    summary names it (its row's own test fails with its traceback); any other exit status is this test's."""
    log = smoke_site["log"]
    assert smoke_site["built"] and "sphinx-build -W" in log, log[-4000:]
    assert (smoke_site["output"] / "index.html").exists()
    explained = "snippet(s) did not run:" in log or "equivalence problem(s)" in log
    assert smoke_site["returncode"] == 0 or (smoke_site["returncode"] == 1 and explained), log[-4000:]


def test_the_build_ends_with_where_its_time_went(smoke_site):
    """The phase table: every example's kernel start-ups, snippets and equivalence checks, the lessons, the
    pages and Sphinx, each with its wall time, adding up (with the rest) to the whole build."""
    log = smoke_site["log"]
    assert "where the time went:" in log, log[-3000:]
    table = log[log.index("where the time went:"):].splitlines()[2:]
    seconds = {}
    for line in table:
        row = re.match(r"^(.+?)\s{2,}([0-9.]+)\s+([0-9.]+)%$", line)
        if not row:
            break
        seconds[row.group(1)] = float(row.group(2))
    # (At smoke, on a machine without a GPU, snippets and lesson scripts run two at a time: one phase each,
    # its wall time, instead of kernel start-ups and scripts.)
    for example in EXAMPLES:
        snippets = [name for name in seconds if name.startswith(f"{example}: snippets")]
        assert snippets and all(seconds[name] > 0 for name in snippets), (example, seconds)
        assert seconds[f"{example}: equivalence"] > 0, (example, seconds)
    lessons = [name for name in seconds if name.startswith("lessons: scripts")]
    assert lessons and all(seconds[name] > 0 for name in lessons), seconds
    assert seconds["pages"] > 0 and seconds["sphinx-build"] > 0
    parts = sum(value for name, value in seconds.items() if name != "whole build")
    assert abs(parts - seconds["whole build"]) <= 0.2 + 0.001 * seconds["whole build"], seconds


def smoke_record(project, example, framework):
    machine, _ = results.this_machine(project, variables.read().machine)
    return json.loads(store.BENCHMARK.path(project.results, machine, "smoke", example, framework).read_text())


def failure(record) -> str:
    """A result that did not run, as the row's test reports it: status, error and the whole traceback."""
    error = record.get("error") or {}
    return (f"{record['example']}/{record['framework']}: {record['status']} at its {error.get('step')} step: "
            f"{error.get('ename')}: {error.get('evalue')}\n{error.get('traceback', record.get('reason'))}")


def smoke_result(project, example, framework):
    """The row's result, for the tests of what it measured: a row that did not run fails one test (the next
    one, which names it with its traceback); its other tests skip and say so."""
    record = smoke_record(project, example, framework)
    if record["status"] != "ok":
        pytest.skip(f"{example}/{framework} did not run ({record['status']}): its failure is "
                    f"test_every_snippet_ran_in_its_own_environment[{example}-{framework}]")
    return record


@pytest.mark.parametrize("example, framework", PAIRS)
def test_every_snippet_ran_in_its_own_environment(smoke_site, project, example, framework):
    record = smoke_record(project, example, framework)
    assert record["status"] == "ok", failure(record)
    assert list(record["steps"]) == sorted(EXAMPLES[example]) or set(record["steps"]) == set(EXAMPLES[example])
    prov = record["provenance"]
    assert prov["data_source"].startswith("synthetic") or prov["data_source"].startswith("seeded random")
    assert prov["profile"] == "smoke" and prov["sizes"] == project.example(example).sizes("smoke", framework)
    assert set(prov["framework_versions"]) >= {"numpy", "python"}
    assert record["metrics"]["throughput"] > 0


@pytest.mark.parametrize("framework", written("resnet50_features"))
def test_resnet_features_have_the_right_shape(smoke_site, project, framework):
    metrics = smoke_result(project, "resnet50_features", framework)["metrics"]
    smoke = project.example("resnet50_features").profiles["smoke"]
    assert metrics["feature_size"] == 2048 and metrics["images"] == smoke["batch_size"] * smoke["batches"]
    assert "random weights" in smoke_result(project, "resnet50_features", framework)["provenance"]["weights"]


@pytest.mark.parametrize("example, framework", [pair for pair in PAIRS if pair[0] != "resnet50_features"])
def test_accuracy_is_counted_over_the_whole_test_set(smoke_site, project, framework, example):
    """A whole number of correct answers out of the profile's test set (a partial last batch included)."""
    test_size = {"cnn_cifar10": "test_images", "gru_imdb": "test_reviews"}[example]
    n_test = project.example(example).sizes("smoke", framework)[test_size]
    correct = smoke_result(project, example, framework)["metrics"]["accuracy"] * n_test
    assert correct == pytest.approx(round(correct), abs=1e-6), f"{correct} correct out of {n_test}?"


@pytest.mark.parametrize("framework", written("gru_imdb"))
def test_gru_reports_its_kernel_and_training_size(smoke_site, project, framework):
    metrics = smoke_result(project, "gru_imdb", framework)["metrics"]
    assert metrics["fused_kernel"].startswith(("yes", "no"))
    assert metrics["train_samples"] == project.example("gru_imdb").profiles["smoke"]["train_reviews"]


@pytest.mark.parametrize("example", EXAMPLES)
def test_benchmark_pages_have_synced_tabs_table_chart_and_downloads(smoke_site, example):
    html = smoke_site["output"]
    page = (html / "_gen" / "benchmarks" / f"{example}.html").read_text()
    n_steps = len(EXAMPLES[example])
    sets = n_steps + 1                                     # each step's, and the "Whole programs" downloads
    assert page.count('data-sync-group="framework"') == sets * tabs(example)
    for label in ("PyTorch", "Keras 3", "TensorFlow", "JAX", "MXNet", "Chainer"):
        assert len(re.findall(rf">\s*{label}\s*</label>", page)) == sets, label
    for label in ("TensorFlow backend", "JAX backend", "PyTorch backend"):   # Keras 3's rows: a tab each under it
        assert len(re.findall(rf">\s*{label}\s*</label>", page)) == n_steps, label
    # A step time under each step of every row that ran; a row that failed shows "failed" at its step instead
    # (its own test names it) and the times of the steps it finished.
    records = [smoke_record(Project(root=REPO), example, fw) for fw in written(example)]
    shown = sum(n_steps if r["status"] == "ok" else len(set(r["steps"]) - {(r["error"] or {}).get("step")})
                for r in records)
    assert page.count("Step time:") == shown
    assert page.count("This step failed") + page.count("This step timed out") == \
        sum(r["status"] in ("failed", "timeout") for r in records)
    assert "profile <strong>smoke</strong>" in page, "the build note names the profile"
    legend_profile = '<td><p><code class="docutils literal notranslate"><span class="pre">smoke</span></code>'
    assert legend_profile in page, "and the legend's profile cell"
    assert f"{example}-times.png" in page
    for fw, record in zip(written(example), records):
        script = next(row for row in ROWS if row.name == fw).script(REPO / "snippets" / example)
        notebook = (html / "_gen" / "notebooks" / example / f"{fw}.html").read_text()
        # (the program's own file: keras.py on each Keras row's page; a failed row's reports nothing)
        assert script.name in notebook and f"{fw}.ipynb" in notebook
        assert "reported:" in notebook or record["status"] != "ok", fw
    home = (html / "index.html").read_text()
    assert f"_gen/benchmarks/{example}.html" in home, "the home page links every benchmark"


def test_random_weights_are_named_on_the_resnet_page(smoke_site):
    page = (smoke_site["output"] / "_gen" / "benchmarks" / "resnet50_features.html").read_text()
    assert page.count("random weights") >= 2          # the build note and the table legend


def test_gru_table_has_the_fused_kernel_column_and_environments_page(smoke_site, project):
    html = smoke_site["output"]
    page = (html / "_gen" / "benchmarks" / "gru_imdb.html").read_text()
    assert "uses fused GRU kernel?" in page and "fused CPU RNN operator" in page
    environments = (html / "_gen" / "environments.html").read_text()
    for fw in project.frameworks():        # every pin of every requirements file, as installed
        for line in fw.requirements.read_text().splitlines():
            pin = line.split("#")[0].strip()
            if pin:
                assert pin.replace("[and-cuda]", "") in environments, (fw.name, pin)


def test_pretrained_weights_that_cannot_be_downloaded_fail_clearly(smoke_site, tmp_path):
    """Weights not cached and no way to download them, without ROSETTA_WEIGHTS=random: each ResNet tab
    fails at its model step with a hint, nothing falls back silently, and the site still builds.
    The failure is forced (an empty home for the zoos' caches, every download sent to a closed local
    port), so the test means the same with or without internet access."""
    import os
    import subprocess
    import sys

    from conftest import REPO
    unset = ("ROSETTA_WEIGHTS", "TORCH_HOME", "KERAS_HOME", "MXNET_HOME", "CHAINER_DATASET_ROOT", "XDG_CACHE_HOME",
             "NO_PROXY", "no_proxy")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    closed = "http://127.0.0.1:9"
    env.update({"HOME": str(tmp_path / "home"), "HTTP_PROXY": closed, "HTTPS_PROXY": closed,
                "http_proxy": closed, "https_proxy": closed, "ALL_PROXY": closed})
    # The snippets alone: the equivalence checks bring their own weights (no download), so they would only
    # repeat the smoke site's; the machine's peak is the smoke site's too (measured once per machine).
    for machine in (REPO / "results").glob("*/machine.json"):
        (tmp_path / "results" / machine.parent.name).mkdir(parents=True, exist_ok=True)
        (tmp_path / "results" / machine.parent.name / "machine.json").write_bytes(machine.read_bytes())
    # The rows with a model zoo: the others fetch nothing. Their snippets say so in the provenance (a note that
    # replaces settings()' own, whatever ROSETTA_WEIGHTS says): the smoke site's records of them are read.
    zoo = [fw for fw in written("resnet50_features") if fw not in WITHOUT_ZOO]
    cmd = [sys.executable, str(REPO / "build_docs.py"), "--profile", "smoke", "--examples", "resnet50_features",
           "--frameworks", ",".join(zoo), "--lessons", "none", "--no-equivalence", "--results",
           str(tmp_path / "results"), "--output", str(tmp_path / "html"), "--timeout", "300"]
    run = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=1200, env=env)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    for fw in WITHOUT_ZOO:           # no pretrained weights to fetch: random, and the provenance says why
        record = json.loads(next((REPO / "results").glob(f"*/smoke/resnet50_features/{fw}.json")).read_text())
        assert record["status"] == "ok" and "no" in record["provenance"]["weights"] and \
            "model zoo" in record["provenance"]["weights"], (fw, record["provenance"]["weights"])
    for fw in zoo:
        record = json.loads(next((tmp_path / "results").glob(f"*/smoke/resnet50_features/{fw}.json")).read_text())
        assert record["status"] == "failed" and record["error"]["step"] == "model", (fw, record["error"])
        assert not record["provenance"]["weights"].startswith("random weights")
    page = (tmp_path / "html" / "_gen" / "benchmarks" / "resnet50_features.html").read_text()
    assert page.count("ROSETTA_WEIGHTS=random") >= 4 and "This step failed" in page


@pytest.mark.parametrize("name, framework", lesson_scripts())
def test_every_lesson_script_ran_at_smoke_in_its_environment(smoke_site, project, name, framework):
    machine, _ = results.this_machine(project, variables.read().machine)
    record = json.loads(store.LESSON.path(project.results, machine, "smoke", name, framework).read_text())
    assert record["status"] == "ok", record.get("error")
    lesson = lessons.load_lesson(project.lessons / name)
    assert record["variants"] and set(record["variants"]) <= set(lesson.variants)
    for variant, measured in record["variants"].items():
        assert len(measured["seconds"]) == lesson.profiles["smoke"].get("repeats", 3), variant
    source = record["provenance"]["data_source"] or ""
    assert source == "" or source.startswith(("synthetic", "seeded random")), "smoke reads no real data"


def test_lesson_pages_have_verdicts_synced_tabs_and_the_index(smoke_site, project):
    html = smoke_site["output"]
    found, _ = lessons.all_lessons(project)
    index = (html / "_gen" / "lessons.html").read_text()
    for item in found:
        page = (html / "_gen" / "lessons" / f"{item.name}.html").read_text()
        scripts = {item.snippet_path(fw) for fw in item.frameworks(project.frameworks())}   # keras.py: one tab
        assert page.count('data-sync-group="framework"') == len(item.steps) * len(scripts), item.name
        assert "Verdict" in page and "Downloads" in page
        assert f"_gen/lessons/{item.name}.html" in index or f"lessons/{item.name}.html" in index
    assert "_gen/lessons.html" in (html / "index.html").read_text(), "the home page links the lessons"
