"""Environment stage: the real framework venvs, their kernels and fingerprints."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rosetta.build import environments
from rosetta.project import Framework


def test_requirements_hash_follows_what_is_installed_and_how_only(tmp_path):
    (tmp_path / "x.txt").write_text("a==1\n")
    (tmp_path / "x.toml").write_text('label = "X"\n')
    fw = Framework("x", "X", "", 1, tmp_path / "x.txt", definition=tmp_path / "x.toml")
    first = environments.requirements_hash(fw)
    (tmp_path / "x.toml").write_text('label = "Renamed"\ninstall_notes = "words"\n')
    assert environments.requirements_hash(fw) == first, "a label or a note rebuilds nothing"
    assert environments.requirements_hash(Framework("x", "X", "", 1, tmp_path / "x.txt", install_first=("b",))) != first
    (tmp_path / "x.txt").write_text("a==2\n")
    assert environments.requirements_hash(fw) != first


@pytest.mark.envs
@pytest.mark.parametrize("name", ["pytorch", "keras-tensorflow", "keras-jax", "keras-torch", "tensorflow", "jax",
                                  "mxnet", "chainer"])
def test_framework_environment_is_ready_and_second_setup_creates_nothing(project, name):
    fw = project.framework(name)
    status = environments.ensure(project, fw)
    assert status.ok, f"{name}: {status.reason}"
    assert not status.created, "make test runs the setup first: a second setup creates nothing"
    packages = status.fingerprint["packages"]
    assert any(p in packages for p in fw.packages), f"{name}: none of {fw.packages} installed"
    assert status.fingerprint["python"].startswith("3.")
    spec = Path(sys.prefix) / "share" / "jupyter" / "kernels" / fw.kernel_name / "kernel.json"
    assert json.loads(spec.read_text())["argv"][0] == str(status.python)
    # the venv can import this repository's helpers (the .pth line) and its framework
    probe = subprocess.run([str(status.python), "-c", "import rosetta.settings, rosetta.data.cifar10"],
                           capture_output=True, text=True)
    assert probe.returncode == 0, probe.stderr


@pytest.mark.envs
def test_each_environment_has_exactly_its_pins(project):
    """Every pinned requirement is what is installed; and the environments disagree on numpy,
    which is why each framework has its own."""
    numpy = {}
    for fw in project.frameworks():
        installed = environments.fingerprint(project, fw)["packages"]
        for line in fw.requirements.read_text().splitlines():
            pin = line.split("#")[0].strip()
            if pin:
                name, version = pin.split("==")
                name = re.sub(r"\[.*\]", "", name).replace("_", "-").lower()
                assert installed.get(name) == version, (fw.name, pin, installed.get(name))
        numpy[fw.name] = installed["numpy"]
    assert len(set(numpy.values())) > 1, numpy


def test_uv_is_given_pip_s_index_settings(monkeypatch, tmp_path):
    """uv ignores pip.conf: the build hands pip's settings on, without overriding uv's own."""
    conf = tmp_path / "pip.conf"
    conf.write_text("[global]\nextra-index-url = file:///srv/a file:///srv/b\nfind-links = /srv/wheels /srv/more\n")
    for name in ("UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_FIND_LINKS", "UV_INDEX_STRATEGY", "PIP_FIND_LINKS",
                 "PIP_EXTRA_INDEX_URL", "PIP_INDEX_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PIP_CONFIG_FILE", str(conf))
    env = environments.uv_environment()
    assert env["UV_EXTRA_INDEX_URL"] == "file:///srv/a file:///srv/b"
    assert env["UV_FIND_LINKS"] == "/srv/wheels,/srv/more" and env["UV_INDEX_STRATEGY"] == "unsafe-best-match"
    monkeypatch.setenv("UV_FIND_LINKS", "/mine")
    assert environments.uv_environment()["UV_FIND_LINKS"] == "/mine"


def test_a_lock_knows_the_requirements_it_came_from(tmp_path, project):
    requirements = tmp_path / "x.txt"
    requirements.write_text("a==1\n")
    lock = environments.lock_path(requirements)
    assert lock.name == "x.lock" and not environments.lock_is_current(requirements)
    lock.write_text(f"# header\n{environments.LOCK_HEADER}{environments.file_hash(requirements)}\na==1\n")
    assert environments.lock_is_current(requirements)
    requirements.write_text("a==2\n")
    assert not environments.lock_is_current(requirements), "an edited .txt needs a new lock"
    for fw in project.frameworks():           # every committed lock matches its requirements
        assert environments.lock_is_current(fw.requirements), f"{fw.requirements.name}: run make lock"


def test_untimed_variables_are_set_only_where_nothing_is_timed(project):
    """The JAX rows compile without LLVM's optimisations at the smoke profile (make test's), never at a profile
    that measures, nor where the machine's peak is measured (no profile)."""
    from rosetta.build.environments import UNTIMED_PROFILES
    from rosetta.project import PROFILES
    for name in ("jax", "keras-jax"):
        fw = project.framework(name)
        assert environments.process_variables(project, fw, "smoke")["XLA_FLAGS"] == \
            "--xla_backend_optimization_level=0"
        for profile in set(PROFILES) - set(UNTIMED_PROFILES):
            assert "XLA_FLAGS" not in environments.process_variables(project, fw, profile)
        assert "XLA_FLAGS" not in environments.process_variables(project, fw)       # (the peak's matmul)
    assert UNTIMED_PROFILES == ("smoke",)
    assert environments.process_variables(project, project.framework("keras-jax"), "smoke")["KERAS_BACKEND"] == "jax"


def test_every_process_that_runs_a_row_s_code_gets_its_variables_from_one_place(project):
    """A kernel, a worker, the fairness harness and the probes: environments.child_variables builds what each
    gets on top of the build's environment; no other module spells those variables out again."""
    import ast

    from rosetta.project import REPO_ROOT
    fw = project.framework("keras-jax")
    found = environments.child_variables(project, fw, "smoke", TF_CPP_MIN_LOG_LEVEL="2")
    assert found == {"PYTHONHASHSEED": "0", "ROSETTA_SNIPPETS": str(project.snippets),
                     "ROSETTA_LESSONS": str(project.lessons), "ROSETTA_PROFILE": "smoke",
                     **environments.process_variables(project, fw, "smoke"), "TF_CPP_MIN_LOG_LEVEL": "2"}
    assert "ROSETTA_PROFILE" not in environments.child_variables(project, fw)
    kernel_side = {"rosetta/settings.py", "rosetta/lesson.py", "rosetta/build/environments.py"}  # (they read them)
    for path in [*sorted((REPO_ROOT / "rosetta").rglob("*.py")), *sorted((REPO_ROOT / "benchmarks").glob("*.py"))]:
        if path.relative_to(REPO_ROOT).as_posix() in kernel_side:
            continue
        spelt = {node.value for node in ast.walk(ast.parse(path.read_text()))
                 if isinstance(node, ast.Constant) and node.value in ("PYTHONHASHSEED", "ROSETTA_PROFILE",
                                                                      "ROSETTA_SNIPPETS", "ROSETTA_LESSONS")}
        assert not spelt, f"{path.relative_to(REPO_ROOT)} sets {spelt} itself: use environments.child_variables"
