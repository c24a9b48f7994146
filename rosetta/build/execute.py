"""Execute stage: run one snippet as a notebook in its framework's kernel, with nbclient.

Step times come from nbclient's per-cell timestamps (``record_timing``), so snippets carry
no timing code. Metrics come from the ``report`` output. A cell that raises or runs past
the timeout ends the run; the partly executed notebook and the traceback are kept.
"""
from __future__ import annotations

import asyncio
import copy
import os
import re
import shutil
import signal
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import nbformat
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from traitlets.config import Config

from ..report import MIME_TYPE
from . import ports
from .outcome import Outcome
from .snippets import Snippet

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


@dataclass
class Execution:
    status: Outcome                               # OK, FAILED or TIMEOUT
    notebook: nbformat.NotebookNode
    step_seconds: dict[str, float] = field(default_factory=dict)
    metrics: dict = field(default_factory=dict)
    context: dict = field(default_factory=dict)
    error: dict | None = None                     # step, ename, evalue, traceback (plain text)
    wall_seconds: float = 0.0
    kernel_seconds: float = 0.0                   # of which starting the kernel (until its first cell)
    notes: list[str] = field(default_factory=list)  # what the build should log (a kernel started again)
    died_at_start: bool = False                   # the kernel's process ended before it answered kernel_info
    reported: bool = False                        # the program's report() reached the build


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text)


def cell_seconds(cell) -> float | None:
    timing = cell.metadata.get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not (start and end):
        return None
    parse = lambda stamp: datetime.fromisoformat(stamp.replace("Z", "+00:00"))  # noqa: E731
    return (parse(end) - parse(start)).total_seconds()


def kernel_death(process, when: str = "in the middle of a step") -> dict:
    """How a kernel that died ended, from its process: a signal (SIGKILL is what the kernel's out-of-memory
    killer sends) or an exit status."""
    code = process.poll() if process is not None else None
    if code is None:
        return {"ename": "KernelDied", "evalue": f"the kernel died {when} (how, its process does not say)"}
    if code < 0:
        name = signal.Signals(-code).name if -code in signal.valid_signals() else f"signal {-code}"
        why = " (out of memory, most likely: that is what Linux's OOM killer sends)" \
            if -code == signal.SIGKILL else ""
        return {"ename": "KernelDied", "evalue": f"the kernel was killed by {name} {when}{why}"}
    return {"ename": "KernelDied", "evalue": f"the kernel exited with status {code} {when}"}


STDERR_TAIL = 4000            # characters of a failed kernel's own stderr kept in its failure record


def stderr_tail(path: Path) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return strip_ansi(text[-STDERR_TAIL:]).strip()


class WatchedKernel(AsyncKernelManager):
    """jupyter_client's manager, keeping the kernel's process after the manager lets go of it: a kernel that
    dies while it starts is dropped by nbclient before anyone can ask how it ended."""
    launched = None

    async def _async_launch_kernel(self, kernel_cmd, **kw) -> None:
        await super()._async_launch_kernel(kernel_cmd, **kw)
        self.launched = getattr(self.provisioner, "process", None)


def kernel_config(transport: str, sockets: str) -> dict:
    """Where the kernel listens. "ipc": socket files in a folder only this user can open (an absolute path:
    the kernel runs in its cwd, and Jupyter's default "kernel-ipc" is relative). "tcp": loopback ports that
    ports.take chose below the ephemeral range (jupyter_client's own come from that range, where any other
    connection on the machine may be handed them before the kernel binds them)."""
    if transport == "ipc":
        return {"transport": "ipc", "ip": os.path.join(sockets, "k")}
    shell, iopub, stdin, hb, control = ports.take(5)
    return {"transport": "tcp", "ip": ports.ADDRESS, "cache_ports": False, "shell_port": shell,
            "iopub_port": iopub, "stdin_port": stdin, "hb_port": hb, "control_port": control}


class BuildSignals:
    """The build's own SIGINT and SIGTERM handlers (they stop the build: see signals.interrupt_on_signals).
    nbclient installs handlers of its own while it starts a kernel and runs a notebook, which only shut the
    kernel down (a run would then end as a false 'failed'), and leaves the defaults behind it. So the
    build's are put back once the kernel has started, and again when the run ends."""
    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self):
        self.main = threading.current_thread() is threading.main_thread()
        self.handlers = {number: signal.getsignal(number) for number in self.SIGNALS}

    def restore(self, **_) -> None:
        if self.main:
            for number, handler in self.handlers.items():
                if handler is not None:
                    signal.signal(number, handler)


def shut_down(client: NotebookClient, process) -> None:
    """An interrupted run's kernel, gone. nbclient's own clean-up may be running too (a task of the interrupted
    execution): whichever finishes first drops the kernel manager, and the other then fails on it (seen in
    CI: AttributeError on None). So a failure of this clean-up is not the build's, and the kernel's process,
    if it still runs, is killed outright."""
    try:
        client._cleanup_kernel()
    except Exception:                  # (AttributeError, AssertionError: the manager is gone already)
        pass
    if process is not None and process.poll() is None:
        process.kill()
        process.wait()


class LiveKernels:
    """The kernel processes running now, from any thread: an interruption reaches the main thread only, and
    kills them all (run side by side, each waits in a thread of its own). A kernel that starts after that is
    killed at once."""

    def __init__(self):
        self.processes: set = set()
        self.lock = threading.Lock()
        self.closed = False

    def add(self, process) -> None:
        if process is None:
            return
        with self.lock:
            self.processes.add(process)
            if not self.closed:
                return
        process.kill()

    def discard(self, process) -> None:
        with self.lock:
            self.processes.discard(process)

    def kill_all(self) -> None:
        with self.lock:
            self.closed = True
            running = list(self.processes)
        for process in running:
            if process.poll() is None:
                process.kill()

    def reopen(self) -> None:
        with self.lock:
            self.closed = False


KERNELS = LiveKernels()


def _step_of_cell(snippet: Snippet) -> dict[int, str]:
    return {index: step.name for step in snippet.steps for index in step.cell_indices}


@dataclass(frozen=True)
class Rank:
    """What a kernel that is one rank of a data-parallel job (ranks.py) is run with: the job's group of live
    processes, which go together when one of them fails, and the kernel the job's launcher started
    (ranks.LaunchedKernel), if it did, to connect to instead of starting one."""
    group: LiveKernels
    kernel_manager: object = None


def execute(snippet: Snippet, kernel_name: str, env: dict[str, str], cwd: Path, timeout: int,
            transport: str = "ipc", rank: Rank | None = None) -> Execution:
    """Run the snippet in a fresh kernel; timeout is in seconds per cell (step part). With the "ipc"
    transport the kernel's sockets are files in a folder only this user can open (Jupyter's IPC
    transport), not TCP ports that anyone on the machine could connect to. `rank`: the kernel is a rank of a
    data-parallel job (Rank: the job's group, which goes together when one of them fails, and a kernel started
    elsewhere, by an MPI launcher, to connect to instead of starting one).

    A kernel that dies before it answers kernel_info (it never ran a cell) is started once more, and the
    result's notes say so and how the first one ended, in the kernel's own words (its stderr). A run that ends
    without its report is run once more too (_without_its_report)."""
    result = _execute_once(snippet, kernel_name, env, cwd, timeout, transport, rank)
    if result.died_at_start and (rank is None or rank.kernel_manager is None):
        first = result.error or {}
        result = _execute_once(snippet, kernel_name, env, cwd, timeout, transport, rank)
        result.notes.insert(0, f"{snippet.example}/{snippet.framework}: the kernel died before it answered "
                               f"kernel_info ({first.get('evalue', '')}); started it once more"
                               + (f". Its stderr: {first['kernel_stderr']}" if first.get("kernel_stderr") else ""))
        if result.error is not None:
            result.error["first_start"] = first
    if rank is None and result.status == Outcome.OK and not result.reported:
        result = _without_its_report(snippet, kernel_name, env, cwd, timeout, transport, result)
    return result


# Why a run can end without its report: Deno's Jupyter kernel publishes outputs through zmq.rs, whose PUB socket
# drops a message it cannot queue at once (ZeroMQ's RFC 29 allows it). Under load (the JavaScript rows two at a
# time beside three busy loops, 2 cores) the last cell's report and result were lost in 2 of 54 runs, its printed
# line kept; nbclient never waited over 0.5 s for them: dropped, not late. (CI saw it once, TF.js's GRU.)
NO_REPORT = ("the program ran to its end, but its report (report()'s output, which carries the metrics) never "
             "reached the build, twice: the kernel dropped it, or the program does not call report()")


def _without_its_report(snippet: Snippet, kernel_name: str, env: dict[str, str], cwd: Path, timeout: int,
                        transport: str, lost: Execution) -> Execution:
    """A run that ended without its report, run once more (a whole run: its times are kept only if it reports);
    one that loses it again is a failure of the last step, saying so."""
    again = _execute_once(snippet, kernel_name, env, cwd, timeout, transport, None)
    again.notes[:0] = lost.notes + [f"{snippet.example}/{snippet.framework}: its report did not reach the build "
                                    "(the kernel dropped the output); ran it once more"]
    if again.status == Outcome.OK and not again.reported:
        again.status = Outcome.FAILED
        again.error = {"ename": "NoReport", "evalue": NO_REPORT, "traceback": NO_REPORT,
                       "step": snippet.steps[-1].name if snippet.steps else ""}
    return again


def _execute_once(snippet: Snippet, kernel_name: str, env: dict[str, str], cwd: Path, timeout: int,
                  transport: str, rank: Rank | None) -> Execution:
    group = rank.group if rank is not None else None
    kernel_manager = rank.kernel_manager if rank is not None else None
    notebook = copy.deepcopy(snippet.notebook)
    sockets = tempfile.mkdtemp(prefix="rosetta-kernel-")       # mode 0700: this user's only
    build_handlers, kernel = BuildSignals(), {}
    manager = kernel_manager or WatchedKernel(kernel_name=kernel_name,
                                              config=Config({"KernelManager": kernel_config(transport, sockets)}))
    # The kernel's own stderr (what it says before and as it dies: Python's start-up errors, Deno's panics),
    # into a file read back only when the run fails. (Cells' output, C-level lines included, reach the notebook.)
    stderr_path = Path(sockets) / "stderr.log"

    def started(**_):
        kernel["started"] = time.perf_counter()
        build_handlers.restore()
        # The kernel's process, kept to read how it ended if it dies (the manager forgets it then).
        kernel["process"] = getattr(getattr(client.km, "provisioner", None), "process", None)
        KERNELS.add(kernel["process"])
        if group is not None:
            group.add(kernel["process"])

    # shutdown_kernel="immediate": once the last cell has replied, every output is in; a graceful shutdown
    # only waits for the framework's exit handlers (measured: 0.8 to 1.1 s a PyTorch kernel, against 0.1 s).
    client = NotebookClient(
        notebook, km=manager, kernel_name=kernel_name, timeout=timeout, record_timing=True,
        shutdown_kernel="immediate", allow_errors=False, resources={"metadata": {"path": str(cwd)}},
        on_notebook_start=started,
    )
    begun = time.perf_counter()
    status, error, died_at_start = Outcome.OK, None, False
    try:
        with open(stderr_path, "w") as stderr:
            client.execute(env={**os.environ, **env}, cleanup_kc=True, stderr=stderr)   # (cleanup_kc: ours to close)
    except KeyboardInterrupt:
        # Ctrl-C or SIGTERM: no result for this run (it did not finish); its kernel goes with it.
        shut_down(client, kernel.get("process"))
        raise
    except asyncio.CancelledError:
        # The same while the kernel was starting, when nbclient's own handlers were in force: they shut the
        # kernel down and cancel the run (and do not say which signal came).
        shut_down(client, kernel.get("process"))
        raise KeyboardInterrupt("a signal, while the kernel started") from None
    except CellTimeoutError as exc:
        status, error = Outcome.TIMEOUT, {"ename": "Timeout", "evalue": f"a cell ran longer than {timeout} s",
                                    "traceback": strip_ansi(str(exc))}
    except (CellExecutionError, DeadKernelError, RuntimeError) as exc:   # (RuntimeError: a kernel that never started)
        status, error = Outcome.FAILED, {"ename": getattr(exc, "ename", type(exc).__name__),
                                   "evalue": strip_ansi(getattr(exc, "evalue", str(exc))),
                                   "traceback": strip_ansi(str(exc))}
        process = kernel.get("process") or getattr(manager, "launched", None)
        ended = process is not None and process.poll() is not None
        if "started" not in kernel and ended:
            died_at_start = True
            error.update(kernel_death(process, "before it answered kernel_info"))
        elif isinstance(exc, DeadKernelError):
            error.update(kernel_death(process))
        said = stderr_tail(stderr_path)
        if said and (ended or isinstance(exc, DeadKernelError) or "started" not in kernel):
            error["kernel_stderr"] = said
            error["traceback"] = f"{error['traceback']}\n\nThe kernel's stderr (its last lines):\n{said}"
    finally:
        KERNELS.discard(kernel.get("process"))
        if group is not None:
            group.discard(kernel.get("process"))
        build_handlers.restore()
        shutil.rmtree(sockets, ignore_errors=True)
    result = Execution(status, notebook, error=error, wall_seconds=time.perf_counter() - begun,
                       kernel_seconds=kernel.get("started", begun) - begun, died_at_start=died_at_start)

    step_of = _step_of_cell(snippet)
    for index, cell in enumerate(notebook.cells):
        step = step_of.get(index)
        seconds = cell_seconds(cell) if cell.cell_type == "code" else None
        if step and seconds is not None:
            result.step_seconds[step] = result.step_seconds.get(step, 0.0) + seconds
        for output in cell.get("outputs", []):
            if output.get("output_type") == "display_data" and MIME_TYPE in output.get("data", {}):
                payload = output["data"][MIME_TYPE]
                result.reported = True
                result.metrics.update(payload.get("metrics", {}))
                result.context.update(payload.get("context", {}))
            if output.get("output_type") == "error" and error is not None and step:
                error.setdefault("step", step)
                error["traceback"] = strip_ansi("\n".join(output.get("traceback", []))) or error["traceback"]
    if error is not None and "step" not in error:
        # Timeouts leave no error output: the failing step is the first one left unfinished.
        unfinished = [step_of[i] for i, c in enumerate(notebook.cells)
                      if i in step_of and cell_seconds(c) is None]
        error["step"] = unfinished[0] if unfinished else ""
    return result
