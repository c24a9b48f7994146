"""Shared fixtures: the real project, and a real smoke-profile build of it (made once)."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rosetta.project import Project  # noqa: E402


@pytest.fixture(scope="session")
def project() -> Project:
    return Project(root=REPO)


# The smoke site's build takes most of `make test` (about 1,000 s of 1,900 on a 2-core EPYC at about 450 GFLOP/s)
# and leaves part of the two cores idle (kernels starting, one check at a time). It runs in the background from
# the session's first test; the tests that use neither the real project's environments nor its build (marks
# other than envs and browser), and those marked beside_the_smoke_build (the environments, but a project and
# results of their own), run meanwhile; the others after them, once it is done.
AFTER_THE_SMOKE_BUILD = ("envs", "browser")
SMOKE_BUILD_LIMIT_S = 3600      # about 17 minutes on a fast 2-core machine, 40 on the slowest seen: this is for a hang


def needs_the_real_build(item) -> bool:
    if "smoke_site" in item.fixturenames:
        return True
    if item.get_closest_marker("beside_the_smoke_build"):
        return False
    return any(item.get_closest_marker(mark) for mark in AFTER_THE_SMOKE_BUILD)


def pytest_collection_modifyitems(config, items):
    """Tests that need the real project's build or environments last (a stable sort: each group keeps its order)."""
    items.sort(key=needs_the_real_build)


class SmokeBuild:
    """The real site built at the smoke profile in a process of its own, executing every snippet in its kernel."""

    def __init__(self, folder: Path):
        self.output, self.log_path = folder / "html", folder / "build.log"
        cmd = [sys.executable, str(REPO / "build_docs.py"), "--profile", "smoke", "--force", "--strict",
               "--output", str(self.output)]
        # Offline here: the ResNet tabs use seeded random weights, and the pages must say so.
        env = {**os.environ, "ROSETTA_WEIGHTS": "random", "PYTHONUNBUFFERED": "1"}
        self.started = time.monotonic()
        with self.log_path.open("w") as log:
            self.process = subprocess.Popen(cmd, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, env=env,
                                            stdin=subprocess.DEVNULL, start_new_session=True)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for_the_peak(self, seconds: float = 600) -> None:
        """The machine's float32 peak (measured once per machine, first thing in a fresh checkout) is measured on
        a quiet machine: the other tests start once the build has named the machine (its peak is in the name)."""
        deadline = time.monotonic() + seconds
        while self.process.poll() is None and time.monotonic() < deadline:
            if re.search(r"^machine \S+, profile smoke$", self.log(), re.M):
                return
            time.sleep(0.5)

    def finish(self) -> dict:
        try:
            returncode = self.process.wait(timeout=max(1.0, SMOKE_BUILD_LIMIT_S - (time.monotonic() - self.started)))
        except subprocess.TimeoutExpired:
            self.stop()
            returncode = self.process.wait()
        log = self.log()
        SMOKE_BUILD["log"] = log
        # "built": Sphinx made the site with -W (its "site:" line comes only then). A tab that failed makes the
        # build exit 1 (--strict) after the site is built: that is its row's test failing, not every page's.
        return {"output": self.output, "returncode": returncode, "log": log,
                "built": f"site: {self.output / 'index.html'}" in log and (self.output / "index.html").exists()}

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)       # the build ends its kernels and workers on SIGTERM
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)


@pytest.fixture(scope="session", autouse=True)
def smoke_build(request, tmp_path_factory):
    """Starts the smoke site's build when a test of this session needs it (and no site is given to reuse)."""
    if os.environ.get("ROSETTA_REUSE_SITE") or not any("smoke_site" in item.fixturenames
                                                       for item in request.session.items):
        yield None
        return
    build = SmokeBuild(tmp_path_factory.mktemp("site"))
    build.wait_for_the_peak()
    yield build
    build.stop()                    # (only if the session ends before it does)


@pytest.fixture(scope="session")
def smoke_site(smoke_build):
    """The real site at the smoke profile, once its build has finished.

    A developer iterating on pages or browser tests may set ROSETTA_REUSE_SITE to a site already built
    (e.g. by `make publish`): it is used as it is, with no build log (the tests of the log then fail).
    """
    reuse = os.environ.get("ROSETTA_REUSE_SITE")
    if reuse:
        return {"output": Path(reuse), "returncode": 0, "log": "", "built": True}
    return smoke_build.finish()


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
