"""The fairness harness (benchmarks/fairness.py), its plain scripts and rosetta.step_runner.

All fast and framework-free except the one marked `envs`, which runs one pair in its venv.
"""
from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rosetta import model
from rosetta.build import environments, identity

REPO = Path(__file__).resolve().parent.parent
SPEC = importlib.util.spec_from_file_location("fairness", REPO / "benchmarks" / "fairness.py")
fairness = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(fairness)


def plain_scripts(suffix: str = ".py") -> set[tuple[str, str]]:
    """(example, file stem) of every plain twin in that language, the other ways (<program>@<name>.py) included."""
    return {(path.parent.name, path.stem) for path in fairness.PLAIN.glob(f"*/*{suffix}")}


@pytest.mark.parametrize("language, suffix", [("python", ".py"), ("javascript", ".js")])
def test_one_plain_script_per_snippet(project, language, suffix):
    # One per program (Keras' serves 3 rows); a data-parallel example's rows run as several processes: none.
    snippets = {(ex.name, ex.snippet_path(fw).stem) for ex in project.examples() for fw in project.frameworks()
                if ex.snippet_path(fw).exists() and fw.language == language and model.example_workers(ex) == 1}
    assert snippets and {(ex, stem) for ex, stem in plain_scripts(suffix) if "@" not in stem} == snippets
    # Another way of writing a twin belongs to a program that has a twin: jax@pure-jit.py beside jax.py.
    others = {(ex, stem.partition("@")[0]) for ex, stem in plain_scripts(suffix) if "@" in stem}
    assert (others or language != "python") and others <= snippets      # (JAX's are Python)


def test_the_other_plain_twins_are_found_for_their_program_only(project):
    cnn = project.example("cnn_cifar10")
    jax = fairness.Pair.__new__(fairness.Pair)               # only the fields `alternatives` reads
    jax.example, jax.fw = cnn, project.framework("jax")
    assert jax.alternatives == {"plain@pure-jit": fairness.PLAIN / "cnn_cifar10" / "jax@pure-jit.py"}
    assert jax.plain_file("plain@pure-jit").name == "jax@pure-jit.py" and jax.plain_file("plain").name == "jax.py"
    keras_jax = fairness.Pair.__new__(fairness.Pair)         # the Keras program's row on JAX: Keras' twins only
    keras_jax.example, keras_jax.fw = cnn, project.framework("keras-jax")
    assert keras_jax.alternatives == {}
    assert fairness.about(jax.alternatives["plain@pure-jit"]) == \
        "Plain-script twin of snippets/cnn_cifar10/jax.py without Flax: pure functions under jax.jit"


@pytest.mark.parametrize("example, framework", sorted(plain_scripts()))
def test_plain_script_prints_one_json_line_with_its_time(example, framework):
    tree = ast.parse((fairness.PLAIN / example / f"{framework}.py").read_text())
    program = framework.partition("@")[0]
    assert (ast.get_docstring(tree) or "").startswith(f"Plain-script twin of snippets/{example}/{program}.py")
    prints = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "print"]
    # One print, at the end of the module, of json.dumps({...}) with timed_seconds and samples.
    assert len(prints) == 1 and isinstance(tree.body[-1], ast.Expr) and tree.body[-1].value is prints[0]
    dumped = prints[0].args[0]
    assert isinstance(dumped, ast.Call) and ast.unparse(dumped.func) == "json.dumps"
    keys = {key.value for key in dumped.args[0].keys}
    assert keys == {"timed_seconds", "samples"}
    assert "time.perf_counter()" in ast.unparse(tree)
    assert f'settings("{example}")' in ast.unparse(tree).replace("'", '"')


@pytest.mark.parametrize("example, framework", sorted(plain_scripts(".js")))
def test_a_javascript_plain_script_prints_one_json_line_with_its_time(example, framework):
    source = (fairness.PLAIN / example / f"{framework}.js").read_text()
    assert source.startswith(f"/**\n * Plain-script twin of snippets/{example}/{framework}.js")
    code = identity.javascript_identity(source)              # (its tokens: comments gone)
    assert code.split().count("console.log") == 1, "one line printed"
    last = [line for line in source.strip().splitlines() if not line.lstrip().startswith("//")][-1]
    assert last == "console.log(JSON.stringify({ timed_seconds: seconds, samples: " + last.split("samples: ")[1]
    assert "performance.now()" in source and f'settings("{example}")' in source
    assert "report" not in code.split(), "a plain script reports nothing to a build"


def test_a_javascript_row_is_run_without_a_script_variant_and_its_twin_by_deno(project):
    pair = fairness.Pair.__new__(fairness.Pair)                   # only the fields these read
    pair.project, pair.fw = project, project.framework("tensorflowjs")
    pair.run_dir, pair.python = Path("/nowhere/run"), "/venv/bin/python"
    deno = str(environments.venv_folder(project, pair.fw) / "bin" / "deno")
    assert pair.variants == ("kernel", "plain")
    assert pair.plain_command(Path("twin.js")) == [deno, "run", "--allow-all", "--quiet", "twin.js"]
    pair.fw = project.framework("pytorch")
    assert pair.variants == fairness.VARIANTS and pair.plain_command(Path("twin.py")) == \
        ["/venv/bin/python", "-P", "twin.py"]


@pytest.mark.parametrize("medians, verdict", [
    ({"kernel": 12.0, "script": 10.0, "plain": 10.0}, "snippet >10 % slower"),
    ({"kernel": 10.9, "script": 10.5, "plain": 10.0}, "within 10 %"),
    ({"kernel": 8.0, "script": 8.0, "plain": 10.0}, "snippet >10 % faster"),
])
def test_ratios_and_verdict(medians, verdict):
    out = fairness.compare(medians)
    assert out["ratios"]["kernel/plain"] == pytest.approx(medians["kernel"] / medians["plain"])
    assert out["ratios"]["kernel/script"] == pytest.approx(medians["kernel"] / medians["script"])
    assert out["ratios"]["script/plain"] == pytest.approx(medians["script"] / medians["plain"])
    assert out["verdict"] == verdict and out["verdict_basis"] == "kernel/plain"


def test_another_plain_twin_is_compared_with_the_plain_one_and_leaves_the_verdict_alone():
    out = fairness.compare({"kernel": 10.0, "script": 10.0, "plain": 10.0, "plain@pure-jit": 8.0})
    assert out["ratios"]["plain/plain@pure-jit"] == pytest.approx(1.25)
    assert out["verdict"] == "within 10 %" and out["verdict_basis"] == "kernel/plain"


def test_verdict_without_a_kernel_run_or_without_plain():
    assert fairness.compare({"script": 13.0, "plain": 10.0}) == {
        "ratios": {"script/plain": pytest.approx(1.3)}, "verdict_basis": "script/plain",
        "verdict": "snippet >10 % slower"}
    assert fairness.compare({"kernel": 13.0, "script": 10.0})["verdict"] is None


def test_summary_of_runs_keeps_the_last_error():
    ok = {"status": "ok", "seconds": 2.0, "samples": 64}
    summary = fairness.summarise_runs([ok, {**ok, "seconds": 4.0}, {**ok, "seconds": 3.0}])
    assert (summary["status"], summary["median"], summary["min"], summary["max"]) == ("ok", 3.0, 2.0, 4.0)
    failed = fairness.summarise_runs([ok, {"status": "failed", "error": "exit status 1: boom"}])
    assert failed["status"] == "failed" and failed["error"].endswith("boom") and failed["median"] == 2.0


def test_merge_keeps_the_other_entries(tmp_path):
    path = tmp_path / "machine-cpu.json"
    fairness.merge(path, "machine", "cpu", {"cnn_cifar10/pytorch": {"verdict": "within 10 %"},
                                            "gru_imdb/mxnet": {"verdict": "within 10 %"}})
    fairness.merge(path, "machine", "cpu", {"cnn_cifar10/pytorch": {"verdict": "snippet >10 % slower"}})
    data = json.loads(path.read_text())
    assert data["api_version"] == fairness.API_VERSION and (data["machine"], data["profile"]) == ("machine", "cpu")
    assert data["entries"] == {"cnn_cifar10/pytorch": {"verdict": "snippet >10 % slower"},
                               "gru_imdb/mxnet": {"verdict": "within 10 %"}}


def test_an_unreadable_results_file_is_refused(tmp_path):
    path = tmp_path / "machine-cpu.json"
    path.write_text(json.dumps({"api_version": 0, "entries": {}}))
    with pytest.raises(fairness.UsageError, match="format 0"):
        fairness.merge(path, "machine", "cpu", {})


def test_set_values_are_json_when_they_parse():
    assert fairness.parse_sets(["train_images=2560", "shuffle=false", "weights=random"]) == {
        "train_images": 2560, "shuffle": False, "weights": "random"}
    with pytest.raises(fairness.UsageError):
        fairness.parse_sets(["train_images"])


def run_steps(tmp_path, steps) -> tuple[subprocess.CompletedProcess, dict]:
    job, output = tmp_path / "job.json", tmp_path / "out.json"
    job.write_text(json.dumps({"snippet": "hand-made.py", "output": str(output), "steps": steps}))
    done = subprocess.run([sys.executable, "-P", "-m", "rosetta.step_runner", str(job)], cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, timeout=60)
    return done, json.loads(output.read_text())


def test_step_runner_times_every_step_in_one_namespace(tmp_path):
    done, out = run_steps(tmp_path, [{"name": "setup", "code": "import time\nx = 2"},
                                     {"name": "train", "code": "time.sleep(0.2)\nprint(x * 21)"}])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "42"
    assert set(out["steps"]) == {"setup", "train"} and "error" not in out
    assert 0.2 <= out["steps"]["train"] < 5 and out["steps"]["setup"] < out["steps"]["train"]


def test_step_runner_names_the_failing_step(tmp_path):
    done, out = run_steps(tmp_path, [{"name": "setup", "code": "x = 1"},
                                     {"name": "train", "code": "raise ValueError('no data\\nsecond line')"},
                                     {"name": "infer", "code": "y = 2"}])
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == "step 'train' failed: ValueError: no data"
    assert "Traceback" in done.stderr and "hand-made.py [train]" in done.stderr
    assert list(out["steps"]) == ["setup"]
    assert out["error"]["step"] == "train" and out["error"]["ename"] == "ValueError"


@pytest.mark.envs
def test_one_pair_runs_all_three_variants(project, tmp_path, monkeypatch):
    if not environments.is_current(project, project.framework("pytorch")):
        pytest.skip("no PyTorch environment (make envs)")
    monkeypatch.setattr(fairness, "OUTPUT", tmp_path)
    monkeypatch.setenv("ROSETTA_MACHINE", "test-machine")
    status = fairness.main(["--profile", "smoke", "--repeats", "1", "--examples", "gru_imdb",
                            "--frameworks", "pytorch", "--set", "train_reviews=128"])
    entry = json.loads((tmp_path / "test-machine-smoke.json").read_text())["entries"]["gru_imdb/pytorch"]
    assert status == 0 and entry["status"] == "ok" and entry["same_work"]
    assert {v: s["samples"] for v, s in entry["variants"].items()} == {"kernel": 128, "script": 128, "plain": 128}
    assert set(entry["ratios"]) == {"kernel/plain", "kernel/script", "script/plain"}
    assert entry["provenance"]["overrides"] == {"train_reviews": 128}
    assert entry["provenance"]["framework_versions"]["torch"]
    assert len(entry["provenance"]["plain_sha256"]) == len(entry["provenance"]["snippet_sha256"]) == 64


def test_the_table_of_what_is_on_record_measures_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(fairness, "OUTPUT", tmp_path)
    monkeypatch.setenv("ROSETTA_MACHINE", "box")
    summary = {"status": "ok", "median": 5.0, "min": 4.0, "max": 6.0, "runs": [4.0, 5.0, 6.0], "samples": 64}
    entry = {"example": "gru_imdb", "framework": "pytorch", "variants": {v: summary for v in fairness.VARIANTS},
             "verdict": "within 10 %", "verdict_basis": "kernel/plain", "same_work": True,
             **fairness.compare({v: 5.0 for v in fairness.VARIANTS})}
    fairness.merge(tmp_path / "box-cpu.json", "box", "cpu", {"gru_imdb/pytorch": entry})
    monkeypatch.setattr(fairness, "measure", lambda *args: pytest.fail("--table measures nothing"))
    assert fairness.main(["--table", "--examples", "gru_imdb"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("gru_imdb/pytorch"))
    assert "5.00 (4.00-6.00)" in row and "1.50" in row and row.endswith("within 10 %"), row   # max/min 6/4
    assert fairness.main(["--table", "--examples", "cnn_cifar10"]) == 0
    assert "cnn_cifar10/pytorch" not in capsys.readouterr().out


SPREAD_SPEC = importlib.util.spec_from_file_location("run_spread", REPO / "benchmarks" / "run_spread.py")
run_spread = importlib.util.module_from_spec(SPREAD_SPEC)
SPREAD_SPEC.loader.exec_module(run_spread)


@pytest.mark.parametrize("argv", [["gru_imdb", "pytorch", "--variant", "notebook"],
                                  ["gru_imdb", "pytorch", "--runs", "0"],
                                  ["gru_imdb", "pytorch", "--env", "NOEQUALS"], ["gru_imbd", "pytorch"]])
def test_run_spread_refuses_bad_input_in_one_line(argv, capsys):
    assert run_spread.main(argv) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_cpu_times_are_read_per_cpu():
    times = run_spread.cpu_times()
    assert set(times) == {f"cpu{n}" for n in range(len(times))} and len(times) >= 1
    assert all(len(values) == 8 and min(values) >= 0 for values in times.values())


@pytest.mark.envs
def test_run_spread_records_every_run_with_its_cpu_time(project, tmp_path, monkeypatch):
    if not environments.is_current(project, project.framework("pytorch")):
        pytest.skip("no PyTorch environment (make envs)")
    monkeypatch.setattr(run_spread, "OUTPUT", tmp_path)
    monkeypatch.setenv("ROSETTA_MACHINE", "test-machine")
    assert run_spread.main(["gru_imdb", "pytorch", "--variant", "plain", "--profile", "smoke", "--runs", "2",
                            "--env", "OMP_NUM_THREADS=1"]) == 0
    record = json.loads((tmp_path / "test-machine-smoke-gru_imdb-pytorch-plain-OMP_NUM_THREADS=1.json").read_text())
    assert record["environment"] == {"OMP_NUM_THREADS": "1"} and len(record["runs"]) == 2
    for run in record["runs"]:
        assert run["status"] == "ok" and run["seconds"] > 0 and run["process_cpu"] > 0
        assert run["wall"] >= run["seconds"] and set(run["cpus"]) == set(run_spread.cpu_times())


def test_a_row_s_own_sizes_are_the_sizes_its_record_names(project):
    cnn = project.example("cnn_cifar10")
    assert fairness.known_settings(cnn, "cpu", "tensorflowjs")["train_images"] == \
        cnn.sizes("cpu", "tensorflowjs")["train_images"] < fairness.known_settings(cnn, "cpu")["train_images"]
