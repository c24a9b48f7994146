"""Faults caused for real on the tiny project (test_tiny_site's, in a folder of its own): a build stopped by
Ctrl-C or SIGTERM in the middle of a snippet, killed with SIGKILL while it installs an environment, run twice
at once, a kernel that dies or runs out of memory, a damaged result file, a full disk, and path settings
that point nowhere. Each build is a real `build_docs.py` process with real kernels; nothing is mocked.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import copy_machine_records
from test_tiny_site import IPYKERNEL, LESSON, LESSON_SCRIPT, SNIPPET, make_project

from rosetta.project import REPO_ROOT

pytestmark = pytest.mark.site
TINY_VENVS = REPO_ROOT / ".envs" / "tiny-project"        # shared with test_tiny_site: made once


@pytest.fixture(scope="module")
def faulty(tmp_path_factory):
    """The tiny project plus an example whose snippets fail the hard way, after one build of alpha's tab."""
    root = make_project(tmp_path_factory.mktemp("faults"))
    (root / "snippets" / "crash").mkdir()
    (root / "snippets" / "crash" / "example.toml").write_text(
        (root / "snippets" / "tiny" / "example.toml").read_text().replace("Tiny sums", "Crashes"))
    crash = SNIPPET.replace('settings("tiny")', 'settings("crash")')
    (root / "snippets" / "crash" / "alpha.py").write_text(crash.format(   # what the OOM killer does to a kernel
        fw="alpha", compute="import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"))
    (root / "snippets" / "crash" / "beta.py").write_text(crash.format(    # a memory limit, then more than it
        fw="beta", compute="import resource\nresource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
                           "hoard = bytearray(3 << 30)"))
    done = build(root, "--examples", "tiny", "--frameworks", "alpha,beta", "--no-sphinx")
    assert done.returncode == 0, done.stdout
    return root


def command(root: Path, *args: str) -> list[str]:
    return [sys.executable, str(REPO_ROOT / "build_docs.py"), "--root", str(root), "--profile", "smoke", *args]


def environment(root: Path, **extra) -> dict:
    """The tiny project's data module (`tinydata`) is a file at its root."""
    return {**os.environ, "ROSETTA_VENVS": str(TINY_VENVS), "ROSETTA_WEIGHTS": "random", "PYTHONPATH": str(root),
            **extra}


def build(root: Path, *args: str, **extra) -> subprocess.CompletedProcess:
    return subprocess.run(command(root, *args), capture_output=True, text=True, timeout=600,
                          env=environment(root, **extra), stdin=subprocess.DEVNULL)


class Running:
    """A build in the background, its own process group (as a terminal's job is), its output in a file."""

    def __init__(self, root: Path, *args: str, log_folder: Path | None = None, **extra):
        self.log = (log_folder or root) / f"build-{time.monotonic_ns()}.log"
        self.process = subprocess.Popen(command(root, *args), stdout=self.log.open("w"), stderr=subprocess.STDOUT,
                                        env=environment(root, **extra), start_new_session=True,
                                        stdin=subprocess.DEVNULL)

    def output(self) -> str:
        return self.log.read_text()

    def wait_for(self, text: str, seconds: float = 240) -> None:
        deadline = time.monotonic() + seconds
        while text not in self.output():
            assert self.process.poll() is None, f"the build ended before {text!r}:\n{self.output()[-3000:]}"
            assert time.monotonic() < deadline, f"no {text!r} in {seconds} s:\n{self.output()[-3000:]}"
            time.sleep(0.2)

    def end(self, seconds: float = 30) -> int:
        return self.process.wait(timeout=seconds)


def kernels_of(root: Path) -> list[int]:
    """Processes still running a kernel of the tiny environments for this project's runs."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
                where = os.readlink(entry / "cwd")
            except OSError:
                continue
            if any(b"ipykernel_launcher" in part for part in argv) and where.startswith(str(root)):
                found.append(int(entry.name))
    return found


def gone(root: Path, seconds: float = 10) -> list[int]:
    deadline = time.monotonic() + seconds
    while kernels_of(root) and time.monotonic() < deadline:
        time.sleep(0.2)
    return kernels_of(root)


def result_file(root: Path, example: str, fw: str) -> Path:
    return next((root / "results").glob("*/smoke")) / example / f"{fw}.json"


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM"])
def test_an_interrupted_build_stops_at_once_keeps_what_finished_and_continues_next_time(faulty, how):
    """Ctrl-C (SIGINT to the build's process group, as a terminal sends it) or SIGTERM (to the build alone, as
    a CI runner or `kill` sends it) while a snippet runs: the build stops within seconds, its kernel is shut
    down, the unfinished run leaves no result, and the next build runs only what did not finish."""
    kept = result_file(faulty, "tiny", "alpha")
    before = kept.read_bytes()
    running = Running(faulty, "--examples", "tiny,slow", "--frameworks", "alpha", "--timeout", "120")
    running.wait_for("run 1/1 of slow/alpha")
    deadline = time.monotonic() + 60
    while not kernels_of(faulty):                  # the kernel is up, and then the cell runs (a 60 s sleep)
        assert time.monotonic() < deadline, running.output()
        time.sleep(0.2)
    time.sleep(4)
    sent = time.monotonic()
    if how == "SIGINT":
        os.killpg(running.process.pid, signal.SIGINT)
    else:
        running.process.send_signal(signal.SIGTERM)
    code = running.end()
    took, out = time.monotonic() - sent, running.output()
    assert code == 130, out
    assert took < 15, f"{took:.1f} s to stop"
    assert f"interrupted ({how}) while executing slow/alpha" in out and "every result that finished is kept" in out
    assert gone(faulty) == [], "the kernel was left running"
    slow = result_file(faulty, "slow", "alpha")
    assert not slow.exists() and not list(slow.parent.glob("*.part")), "no result, and no half of one"
    assert kept.read_bytes() == before, "what had finished is untouched"
    again = build(faulty, "--examples", "tiny", "--frameworks", "alpha", "--no-sphinx")
    assert again.returncode == 0 and "tiny/alpha: up to date" in again.stdout
    assert "run 1/1 of tiny/alpha" not in again.stdout, "finished snippets are not run again"


def test_an_interrupt_while_lesson_scripts_run_side_by_side_kills_both_kernels_and_saves_neither(faulty):
    """At smoke (which measures nothing) lesson scripts run two at a time, each kernel waiting in a thread of
    its own: Ctrl-C, which reaches the main thread only, still stops the build within seconds, kills both
    kernels, and leaves no result of either unfinished run."""
    folder = faulty / "lessons" / "drowsy"
    folder.mkdir()
    (folder / "lesson.toml").write_text(LESSON.replace("Sleeping less", "Sleeping long"))
    (folder / "README.md").write_text("# Sleeping long\n\nTwo scripts that sleep until they are stopped.\n")
    for fw in ("alpha", "beta"):
        (folder / f"{fw}.py").write_text(LESSON_SCRIPT.replace('settings("sleepy")', 'settings("drowsy")').format(
            fw=fw, short="time.sleep(60)"))
    try:
        running = Running(faulty, "--examples", "none", "--lessons", "drowsy", "--frameworks", "alpha,beta",
                          "--timeout", "120", "--no-sphinx")
        running.wait_for("2 at a time")
        deadline = time.monotonic() + 60
        while len(kernels_of(faulty)) < 2:          # both kernels up, each in its 60 s sleep soon
            assert time.monotonic() < deadline, running.output()
            time.sleep(0.2)
        time.sleep(4)
        sent = time.monotonic()
        os.killpg(running.process.pid, signal.SIGINT)
        code = running.end()
        took, out = time.monotonic() - sent, running.output()
        assert code == 130, out
        assert took < 15, f"{took:.1f} s to stop"
        assert "every result that finished is kept" in out
        assert gone(faulty) == [], "a kernel was left running"
        assert not list((faulty / "results").glob("*/smoke/_lessons/drowsy/*")), "no result, and no half of one"
    finally:
        shutil.rmtree(folder)


def test_a_second_build_in_the_checkout_stops_with_a_message_and_the_lock_dies_with_a_killed_build(faulty):
    """Two builds at once would time each other's snippets: the second one says which build holds the
    checkout (and --wait waits for it first); a build killed with SIGKILL leaves no lock behind."""
    first = Running(faulty, "--examples", "slow", "--frameworks", "alpha", "--timeout", "120", "--no-sphinx")
    first.wait_for("run 1/1 of slow/alpha")
    second = build(faulty, "--examples", "tiny", "--frameworks", "alpha", "--no-sphinx")
    assert second.returncode == 2
    assert f"another build is running in this checkout (process {first.process.pid}, started" in second.stderr
    assert "run 1/1" not in second.stdout and "environments" not in second.stdout, "it did nothing"
    waited = build(faulty, "--examples", "tiny", "--frameworks", "alpha", "--no-sphinx", "--wait", "1")
    assert waited.returncode == 2 and "waiting up to 1 s: another build is running" in waited.stdout
    os.killpg(first.process.pid, signal.SIGKILL)
    first.end()
    after = build(faulty, "--examples", "tiny", "--frameworks", "alpha", "--no-sphinx")
    assert after.returncode == 0, after.stdout + after.stderr
    assert "tiny/alpha: up to date" in after.stdout
    for pid in kernels_of(faulty):                # (a SIGKILL leaves its kernel an orphan: ipykernel ends it)
        os.kill(pid, signal.SIGKILL)


def processes_under(folder: Path) -> list[str]:
    """Command lines of running processes that name this folder (an installer, a worker, a kernel)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                argv = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if str(folder) in argv:
                found.append(argv)
    return found


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_an_environment_whose_installation_was_cut_off_is_made_again(faulty, tmp_path, how):
    """SIGTERM while uv installs a venv: the build stops, says so and leaves no installer running; SIGKILL: it
    just dies. Either way the venv has no marker (it is written last, whole), so the next build does not
    trust it and installs it again."""
    venvs = tmp_path / "venvs"
    running = Running(faulty, "--setup-only", "--frameworks", "alpha", ROSETTA_VENVS=str(venvs))
    running.wait_for("alpha: installing alpha.lock")
    deadline = time.monotonic() + 60
    while not (venvs / "alpha" / "bin" / "python").exists():     # the venv is made: uv installs into it now
        assert time.monotonic() < deadline and running.process.poll() is None, running.output()
        time.sleep(0.05)
    if how == "SIGKILL":
        os.killpg(running.process.pid, signal.SIGKILL)
        running.end()
    else:
        running.process.send_signal(signal.SIGTERM)
        assert running.end() == 130
        assert "interrupted (SIGTERM) while setting up the alpha environment" in running.output()
        assert processes_under(venvs) == [], "the installer was left running"
    assert (venvs / "alpha").exists() and not (venvs / "alpha" / "rosetta-installed.json").exists(), \
        "the signal came after the install: the test proves nothing"
    again = build(faulty, "--setup-only", "--frameworks", "alpha", ROSETTA_VENVS=str(venvs))
    assert again.returncode == 0, again.stdout
    assert "alpha: installing alpha.lock" in again.stdout and "alpha: created in" in again.stdout
    check = build(faulty, "--setup-only", "--frameworks", "alpha", ROSETTA_VENVS=str(venvs))
    assert "alpha: ready" in check.stdout


def test_an_interrupted_sphinx_build_says_so_and_the_next_build_makes_the_site(faulty):
    """Sphinx catches Ctrl-C itself (and returns 2): the build still reports an interruption, not a failed
    site; a SIGKILL in the middle of Sphinx, too, leaves a site the next build completes (with -W: no warning
    that a search index could not be loaded)."""
    running = Running(faulty, "--examples", "tiny", "--frameworks", "alpha")
    running.wait_for("sphinx-build -W")
    time.sleep(0.5)
    os.killpg(running.process.pid, signal.SIGINT)
    assert running.end() == 130, running.output()
    assert "interrupted (SIGINT) while running sphinx-build" in running.output()
    # SIGKILL in Sphinx's worst moment, on a first Sphinx run: its environment pickled and pages written up to
    # index.html, in name order (the next run would trust them and build only the rest) and the search index
    # not yet written (so that run could not load it)
    shutil.rmtree(faulty / "_build" / "doctrees", ignore_errors=True)
    shutil.rmtree(faulty / "_build" / "html", ignore_errors=True)
    pickled, html = faulty / "_build" / "doctrees" / "environment.pickle", faulty / "_build" / "html"
    killed = Running(faulty, "--examples", "tiny", "--frameworks", "alpha")
    killed.wait_for("sphinx-build -W")
    deadline = time.monotonic() + 60
    while not (pickled.exists() and (html / "index.html").exists()) and time.monotonic() < deadline:
        assert killed.process.poll() is None, killed.output()[-2000:]
        time.sleep(0.002)
    os.killpg(killed.process.pid, signal.SIGKILL)
    killed.end()
    assert pickled.exists() and not (html / "searchindex.js").exists(), \
        "the kill missed the moment between Sphinx's environment and its search index"
    again = build(faulty, "--examples", "tiny", "--frameworks", "alpha")
    assert again.returncode == 0 and "site:" in again.stdout, again.stdout[-2000:] + again.stderr[-2000:]
    assert "499500" in (faulty / "_build" / "html" / "_gen" / "benchmarks" / "tiny.html").read_text()


@pytest.mark.envs
def test_an_interrupted_equivalence_check_leaves_no_worker_behind(tmp_path):
    """The real project's CNN at smoke, PyTorch and JAX, into a results folder of its own: SIGTERM while an
    equivalence worker runs (one has finished, the next is computing); the build stops, its worker ends
    with it, and the two snippet results it had measured are kept."""
    results = tmp_path / "results"
    copy_machine_records(results)
    # --force: the workers run even where the smoke site's build left their outputs to keep
    running = Running(REPO_ROOT, "--examples", "cnn_cifar10", "--frameworks", "pytorch,jax", "--lessons", "none",
                      "--no-sphinx", "--force", "--results", str(results), log_folder=tmp_path,
                      ROSETTA_VENVS=str(REPO_ROOT / ".envs"), PYTHONPATH="")
    running.wait_for("equivalence: pytorch (base): ok", seconds=400)
    running.process.send_signal(signal.SIGTERM)
    assert running.end() == 130, running.output()
    assert "interrupted (SIGTERM) while checking the equivalence of cnn_cifar10" in running.output()
    time.sleep(1)
    assert [argv for argv in processes_under(REPO_ROOT / ".envs") if "equivalence_worker" in argv] == [], \
        "an equivalence worker was left running"
    kept = sorted(path.name for path in results.glob("*/smoke/cnn_cifar10/*.json"))
    assert kept == ["jax.json", "pytorch.json"], kept
    assert not list(results.rglob("*.part")) and not list(results.glob("*/smoke/_equivalence/cnn_cifar10.json"))


def test_a_kernel_that_dies_or_runs_out_of_memory_is_a_failed_tab_with_the_reason(faulty):
    """A snippet that kills its own kernel (SIGKILL, as the OOM killer would) and one that allocates past its
    address-space limit: both are 'failed' with what happened, and the rest of the build goes on to the site."""
    done = build(faulty, "--examples", "crash,tiny", "--frameworks", "alpha,beta")
    assert done.returncode == 0, done.stdout[-3000:]
    killed = json.loads(result_file(faulty, "crash", "alpha").read_text())
    assert killed["status"] == "failed" and killed["error"]["step"] == "compute"
    assert killed["reason"] == ("KernelDied: the kernel was killed by SIGKILL in the middle of a step (out of "
                                "memory, most likely: that is what Linux's OOM killer sends)")
    hoard = json.loads(result_file(faulty, "crash", "beta").read_text())
    assert hoard["status"] == "failed" and hoard["error"]["ename"] == "MemoryError"
    assert "crash/alpha: failed" in done.stdout and "site:" in done.stdout
    page = (faulty / "_build" / "html" / "_gen" / "benchmarks" / "crash.html").read_text()
    assert "the kernel was killed by SIGKILL" in page and "MemoryError" in page
    assert gone(faulty) == []


RANK_WAITS = """import os, socket, time
rank = int(os.environ["TINY_RANK"])
if rank == 1:
    {rank_1}
server = socket.create_server(("127.0.0.1", int(os.environ["TINY_PORT"])))   # rank 0 waits for its peer,
server.accept()                                                              # as in a collective"""
DATA_PARALLEL = """
[data_parallel]
engine = "a socket"
launcher = "`python {fw}.py` once per worker"
env = {{TINY_RANK = "$rank", TINY_PORT = "$port", ROSETTA_TEST_JOB = "{marker}"}}
"""


def test_a_data_parallel_worker_that_dies_or_hangs_fails_its_tab_leaves_no_process_and_the_site_builds(faulty):
    """An example run as 2 workers: in alpha's tab rank 1 raises while rank 0 waits for it, in beta's rank 1
    hangs. Alpha's tab fails at once with rank 1's error and rank 0 stopped; beta's at the cell timeout. No
    worker's kernel is left, and the other example and the site build."""
    marker = f"ranked-{time.monotonic_ns()}"
    example = faulty / "snippets" / "ranked"
    example.mkdir()
    envs = {fw: (faulty / "envs" / f"{fw}.toml").read_text() for fw in ("alpha", "beta")}
    try:
        (example / "example.toml").write_text((faulty / "snippets" / "tiny" / "example.toml").read_text().replace(
            "Tiny sums", "Ranked sums") + "\n[data_parallel]\nworkers = 2\n")
        ranked = SNIPPET.replace('settings("tiny")', 'settings("ranked")')
        for fw, rank_1 in (("alpha", "raise RuntimeError('rank 1 broke')"), ("beta", "time.sleep(600)")):
            (example / f"{fw}.py").write_text(ranked.format(fw=fw, compute=RANK_WAITS.format(rank_1=rank_1)))
            (faulty / "envs" / f"{fw}.toml").write_text(envs[fw] + DATA_PARALLEL.format(fw=fw, marker=marker))
        started = time.monotonic()
        done = build(faulty, "--examples", "ranked,tiny", "--frameworks", "alpha,beta", "--timeout", "10")
        took = time.monotonic() - started
        assert done.returncode == 0, done.stdout[-3000:]
        broke = json.loads(result_file(faulty, "ranked", "alpha").read_text())
        assert broke["status"] == "failed" and broke["error"]["step"] == "compute"
        assert broke["reason"] == "RuntimeError: rank 1: rank 1 broke"
        hung = json.loads(result_file(faulty, "ranked", "beta").read_text())
        assert hung["status"] == "timeout" and hung["error"]["step"] == "compute"
        assert json.loads(result_file(faulty, "tiny", "alpha").read_text())["status"] == "ok"
        assert "ranked/alpha: failed" in done.stdout and "site:" in done.stdout
        assert took < 240, took
        page = (faulty / "_build" / "html" / "_gen" / "benchmarks" / "ranked.html").read_text()
        assert "rank 1 broke" in page and "timed out" in page
        assert gone(faulty) == []
        assert not [pid for pid in os.listdir("/proc") if pid.isdigit() and marker.encode() in _environ(pid)]
    finally:
        shutil.rmtree(example)
        for fw, text in envs.items():
            (faulty / "envs" / f"{fw}.toml").write_text(text)


def _environ(pid: str) -> bytes:
    try:
        return Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return b""


MEMORY_CGROUPS = Path("/sys/fs/cgroup/memory")     # cgroup v1's memory controller, as on these machines
OOM = """import os
with open(os.environ["TINY_CGROUP"] + "/cgroup.procs", "w") as procs:   # into a cgroup of 300 MiB at most
    procs.write(str(os.getpid()))
hoard = bytearray(1 << 30)
for page in range(0, len(hoard), 4096):                                  # touched: really 1 GiB
    hoard[page] = 1"""


def test_a_kernel_the_oom_killer_ends_under_a_memory_limit_is_failed_out_of_memory(faulty):
    """The real thing: the kernel puts itself in a memory cgroup of 300 MiB and fills 1 GiB; the kernel's OOM
    killer ends it with SIGKILL; its tab says out of memory, and the build goes on."""
    group = MEMORY_CGROUPS / f"rosetta-test-{os.getpid()}"
    try:
        group.mkdir()
        (group / "memory.limit_in_bytes").write_text(str(300 << 20))
    except OSError as exc:
        pytest.skip(f"no memory cgroup to limit a kernel with here ({exc}): it needs root and cgroup v1's "
                    "memory controller, as CI's machines have")
    folder = faulty / "snippets" / "oom"
    folder.mkdir()
    try:
        (folder / "example.toml").write_text(
            (faulty / "snippets" / "tiny" / "example.toml").read_text().replace("Tiny sums", "Out of memory"))
        (folder / "alpha.py").write_text(SNIPPET.replace('settings("tiny")', 'settings("oom")').format(
            fw="alpha", compute=OOM))
        done = build(faulty, "--examples", "oom", "--frameworks", "alpha", "--no-sphinx", TINY_CGROUP=str(group))
        assert done.returncode == 0, done.stdout[-3000:]
        assert int((group / "memory.failcnt").read_text()) > 0, "the limit was never reached"
        killed = json.loads(result_file(faulty, "oom", "alpha").read_text())
        assert killed["status"] == "failed" and killed["error"]["step"] == "compute"
        assert killed["reason"].startswith("KernelDied: the kernel was killed by SIGKILL in the middle of a step "
                                           "(out of memory")
        assert "oom/alpha: failed" in done.stdout
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        for _ in range(50):                        # (empty once the killed kernel is reaped)
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.1)


def test_a_failure_is_tried_again_by_the_next_build_and_a_success_stays_cached(faulty):
    first = build(faulty, "--examples", "tiny", "--frameworks", "alpha,beta", "--no-sphinx")
    assert "tiny/alpha: up to date" in first.stdout
    assert "tiny/beta: failed last time (ZeroDivisionError: division by zero): trying again" in first.stdout
    assert "run 1/1 of tiny/beta" in first.stdout and "run 1/1 of tiny/alpha" not in first.stdout


def test_a_damaged_lesson_result_is_named_and_measured_again(faulty):
    path = next((faulty / "results").glob("*/smoke/_lessons/sleepy/alpha.json"))
    path.write_text(path.read_text()[:100])
    done = build(faulty, "--examples", "none", "--lessons", "sleepy", "--frameworks", "alpha", "--no-sphinx")
    assert f"{path}: not valid JSON, truncated or edited" in done.stdout, done.stdout
    assert "sleepy/alpha: ok" in done.stdout and json.loads(path.read_text())["status"] == "ok"


@pytest.mark.parametrize("damage", ["truncated", "edited"])
def test_a_damaged_result_is_named_and_measured_again(faulty, damage):
    path = result_file(faulty, "tiny", "alpha")
    text = path.read_text()
    path.write_text(text[: len(text) // 3] if damage == "truncated" else text.replace('"steps"', '"stepz"'))
    done = build(faulty, "--examples", "tiny", "--frameworks", "alpha", "--no-sphinx")
    problem = "not valid JSON, truncated or edited" if damage == "truncated" else "fields missing: steps"
    assert f"{path}: {problem}" in done.stdout and "treated as missing, measured again" in done.stdout
    assert "run 1/1 of tiny/alpha" in done.stdout and json.loads(path.read_text())["status"] == "ok"


def test_a_full_or_read_only_disk_is_one_error_naming_the_path_and_damages_nothing(faulty, tmp_path):
    """The results folder on a 1 MiB tmpfs, filled up, then read-only: the build stops with one line naming
    the file it could not write and why, and the result stored there before is still whole."""
    disk = tmp_path / "small-disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({mounted.stderr.decode().strip()}): it needs root, as CI has")
    try:
        first = build(faulty, "--examples", "tiny", "--frameworks", "alpha", "--no-sphinx", "--results", str(disk))
        assert first.returncode == 0, first.stdout
        stored = result_file_in(disk, "tiny", "alpha")
        before = stored.read_bytes()
        with open(disk / "filler", "wb") as filler:             # every byte left
            try:
                while True:
                    filler.write(b"\0" * 65536)
                    filler.flush()
            except OSError:
                pass
        full = build(faulty, "--examples", "tiny", "--frameworks", "alpha", "--no-sphinx", "--results", str(disk),
                     "--force")
        assert full.returncode == 2
        assert f"error: cannot write {disk}/" in full.stderr and "the disk is full" in full.stderr, full.stderr
        assert len(full.stderr.strip().splitlines()) == 1, full.stderr
        assert stored.read_bytes() == before and not list(disk.rglob("*.part"))
        (disk / "filler").unlink()                              # room again, but the folder read-only
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        frozen = build(faulty, "--examples", "tiny", "--frameworks", "alpha", "--no-sphinx", "--results", str(disk),
                       "--force")
        assert frozen.returncode == 2 and "the file system is read-only" in frozen.stderr, frozen.stderr
        assert stored.read_bytes() == before
    finally:
        subprocess.run(["umount", str(disk)], check=False)


def result_file_in(results: Path, example: str, fw: str) -> Path:
    return next(results.glob("*/smoke")) / example / f"{fw}.json"


def test_a_data_setting_that_points_nowhere_is_named_and_the_build_goes_on(faulty, tmp_path):
    missing = tmp_path / "no-such-folder"
    done = build(faulty, "--examples", "tiny", "--frameworks", "alpha", "--no-sphinx", ROSETTA_DATA=str(missing))
    assert done.returncode == 0
    assert f"warning: ROSETTA_DATA entry {missing}: no such folder (ignored" in done.stdout


# A kernel that ends before it answers kernel_info, as Deno's did in CI when another process took one of its
# ports: the first start of "flaky" says so on stderr and exits 3, its second is an ipykernel; "dead" always does.
DYING_KERNEL = """import os, sys
marker = os.environ["TINY_MARKER"]
if os.environ["TINY_ALWAYS"] == "1" or not os.path.exists(marker):
    open(marker, "w").close()
    sys.stderr.write("error: Uncaught AddrInUse: Address already in use (os error 98), the test's kernel says\\n")
    sys.exit(3)
from ipykernel import kernelapp
kernelapp.launch_new_instance(argv=["-f", sys.argv[1]])
"""
DYING_ROW = """label = "{name}"
api = "plain Python"
order = {order}
packages = ["ipykernel"]
environment = "flaky"
kernel_argv = ["{{venv}}/bin/python", "{script}", "{{connection_file}}"]
[variables]
TINY_MARKER = "{marker}"
TINY_ALWAYS = "{always}"
"""


def test_a_kernel_that_dies_before_kernel_info_is_started_once_more_and_its_words_are_kept(tmp_path):
    root = make_project(tmp_path / "project")
    script = root / "dying_kernel.py"
    script.write_text(DYING_KERNEL)
    for order, (name, always) in enumerate([("flaky", 0), ("dead", 1)], 10):
        (root / "envs" / f"{name}.toml").write_text(DYING_ROW.format(
            name=name, order=order, script=script, marker=tmp_path / f"{name}.started", always=always))
        (root / "snippets" / "tiny" / f"{name}.py").write_text(SNIPPET.format(
            fw="flaky", compute="total = sum(range(hp.n))\nprint(total)"))      # (one environment: one kernel)
    (root / "envs" / "flaky.txt").write_text(IPYKERNEL + "\n")
    done = build(root, "--examples", "tiny", "--frameworks", "flaky,dead", "--lessons", "none")
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    assert "tiny/flaky: the kernel died before it answered kernel_info (the kernel exited with status 3 before it " \
           "answered kernel_info); started it once more. Its stderr: error: Uncaught AddrInUse" in out, out[-3000:]
    flaky = json.loads(result_file(root, "tiny", "flaky").read_text())
    assert flaky["status"] == "ok", flaky["error"]
    dead = json.loads(result_file(root, "tiny", "dead").read_text())
    assert dead["status"] == "failed" and dead["error"]["step"] == "setup", dead["error"]
    assert dead["error"]["evalue"] == "the kernel exited with status 3 before it answered kernel_info"
    assert "Address already in use (os error 98), the test's kernel says" in dead["error"]["kernel_stderr"]
    assert "The kernel's stderr" in dead["error"]["traceback"]
    assert dead["error"]["first_start"]["evalue"] == dead["error"]["evalue"], "both starts are on record"
    page = (root / "_build" / "html" / "_gen" / "benchmarks" / "tiny.html").read_text()
    assert "This step failed: KernelDied: the kernel exited with status 3 before it answered kernel_info" in page


# What Deno's kernel does under load (its PUB socket drops an output when the queue is full): a run ends with every
# cell done but without its report. Here the program itself leaves it out: alpha on its first run only, beta always.
SILENT_REPORT = """import os
marker = os.environ.get("TINY_SILENT_MARKER", "")
if os.environ.get("TINY_ALWAYS_SILENT") != "1" and (not marker or os.path.exists(marker)):
    report(accuracy=1.0, train_samples=hp.n)
elif marker:
    open(marker, "w").close()
"""


def test_a_run_whose_report_is_lost_is_run_once_more_and_one_that_never_reports_fails_saying_so(tmp_path):
    root = make_project(tmp_path / "project")
    for fw in ("alpha", "beta"):
        (root / "snippets" / "tiny" / f"{fw}.py").write_text(SNIPPET.format(fw=fw, compute="print(hp.n)").replace(
            "report(accuracy=1.0, train_samples=hp.n)\n", SILENT_REPORT))
    marker = tmp_path / "alpha.silent-once"
    done = build(root, "--examples", "tiny", "--frameworks", "alpha", "--lessons", "none", "--no-sphinx",
                 TINY_SILENT_MARKER=str(marker))
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    assert marker.exists(), "the first run left its report out"
    assert "tiny/alpha: its report did not reach the build (the kernel dropped the output); ran it once more" in out
    alpha = json.loads(result_file(root, "tiny", "alpha").read_text())
    assert alpha["status"] == "ok" and alpha["metrics"]["accuracy"] == 1.0, alpha
    never = build(root, "--examples", "tiny", "--frameworks", "beta", "--lessons", "none", "--no-sphinx",
                  TINY_ALWAYS_SILENT="1")
    assert never.returncode == 0, (never.stdout + never.stderr)[-3000:]
    beta = json.loads(result_file(root, "tiny", "beta").read_text())
    assert beta["status"] == "failed", beta
    assert beta["error"]["ename"] == "NoReport" and beta["error"]["step"] == "check", beta["error"]
    assert "never reached the build, twice" in beta["error"]["evalue"]
