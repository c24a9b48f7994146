"""The prepared GPU run (benchmarks/gpu/run.sh), run on this CPU machine at the smoke profile.

What it covers: the overlay environment made from an existing Python, the rows chosen from the
environments' `environment` keys, ROSETTA_PYTHON_<ENVIRONMENT> pointing the build at existing
interpreters, `build_docs.py --measure-only --results DIR`, gpu-stack.json and the summary.

What it does not cover: the GPU itself (CUDA, cuDNN, the `full` profile's sizes, the device's own
Python 3.12 with PyTorch and JAX in one interpreter), and the wheels: here PyTorch and JAX live in two
venvs (.envs/pytorch, .envs/jax), so the test hands both to run.sh as ROSETTA_PYTHON_PYTORCH and
ROSETTA_PYTHON_JAX (a caller's setting wins over the overlay), makes the overlay from the build's own
venv (.envs/docs, which has nbclient, jupytext and ipykernel), and run.sh skips its pip install step
because the overlay already imports them. bundle.sh's cp312 wheels are checked only for what they
are made of (test_bundle_wheels_are_for_the_gpu_python); lessons and equivalence checks, which the
smoke build tests elsewhere, are left out to keep this under a few minutes.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tomllib

import pytest
from conftest import REPO

from rosetta.build import results
from rosetta.project import Project

RUN = REPO / "benchmarks" / "gpu" / "run.sh"
ENVIRONMENTS = ("pytorch", "jax")


def rows_of(environments) -> list[str]:
    """The rows that run in these environments, read the way run.sh reads them."""
    return sorted(path.stem for path in (REPO / "envs").glob("*.toml") if path.stem != "docs"
                  and tomllib.loads(path.read_text()).get("environment", path.stem) in environments)


def test_versions_without_a_gpu_are_nulls(tmp_path):
    """versions.py in an interpreter without PyTorch or JAX and without nvidia-smi: nulls, no error."""
    env = {**os.environ, "PATH": str(tmp_path)}            # no nvidia-smi to be found, even on a GPU machine
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "gpu" / "versions.py")],
                          capture_output=True, text=True, timeout=120, env=env, check=True)
    record = json.loads(done.stdout)
    assert record["driver"] is None and record["nvidia_smi"] is None
    assert record["cuda"]["driver_supports"] is None


def test_cuda_and_cudnn_numbers_read_as_versions():
    spec = importlib.util.spec_from_file_location("gpu_versions", REPO / "benchmarks" / "gpu" / "versions.py")
    versions = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(versions)
    assert versions.cuda_version(13000) == "13.0" and versions.cuda_version(12040) == "12.4"
    assert versions.cudnn_version(91300) == "9.13.0" and versions.cudnn_version(8902) == "8.9.2"
    assert versions.cuda_version(None) is None and versions.cudnn_version(0) is None


@pytest.mark.envs
def test_prepared_gpu_run_at_smoke(tmp_path):
    out, overlay = tmp_path / "results", tmp_path / "overlay"
    env = {**os.environ,
           "ROSETTA_EXISTING_PYTHON": str(REPO / ".envs" / "docs" / "bin" / "python"),
           "ROSETTA_PYTHON_PYTORCH": str(REPO / ".envs" / "pytorch" / "bin" / "python"),
           "ROSETTA_PYTHON_JAX": str(REPO / ".envs" / "jax" / "bin" / "python"),
           "ROSETTA_GPU_ENVIRONMENTS": " ".join(ENVIRONMENTS)}
    for name in ("ROSETTA_MACHINE", "ROSETTA_VENVS", "ROSETTA_GPU_WHEELS"):
        env.pop(name, None)
    # This machine's float32 peak, when a build here measured it already (the smoke site's): measured once
    # per machine, as every build does; on the GPU machine the script measures it.
    here, _ = results.this_machine(Project(root=REPO))
    if (REPO / "results" / here / "machine.json").exists():
        (out / here).mkdir(parents=True)
        (out / here / "machine.json").write_bytes((REPO / "results" / here / "machine.json").read_bytes())
    run = subprocess.run(["bash", str(RUN), "--out", str(out), "--overlay", str(overlay), "--profile", "smoke",
                          "--", "--lessons", "none", "--no-equivalence", "--examples", "cnn_cifar10"],
                         cwd=REPO, capture_output=True, text=True, timeout=1800, env=env)
    log = run.stdout + run.stderr
    assert run.returncode == 0, log[-4000:]
    assert "pip install skipped" in log

    machines = [p for p in out.iterdir() if p.is_dir()]
    assert len(machines) == 1, machines
    machine = machines[0]
    assert (machine / "machine.json").exists()
    stack = json.loads((machine / "gpu-stack.json").read_text())
    assert stack["driver"] is None and stack["nvidia_smi"] is None, "no GPU here: the driver is null"
    torch_seen, jax_seen = stack["frameworks"]["torch"], stack["frameworks"]["jax"]
    assert torch_seen["cuda_available"] is False and torch_seen["devices"] == []
    assert jax_seen["backend"] == "cpu" and jax_seen["cuda"] is None and jax_seen["cudnn"] is None

    rows = rows_of(ENVIRONMENTS)
    assert {"pytorch", "jax", "keras-torch", "keras-jax"} <= set(rows)
    # One example: what this test checks is the script (overlay, interpreters, results folder, summary);
    # every snippet of these rows already runs in the smoke site, in the same interpreters.
    examples = [Project(root=REPO).example("cnn_cifar10")]
    for example in examples:
        for row in rows:
            if not example.snippet_path(Project(root=REPO).framework(row)).exists():
                continue
            path = machine / "smoke" / example.name / f"{row}.json"
            assert path.exists(), f"{path} missing\n{log[-3000:]}"
            result = json.loads(path.read_text())
            assert result["status"] == "ok", (row, example.name, result.get("reason"))
            assert (path.parent / f"{row}.ipynb").exists()
        # only these rows ran: the checkout's other environments stayed out of the run
        assert {p.stem for p in (machine / "smoke" / example.name).glob("*.json")} <= set(rows)
    assert not (machine / "smoke" / "gru_imdb").exists(), "only the example asked for ran"
    # the summary at the end names every example and row
    summary = log[log.rindex("== results in"):]
    assert all(example.name in summary for example in examples) and "pytorch" in summary and " ok " in summary


@pytest.mark.envs
def test_bundle_wheels_are_for_the_gpu_python(tmp_path):
    """bundle.sh (needs the package index pip is configured with): cp312 manylinux or pure-Python wheels
    of what the GPU Python lacks, at the locks' pins, none of what it has, and small enough to carry."""
    env = {k: v for k, v in os.environ.items() if k != "ROSETTA_DATA"}
    done = subprocess.run(["bash", str(REPO / "benchmarks" / "gpu" / "bundle.sh"), "--out", str(tmp_path)],
                          cwd=REPO, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    wheels = tmp_path / "wheels"
    pins = [line for line in (wheels / "requirements.txt").read_text().splitlines() if not line.startswith("#")]
    names = {line.split("==")[0] for line in pins}
    assert {"nbclient", "nbformat", "jupytext", "jupyter-client", "ipykernel", "keras", "traitlets"} <= names
    assert not names & {"numpy", "torch", "jax", "jaxlib", "h5py", "ml-dtypes", "debugpy", "jedi"}
    locked = (REPO / "envs" / "docs.lock").read_text().splitlines()
    assert all(pin in locked for pin in pins if pin.split("==")[0] in ("nbclient", "jupytext", "ipykernel"))
    files = list(wheels.glob("*.whl"))
    assert len(files) == len(pins), "one wheel per pinned package"
    for wheel in files:
        tags = wheel.name[:-4].split("-")[-3:]
        assert tags[2] == "any" or ("x86_64" in tags[2] and tags[0] in ("cp312", "cp310", "cp311", "py3")), wheel.name
    assert sum(f.stat().st_size for f in wheels.rglob("*.whl")) < 12 * 2**20
