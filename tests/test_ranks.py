"""A data-parallel job's ranks (ranks.py): real kernels of the PyTorch environment talking over gloo on the
loopback interface; one rank that fails or hangs stops the others at once, and no process is left behind."""
from __future__ import annotations

import json
import os
import sys
import time
import uuid
from pathlib import Path

import nbformat
import pytest

from rosetta.build import ranks
from rosetta.build.outcome import Outcome
from rosetta.build.snippets import Snippet, Step

REPO = Path(__file__).resolve().parent.parent
PYTHON = REPO / ".envs" / "pytorch" / "bin" / "python"
TORCHRUN_ENV = {"RANK": "$rank", "WORLD_SIZE": "$workers", "LOCAL_RANK": "$rank",
                "MASTER_ADDR": "$address", "MASTER_PORT": "$port"}

SETUP = """import os
import torch
import torch.distributed as dist

dist.init_process_group("gloo")        # env://: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
rank = dist.get_rank()
print("rank", rank, "of", dist.get_world_size())"""


def snippet(*cells: tuple[str, str]) -> Snippet:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(code, metadata={"tags": [step]}) for step, code in cells]
    steps = [Step(step, code, [index]) for index, (step, code) in enumerate(cells)]
    return Snippet("data_parallel_test", "pytorch", Path("pytorch.py"), notebook, steps)


def processes_with(marker: str) -> list[int]:
    """This user's processes whose environment holds the marker: every kernel and helper of a test's job."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                if marker.encode() in Path(f"/proc/{pid}/environ").read_bytes():
                    found.append(int(pid))
            except OSError:
                pass
    return found


def test_templates_fill_a_tf_config_that_json_reads_and_ports_differ():
    launch = ranks.Launch(workers=2, env={
        "TF_CONFIG": '{"cluster": {"worker": $worker_addresses}, "task": {"type": "worker", "index": $rank}}'})
    ports = ranks.free_ports(3)
    assert len(set(ports)) == 3
    config = json.loads(ranks.fill(launch.env, ranks.values(launch, ports, 1))["TF_CONFIG"])
    assert config == {"cluster": {"worker": [f"127.0.0.1:{ports[1]}", f"127.0.0.1:{ports[2]}"]},
                      "task": {"type": "worker", "index": 1}}
    with pytest.raises(KeyError):                      # a template naming what the build does not give
        ranks.fill({"X": "$nodes"}, ranks.values(launch, ports, 0))


needs_pytorch = pytest.mark.skipif(not PYTHON.exists(), reason="needs the PyTorch environment (make envs)")


@pytest.mark.envs
@needs_pytorch
def test_two_ranks_all_reduce_over_gloo_and_the_tab_shows_both(tmp_path):
    marker = f"ROSETTA_TEST_JOB={uuid.uuid4().hex}"
    plan = ranks.Plan(ranks.Launch(workers=2, env=TORCHRUN_ENV), str(PYTHON),
                      {marker.split("=")[0]: marker.split("=")[1]}, tmp_path)
    job = ranks.run(snippet(("setup", SETUP),
                            ("train", "total = torch.tensor([rank + 1.0])\ndist.all_reduce(total)\n"
                                      "print('sum', total.item())\ndist.destroy_process_group()")),
                    "rosetta-pytorch", plan, 120)
    assert job.status == Outcome.OK, [r.error for r in job.ranks]
    tab = ranks.merged(job)
    text = "".join(o.get("text", "") for cell in tab.notebook.cells for o in cell.get("outputs", []))
    assert "rank 0 of 2" in text and "[rank 1] rank 1 of 2" in text
    assert "sum 3.0" in text and "[rank 1] sum 3.0" in text     # 1 + 2 on both ranks: the all-reduce ran
    assert set(tab.step_seconds) == {"setup", "train"}
    assert processes_with(marker) == []


@pytest.mark.envs
@needs_pytorch
@pytest.mark.parametrize("fault", ["raises", "hangs"])
def test_a_rank_that_fails_or_hangs_stops_its_peer_waiting_in_a_collective_and_leaves_no_process(tmp_path, fault):
    """Rank 1 fails before the all-reduce that rank 0 waits in (gloo's own timeout is 30 minutes): the job
    ends within the cell timeout, rank 0's kernel killed and named as stopped, the helper gone too."""
    marker = f"ROSETTA_TEST_JOB={uuid.uuid4().hex}"
    broken = "raise RuntimeError('rank 1 broke')" if fault == "raises" else "import time; time.sleep(600)"
    train = f"if rank == 1:\n    {broken}\ntotal = torch.tensor([1.0])\ndist.all_reduce(total)"
    helper = ranks.Helper("sleeper", "import time; print('helper up', flush=True); time.sleep(600)")
    started = time.monotonic()
    plan = ranks.Plan(ranks.Launch(workers=2, env=TORCHRUN_ENV, helpers=(helper,)), str(PYTHON),
                      {marker.split("=")[0]: marker.split("=")[1]}, tmp_path)
    job = ranks.run(snippet(("setup", SETUP), ("train", train)), "rosetta-pytorch", plan, 10)
    took = time.monotonic() - started
    assert took < 45, took
    tab = ranks.merged(job)
    if fault == "raises":
        assert job.first_failure == 1 and job.ranks[1].status == Outcome.FAILED
        assert job.ranks[0].status == Outcome.FAILED
        assert job.ranks[0].error["evalue"] == "stopped by the build: rank 1 failed first"
        assert tab.status == Outcome.FAILED and tab.error["evalue"] == "rank 1: rank 1 broke"
    else:
        # The rank that sleeps and the one waiting for it in the all-reduce look the same from outside: both
        # reach the cell timeout together, and whichever is seen first stops the other.
        assert job.status == Outcome.TIMEOUT and tab.status == Outcome.TIMEOUT
        assert all(r.status == Outcome.TIMEOUT or r.error["ename"] == "Stopped" for r in job.ranks)
    assert tab.error["step"] == "train"
    assert "helper up" in job.helper_logs["sleeper"]
    assert processes_with(marker) == []


def test_helpers_get_their_templates_and_an_interpreter_of_their_own(tmp_path):
    """A helper (MXNet's scheduler or server) runs with the row's interpreter and its filled environment;
    it is stopped when the job ends."""
    launch = ranks.Launch(workers=2, helpers=(ranks.Helper(
        "echo", "import os; print(os.environ['ROLE'], os.environ['WHERE'], flush=True)",
        {"ROLE": "scheduler", "WHERE": "$address:$port"}),))
    group = ranks.LiveKernels()
    started = ranks._start_helpers(ranks.Plan(launch, sys.executable, {}, tmp_path, group, ports=[4242, 1, 2]))
    started[0][1].wait(timeout=30)
    assert ranks._stop_helpers(started, group) == {"echo": "scheduler 127.0.0.1:4242\n"}


@pytest.mark.parametrize("fault", ["exits", "hangs"])
def test_worker_processes_a_rank_that_exits_or_hangs_stops_the_rest_and_leaves_no_process(tmp_path, fault):
    """The equivalence checks' launcher (plain processes, not kernels): each rank gets its own variables; when
    rank 1 exits with an error while rank 0 waits for it, rank 0 and the helper are killed at once and named;
    when a rank hangs, the job ends at its timeout. Nothing outlives the job."""
    marker = f"ROSETTA_TEST_JOB={uuid.uuid4().hex}"
    code = ("import os, sys, time\nrank = int(os.environ['R'])\n"
            "print('rank', rank, 'of', os.environ['N'], flush=True)\n"
            + ("if rank == 1:\n    sys.exit('rank 1 broke')\n" if fault == "exits" else "")
            + "time.sleep(600)   # rank 0 waits for its peer, as in a collective")
    helper = ranks.Helper("sleeper", "import time; print('helper up', flush=True); time.sleep(600)")
    launch = ranks.Launch(workers=2, env={"R": "$rank", "N": "$workers"}, helpers=(helper,))
    group, logs = ranks.LiveKernels(), [tmp_path / "rank-0.log", tmp_path / "rank-1.log"]
    started = time.monotonic()
    outcomes, helper_logs = ranks.run_processes(
        ranks.Plan(launch, sys.executable, {**os.environ, marker.split("=")[0]: marker.split("=")[1]}, tmp_path, group),
        lambda rank: [sys.executable, "-c", code], 8 if fault == "hangs" else 300, logs)
    took = time.monotonic() - started
    assert [log.read_text().splitlines()[0] for log in logs] == ["rank 0 of 2", "rank 1 of 2"]
    if fault == "exits":
        assert took < 10, took
        assert outcomes == [(Outcome.FAILED, "rank 0: stopped by the build: rank 1 failed first"),
                            (Outcome.FAILED, "rank 1 exited 1: rank 1 broke")]
    else:
        assert 8 <= took < 15, took
        assert outcomes == [(Outcome.TIMEOUT, f"rank {rank}: no answer within 8 s") for rank in range(2)]
    assert "helper up" in helper_logs["sleeper"]
    assert processes_with(marker) == [] and not group.processes


def test_worker_processes_that_all_succeed_are_ok_and_pinned_to_cores_of_their_own(tmp_path):
    launch = ranks.Launch(workers=2, env={"R": "$rank"})
    logs = [tmp_path / "rank-0.log", tmp_path / "rank-1.log"]
    code = "import os; print(os.environ['R'], sorted(os.sched_getaffinity(0)))"
    outcomes, _ = ranks.run_processes(ranks.Plan(launch, sys.executable, dict(os.environ), tmp_path),
                                      lambda rank: [sys.executable, "-c", code], 60, logs)
    assert outcomes == [(Outcome.OK, "")] * 2
    cores = [log.read_text().split(" ", 1)[1].strip() for log in logs]
    if len(os.sched_getaffinity(0)) >= 2:
        assert cores[0] != cores[1] and not set(json.loads(cores[0])) & set(json.loads(cores[1]))


def test_a_gpu_machine_runs_one_worker_per_gpu_at_most_the_example_s_count(project):
    """Two workers on one GPU would both ask NCCL for it (and rank 1's LOCAL_RANK names a second device): the
    prepared one-GPU run trains each row on 1 worker; a CPU runs the example's count, one core each."""
    example = project.example("cnn_cifar10_data_parallel")
    assert ranks.workers_here(example, {"cores": 2, "gpus": []}) == 2
    assert ranks.workers_here(example, {"cores": 16, "gpus": [{"name": "H200"}]}) == 1
    assert ranks.workers_here(example, {"cores": 16, "gpus": [{"name": "V100"}] * 4}) == 2
    assert ranks.workers_here(project.example("cnn_cifar10"), {"gpus": [{"name": "V100"}] * 4}) == 1


def test_a_row_without_a_data_parallel_table_is_refused_with_one_message_naming_its_file(project):
    """A data-parallel example's snippet on a row whose envs/<row>.toml cannot start workers: the build blocks
    that row (snippet-error) with this message instead of starting one lone kernel that waits forever."""
    example = project.example("cnn_cifar10_data_parallel")
    assert ranks.launch_problem(example, project.framework("pytorch")) == ""
    problem = ranks.launch_problem(example, project.framework("theano"))
    assert problem.startswith("envs/theano.toml has no [data_parallel] table") and "2 workers" in problem
    assert ranks.launch_problem(project.example("cnn_cifar10"), project.framework("theano")) == "", "one worker: none"


# --- a row whose launcher starts the ranks: MPI (Chainer's ChainerMN), mpiexec from the mpich wheel ---

CHAINER = REPO / ".envs" / "chainer" / "bin" / "python"
needs_chainer = pytest.mark.skipif(not CHAINER.exists(), reason="needs the Chainer environment (make envs)")
MPI_SETUP = """import os
import psutil
from mpi4py import MPI

comm = MPI.COMM_WORLD                  # the world mpiexec made: no variables of ours
rank = comm.Get_rank()
print("rank", rank, "of", comm.Get_size(), "on cores", sorted(os.sched_getaffinity(0)))"""


def test_an_mpi_launcher_gets_one_section_per_rank_each_through_rank_start_onto_its_cores():
    launch = ranks.Launch(workers=2, start=("$bin/mpiexec.gforker",), env={"UCX_NET_DEVICES": "lo"},
                          runner=("-m", "mpi4py"))
    command = ranks.launcher_command(launch, "/env/bin/python", [1, 2, 3], [(0,), (1,)],
                                     [["py", "-P", "-m", "worker", "a"], ["py", "-c", "b"]], ["-", "log"])
    assert command == ["/env/bin/mpiexec.gforker",
                       "-n", "1", "/env/bin/python", "-m", "rosetta.rank_start", "0", "-", "--",
                       "py", "-P", "-m", "mpi4py", "-m", "worker", "a", ":",
                       "-n", "1", "/env/bin/python", "-m", "rosetta.rank_start", "1", "log", "--",
                       "py", "-m", "mpi4py", "-c", "b"]


@pytest.mark.envs
@needs_chainer
def test_mpi_ranks_that_mpiexec_starts_are_kernels_the_build_drives_pinned_and_listening_on_loopback_only(
        tmp_path, project):
    """The Chainer row's own launch (envs/chainer.toml): one mpiexec starts both kernels; the build connects to
    them, rank 1's lines join rank 0's tab, each rank has a core of its own, and no process of the job listens
    on an address other than the loopback one (Hydra's mpiexec would, on every interface)."""
    marker = f"ROSETTA_TEST_JOB={uuid.uuid4().hex}"
    train = ("print('sum', comm.allreduce(rank + 1))\n"
             "me = psutil.Process()\n"
             "job = (me, *me.parents()[:2])      # this kernel, rank_start, the launcher\n"
             "print('listening', sorted({c.laddr.ip for p in job for c in p.net_connections('inet')\n"
             "                           if c.status == 'LISTEN'}))")
    plan = ranks.Plan(ranks.launch_of(project.framework("chainer"), 2), str(CHAINER),
                      {marker.split("=")[0]: marker.split("=")[1]}, tmp_path)
    job = ranks.run(snippet(("setup", MPI_SETUP), ("train", train)), "rosetta-chainer", plan, 120)
    assert job.status == Outcome.OK, (job.helper_logs, [r.error for r in job.ranks])
    text = "".join(o.get("text", "") for cell in ranks.merged(job).notebook.cells for o in cell.get("outputs", []))
    assert "rank 0 of 2" in text and "[rank 1] rank 1 of 2" in text
    assert "sum 3" in text and "[rank 1] sum 3" in text
    if len(os.sched_getaffinity(0)) >= 2:
        cores = [line.split("on cores ")[1] for line in text.splitlines() if "on cores" in line]
        assert len(cores) == 2 and not set(json.loads(cores[0])) & set(json.loads(cores[1]))
    listening = [line for line in text.splitlines() if "listening" in line]
    assert len(listening) == 2 and all(set(json.loads(line.split("listening ")[1].replace("'", '"'))) <= {"127.0.0.1"}
                                       for line in listening), listening
    assert processes_with(marker) == []


@pytest.mark.envs
@needs_chainer
@pytest.mark.parametrize("fault", ["raises", "hangs"])
def test_an_mpi_rank_that_fails_or_hangs_stops_its_peer_and_leaves_no_process(tmp_path, project, fault):
    """Rank 1 fails (or hangs) while rank 0 waits for it in an all-reduce: the build ends the launcher's whole
    job within the cell timeout, and names rank 0 as stopped."""
    marker = f"ROSETTA_TEST_JOB={uuid.uuid4().hex}"
    broken = "raise RuntimeError('rank 1 broke')" if fault == "raises" else "import time; time.sleep(600)"
    train = f"if rank == 1:\n    {broken}\ncomm.allreduce(1)"
    started = time.monotonic()
    plan = ranks.Plan(ranks.launch_of(project.framework("chainer"), 2), str(CHAINER),
                      {marker.split("=")[0]: marker.split("=")[1]}, tmp_path)
    job = ranks.run(snippet(("setup", MPI_SETUP), ("train", train)), "rosetta-chainer", plan, 10)
    assert time.monotonic() - started < 45
    tab = ranks.merged(job)
    if fault == "raises":
        assert job.first_failure == 1 and job.ranks[0].error["evalue"] == "stopped by the build: rank 1 failed first"
        assert tab.status == Outcome.FAILED and tab.error["evalue"] == "rank 1: rank 1 broke"
    else:
        assert job.status == Outcome.TIMEOUT and tab.status == Outcome.TIMEOUT
    assert tab.error["step"] == "train"
    assert processes_with(marker) == []


@pytest.mark.envs
@needs_chainer
@pytest.mark.parametrize("fault", ["exits", "hangs", None])
def test_mpi_worker_processes_a_rank_that_exits_ends_the_job_and_a_hang_its_timeout(tmp_path, project, fault):
    """The equivalence checks' launch of an MPI row: mpiexec.gforker itself would wait for rank 0 in its
    all-reduce forever; rank_start ends the job when rank 1 exits with an error, and says which rank failed."""
    marker = f"ROSETTA_TEST_JOB={uuid.uuid4().hex}"
    code = ("import sys, time\nfrom mpi4py import MPI\nrank = MPI.COMM_WORLD.Get_rank()\n"
            "print('rank', rank, 'of', MPI.COMM_WORLD.Get_size(), flush=True)\n"
            + {"exits": "if rank == 1:\n    sys.exit('rank 1 broke')\n",
               "hangs": "if rank == 1:\n    time.sleep(600)\n", None: ""}[fault]
            + "print('sum', MPI.COMM_WORLD.allreduce(rank + 1))")
    logs, group = [tmp_path / "rank-0.log", tmp_path / "rank-1.log"], ranks.LiveKernels()
    started = time.monotonic()
    outcomes, _ = ranks.run_processes(
        ranks.Plan(ranks.launch_of(project.framework("chainer"), 2), str(CHAINER),
                   {**os.environ, marker.split("=")[0]: marker.split("=")[1]}, tmp_path, group),
        lambda rank: [str(CHAINER), "-c", code], 8 if fault == "hangs" else 120, logs)
    took = time.monotonic() - started
    assert [log.read_text().splitlines()[0] for log in logs] == ["rank 0 of 2", "rank 1 of 2"]
    if fault == "exits":
        assert took < 30, took
        assert outcomes == [(Outcome.FAILED, "rank 0: stopped by the build: rank 1 failed first"),
                            (Outcome.FAILED, "rank 1 failed: rank 1 broke")]
    elif fault == "hangs":
        assert 8 <= took < 20, took
        assert outcomes == [(Outcome.TIMEOUT, f"rank {rank}: no answer within 8 s") for rank in range(2)]
    else:
        assert outcomes == [(Outcome.OK, "")] * 2 and all("sum 3" in log.read_text() for log in logs)
    assert processes_with(marker) == [] and not group.processes
