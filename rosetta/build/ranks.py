"""Run one snippet as a data-parallel job: N worker processes (ranks), each a kernel of the row's environment.

Every rank executes the same notebook. The build is the launcher, doing what `torchrun`, a `TF_CONFIG` or
MXNet's DMLC variables do for a script: each kernel gets its rank's environment (the row's templates, filled
with loopback addresses and free ports), and the row's helper processes (MXNet's scheduler and parameter
server) start before the ranks. An MPI world is made by MPI's own process manager, not by variables: for a
row whose table names a `start` command (`mpiexec`), the build runs that command once, and it starts every
rank's kernel (rosetta/rank_start.py pins each to its cores); the build then connects to those kernels.

When one rank fails or times out, every other rank's kernel and every helper is killed at once: a rank left
waiting in a collective would otherwise wait for its peer until its own timeout. The tab shows rank 0's
notebook, with the other ranks' printed lines added under each cell, marked `[rank i]` as `torchrun --tee`
marks them.
"""
from __future__ import annotations

import copy
import functools
import os
import shutil
import signal
import string
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import psutil
from jupyter_client.connect import write_connection_file
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager

from .. import model
from . import ports
from .execute import KERNELS, Execution, LiveKernels, Rank, execute
from .jobs import core_groups
from .outcome import Outcome
from .snippets import Snippet

ADDRESS = "127.0.0.1"           # loopback only: no worker listens on an outside interface


@dataclass(frozen=True)
class Helper:
    """A process the job needs besides its ranks (MXNet's scheduler, its parameter server)."""
    name: str
    code: str                                          # Python, run with the row's interpreter
    env: dict[str, str] = field(default_factory=dict)  # templates, like Launch.env


@dataclass(frozen=True)
class Launch:
    """How a row starts N workers: environment templates ($rank, $workers, $address, $port: the
    coordinator's, $worker_addresses: a JSON list of "address:port", one per rank, $worker_address: this
    rank's) and its helpers."""
    workers: int
    env: dict[str, str] = field(default_factory=dict)
    helpers: tuple[Helper, ...] = ()
    # A launcher that starts every rank itself (MPI's mpiexec), as the words before the ranks' own sections
    # (templates too; $bin: the bin folder of the row's environment). Empty: the build starts each rank.
    start: tuple[str, ...] = ()
    # What runs a rank's Python program under that launcher, before its -m or -c (`-m mpi4py`).
    runner: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plan:
    """One start of a row's ranks, read by every step of it: the row's launch, the interpreter, environment and
    working folder of its processes, the group of live processes that an interruption ends, and the loopback
    ports (ports[0]: the coordinator's, $port) and cores (a group per rank) chosen for this start."""
    launch: Launch
    python: str
    env: dict[str, str]
    cwd: Path
    group: LiveKernels = field(default_factory=LiveKernels)
    ports: list[int] = field(default_factory=list)
    cores: list[tuple[int, ...]] = field(default_factory=list)

    def __post_init__(self):
        if not self.ports:
            object.__setattr__(self, "ports", free_ports(self.launch.workers + 1))
        if not self.cores:       # each rank on cores of its own, as a launcher's --bind-to core would
            object.__setattr__(self, "cores", core_groups(self.launch.workers))


class NoDataParallel(Exception):
    """A row whose envs/<row>.toml says nothing of how it trains on several workers."""


def workers_here(example, machine_info: dict) -> int:
    """How many processes each row of the example runs as on this machine: the example's count on a CPU (each
    worker on cores of its own); on a machine with GPUs one worker per GPU, at most that count (NCCL and the
    snippets' LOCAL_RANK take a device per process: 2 workers on 1 GPU would ask for a second one)."""
    workers, gpus = model.example_workers(example), len(machine_info.get("gpus") or ())
    return min(workers, gpus) if gpus else workers


def launch_of(fw, workers: int) -> Launch:
    """A row's launch, from its [data_parallel] table."""
    table = model.row_data_parallel(fw)
    if not (table.get("env") or table.get("start")):
        raise NoDataParallel(f"envs/{fw.name}.toml has no [data_parallel] table with the variables of a worker "
                             f"or a launcher to start: this row has no way here to start {workers} workers "
                             f"(envs/pytorch.toml has one)")
    helpers = tuple(Helper(h["name"], h["code"], dict(h.get("env", {}))) for h in table.get("helpers", ()))
    return Launch(workers=workers, env=dict(table.get("env", {})), helpers=helpers,
                  start=tuple(table.get("start", ())), runner=tuple(table.get("runner", ())))


def launch_problem(example, fw) -> str:
    """Why the row cannot run as the example's workers ("" when it can, or when the example has one worker)."""
    workers = model.example_workers(example)
    if workers == 1:
        return ""
    try:
        launch_of(fw, workers)
    except NoDataParallel as exc:
        return str(exc)
    return ""


def free_ports(count: int) -> list[int]:
    """Ports nothing listens on now, on the loopback interface, all different, from below the ephemeral range
    (ports.py: where no other process's connection or bind(0) can be handed them before a worker binds them)."""
    return ports.take(count)


def values(launch: Launch, ports: list[int], rank: int | None) -> dict[str, str]:
    """What the templates may name. ports[0] is the coordinator's; ports[1:] the workers' own."""
    workers = ", ".join(f'"{ADDRESS}:{port}"' for port in ports[1:launch.workers + 1])
    return {"rank": "" if rank is None else str(rank), "workers": str(launch.workers), "address": ADDRESS,
            "port": str(ports[0]), "worker_addresses": f"[{workers}]",
            "worker_address": "" if rank is None else f"{ADDRESS}:{ports[1 + rank]}"}


def fill(templates: dict[str, str], known: dict[str, str]) -> dict[str, str]:
    return {name: string.Template(template).substitute(known) for name, template in templates.items()}


@dataclass
class Job:
    """One data-parallel run: the executions of its ranks, in rank order, and what stopped it."""
    ranks: list[Execution]
    first_failure: int | None = None                   # the rank that failed first (None: all ran)
    helper_logs: dict[str, str] = field(default_factory=dict)

    @property
    def status(self) -> Outcome:
        if self.first_failure is None:
            return Outcome.OK
        return self.ranks[self.first_failure].status


def _start_helpers(plan: Plan) -> list[tuple[Helper, subprocess.Popen, Path]]:
    started = []
    for helper in plan.launch.helpers:
        handle, name = tempfile.mkstemp(prefix=f"rosetta-{helper.name}-", suffix=".log")
        log = Path(name)
        with os.fdopen(handle, "w") as out:
            process = subprocess.Popen(
                [plan.python, "-c", helper.code], cwd=plan.cwd, stdout=out, stderr=subprocess.STDOUT,
                env={**os.environ, **plan.env, **fill(helper.env, values(plan.launch, plan.ports, None))},
                start_new_session=True)          # its own process group: Ctrl-C reaches the build only
        KERNELS.add(process)
        plan.group.add(process)
        started.append((helper, process, log))
    return started


def _stop_helpers(started, group: LiveKernels) -> dict[str, str]:
    logs = {}
    for helper, process, log in started:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        KERNELS.discard(process)
        group.discard(process)
        logs[helper.name] = log.read_text(errors="replace")[-4000:]
        log.unlink(missing_ok=True)
    return logs


class JobProcess:
    """A launcher's process (mpiexec) with every process under it (each rank's rank_start and program). Killing
    it kills them all, and waits until they are gone."""

    def __init__(self, process: subprocess.Popen):
        self.process = process
        self.pid = process.pid

    def poll(self):
        return self.process.poll()

    def wait(self, timeout=None):
        return self.process.wait(timeout)

    def kill(self) -> None:
        try:
            family = psutil.Process(self.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            family = []
        for member in family:
            try:
                member.kill()
            except psutil.NoSuchProcess:
                pass
        if self.process.poll() is None:
            self.process.kill()
        psutil.wait_procs(family, timeout=10)          # gone when this returns, not merely signalled


def launcher_values(launch: Launch, ports: list[int], python: str) -> dict[str, str]:
    """The templates' values for a launcher and its variables: the job's ($workers, $address, $port...) and $bin,
    the bin folder of the row's environment (where MPI's wheel puts mpiexec)."""
    return {**values(launch, ports, None), "bin": str(Path(python).parent)}


def launcher_command(launch: Launch, python: str, ports: list[int], cores: list[tuple[int, ...]],
                     programs: list[list[str]], logs: list[str]) -> list[str]:
    """The one command that starts every rank: the row's `start` words, then mpiexec's MPMD form, a section per
    rank in rank order (`-n 1 PROGRAM : -n 1 PROGRAM`, read alike by MPICH, Intel MPI and Open MPI), each
    through rank_start onto the rank's cores and into its log ("-": the launcher's)."""
    known = launcher_values(launch, ports, python)
    command = [string.Template(word).substitute(known) for word in launch.start]
    for rank, program in enumerate(programs):
        if rank:
            command.append(":")
        at = next((i for i, word in enumerate(program) if word in ("-m", "-c")), 1)   # after the interpreter's flags
        command += ["-n", "1", python, "-m", "rosetta.rank_start", ",".join(map(str, cores[rank % len(cores)])),
                    logs[rank], "--", *program[:at], *launch.runner, *program[at:]]
    return command


def _launch(plan: Plan, command: list[str], env: dict[str, str], log) -> JobProcess:
    process = JobProcess(subprocess.Popen(
        command, cwd=plan.cwd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        env={**env, **fill(plan.launch.env, launcher_values(plan.launch, plan.ports, plan.python))}))
    KERNELS.add(process)
    plan.group.add(process)
    return process


@dataclass
class LaunchedKernels:
    """Every rank's kernel, started by the row's launcher: one process, a connection file per rank."""
    process: JobProcess
    connection_files: list[str]
    folder: str
    log: Path

    def stop(self, group) -> str:
        """End the job (its ranks have run their notebooks: nothing is lost) and return the launcher's output."""
        self.process.kill()
        self.process.wait()
        KERNELS.discard(self.process)
        group.discard(self.process)
        text = self.log.read_text(errors="replace")[-4000:]
        shutil.rmtree(self.folder, ignore_errors=True)
        return text


def kernel_sockets(transport: str, ipc_path: str) -> dict:
    """Where a rank's kernel listens: socket files at `ipc_path`, or loopback ports from ports.take."""
    if transport == "ipc":
        return {"ip": ipc_path}
    return {"ip": ADDRESS, **dict(zip(("shell_port", "iopub_port", "stdin_port", "hb_port", "control_port"),
                                      ports.take(5)))}


def _launch_kernels(plan: Plan, kernel_name: str, transport: str) -> LaunchedKernels:
    """Start the launcher with a kernel of `kernel_name` per rank: its kernelspec's command, each with a
    connection file written here first (so the build knows where to connect before the kernels exist)."""
    spec = KernelSpecManager().get_kernel_spec(kernel_name)
    folder = tempfile.mkdtemp(prefix="rosetta-kernel-")       # mode 0700: this user's only
    files = [write_connection_file(os.path.join(folder, f"rank-{rank}.json"), transport=transport,
                                   **kernel_sockets(transport, os.path.join(folder, f"k{rank}")))[0]
             for rank in range(plan.launch.workers)]
    programs = [[word.replace("{connection_file}", file) for word in spec.argv] for file in files]
    log = Path(folder) / "launcher.log"
    command = launcher_command(plan.launch, plan.python, plan.ports, plan.cores, programs, ["-"] * plan.launch.workers)
    with open(log, "w") as out:
        process = _launch(plan, command, {**os.environ, **spec.env, **plan.env}, out)
    return LaunchedKernels(process, files, folder, log)


class LaunchedKernel(AsyncKernelManager):
    """nbclient's manager of a kernel that the row's launcher started: it connects, and the kernel lives as long
    as the launcher's job (which the build ends: shutting one rank down alone would abort MPI's world)."""

    def __init__(self, connection_file: str, process: JobProcess, **kwargs):
        super().__init__(**kwargs)
        self.load_connection_file(connection_file)
        self.job = process
        self.connected = False

    @property
    def has_kernel(self) -> bool:
        return self.connected

    # jupyter_client's clients call the managers' _async_* methods by name, the public ones are their aliases.
    async def _async_start_kernel(self, **_) -> None:          # (started already: nbclient only connects)
        self.connected = True

    async def _async_is_alive(self) -> bool:
        return self.connected and self.job.poll() is None

    async def _async_shutdown_kernel(self, now: bool = False, restart: bool = False) -> None:
        self.connected = False

    async def _async_interrupt_kernel(self) -> None:
        pass

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        pass

    start_kernel, is_alive, shutdown_kernel = _async_start_kernel, _async_is_alive, _async_shutdown_kernel
    interrupt_kernel, cleanup_resources = _async_interrupt_kernel, _async_cleanup_resources


def run(snippet: Snippet, kernel_name: str, plan: Plan, timeout: int, transport: str = "ipc") -> Job:
    """Execute the snippet as the plan's ranks side by side (threads waiting on kernels); timeout is per
    cell, as for one kernel. Every rank's kernel and helper is gone when this returns."""
    launch, env, cwd, ports, group = plan.launch, plan.env, plan.cwd, plan.ports, plan.group
    lock = threading.Lock()
    job = Job(ranks=[None] * launch.workers)           # type: ignore[list-item]
    helpers = _start_helpers(plan)

    # Each rank's kernel on cores of its own (it inherits its thread's): its framework then sizes its thread
    # pools to them. Fewer cores than ranks: they share them all.
    cores = plan.cores
    launched = _launch_kernels(plan, kernel_name, transport) if launch.start else None

    def one(rank: int) -> None:
        if launched is not None:                       # started by the row's launcher: connect to it
            result = execute(snippet, kernel_name, {}, cwd, timeout, transport,
                             Rank(group, LaunchedKernel(launched.connection_files[rank], launched.process)))
        else:
            os.sched_setaffinity(0, cores[rank % len(cores)])
            rank_env = {**env, **fill(launch.env, values(launch, ports, rank))}
            result = execute(snippet, kernel_name, rank_env, cwd, timeout, transport, Rank(group))
        with lock:
            job.ranks[rank] = result
            if result.status != Outcome.OK and job.first_failure is None:
                job.first_failure = rank
                group.kill_all()                          # the others would wait for this rank forever

    threads = [threading.Thread(target=one, args=(rank,), name=f"rank-{rank}") for rank in range(launch.workers)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            while thread.is_alive():
                thread.join(0.2)                          # (a bare join() would not let Ctrl-C in)
    except KeyboardInterrupt:
        group.kill_all()
        for thread in threads:
            thread.join(30)
        raise
    finally:
        job.helper_logs = _stop_helpers(helpers, group)
        if launched is not None:
            job.helper_logs["launcher"] = launched.stop(group)
    if job.first_failure is not None:
        _name_the_stopped(job)
    return job


def run_processes(plan: Plan, command, timeout: float, logs: list[Path]) -> tuple[list[tuple[Outcome, str]],
                                                                                dict[str, str]]:
    """Run command(rank) (an argument list) as the plan's workers side by side, each with its rank's
    variables and on cores of its own, after the row's helpers: what the equivalence checks run a
    data-parallel row's worker with. Each rank's output goes to logs[rank]. When one exits with an error,
    or the whole job outlasts `timeout` seconds, every other rank and every helper is killed at once (a
    rank left waiting in a collective would wait for its peer). The plan's group (add, discard, kill_all) holds
    the processes while they run, so that an interruption elsewhere ends them all. Returns each rank's
    (status, reason), and the helpers' logs."""
    launch, env, cwd, ports, cores, group = plan.launch, plan.env, plan.cwd, plan.ports, plan.cores, plan.group
    if launch.start:
        return _run_launched(plan, command, timeout, logs), {}
    helpers = _start_helpers(plan)
    processes, outcomes = [], [(Outcome.OK, "")] * launch.workers
    try:
        for rank in range(launch.workers):
            with open(logs[rank], "w") as out:
                process = subprocess.Popen(
                    command(rank), cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                    env={**env, **fill(launch.env, values(launch, ports, rank))},
                    preexec_fn=functools.partial(os.sched_setaffinity, 0, cores[rank % len(cores)]))
            group.add(process)
            processes.append(process)
        deadline, first = time.monotonic() + timeout, None
        while any(process.poll() is None for process in processes):
            failed = [rank for rank, process in enumerate(processes) if process.poll() not in (None, 0)]
            if failed or time.monotonic() > deadline:
                first = failed[0] if failed else None
                break
            time.sleep(0.1)
        else:
            failed = [rank for rank, process in enumerate(processes) if process.returncode != 0]
            first = failed[0] if failed else None
        running = [rank for rank, process in enumerate(processes) if process.poll() is None]
        for rank in running:
            processes[rank].kill()
            processes[rank].wait()
        for rank, process in enumerate(processes):
            if rank in running:
                stopped = f"rank {rank}: stopped by the build: rank {first} failed first"
                outcomes[rank] = ((Outcome.TIMEOUT, f"rank {rank}: no answer within {timeout:g} s") if first is None
                                  else (Outcome.FAILED, stopped))
            elif process.returncode != 0:
                outcomes[rank] = (Outcome.FAILED,
                                  f"rank {rank} exited {process.returncode}: {_last_line(logs[rank])}")
    except BaseException:                        # an interruption in this thread: nothing may outlive the job
        for process in processes:
            process.kill()
            process.wait()
        raise
    finally:
        for process in processes:
            group.discard(process)
        helper_logs = _stop_helpers(helpers, group)
    return outcomes, helper_logs


def _run_launched(plan: Plan, command, timeout: float, logs: list[Path]) -> list[tuple[Outcome, str]]:
    """run_processes for a row whose launcher starts the ranks (mpiexec): one job, which ends as a whole when a
    rank fails (rank_start ends the launcher then). Each rank's exit status is in its log's .status file: the
    rank that failed has its own; the others were ended by a signal (or never wrote one)."""
    launch, group = plan.launch, plan.group
    programs = [command(rank) for rank in range(launch.workers)]
    with open(logs[0].with_name("launcher.log"), "w") as out:
        process = _launch(plan, launcher_command(launch, plan.python, plan.ports, plan.cores, programs,
                                                 [str(p) for p in logs]), plan.env, out)
    try:
        code = process.wait(timeout)
    except subprocess.TimeoutExpired:
        code = None
    finally:                                     # (an interruption too: nothing may outlive the job)
        if process.poll() is None:
            process.kill()
            process.wait()
        group.discard(process)
        KERNELS.discard(process)
    if code is None:
        return [(Outcome.TIMEOUT, f"rank {rank}: no answer within {timeout:g} s") for rank in range(launch.workers)]
    # A rank failed when it exited with an error of its own, or called MPI_Abort (mpi4py's runner does, on an
    # uncaught exception: MPICH's line says so); the launcher then ended the others with a signal.
    statuses = [_status(log) for log in logs]
    failed = [rank for rank, status in enumerate(statuses)
              if (status or 0) > 0 or "called MPI_Abort" in logs[rank].read_text(errors="replace")]
    if code == 0 and not failed:
        return [(Outcome.OK, "")] * launch.workers
    why = f"rank {failed[0]} failed first" if failed else f"{Path(launch.start[0]).name} exited {code}"

    def outcome(rank: int) -> tuple[Outcome, str]:
        if rank in failed:
            return Outcome.FAILED, f"rank {rank} failed: {_last_line(logs[rank], skip='MPI_Abort')}"
        if statuses[rank] == 0:
            return Outcome.OK, ""
        return Outcome.FAILED, f"rank {rank}: stopped by the build: {why}"
    return [outcome(rank) for rank in range(launch.workers)]


def _status(log: Path) -> int | None:
    try:
        return int(Path(f"{log}.status").read_text())
    except (OSError, ValueError):
        return None


def _last_line(log: Path, skip: str = "") -> str:
    lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()
             and not (skip and skip in line)]
    return lines[-1] if lines else "(no output)"


def _name_the_stopped(job: Job) -> None:
    """A rank killed because another failed died of SIGKILL, which execute reads as out of memory: say why."""
    first = job.first_failure
    for rank, result in enumerate(job.ranks):
        if rank != first and result.status != Outcome.OK and (result.error or {}).get("ename") == "KernelDied":
            result.error = {**result.error, "ename": "Stopped",
                            "evalue": f"stopped by the build: rank {first} failed first"}


def merged(job: Job) -> Execution:
    """The tab's execution: rank 0's, with the other ranks' printed lines under each cell, and the status
    and error of the rank that failed first."""
    tab = copy.copy(job.ranks[0])
    notebook = copy.deepcopy(tab.notebook)
    for rank, result in enumerate(job.ranks[1:], start=1):
        for cell, theirs in zip(notebook.cells, result.notebook.cells):
            if cell.cell_type != "code":
                continue
            text = "".join(_text(output) for output in theirs.get("outputs", []))
            if text:
                marked = "".join(f"[rank {rank}] {line}\n" for line in text.rstrip("\n").split("\n"))
                cell.setdefault("outputs", []).append(nbformat.v4.new_output("stream", name="stdout", text=marked))
    tab.notebook = notebook
    tab.wall_seconds = max(result.wall_seconds for result in job.ranks)
    tab.notes = [f"rank {rank}: {note}" for rank, result in enumerate(job.ranks) for note in result.notes]
    if job.first_failure is not None:
        failed = job.ranks[job.first_failure]
        tab.status = failed.status
        tab.error = {**(failed.error or {}),
                     "evalue": f"rank {job.first_failure}: {(failed.error or {}).get('evalue', '')}"}
    return tab


def _text(output) -> str:
    if output.get("output_type") == "stream":
        return output.get("text", "")
    if output.get("output_type") == "error":
        return f"{output.get('ename')}: {output.get('evalue')}\n"
    return ""

