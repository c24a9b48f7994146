"""Shared fixtures: the real project, and a real smoke-profile build of it (made once)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rosetta.project import Project  # noqa: E402


def copy_machine_records(results: Path) -> None:
    """The checkout's machine.json files into another results folder: the machine's peak, measured once per
    machine, is part of its name (and so of every result's and kept output's key)."""
    for machine in (REPO / "results").glob("*/machine.json"):
        (results / machine.parent.name).mkdir(parents=True, exist_ok=True)
        shutil.copy(machine, results / machine.parent.name)


@pytest.fixture(scope="session")
def project() -> Project:
    return Project(root=REPO)


@pytest.fixture(scope="session")
def smoke_site(tmp_path_factory):
    """Build the real site at the smoke profile, executing every snippet in its own kernel.

    A developer iterating on pages or browser tests may set ROSETTA_REUSE_SITE to a site already built
    (e.g. by `make publish`): it is used as it is, with no build log (the tests of the log then fail, and the
    planted-difference checks start from whatever worker outputs _build/equivalence/ holds).
    """
    reuse = os.environ.get("ROSETTA_REUSE_SITE")
    if reuse:
        return {"output": Path(reuse), "returncode": 0, "log": "", "built": True}
    output = tmp_path_factory.mktemp("site") / "html"
    cmd = [sys.executable, str(REPO / "build_docs.py"), "--profile", "smoke", "--force", "--strict",
           "--output", str(output)]
    # Offline here: the ResNet tabs use seeded random weights, and the pages must say so.
    env = {**os.environ, "ROSETTA_WEIGHTS": "random"}
    # About 15 minutes on a fast 2-core machine, 25 on the slowest seen (200 GFLOP/s): the limit is for a hang.
    run = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=3600, env=env)
    log = run.stdout + run.stderr
    SMOKE_BUILD["log"] = log
    # "built": Sphinx made the site with -W (its "site:" line comes only then). A tab that failed makes the build
    # exit 1 (--strict) after the site is built: that is its row's test failing, not every page's.
    return {"output": output, "returncode": run.returncode, "log": log,
            "built": f"site: {output / 'index.html'}" in log and (output / "index.html").exists()}


SMOKE_BUILD: dict = {}      # the smoke site's build log, once built: its phase table ends the session's report


def pytest_terminal_summary(terminalreporter):
    """Where the smoke site's build spent its time (the table the build prints at its end)."""
    log = SMOKE_BUILD.get("log", "")
    if "where the time went:" in log:
        tail = log[log.rindex("done in"):]
        table = tail[:tail.index("whole build")].rstrip() + "\n" + tail[tail.index("whole build"):].split("\n")[0]
        terminalreporter.write_sep("=", "the smoke site's build")
        terminalreporter.write_line(table.rstrip())


@pytest.fixture(scope="module")
def server(smoke_site):
    """The smoke site served on 127.0.0.1 (browser tests): every page Sphinx made, a failed tab's included (it
    shows "failed", as a reader would see it; the row's own test fails and names it)."""
    from browsing import serve
    assert smoke_site["built"], "sphinx -W did not make the smoke site:\n" + smoke_site["log"][-3000:]
    base, httpd = serve(smoke_site["output"])
    yield base
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, headless, driven by Playwright."""
    from browsing import CHROMIUM, FLAGS
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()
