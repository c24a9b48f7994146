"""One pipeline for everything a build measures: a benchmark row, a lesson row, an example's equivalence check.

Each is described by a Job (data: where its result is stored, whether this build measures it, its cache key,
why it cannot run here, the data set it reads, how it runs and what it records when it does not), and one
loop runs any list of them:

    the result on record -> blocked here? -> current (its key) or retried? -> data -> execute -> atomic save

so that a policy (what is retried, what is kept when it cannot run, when a result is saved) is written once.
An interruption (Ctrl-C, SIGTERM) leaves every finished result saved and none half written (store.save).
"""
from __future__ import annotations

import importlib
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from ..data.fetch import DataError
from . import results, store
from .context import RunContext
from .environments import UNTIMED_PROFILES
from .execute import KERNELS
from .outcome import RETRIED, Outcome
from .phases import CLOCK
from .signals import doing


@dataclass
class Data:
    """The data set the jobs of one example or lesson read: prepared (found, downloaded, checked) once, for
    the first of them that runs; which copy it is (its identity) is part of their cache keys."""
    module: str                        # the data module ("" when there is none)
    kind: str                          # "real", "synthetic", "neutral": the profile's
    needed: bool                       # whether a run needs it prepared first
    settings: Callable[[], object]     # what the module's prepare() reads
    phase: str = ""                    # the build clock's phase for preparing it
    info: dict = field(default_factory=dict)      # what prepare() said (its source)
    error: str = ""
    _identity: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def identity(self) -> str:
        if self._identity is None:
            self._identity = results.data_identity(self.module, self.kind)
        return self._identity

    def prepare(self, log) -> str:
        """Prepared once; the error (one line naming what to provide), or "". (Jobs run side by side wait
        here for the first of them.)"""
        with self._lock:
            if not self.needed or self.info or self.error:
                return self.error
            try:
                with CLOCK.timing(self.phase):
                    self.info = importlib.import_module(self.module).prepare(self.settings()) if self.module else {}
                self._identity = None           # prepare() may just have downloaded it
            except DataError as exc:
                self.error = str(exc)
                log(f"  data: {self.error}")
            return self.error


@dataclass(frozen=True)
class Blocked:
    """Why a job cannot run here, and whether the result on record stands in for it when not selected."""
    outcome: Outcome
    reason: str
    keep_previous: bool = False
    say: str = ""                      # a line for the log


def first_line(text: str | None) -> str:
    return (text or "").splitlines()[0] if text else ""


def outcome_words(record: dict, seconds: float) -> str:
    """"ok in 2.1 s", or "failed in 0.4 s (ZeroDivisionError: division by zero)"."""
    reason = f" ({first_line(record.get('reason'))})" if record["status"] != Outcome.OK else ""
    return f"{record['status']} in {seconds:.1f} s{reason}"


@dataclass(frozen=True)
class Job:
    kind: store.Kind
    label: str                                         # "cnn_cifar10/pytorch", "equivalence": the log's name
    row: str                                           # its key among its stage's results (the framework)
    path: Path                                         # where its result is stored
    selected: bool                                     # measured by this build when not current
    key: Callable[[], str]                             # its cache key (with the data's identity)
    run: Callable[[str], tuple[dict, str | None]]      # executes with its key: the record, the notebook to keep
    not_run: Callable[[Outcome, str], dict] | None = None   # the record of a run that could not happen, and why
    blocked: Blocked | None = None
    data: Data | None = None
    doing: str = ""                                    # what an interruption message says the build was doing
    describe: Callable[[dict, float], str] = outcome_words   # the log's words for a finished run
    elsewhere: Callable[[], dict | None] | None = None  # when none is on record here: another machine's


def run_jobs(context: RunContext, jobs: list[Job], workers: int = 1) -> dict[str, dict]:
    """row -> its result: measured again where selected and not current, else the one on record; `workers` at
    a time (run_side_by_side) where the profile measures nothing."""
    found = run_side_by_side(context, jobs, workers)
    return {job.row: result for job, result in zip(jobs, found) if result is not None}




def parallel_workers(machine_info: dict, given: int = 0) -> int:
    """How many workers run at once: `given` (ROSETTA_CHECK_WORKERS) if set; else one per core, at most 2, on a
    machine without a GPU (two workers on one GPU would contend for its memory: JAX takes most of it)."""
    if given > 0:
        return given
    return 1 if machine_info.get("gpus") else max(1, min(2, os.cpu_count() or 1))


def side_by_side(context: RunContext) -> int:
    """How many kernels (snippets, lesson scripts) run at once: one, as for every measurement, except at a
    profile that measures nothing, where they run as the equivalence workers do (parallel_workers)."""
    if context.profile not in UNTIMED_PROFILES:
        return 1
    return parallel_workers(context.machine_info, context.variables.check_workers)


def core_groups(workers: int) -> list[tuple[int, ...]]:
    """This process's CPUs in `workers` groups, one per job or worker running side by side (one group of
    them all when there are fewer CPUs than that)."""
    available = sorted(os.sched_getaffinity(0))
    return [tuple(available[i::workers]) for i in range(workers)] if len(available) >= workers else [tuple(available)]


def run_side_by_side(context: RunContext, jobs: list[Job], workers: int) -> list[dict | None]:
    """Each job's result, in order, with `workers` jobs running at once, each thread (and the kernel it starts,
    which inherits the thread's CPUs) pinned to a core group of its own: for runs that time nothing anyone
    reads (the smoke profile), never for measurements. An interruption (Ctrl-C, SIGTERM, which reach the
    main thread only) kills every kernel running, cancels what had not started, and saves nothing
    unfinished."""
    if workers <= 1 or len(jobs) <= 1:
        return [run_job(context, job) for job in jobs]
    groups, taken = core_groups(workers), iter(range(workers))

    def pin():                      # once per thread: a thread's CPUs are its own (Linux), and its children's
        os.sched_setaffinity(0, groups[next(taken) % len(groups)])

    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="job", initializer=pin)
    STOPPING.clear()
    try:
        futures = [pool.submit(run_job, context, job) for job in jobs]
        while wait(futures, timeout=0.5).not_done:
            pass                    # (short waits: a signal's handler runs between them, in this thread)
        return [future.result() for future in futures]
    except BaseException:
        STOPPING.set()              # (before the kernels die: their runs must not be saved as failures)
        pool.shutdown(wait=False, cancel_futures=True)
        KERNELS.kill_all()
        raise
    finally:
        pool.shutdown(wait=True)
        KERNELS.reopen()
        STOPPING.clear()


STOPPING = threading.Event()        # set while jobs side by side are being stopped: what they return is dropped


def run_job(context: RunContext, job: Job) -> dict | None:
    """The job's result: the one on record when current (or not selected), else measured and saved whole."""
    log = context.log
    previous = store.previous(job.kind, job.path, log)
    if job.blocked is not None:
        if job.blocked.keep_previous and previous is not None and not job.selected:
            return previous
        if job.blocked.say:
            log(f"  {job.label}: {job.blocked.say}")
        return job.not_run(job.blocked.outcome, job.blocked.reason)
    key = job.key()
    current = previous is not None and previous.get("cache_key") == key
    if current and job.selected and previous.get("status") in RETRIED:
        log(f"  {job.label}: {previous['status']} last time ({first_line(previous.get('reason')) or 'no reason'}): "
            "trying again")
        current = False
    if not job.selected or (current and not context.options.force):
        return on_record(context, job, previous, current)
    if job.data is not None:
        identity = job.data.identity()
        error = job.data.prepare(log)
        if error:
            record = job.not_run(Outcome.DATA_ERROR, error)
            if previous is None:      # a measurement on record is kept: with its data back, it is current again
                store.save(job.kind, job.path, record)
            return record
        if job.data.identity() != identity:
            key = job.key()
    doing(job.doing or f"measuring {job.label}")
    started = time.perf_counter()
    record, notebook = job.run(key)
    if STOPPING.is_set():
        return None                 # an interrupted run (its kernel killed on the way out): no result
    store.save(job.kind, job.path, record, notebook)
    log(f"  {job.label}: {job.describe(record, time.perf_counter() - started)}")
    return record


def on_record(context: RunContext, job: Job, previous: dict | None, current: bool) -> dict | None:
    """The result on record, marked stale or not (a publishing build judges staleness by code instead:
    staleness.py), else another machine's when the job says where to look."""
    if previous is None:
        return job.elsewhere() if job.elsewhere else None
    previous["stale"] = not current
    if not context.options.publishing:
        context.log(f"  {job.label}: {'up to date' if current else 'stale (not selected)'}")
    return previous
