"""Worker processes: the processes that run a row's code outside a kernel (the equivalence checks' workers, the
ONNX export, check and timing workers), started, pinned, timed out and ended here for every stage that has them.

Each runs with the variables of environments.child_variables, its output into a log file; `LIVE` holds those
running now, so that an interruption (which reaches the main thread only) ends them all.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager
from pathlib import Path

from .. import neutral
from ..project import Framework, Project
from . import environments, jobs
from .outcome import Outcome

WORKER_TIMEOUT = 900                     # seconds for one framework's whole check, or one export


class WorkersStopped(RuntimeError):
    """A worker asked to start after the build was interrupted."""


class LiveWorkers:
    """The worker processes running now (from any thread), so that an interrupted check can end them all:
    a KeyboardInterrupt reaches the main thread only, while the workers wait in other threads. Once it has,
    no worker starts again until the outermost in_parallel has ended (`stopped`): a thread of a pool inside a
    pool (a check's own-sized part beside the rest) would otherwise start its next worker after the others
    were killed."""

    def __init__(self):
        self.processes: set[subprocess.Popen] = set()
        self.lock = threading.Lock()
        self.stopped, self.depth = False, 0

    @contextmanager
    def pooled(self):
        """The span of one in_parallel; when the outermost ends, workers may start again (in this process's
        next check, after an interruption a test caught)."""
        with self.lock:
            self.depth += 1
        try:
            yield
        finally:
            with self.lock:
                self.depth -= 1
                self.stopped = self.stopped and self.depth > 0

    def run(self, command: list[str], cwd: Path, env: dict, timeout: float) -> subprocess.CompletedProcess:
        with subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) as process:
            self.add(process)
            try:
                stdout, stderr = process.communicate(timeout=timeout)
            except BaseException:            # a timeout, or an interruption in this thread
                process.kill()
                process.wait()
                raise
            finally:
                with self.lock:
                    self.processes.discard(process)
        return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)

    def add(self, process: subprocess.Popen) -> None:       # (and a data-parallel row's ranks and helpers)
        with self.lock:
            if not self.stopped:
                self.processes.add(process)
                return
        process.kill()
        process.wait()
        raise WorkersStopped("the build was interrupted: no worker starts any more")

    def discard(self, process: subprocess.Popen) -> None:
        with self.lock:
            self.processes.discard(process)

    def kill_all(self, interrupted: bool = False) -> None:
        """End every worker running now; after an interruption, and every one asked to start later."""
        with self.lock:
            self.stopped = self.stopped or interrupted
            running = list(self.processes)
        for process in running:
            process.kill()
        for process in running:
            process.wait()


LIVE = LiveWorkers()


def core_groups(workers: int) -> list[tuple[int, ...]]:
    """This process's CPUs in `workers` groups, one per worker running side by side; none (no pinning) for
    one worker or where `taskset` is missing. Every framework sizes its thread pools from the CPUs it may
    run on (OpenMP, OpenBLAS, oneDNN, Eigen, XLA), so two workers that each see both cores of a 2-core
    machine run four busy threads on two. Measured on a 2-core Xeon: PyTorch's GRU worker beside another
    took 29 s unpinned and 3.4 s pinned; the GRU check as a whole 86 s and 45 s."""
    groups = jobs.core_groups(workers)
    if workers <= 1 or len(groups) < workers or not shutil.which("taskset"):
        return [()] * max(1, workers)
    return groups


def pinned_to(cores: tuple[int, ...]) -> list[str]:
    """The command prefix that runs a process on these CPUs only (util-linux's taskset execs it)."""
    return ["taskset", "--cpu-list", ",".join(map(str, cores))] if cores else []


def in_parallel(tasks: list, workers: int) -> list:
    """Call each task (a function of no arguments) with at most `workers` at a time; their results in
    order. An interruption (Ctrl-C, SIGTERM) kills every worker process and cancels what had not started."""
    with LIVE.pooled():
        return _in_parallel(tasks, workers)


def _in_parallel(tasks: list, workers: int) -> list:
    if workers <= 1 or len(tasks) <= 1:
        try:
            return [task() for task in tasks]
        except BaseException as exc:
            LIVE.kill_all(interrupted=not isinstance(exc, Exception))
            raise
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="worker")
    try:
        futures = [pool.submit(task) for task in tasks]
        while wait(futures, timeout=0.5).not_done:
            pass                   # (short waits: a signal's handler runs between them, in this thread)
        return [future.result() for future in futures]
    except BaseException as exc:
        pool.shutdown(wait=False, cancel_futures=True)
        LIVE.kill_all(interrupted=not isinstance(exc, Exception))
        raise
    finally:
        pool.shutdown(wait=True)




def run_process(command: list[str], cwd: Path, env: dict, log_file: Path) -> tuple[str, str]:
    """(status, reason) of one worker process, which gets WORKER_TIMEOUT seconds; its output goes to log_file."""
    try:
        done = LIVE.run(command, cwd=cwd, env=env, timeout=WORKER_TIMEOUT)
    except subprocess.TimeoutExpired:
        return Outcome.TIMEOUT, f"no answer within {WORKER_TIMEOUT} s"
    log_file.write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        tail = [line for line in done.stderr.strip().splitlines() if line.strip()][-1:] or ["(no output)"]
        return Outcome.FAILED, f"worker exited {done.returncode}: {tail[0]}"
    return Outcome.OK, ""




def worker_environment(project: Project, profile: str, fw: Framework, spec: neutral.Spec, job_dir: Path) -> dict:
    """The environment of a worker that runs a row's snippet steps on the neutral inputs in job_dir (this
    check's, and the ONNX conversions' export worker)."""
    env = {**os.environ, **environments.child_variables(
        project, fw, profile, ROSETTA_OVERRIDES=json.dumps(spec.overrides), TF_CPP_MIN_LOG_LEVEL="2",
        **{neutral.BATCHES_VARIABLE: str(job_dir / "batches.npz")})}
    if "weights" in spec.overrides:
        env.pop("ROSETTA_WEIGHTS", None)      # the checks bring their own weights: no download
    return env
