#!/usr/bin/env python3
"""Why do one row's runs differ? Its timed step run again and again, with where the CPU time went.

    .envs/docs/bin/python benchmarks/run_spread.py gru_imdb tensorflow [--runs 10] [--variant kernel]
        [--profile cpu] [--env TF_NUM_INTEROP_THREADS=1 ...]

Strictly one run at a time, each in a fresh process, as fairness.py runs its variants (kernel: the
snippet in its Jupyter kernel, as the build; script; plain: the plain twin). Each run records:
  seconds          the timed step, measured as fairness.py measures that variant
  process_cpu      user + system seconds of the run's processes (their rusage once they have exited)
  cpu_per_wall     process_cpu over the run's wall time: about the number of cores it kept busy
  cpus             per CPU, from /proc/stat over the run: busy, idle and steal time, in seconds
A slow run that used as much CPU time as a fast one, with more idle time and no steal, waited inside
the framework (threads that did not overlap); one with steal lost its cores to the host, and one whose
CPUs were busy beyond its own CPU time shared them with another process.
Printed, and written to benchmarks/spread/<machine>-<profile>-<example>-<framework>-<variant>[-<env>].json.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import fairness  # noqa: E402

from rosetta.build import results, variables  # noqa: E402
from rosetta.project import Project, UsageError, resolve_profile  # noqa: E402

OUTPUT = ROOT / "benchmarks" / "spread"
TICK = os.sysconf("SC_CLK_TCK")


def cpu_times() -> dict[str, list[int]]:
    """Per CPU: user, nice, system, idle, iowait, irq, softirq, steal (clock ticks since boot)."""
    with open("/proc/stat") as stat:
        return {fields[0]: [int(v) for v in fields[1:9]] for fields in (line.split() for line in stat)
                if fields[0].startswith("cpu") and fields[0][3:].isdigit()}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_run(pair: fairness.Pair, variant: str) -> dict:
    ticks, cpu, started = cpu_times(), children_cpu(), time.perf_counter()
    outcome = fairness.run_variant(pair, variant)
    wall, cpu, after = time.perf_counter() - started, children_cpu() - cpu, cpu_times()
    cpus = {}
    for name, before in ticks.items():
        delta = [b - a for a, b in zip(before, after[name])]
        cpus[name] = {"busy": round((delta[0] + delta[1] + delta[2] + delta[5] + delta[6]) / TICK, 2),
                      "idle": round((delta[3] + delta[4]) / TICK, 2), "steal": round(delta[7] / TICK, 2)}
    return {"status": outcome["status"], "seconds": outcome.get("seconds"), "error": outcome.get("error"),
            "wall": round(wall, 2), "process_cpu": round(cpu, 2), "cpu_per_wall": round(cpu / wall, 2),
            "cpus": cpus}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("example")
    parser.add_argument("framework")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--variant", default="kernel", help="kernel, script or plain (default: kernel)")
    parser.add_argument("--profile", default="cpu")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="an environment variable for the runs (repeatable), recorded with them")
    args = parser.parse_args(argv)
    project = Project(root=ROOT)
    try:
        profile = resolve_profile(args.profile)
        example, fw = project.example(args.example), project.framework(args.framework)
        if args.variant not in fairness.VARIANTS:
            raise UsageError(f"--variant {args.variant!r}: one of {', '.join(fairness.VARIANTS)}")
        if args.runs < 1:
            raise UsageError("--runs must be at least 1")
        extra = dict(item.split("=", 1) for item in args.env if "=" in item)
        if len(extra) != len(args.env):
            raise UsageError("--env takes NAME=VALUE")
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    given = variables.read()              # (the ROSETTA_* settings, read and checked once)
    machine, machine_info = results.this_machine(project, given.machine)
    pair = fairness.Pair(project, example, fw, profile, {}, timeout=1800)
    pair.env.update(extra)
    runs = []
    for number in range(args.runs):
        run = one_run(pair, args.variant)
        runs.append(run)
        print(json.dumps({"run": number + 1, **run}), flush=True)
    timed = [run["seconds"] for run in runs if run["status"] == "ok"]
    record = {"example": example.name, "framework": fw.name, "variant": args.variant, "profile": profile,
              "environment": extra, "machine": machine, "machine_info": machine_info,
              "data": "real (ROSETTA_DATA)" if given.data else "as the profile says",
              "weights": given.weights or "as the example says",
              "date": datetime.now(UTC).isoformat(timespec="seconds"),
              "median": statistics.median(timed) if timed else None, "runs": runs}
    suffix = "".join(f"-{name}={value}" for name, value in sorted(extra.items()))
    path = OUTPUT / f"{machine}-{profile}-{example.name}-{fw.name}-{args.variant}{suffix}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1) + "\n")
    print(f"written to {path}")
    return 0 if len(timed) == len(runs) else 1


if __name__ == "__main__":
    sys.exit(main())
