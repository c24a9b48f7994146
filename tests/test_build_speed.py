"""What keeps the build fast without changing what it measures: the equivalence workers side by side (real
processes), and the phase clock whose table every build prints."""
from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from rosetta.build import equivalence, jobs, variables, workers
from rosetta.build.context import Options, RunContext, Selection
from rosetta.build.phases import Phases

SLEEPER = [sys.executable, "-c", "import time, sys; time.sleep(float(sys.argv[1])); print('slept')"]


def test_workers_run_two_at_a_time_and_keep_their_order(tmp_path):
    started = time.perf_counter()
    tasks = [lambda n=n: workers.LIVE.run([*SLEEPER, "1.5"], tmp_path, dict(os.environ), 30).stdout.strip() + str(n)
             for n in range(4)]
    outcomes = workers.in_parallel(tasks, 2)
    seconds = time.perf_counter() - started
    assert outcomes == ["slept0", "slept1", "slept2", "slept3"]
    assert 2 * 1.5 <= seconds < 4 * 1.5, seconds           # two rounds of two, not four one after another
    assert not workers.LIVE.processes


def test_an_interrupted_check_kills_every_worker_it_started(tmp_path):
    """Ctrl-C reaches the main thread only: the workers waiting in the pool's threads are killed by it."""
    pids = tmp_path / "pids"

    def worker(n):
        return workers.LIVE.run([sys.executable, "-c", f"import os, time; open({str(pids)!r} + '{n}', 'w')"
                                     ".write(str(os.getpid())); time.sleep(60)"], tmp_path, dict(os.environ), 120)

    def interrupt_soon():
        deadline = time.time() + 20
        while len(list(tmp_path.glob("pids*"))) < 2 and time.time() < deadline:
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)            # what Ctrl-C sends (the build turns SIGTERM into the same)

    # Python's own Ctrl-C handler, whatever an earlier test in this process left installed (a kernel
    # manager's handler, or none, would let the workers sleep on and the check return normally).
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    threading.Thread(target=interrupt_soon, daemon=True).start()
    started = time.perf_counter()
    try:
        with pytest.raises(KeyboardInterrupt):
            workers.in_parallel([lambda n=n: worker(n) for n in range(3)], 2)
    finally:
        signal.signal(signal.SIGINT, handler)
    assert time.perf_counter() - started < 30
    for path in tmp_path.glob("pids*"):
        pid = int(path.read_text())
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)                               # gone (and reaped), not left running
    assert len(list(tmp_path.glob("pids*"))) == 2, "the third worker never started"
    assert not workers.LIVE.processes


def test_a_worker_past_its_time_is_killed(tmp_path):
    with pytest.raises(subprocess.TimeoutExpired):
        workers.LIVE.run([*SLEEPER, "30"], tmp_path, dict(os.environ), 0.5)
    assert not workers.LIVE.processes


@pytest.mark.parametrize("gpus, setting, expected", [([], "", min(2, os.cpu_count() or 1)), ([{"name": "H200"}], "", 1),
                                                      ([], "3", 3), ([{"name": "H200"}], "2", 2), ([], "x", None)])
def test_how_many_workers_run_at_once(monkeypatch, gpus, setting, expected):
    monkeypatch.setenv("ROSETTA_CHECK_WORKERS", setting)
    given = variables.read().check_workers
    assert jobs.parallel_workers({"gpus": gpus}, given) == (expected or min(2, os.cpu_count() or 1))


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="pinning two workers apart needs two CPUs")
def test_workers_side_by_side_each_run_on_cores_of_their_own(tmp_path):
    """Each sees only its group of CPUs, so its frameworks size their thread pools to it (no four busy
    threads on two cores); one worker alone is not pinned."""
    groups = workers.core_groups(2)
    assert len(groups) == 2 and set(groups[0]).isdisjoint(groups[1])
    assert set(groups[0]) | set(groups[1]) == os.sched_getaffinity(0)
    assert workers.core_groups(1) == [()] and workers.pinned_to(()) == []
    seen = [workers.LIVE.run([*workers.pinned_to(group), sys.executable, "-c",
                                  "import os; print(sorted(os.sched_getaffinity(0)))"], tmp_path, dict(os.environ), 30)
            for group in groups]
    assert [json.loads(done.stdout) for done in seen] == [sorted(group) for group in groups]


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="pinning two jobs apart needs two CPUs")
def test_jobs_side_by_side_run_two_at_a_time_on_cores_of_their_own_and_keep_their_order(project, tmp_path):
    """What the smoke profile's lesson scripts get (it measures nothing): two jobs at a time, each thread pinned
    to its own CPUs, which the kernel it starts inherits; the results in the jobs' order, each saved."""
    from rosetta.build import jobs, store
    context = RunContext(project, "smoke", Options(force=True), Selection(), variables.read(), (), (), (),
                         log=lambda line: None)

    def run(n):
        def measure(key):
            seen = subprocess.run([sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"],
                                  capture_output=True, text=True, check=True).stdout
            time.sleep(1.0)
            return {"n": n, "cpus": json.loads(seen), "status": "ok", "cache_key": key}, None
        return measure

    queued = [jobs.Job(store.LESSON, f"sleepy/row{n}", f"row{n}", tmp_path / f"row{n}.json", True, key=lambda: "k",
                       run=run(n)) for n in range(4)]
    before, started = os.sched_getaffinity(0), time.perf_counter()
    found = jobs.run_side_by_side(context, queued, 2)
    seconds = time.perf_counter() - started
    assert [r["n"] for r in found] == [0, 1, 2, 3]
    assert 2 * 1.0 <= seconds < 4 * 1.0, seconds          # two rounds of two, not four one after another
    groups = {tuple(r["cpus"]) for r in found}
    assert len(groups) == 2 and set.union(*map(set, groups)) == os.sched_getaffinity(0), groups
    assert all(len(set(a) & set(b)) == 0 for a in groups for b in groups if a != b)
    assert all(json.loads((tmp_path / f"row{n}.json").read_text())["n"] == n for n in range(4))
    assert os.sched_getaffinity(0) == before, "the main thread is never pinned"


def test_a_kept_worker_output_is_used_only_under_its_own_key_and_never_when_cut_off(project, tmp_path):
    """What lets an edit re-run one row's workers: an output kept under the key of what it depends on.
    Another key, a cut-off record or a missing output means the worker runs again."""
    from rosetta import neutral
    from rosetta.project import Project
    here = Project(root=tmp_path, envs=project.envs, venvs=project.venvs)
    example = project.example("cnn_cifar10")
    context = RunContext(here, "smoke", Options(force=False), Selection(), variables.read(), (), (example,), (),
                         log=lambda line: None)
    runner = equivalence.Runner(context, example, None)
    job, folder = tmp_path / "job", tmp_path / "kept" / "pytorch-base"
    job.mkdir()
    neutral.save(job / "out.npz", {"logits": np.arange(6, dtype=np.float32).reshape(2, 3)})
    neutral.save(job / "weights.npz", {"w": np.zeros(3, dtype=np.float32)})
    runner.keep(folder, "key-1", job, {"status": "ok", "reason": "", "seconds": 1.5, "facts": {}, "arrays": {}})
    assert not (job / "out.npz").exists() and not (job / "weights.npz").exists(), "moved, and the inputs gone"
    kept = runner.kept(folder, "key-1")
    assert kept["kept"] is True and kept["seconds"] == 1.5 and kept["arrays"]["logits"].shape == (2, 3)
    assert runner.kept(folder, "key-2") is None                       # something it depends on changed
    (folder / "outcome.json").write_text((folder / "outcome.json").read_text()[:20])
    assert runner.kept(folder, "key-1") is None                       # cut off: run again
    assert runner.kept(tmp_path / "kept" / "nothing", "key-1") is None


def test_the_phase_table_adds_up_repeated_phases_and_names_the_rest(tmp_path):
    clock = Phases()
    clock.add("cnn_cifar10: snippets", 2.0)
    clock.add("cnn_cifar10: snippets", 1.5)
    with clock.timing("pages"):
        time.sleep(0.05)
    table = clock.table()
    lines = table.splitlines()
    assert lines[0].split() == ["phase", "wall", "s", "share"]
    assert lines[1].split()[:3] == ["cnn_cifar10:", "snippets", "3.5"]
    assert lines[2].startswith("pages") and float(lines[2].split()[1]) >= 0.05
    assert lines[-2].startswith("(the rest)") and lines[-1].startswith("whole build")
    clock.save(tmp_path / "phases.json")
    saved = json.loads((tmp_path / "phases.json").read_text())
    assert saved["phases"]["cnn_cifar10: snippets"] == 3.5 and saved["total"] >= 0


@pytest.mark.envs           # (the Theano environment, and a build of the real project: after the smoke site)
def test_the_lessons_budget_is_timed_and_reported_by_the_harness(project):
    """benchmarks/build_timings.py --lessons runs the lessons again (here one, at smoke) and reports their phases
    against the 15-minute budget, here and scaled by the float32 peak to the slowest machine of the kind."""
    run = subprocess.run([sys.executable, str(project.root / "benchmarks" / "build_timings.py"), "--profile", "smoke",
                          "--lessons", "--only", "theano_elementwise"], cwd=project.root, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    saved = project.root / run.stdout.split("saved ")[-1].strip()
    report = json.loads(saved.read_text())
    targets = report["targets"]
    assert report["lessons"] == "theano_elementwise" and targets["scripts"] == 1
    assert report["phases"]["lessons"]["finished"] == ["theano_elementwise/theano"]
    assert 0 < targets["lessons_seconds"] <= report["phases"]["lessons"]["seconds"]
    assert targets["lessons_met"] and targets["lessons_s"] == 900 and targets["lessons_peak_gflops"] == 400
    budget = targets["budget"]
    assert budget["seconds_at_budget_peak"] == pytest.approx(targets["lessons_seconds"] * targets["peak_gflops"] / 400,
                                                             abs=0.1)
    assert targets["estimate_at_slowest_s"] == pytest.approx(
        targets["lessons_seconds"] * targets["peak_gflops"] / 200, abs=0.1)
    assert "budget 900 s at 400 GFLOP/s" in run.stdout and ": met" in run.stdout and "benchmarks/results/" in run.stdout
    assert report["versions"]["theano"]["python"]            # the environments' versions, for the provenance
    assert report["phases"]["lessons"]["finished_seconds"]["theano_elementwise/theano"] > 0
    rates = targets["numpy_gflops"]
    assert rates["before"] > 0 and rates["after"] > 0 and "the peak today about" in run.stdout


def test_the_peak_today_is_the_recorded_peak_scaled_by_numpys_product_now(project):
    """A machine runs slower on some days: the harness scales its peak on record by numpy's rate now against
    numpy's rate on record, so that its estimate for a slow machine starts from today's speed."""
    spec = importlib.util.spec_from_file_location("build_timings", project.root / "benchmarks" / "build_timings.py")
    timings = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(timings)
    recorded = {"gflops": 400.0, "by": {"chainer": 400.0, "numpy (build)": 350.0}}
    assert timings.peak_today(recorded, 262.5) == 300.0
    assert timings.peak_today({"gflops": 400.0, "by": {"chainer": 400.0}}, 280.0) == 280.0
    assert timings.peak_today({}, 280.0) is None


def test_make_tests_peak_is_the_mean_of_its_start_and_its_end_when_the_record_is_its_own(project):
    """make test's smoke build measures the peak at its start (a clean clone has none on record); the harness
    measures it again at the end and takes the mean. A record older than the run is not this run's: the end's
    measurement alone."""
    spec = importlib.util.spec_from_file_location("build_timings", project.root / "benchmarks" / "build_timings.py")
    timings = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(timings)
    end = {"gflops": 200.0, "date": "2026-12-07T01:04:55+00:00"}
    own = {"gflops": 214.0, "date": "2026-12-07T00:23:47+00:00"}
    during = timings.peak_during(own, end, 2399.0, "2026-12-07T01:02:00+00:00")
    assert during["gflops"] == 207.0 and during["start"] == own and during["end"] == end
    older = timings.peak_during(own, end, 600.0, "2026-12-07T01:02:00+00:00")
    assert older["gflops"] == 200.0 and older["start"] is None
    assert timings.peak_during({}, end, 2399.0, "2026-12-07T01:02:00+00:00")["gflops"] == 200.0


def test_budgets_are_work_a_time_at_a_peak_scaled_by_the_peak_measured(project):
    """15 minutes at 400 GFLOP/s is 30 at 200: a time measured at one peak is held to the budget at its own."""
    spec = importlib.util.spec_from_file_location("build_timings", project.root / "benchmarks" / "build_timings.py")
    timings = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(timings)
    slow = timings.against_budget(1700.0, 200.0, 900.0, 400.0)
    assert slow["budget_here_s"] == 1800.0 and slow["seconds_at_budget_peak"] == 850.0 and slow["met"]
    fast = timings.against_budget(1000.0, 400.0, 900.0, 400.0)
    assert fast["budget_here_s"] == 900.0 and not fast["met"]
    test = timings.against_budget(1800.0, 300.0, timings.TEST_TARGET_S, timings.TEST_PEAK)
    assert test["seconds_at_budget_peak"] == 2700.0 and test["met"], "45 minutes at 200 GFLOP/s: 30 at 300"
    assert timings.budget_line("make test (exit 0)", test) == (
        "make test (exit 0): 1800 s at a float32 peak of 300 GFLOP/s, the work of 2700 s at 200 GFLOP/s; budget "
        "2700 s at 200 GFLOP/s (here 1800 s): met")
    assert timings.against_budget(10.0, None, 900.0, 400.0)["met"] is None, "no peak, no verdict"


def test_after_an_interruption_no_worker_starts_again(tmp_path):
    """A pool inside a pool (a check's own-sized part runs beside the rest) has threads the interruption does not
    reach: once it has, a worker they ask for is refused, not started after the others were killed. An error that
    is no interruption stops nothing."""
    live = workers.LiveWorkers()
    live.kill_all(interrupted=True)
    with pytest.raises(workers.WorkersStopped, match="interrupted"):
        live.run([*SLEEPER, "30"], tmp_path, dict(os.environ), 30)
    assert not live.processes
    errored = workers.LiveWorkers()
    errored.kill_all()
    assert errored.run([sys.executable, "-c", "print('ran')"], tmp_path, dict(os.environ), 30).stdout.strip() == "ran"
