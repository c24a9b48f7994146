#!/usr/bin/env python3
"""Measure the build itself: cold build, warm rebuild, rebuild after editing one snippet.

    .envs/docs/bin/python benchmarks/build_timings.py --profile cpu [--cold] [--edit pytorch]
    .envs/docs/bin/python benchmarks/build_timings.py --profile smoke --cold      # what make test builds

Each run is `build_docs.py` as a user would run it (one process, nothing else running): its wall time,
the snippets it executed, and where its time went (the phase table every build prints at its end:
environments, machine peak, per example the kernel start-ups, the snippets and the equivalence checks,
the lessons, the pages, Sphinx; from _build/phases.json). The report is printed and saved to
benchmarks/results/<machine>-<profile>-<date>.json with the machine and versions.
Targets: warm rebuild <= 30 s with nothing executed; an edit re-executes one snippet (and its example's
equivalence check); the smoke build (make test's) <= 600 s on a fast 2-core machine (issue 22).

    .envs/docs/bin/python benchmarks/build_timings.py --profile cpu --lessons    # the lessons' budget

times the lessons alone, every script executed again (`--measure-only --examples none --force`): their
phases (data, kernel start-ups, scripts) against their budget, stated in work: 15 minutes at a float32 peak
of 400 GFLOP/s, so 30 minutes at 200 (the time here scaled by this machine's peak to 400 GFLOP/s).

    .envs/docs/bin/python benchmarks/build_timings.py --test-seconds 1800 --test-status 0

reports a `make test` that took that long (.ci/run times it and calls this) against its budget: 45 minutes at
a float32 peak of 200 GFLOP/s, the peak during the run being the mean of the smoke build's measurement at its
start and the same measurement (every environment's product) again at its end. For the lessons, the
machine's speed on the day is numpy's product timed before and after, against its rate on record (the peak
today). A report of every run is kept in benchmarks/budget/, with the machine and the environments' versions.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rosetta.build import results, variables  # noqa: E402
from rosetta.project import Project, resolve_profile  # noqa: E402

WARM_TARGET_S = 30.0
SMOKE_TARGET_S = 600.0
# Budgets are stated in work, not in seconds on whatever machine (issue 43): a time at a float32 peak, and so
# the time a machine of another peak may take is the budget scaled by the ratio of the peaks.
LESSONS_TARGET_S, LESSONS_PEAK = 900.0, 400.0     # the cpu profile's lessons together: 15 minutes at 400 GFLOP/s
TEST_TARGET_S, TEST_PEAK = 2700.0, 200.0          # `make test` from a clean clone: 45 minutes at 200 GFLOP/s
SLOWEST_PEAK_GFLOPS = 200.0         # the slowest float32 peak measured on a 2-core machine of this kind


def against_budget(seconds: float, peak: float | None, target_s: float, target_peak: float) -> dict:
    """A time measured at `peak` against a budget of `target_s` at `target_peak`: the same work at the budget's
    peak, the budget at this machine's peak, and whether it is met."""
    if not peak:
        return {"seconds": seconds, "peak_gflops": None, "budget_s": target_s, "budget_peak_gflops": target_peak,
                "met": None}
    at_budget_peak = round(seconds * peak / target_peak, 1)
    return {"seconds": seconds, "peak_gflops": peak, "budget_s": target_s, "budget_peak_gflops": target_peak,
            "seconds_at_budget_peak": at_budget_peak, "budget_here_s": round(target_s * target_peak / peak, 1),
            "met": at_budget_peak <= target_s}


def budget_line(what: str, budget: dict) -> str:
    if budget["met"] is None:
        return f"{what}: {budget['seconds']:.0f} s; no float32 peak on record here, so no budget to hold it to"
    return (f"{what}: {budget['seconds']:.0f} s at a float32 peak of {budget['peak_gflops']:.0f} GFLOP/s, the work "
            f"of {budget['seconds_at_budget_peak']:.0f} s at {budget['budget_peak_gflops']:.0f} GFLOP/s; budget "
            f"{budget['budget_s']:.0f} s at {budget['budget_peak_gflops']:.0f} GFLOP/s (here "
            f"{budget['budget_here_s']:.0f} s): {'met' if budget['met'] else 'NOT met'}")


def build(profile: str, *extra: str) -> dict:
    phases = ROOT / "_build" / "phases.json"
    phases.unlink(missing_ok=True)
    started = time.perf_counter()
    run = subprocess.run([sys.executable, str(ROOT / "build_docs.py"), "--profile", profile, *extra],
                         cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    log = run.stdout + run.stderr
    executed = [line.split(" of ")[1].split(" ")[0] for line in log.splitlines() if line.strip().startswith("run ")]
    checked = [line.split("equivalence: ")[1].split(":")[0] for line in log.splitlines()
               if "  equivalence: " in line and "(" in line]
    # Every finished job's line ("  <example or lesson>/<row>: ok in 2.1 s"): a lessons-only build's scripts.
    timed = re.findall(r"^  ([\w-]+/[\w-]+): \S+ in ([\d.]+) s", log, re.MULTILINE)
    return {"seconds": round(seconds, 1), "returncode": run.returncode, "executed": executed,
            "equivalence_runs": checked, "finished": [name for name, _ in timed],
            "finished_seconds": {name: float(took) for name, took in timed},
            "phases": json.loads(phases.read_text())["phases"] if phases.exists() else None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--profile")
    parser.add_argument("--cold", action="store_true", help="first delete this machine's results of the profile")
    parser.add_argument("--edit", metavar="FRAMEWORK",
                        help="also time a rebuild after editing this framework's snippet")
    parser.add_argument("--example", default="cnn_cifar10")
    parser.add_argument("--lessons", action="store_true",
                        help="time only the lessons, every script executed again, against their budget")
    parser.add_argument("--only", metavar="LESSONS", default="",
                        help="with --lessons: these lessons only (comma-separated; the budget is for all of them)")
    parser.add_argument("--test-seconds", type=float, metavar="SECONDS",
                        help="report a `make test` that took this long (.ci/run times it) against its budget")
    parser.add_argument("--test-status", type=int, default=0, help="with --test-seconds: its exit status")
    args = parser.parse_args()
    if args.test_seconds is not None:
        return test_report(args.test_seconds, args.test_status)
    profile = resolve_profile(args.profile)
    project = Project(root=ROOT)
    machine, machine_info = results.this_machine(project, variables.read().machine)
    report = {"machine": machine_info, "profile": profile, "date": results.now(), "phases": {}}

    if args.lessons:
        return lessons_budget(report, profile, args.only)
    if args.cold:
        shutil.rmtree(project.results / machine / profile, ignore_errors=True)
        report["phases"]["cold"] = build(profile)
    report["phases"]["warm"] = build(profile)
    if args.edit:
        snippet = project.example(args.example).snippet_path(args.edit)
        original = snippet.read_text()
        try:
            snippet.write_text(original + "\n# (an edit made by benchmarks/build_timings.py)\n")
            report["phases"]["after_edit"] = build(profile)
        finally:
            snippet.write_text(original)
        report["phases"]["restore"] = build(profile)     # measures the original snippet again

    warm = report["phases"]["warm"]
    report["targets"] = {"warm_rebuild_s": WARM_TARGET_S,
                         "warm_met": warm["seconds"] <= WARM_TARGET_S and not warm["executed"]}
    if profile == "smoke" and "cold" in report["phases"]:
        report["targets"].update(smoke_build_s=SMOKE_TARGET_S,
                                 smoke_met=report["phases"]["cold"]["seconds"] <= SMOKE_TARGET_S)
    out = ROOT / "benchmarks" / "results" / f"{machine}-{profile}-{report['date'][:10]}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1))
    for name, phase in report["phases"].items():
        print(f"{name:>10}: {phase['seconds']:7.1f} s, executed {len(phase['executed'])}: "
              f"{', '.join(phase['executed']) or '-'}; {len(phase['equivalence_runs'])} equivalence run(s) "
              f"(exit {phase['returncode']})")
        for part, seconds in (phase["phases"] or {}).items():
            print(f"{'':>12}{part:<40} {seconds:7.1f} s")
    print(f"warm rebuild target {WARM_TARGET_S:.0f} s: {'met' if report['targets']['warm_met'] else 'NOT met'}")
    if "smoke_met" in report["targets"]:
        print(f"smoke build target {SMOKE_TARGET_S:.0f} s (a fast 2-core machine; scale by its peak): "
              f"{'met' if report['targets']['smoke_met'] else 'NOT met'}")
    print(f"saved {out.relative_to(ROOT)}")
    return 0


NUMPY = "numpy (build)"              # measure_peak's name for the build's own numpy product


def numpy_rate() -> float:
    """numpy's float32 product here and now, as measure_peak times it (GFLOP/s)."""
    return round(results.rate(lambda a, b: lambda: a @ b, 2048), 1)


def peak_today(recorded: dict, numpy_now: float) -> float | None:
    """The peak on record, scaled by how numpy's product runs now against its own record: the machine's speed
    today. None without a record; numpy's rate itself where the record has no numpy rate."""
    if not recorded.get("gflops"):
        return None
    numpy_then = (recorded.get("by") or {}).get(NUMPY)
    return round(recorded["gflops"] * numpy_now / numpy_then, 1) if numpy_then else numpy_now


def versions(machine: str) -> dict:
    """Each environment's key packages, as the build that just ran recorded them (results/<machine>/)."""
    project = Project(root=ROOT)
    found = project.results / machine / "environments.json"
    recorded = json.loads(found.read_text()) if found.exists() else {}
    return {fw.name: results.key_packages(fw, {**env.get("fingerprint", {}).get("packages", {}),
                                               "python": env.get("fingerprint", {}).get("python")})
            for fw in project.frameworks() if (env := recorded.get(fw.environment))}


def peak_during(recorded: dict, end: dict, seconds: float, now: str) -> dict:
    """The float32 peak while a run of `seconds` that ends `now` ran: the mean of the measurement on record, where
    it was made during the run (a clean clone's smoke build makes it at its start), and `end`, the same
    measurement made again now; `end` alone where the record is older. (Not numpy's product alone: two calls a
    second apart here gave 155 and 189 GFLOP/s, and the best of every environment's 200 and 208.)"""
    started = datetime.fromisoformat(now) - timedelta(seconds=seconds)
    measured = recorded.get("date")
    during = bool(recorded.get("gflops")) and bool(measured) and datetime.fromisoformat(measured) >= started
    rates = [recorded["gflops"], end["gflops"]] if during else [end["gflops"]]
    return {"gflops": round(sum(rates) / len(rates), 1), "start": recorded if during else None, "end": end,
            "how": "mean of the measurement at the run's start and at its end" if during else
                   "measured at the run's end (the one on record predates the run)"}


def test_report(seconds: float, status: int) -> int:
    """`make test`'s wall time (from a clean clone: .ci/run) against its budget, at the float32 peak during the
    run (peak_during); saved to benchmarks/budget/."""
    from rosetta.build import environments
    project = Project(root=ROOT)
    machine, machine_info = results.this_machine(project, variables.read().machine)
    frameworks = project.frameworks()
    envs = {fw.name: environments.ensure(project, fw, create=False, kernel=False) for fw in frameworks}
    date = results.now()
    peak = peak_during(machine_info.get("float32_matmul") or {}, results.measure_peak(project, frameworks, envs),
                       seconds, date)
    budget = against_budget(round(seconds, 1), peak["gflops"], TEST_TARGET_S, TEST_PEAK)
    report = {"machine": machine_info, "date": date, "what": "make test", "exit_status": status,
              "budget": budget, "peak": peak, "versions": versions(machine)}
    out = ROOT / "benchmarks" / "budget" / f"{machine}-make-test-{report['date'][:16].replace(':', '')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n")
    print(budget_line(f"make test (exit {status})", budget))
    print(f"saved {out.relative_to(ROOT)}")
    return 0 if status == 0 and budget["met"] is not False else 1


def lessons_budget(report: dict, profile: str, only: str = "") -> int:
    """The lessons alone, executed again: their wall time against the budget, here and scaled to a slow machine."""
    # One machine's speed drifts from day to day (its peak on record 407 GFLOP/s, 300 in a later build): numpy's
    # product, timed just before and after the lessons, says how fast it is today against its record.
    before = numpy_rate()
    run = build(profile, "--measure-only", "--examples", "none", "--force", *(["--lessons", only] if only else []))
    after = numpy_rate()
    return lessons_report(report, run, before, after, profile, only)


def lessons_report(report: dict, run: dict, before: float, after: float, profile: str, only: str = "") -> int:
    """The lessons' run against the budget, saved and printed (numpy's rates: before and after the run)."""
    # In a fresh checkout the build has just measured the peak: the machine's record (and its name) is read again.
    machine, report["machine"] = results.this_machine(Project(root=ROOT), variables.read().machine)
    report["lessons"] = only or "all"
    report["phases"]["lessons"] = run
    report["versions"] = versions(machine)
    parts = {name: seconds for name, seconds in (run["phases"] or {}).items() if name.startswith("lessons")}
    seconds = round(sum(parts.values()), 1)
    recorded = report["machine"].get("float32_matmul") or {}
    peak = peak_today(recorded, (before + after) / 2)
    slowest = round(seconds * peak / SLOWEST_PEAK_GFLOPS, 1) if peak else None
    budget = against_budget(seconds, peak, LESSONS_TARGET_S, LESSONS_PEAK)
    report["targets"] = {"lessons_s": LESSONS_TARGET_S, "lessons_peak_gflops": LESSONS_PEAK,
                         "lessons_seconds": seconds, "budget": budget,
                         "lessons_met": run["returncode"] == 0 and bool(budget["met"]),
                         "scripts": len(run["finished"]), "peak_gflops": peak,
                         "peak_on_record_gflops": recorded.get("gflops"),
                         "numpy_gflops": {"before": before, "after": after,
                                          "on_record": (recorded.get("by") or {}).get(NUMPY)},
                         "estimate_at_slowest_s": slowest}
    # The date and the minute it started: two measurements of one day keep their own files. A measurement of
    # every lesson is kept in git (benchmarks/budget/: the README's figures); a partial one is not
    # (benchmarks/results/, ignored).
    stamp = report["date"][:16].replace(":", "")
    name = f"{machine}-{profile}-lessons{'-some' if only else ''}-{stamp}.json"
    out = ROOT / "benchmarks" / ("results" if only else "budget") / name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1))
    for part, part_seconds in parts.items():
        print(f"{part:<40} {part_seconds:7.1f} s")
    targets = report["targets"]
    if slowest is not None:
        print(f"numpy's product {before:.0f} GFLOP/s before, {after:.0f} after "
              f"({targets['numpy_gflops']['on_record'] or '?'} on record): the peak today about {peak:.0f} GFLOP/s")
    print(budget_line(f"lessons ({targets['scripts']} scripts, exit {run['returncode']})", budget))
    if slowest is not None:
        print(f"at {SLOWEST_PEAK_GFLOPS:.0f} GFLOP/s (the slowest machine of the kind seen): about {slowest:.0f} s")
    print(f"saved {out.relative_to(ROOT)}")
    return 0 if run["returncode"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
