#!/usr/bin/env python3
"""What a measuring run wrote, in a few lines: per example and row the status, the timed step and its
throughput; the equivalence checks; the lessons.

    python benchmarks/gpu/summary.py RESULTS [--machine NAME] [--profile full]

RESULTS is a results root (RESULTS/<machine>/<profile>/<example>/<row>.json). Without --machine, every
machine in it. Exits 0 whatever the results say: run.sh returns the build's own status.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from rosetta.project import Project  # noqa: E402


def load(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None


def first_line(text: str | None, width: int = 100) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


def summarise(root: Path, machine: str, profile: str) -> list[str]:
    lines = []
    folder = root / machine / profile
    machine_info = load(root / machine / "machine.json") or {}
    gpus = ", ".join(f"{g.get('name')} (driver {g.get('driver')})" for g in machine_info.get("gpus", [])) or "no GPU"
    stack = load(root / machine / "gpu-stack.json") or {}
    cuda = ", ".join(f"{k} {v}" for k, v in (stack.get("cuda") or {}).items() if v) or "-"
    cudnn = ", ".join(f"{k} {v}" for k, v in (stack.get("cudnn") or {}).items() if v) or "-"
    lines.append(f"{machine} / {profile}: {gpus}; CUDA: {cuda}; cuDNN: {cudnn}")
    examples = {ex.name: ex for ex in Project(root=REPO).examples()}
    for example_folder in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("_")):
        example = examples.get(example_folder.name)
        timed = example.timed_step if example else "train"
        unit = example.throughput_unit if example else "samples/s"
        lines.append(f"  {example_folder.name} (timed step: {timed})")
        for path in sorted(example_folder.glob("*.json")):
            result = load(path)
            if result is None:
                lines.append(f"    {path.stem:<18} unreadable")
                continue
            status, metrics = result.get("status", "?"), result.get("metrics", {})
            if status == "ok":
                seconds = (result.get("steps", {}).get(timed) or {}).get("median")
                parts = [f"{timed} {seconds:.2f} s" if seconds is not None else f"{timed} -"]
                if metrics.get("throughput"):
                    parts.append(f"{metrics['throughput']:,.0f} {unit}")
                if metrics.get("accuracy") is not None:
                    parts.append(f"accuracy {metrics['accuracy']:.4f}")
                lines.append(f"    {path.stem:<18} ok      " + ", ".join(parts))
            else:
                lines.append(f"    {path.stem:<18} {status:<7} {first_line(result.get('reason'))}")
    for path in sorted((folder / "_equivalence").glob("*.json")):
        check = load(path) or {}
        failures = check.get("failures") or []
        taking_part = check.get("frameworks") if isinstance(check.get("frameworks"), dict) else {}
        rows = ", ".join(f"{name} {(entry or {}).get('status', '?')}" for name, entry in taking_part.items()
                         if (entry or {}).get("status") != "not-installed")    # the rows of other machines
        verdict = "passed" if check.get("passed") else f"{len(failures)} problem(s)"
        lines.append(f"  equivalence {path.stem}: {verdict}" + (f" ({rows})" if rows else ""))
        lines.extend(f"    {first_line(failure, 140)}" for failure in failures[:5])
    lesson_folders = sorted(p for p in (folder / "_lessons").glob("*") if p.is_dir())
    if lesson_folders:
        lines.append("  lessons:")
        for lesson in lesson_folders:
            states = []
            for path in sorted(lesson.glob("*.json")):
                result = load(path) or {}
                state = result.get("status", "unreadable")
                why = "" if state == "ok" else f" ({first_line(result.get('reason'), 60)})"
                states.append(f"{path.stem} {state}{why}")
            lines.append(f"    {lesson.name}: {', '.join(states)}")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--machine", help="the machine's folder (default: every machine in RESULTS)")
    parser.add_argument("--profile", default="full")
    args = parser.parse_args(argv)
    machines = [args.machine] if args.machine else sorted(p.name for p in args.results.iterdir() if p.is_dir())
    for machine in machines:
        if not (args.results / machine / args.profile).is_dir():
            print(f"{machine} / {args.profile}: no results")
            continue
        print("\n".join(summarise(args.results, machine, args.profile)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
