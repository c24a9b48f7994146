"""Shared fixtures: the real project, and a real smoke-profile build of it (made once)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rosetta.project import Project  # noqa: E402


@pytest.fixture(scope="session")
def project() -> Project:
    return Project(root=REPO)


@pytest.fixture(scope="session")
def smoke_site(tmp_path_factory):
    """Build the real site at the smoke profile, executing every snippet in its own kernel."""
    output = tmp_path_factory.mktemp("site") / "html"
    cmd = [sys.executable, str(REPO / "build_docs.py"), "--profile", "smoke", "--force", "--strict",
           "--output", str(output)]
    # Offline here: the ResNet tabs use seeded random weights, and the pages must say so.
    env = {**os.environ, "ROSETTA_WEIGHTS": "random"}
    run = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=1800, env=env)
    return {"output": output, "returncode": run.returncode, "log": run.stdout + run.stderr}
