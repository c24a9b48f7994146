"""The reference results kept in the repository: which are stale for this checkout, and their refresh.

A stored result is stale when what it ran changed since (see identity): a benchmark row or a lesson row
by its code record, an equivalence check by its key (computed with the environments the measuring
machine recorded). A row is missing when it has a script that no machine of a profile on record measured.
`make reference` re-measures the stale and missing rows only, here, and copies them into
`benchmarks/reference/<this machine>/`; `make reference ROWS="cnn_cifar10/pytorch momentum/chainer"`
names rows itself. A benchmark row is run 3 times (`--repeats`): the reference keeps the median and the
spread, since some rows' runs differ by more than 10 % on these machines (the fairness harness's
kernel runs show which).

    python -m rosetta.build.reference            # list the stale rows and the command that refreshes them
    python -m rosetta.build.reference --refresh [ROW ...]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ..project import PROFILES, REFERENCE_RESULTS, REPO_ROOT, Project
from . import conversion, equivalence, lessons, results, staleness, store, variables
from .outcome import Outcome

CHECK = "equivalence"     # the row name of an example's equivalence check: make reference ROWS=cnn_cifar10/equivalence
REPEATS = 3               # runs per benchmark row: the median, and the spread the tables show


@dataclass(frozen=True)
class Row:
    kind: str          # "example", "lesson" or "equivalence"
    name: str          # the example or lesson
    row: str           # the framework ("" for an equivalence check: it covers the example's rows)
    machine: str
    profile: str
    state: str = "stale"   # "stale": measured other code; "missing": a script no machine of the profile measured

    def __str__(self) -> str:
        return f"{self.name}/{self.row}" if self.row else f"{self.name}/{CHECK}"


def stored_profiles(root: Path) -> list[tuple[str, str]]:
    """(machine, profile) of every results folder under root."""
    return [(machine.name, profile) for machine in sorted(p for p in root.iterdir() if p.is_dir())
            for profile in PROFILES if (machine / profile).is_dir()] if root.is_dir() else []


def stale_rows(project: Project, root: Path) -> list[Row]:
    """Every result under root that this checkout's code would not reproduce (staleness.py), or that cannot
    be read; then every row missing from it (missing_rows)."""
    frameworks = {fw.name: fw for fw in project.frameworks()}
    examples = {ex.name: ex for ex in project.examples()}
    found_lessons = {lesson.name: lesson for lesson in lessons.all_lessons(project)[0]}
    stale, missing_conversions = [], []
    for machine, profile in stored_profiles(root):
        for kind, things, label in ((store.BENCHMARK, examples, "example"), (store.LESSON, found_lessons, "lesson")):
            for path in kind.files(root / machine / profile):
                thing, fw = things.get(path.parent.name), frameworks.get(path.stem)
                if thing is None or fw is None:
                    continue
                result = store.previous(kind, path)
                if result is None or staleness.row_is_stale(kind, thing, fw, result):
                    stale.append(Row(label, thing.name, fw.name, machine, profile))
        stale += stale_checks(project, root, machine, profile, examples, list(frameworks.values()),
                              missing_conversions)
    return stale + missing_rows(project, root)


def has_gpu(root: Path, machine: str) -> bool:
    try:
        return bool(results.load_machine(root, machine)[0].get("gpus"))
    except store.ResultFileError:
        return False


def runs_at(lesson, profile: str, with_gpu: bool) -> bool:
    """Whether a profile's machines run the lesson: one of its profiles, and a GPU where it needs one."""
    return profile in lesson.profiles and (with_gpu or lesson.requires != "gpu")


def scripted_rows(project: Project, profile: str, with_gpu: bool):
    """(kind, example or lesson, row) of every script a profile's machines would measure: each example's
    snippets, and the scripts of each lesson that runs at this profile (one that needs a GPU only with one)."""
    known = project.frameworks()
    for example in project.examples():
        yield from ((store.BENCHMARK, example.name, fw.name) for fw in known if example.snippet_path(fw).exists())
    for lesson in lessons.all_lessons(project)[0]:
        if runs_at(lesson, profile, with_gpu):
            yield from ((store.LESSON, lesson.name, fw.name) for fw in lesson.frameworks(known))


def missing_rows(project: Project, root: Path) -> list[Row]:
    """The rows with a script that no machine of a profile on record has measured (a new framework's script, a
    new lesson), where that profile's machines measured that kind of row at all."""
    by_profile: dict[str, list[str]] = {}
    for machine, profile in stored_profiles(root):
        by_profile.setdefault(profile, []).append(machine)
    missing = []
    for profile, machines in by_profile.items():
        folders = [root / machine / profile for machine in machines]
        measured = {kind: {(path.parent.name, path.stem) for folder in folders for path in kind.files(folder)
                           if kind is store.LESSON or not path.parent.name.startswith("_")}
                    for kind in (store.BENCHMARK, store.LESSON)}
        with_gpu = any(has_gpu(root, machine) for machine in machines)
        for kind, name, row in scripted_rows(project, profile, with_gpu):
            if measured[kind] and (name, row) not in measured[kind]:
                label = "example" if kind is store.BENCHMARK else "lesson"
                missing.append(Row(label, name, row, machines[0], profile, "missing"))
    return missing


def stale_checks(project: Project, root: Path, machine: str, profile: str, examples: dict,
                 frameworks: list, missing_conversions: list | None = None) -> list[Row]:
    """The equivalence checks (and ONNX conversions, which run with them) of a machine's profile folder that are
    stale by their key (with the environments that machine recorded)."""
    try:
        envs = results.recorded_environments(results.load_machine(root, machine)[1])
    except store.ResultFileError:
        envs = {}
    stored_project = Project(root=project.root, results=root)
    stale, missing_conversions = [], missing_conversions if missing_conversions is not None else []
    for path in store.CHECK.files(root / machine / profile):
        example = examples.get(path.stem)
        if example is None or not equivalence.has_checks(example):
            continue
        check = staleness.check_on_record(stored_project, example, profile, machine, frameworks, envs)
        if check is None or check.get("stale"):
            stale.append(Row("equivalence", example.name, "", machine, profile))
    for path in store.CHECK.files(root / machine / profile):     # a check on record, and no machine's conversions
        example = examples.get(path.stem)
        if example is not None and conversion.has_conversions(example) and \
                not list(root.glob(f"*/{profile}/{store.CONVERSION.pattern(example.name)}")) and \
                not any(r.name == example.name and r.state == "missing" for r in missing_conversions):
            missing_conversions.append(Row("equivalence", example.name, "", machine, profile, "missing"))
            stale.append(missing_conversions[-1])
    for path in store.CONVERSION.files(root / machine / profile):
        example = examples.get(path.stem)
        if example is None or not conversion.has_conversions(example):
            continue
        converted = store.previous(store.CONVERSION, path)
        key = conversion.cache_key(project, example, conversion.candidates_of(example, frameworks), envs, profile,
                                   machine)
        if (converted is None or converted.get("cache_key") != key) and \
                Row("equivalence", example.name, "", machine, profile) not in stale:
            stale.append(Row("equivalence", example.name, "", machine, profile))
    return stale


def every_row(project: Project, profile: str, with_gpu: bool) -> list[str]:
    """The names that measure the whole reference at a profile: every example (its rows, its equivalence check and
    ONNX conversions) and every lesson that runs there."""
    return [ex.name for ex in project.examples()] + \
        [lesson.name for lesson in lessons.all_lessons(project)[0] if runs_at(lesson, profile, with_gpu)]


def same_kind(root: Path, machine: str, profile: str) -> list[Path]:
    """The other machines' profile folders under root measured on this machine's hardware (the same CPU model,
    instructions and cores, or GPUs: another band of its rate, another day): a whole new reference run here
    supersedes them, since one kind of machine twice is no column a reader can use."""
    try:
        here = results.hardware(results.load_machine(root, machine)[0])
    except store.ResultFileError:
        return []
    found = []
    for other, other_profile in stored_profiles(root):
        if other == machine or other_profile != profile:
            continue
        try:
            if results.hardware(results.load_machine(root, other)[0]) == here:
                found.append(root / other / profile)
        except store.ResultFileError:
            continue
    return found


def remove_superseded(folders: list[Path]) -> None:
    """Each profile folder, and its machine's folder once no profile is left in it."""
    for folder in folders:
        shutil.rmtree(folder)
        if not any(child.is_dir() for child in folder.parent.iterdir()):
            shutil.rmtree(folder.parent)


def refresh_command(rows: list[Row]) -> str:
    names = sorted({str(row) for row in rows})
    return f'make reference ROWS="{" ".join(names)}"'


def selections(project: Project, names: list[str]) -> list[list[str]]:
    """build_docs.py options that measure exactly the named rows: one build per example or lesson named with its
    rows, and one for every lesson named whole."""
    examples = {ex.name for ex in project.examples()}
    lesson_names = {lesson.name for lesson in lessons.all_lessons(project)[0]}
    grouped: dict[str, list[str]] = {}
    checks = []
    for name in names:
        target, _, row = name.partition("/")
        if target not in examples | lesson_names:
            raise SystemExit(f"error: {name!r}: no example or lesson {target!r} "
                             f"(examples: {', '.join(sorted(examples))}; lessons: {', '.join(sorted(lesson_names))})")
        if row == CHECK and target in examples:
            checks.append(target)
            continue
        grouped.setdefault(target, [])
        if row:
            grouped[target].append(row)
    out = []
    whole_lessons = [target for target, rows in grouped.items() if target not in examples and not rows]
    for target, rows in grouped.items():
        if target in whole_lessons:
            continue
        which = ["--examples", target, "--lessons", "none"] if target in examples else \
            ["--examples", "none", "--lessons", target]
        out.append(which + (["--frameworks", ",".join(sorted(set(rows)))] if rows else []))
    if whole_lessons:             # one build for them all: each build's set-up (environments, plan) costs seconds
        out.append(["--examples", "none", "--lessons", ",".join(whole_lessons)])
    for target in checks:
        if target not in grouped:        # (a whole example's build checks it anyway)
            out.append(["--examples", target, "--lessons", "none", "--equivalence-only"])
    return out


def build_commands(project: Project, names: list[str], profile: str, repeats: int = REPEATS,
                   force: bool = False) -> list[list[str]]:
    """The measuring builds that refresh the named rows, one per example or lesson (`force`: every row run again,
    even one this checkout's results already hold)."""
    return [[sys.executable, str(project.root / "build_docs.py"), "--measure-only", "--profile", profile,
             "--repeats", str(repeats), *(["--force"] if force else []), *options]
            for options in selections(project, names)]


def measured_files(project: Project, names: list[str]) -> list[str]:
    """The files, under a machine's profile folder, that hold the named rows' results."""
    examples = {ex.name: ex for ex in project.examples()}
    patterns = []
    for name in names:
        target, _, row = name.partition("/")
        # An example's ONNX conversions run with its check: their record is kept (their .onnx files are not).
        checks = [f"{store.CHECK.folder}/{target}.json"] + (
            [f"{store.CONVERSION.folder}/{target}.json"]
            if target in examples and conversion.has_conversions(examples[target]) else [])
        if target in examples and row == CHECK:
            patterns += checks
        elif target in examples:
            patterns += [f"{target}/{row or '*'}.json", f"{target}/{row or '*'}.ipynb", *checks]
        else:
            patterns += [f"{store.LESSON.folder}/{target}/{row or '*'}.json",
                         f"{store.LESSON.folder}/{target}/{row or '*'}.ipynb"]
    return patterns


def not_measured(path: Path) -> str:
    """Why a row's result file is no measurement to keep ("" when it is one): a run that failed, found no data
    or no environment. (An equivalence check's file is kept whatever it found: that is its measurement.)"""
    if path.suffix != ".json" or path.parent.name in (store.CHECK.folder, store.CONVERSION.folder):
        return ""
    try:
        found = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        return f"unreadable: {exc}"
    if found.get("status") == Outcome.OK:
        return ""
    return f"{found.get('status')}: {(found.get('reason') or '').strip()[:200]}"


def copy_measured(project: Project, machine: str, profile: str, names: list[str],
                  target: Path, whole: bool = False) -> tuple[list[str], list[str]]:
    """The named rows' results measured here (with machine.json and environments.json) into target: the copied
    files, and one line per result left out because it is no measurement (with its notebook). `whole`: the
    names are the whole reference, which replaces the machine's profile folder when every row was measured (no
    result of a row or lesson since removed stays behind)."""
    source = project.results / machine
    (target / machine).mkdir(parents=True, exist_ok=True)
    for name in ("machine.json", "environments.json"):
        shutil.copy2(source / name, target / machine / name)
    copied, refused = [], []
    paths = sorted({path for pattern in measured_files(project, names) for path in (source / profile).glob(pattern)})
    left_out = {path.with_suffix(""): why for path in paths if (why := not_measured(path))}
    if whole and not left_out:
        shutil.rmtree(target / machine / profile, ignore_errors=True)
    for path in paths:
        relative = path.relative_to(source / profile)
        if path.with_suffix("") in left_out:
            if path.suffix == ".json":
                refused.append(f"{relative.with_suffix('')}: {left_out[path.with_suffix('')]}")
            continue
        destination = target / machine / profile / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, destination)
        copied.append(str(destination.relative_to(target)))
    return copied, refused


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rows", nargs="*", help="example/row, lesson/row, or a whole example or lesson")
    parser.add_argument("--refresh", action="store_true", help="measure the rows here and copy them in")
    parser.add_argument("--all", action="store_true",
                        help="with --refresh: the whole reference (every example, check, conversion and lesson), "
                             "then remove the folders of other runs on this kind of machine")
    parser.add_argument("--profile", default="cpu")
    parser.add_argument("--repeats", type=int, default=REPEATS, help=f"runs per benchmark row (default {REPEATS})")
    args = parser.parse_args(argv)
    project = Project(root=REPO_ROOT)
    root = project.root / REFERENCE_RESULTS
    stale = stale_rows(project, root)
    if not args.refresh:
        if not stale:
            print(f"{REFERENCE_RESULTS}: no result is stale for this checkout")
            return 0
        for row in stale:
            where = f"on {row.machine}" if row.state == "stale" else "on no machine of the profile"
            print(f"{row.state}: {row} ({row.profile} {where})")
        print(f"re-measure only these, on a machine of the same kind: {refresh_command(stale)}")
        return 1
    machine, machine_info = results.this_machine(project, variables.read().machine)
    names = every_row(project, args.profile, bool(machine_info.get("gpus"))) if args.all else \
        args.rows or sorted({str(row) for row in stale})
    if not names:
        print(f"{REFERENCE_RESULTS}: nothing stale, nothing named: nothing to measure")
        return 0
    started = time.monotonic()
    for command in build_commands(project, names, args.profile, args.repeats, force=args.all):
        print("$ " + " ".join(command[1:]), flush=True)
        if subprocess.run(command, cwd=project.root, env=os.environ).returncode != 0:
            print("error: that measurement failed; the reference results are unchanged", file=sys.stderr)
            return 1
    machine, _ = results.this_machine(project, variables.read().machine)   # (its rate, measured by the first build)
    copied, refused = copy_measured(project, machine, args.profile, names, root, whole=args.all)
    print(f"{len(copied)} file(s) copied into {REFERENCE_RESULTS}/{machine}/ "
          f"({(time.monotonic() - started) / 60:.0f} minutes)")
    for line in refused:
        print(f"not copied, no measurement: {line}", file=sys.stderr)
    if args.all and not refused:
        superseded = same_kind(root, machine, args.profile)
        remove_superseded(superseded)
        for folder in superseded:
            print(f"removed {folder.relative_to(project.root)}: measured on this kind of machine, now re-measured")
    elif args.all:
        print("the folders of older runs on this kind of machine are kept: not every row was measured here")
    others = sorted({row.machine for row in stale_rows(project, root)} - {machine})
    if others:
        print(f"still stale, measured on other machines ({', '.join(others)}): re-measure them there, or remove "
              "their folders")
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
