"""Environment stage: the real framework venvs, their kernels and fingerprints."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rosetta import environments
from rosetta.project import Framework


def test_requirements_hash_follows_both_files(tmp_path):
    (tmp_path / "x.txt").write_text("a==1\n")
    (tmp_path / "x.toml").write_text('label = "X"\n')
    fw = Framework("x", "X", "", 1, tmp_path / "x.txt", definition=tmp_path / "x.toml")
    first = environments.requirements_hash(fw)
    (tmp_path / "x.toml").write_text('label = "X"\ninstall_first = ["b"]\n')
    assert environments.requirements_hash(fw) != first


@pytest.mark.parametrize("name", ["pytorch", "tensorflow", "mxnet", "chainer"])
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


def test_pinned_numpy_per_framework(project):
    """The framework environments disagree on numpy: that is why each has its own."""
    versions = {name: environments.fingerprint(project, project.framework(name))["packages"]["numpy"]
                for name in ("mxnet", "chainer", "pytorch")}
    assert versions["mxnet"].startswith("1.23") and versions["chainer"].startswith("1.26")
    assert versions["pytorch"].startswith("2.")
