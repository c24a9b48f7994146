"""ruff over the whole tree, snippets included (its settings are in pyproject.toml)."""
import subprocess
import sys

from conftest import REPO


def test_ruff_finds_nothing():
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=REPO,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
