"""A framework page's view: its results beside the original study's, how fast it runs against its plain twin
(the fairness harness's records) and the machine's peak, and its history."""
from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field

from ...build import results, staleness, store
from ...build.lessons import Lesson
from ...build.outcome import Outcome
from ...project import Example, Framework, Project
from .. import systems
from .benchmark import timed_operations
from .common import LessonEvidence, SiteInput, columns, lesson_evidence, shown_column, shown_result


@dataclass
class FairnessEntry:
    """One (example, framework) the fairness harness measured, and whether its code changed since."""
    entry: dict
    example: Example | None
    stale: bool


@dataclass
class HistoryView:
    """A row beside the original study: its benchmarks, and its system in the guide (None: not in it)."""
    fw: Framework
    written: list[Example]
    system: systems.System | None
    current: dict                  # example -> row -> result


@dataclass
class FrameworkView:
    fw: Framework
    frameworks: list[Framework]
    versions: dict | None          # its key packages (None: not installed, and no result of it on record)
    reason: str                    # why it is not installed
    notebooks: list[tuple[Example, dict | None]]    # its notebook pages: example, its result
    history: HistoryView
    fairness: list[FairnessEntry]
    ceilings: list[CeilingView] = field(default_factory=list)
    lessons: list[LessonEvidence] = field(default_factory=list)   # the lessons with a script for this row
    machine_info: dict = field(default_factory=dict)               # the machine their verdicts are judged on
    profile: str = ""
    versions_from: str = ""        # the machine whose result recorded `versions`, when not this build's


# A tuning lesson (tuned_cnn, tuned_resnet) times the benchmark's code as its snippet writes it under this
# variant name, beside the speed-ups each framework documents.
AS_WRITTEN = "as_written"


@dataclass
class Tuned:
    """A row's best variant in a tuning lesson: how much faster than the code as written it ran there."""
    lesson: Lesson
    variant: str
    speedup: float                 # the lesson's as-written median seconds over this variant's
    machine_label: str             # where the lesson measured it


@dataclass
class CeilingView:
    """How far a tab is from what the machine can do: its rate at its defaults as a share of the machine's
    float32 matrix-multiply peak, the tuning lessons' best variant, and the peak itself."""
    example: Example
    share: float | None            # the tab as written (None: no result, or no operation count)
    peak: dict | None              # the machine's measured float32 matmul rate (gflops, how)
    machine_label: str
    tuned: list[Tuned]


def recorded_peak(result: dict | None, column_peak: dict | None) -> dict | None:
    """The float32 rate the run itself recorded (its provenance's machine), else its column's (its folder's
    machine.json): a folder's machine.json is rewritten by a later, partial run, and must not move an older
    run's share of the peak."""
    own = ((result or {}).get("provenance") or {}).get("machine", {}).get("float32_matmul")
    return own if own and own.get("gflops") else column_peak


def peak_fraction(result: dict, operations: float | None, peak: dict | None) -> float | None:
    """What share of the machine's float32 matrix-multiply rate the timed step's samples/s amount to (the rate
    the run recorded, where it did: recorded_peak)."""
    peak = recorded_peak(result, peak)
    throughput = result["metrics"].get("throughput")
    if not (operations and peak and throughput):
        return None
    return throughput * operations / (peak["gflops"] * 1e9)


def best_tuned(project: Project, lesson: Lesson, fw: Framework, machine: str) -> Tuned | None:
    """The row's fastest variant in a tuning lesson (its controls, which take a speed-up away, aside), from its
    result on `machine` if there is one, else its newest elsewhere (smoke runs, on synthetic data with one call,
    judge nothing)."""
    ran = [r for r in store.all_stored(project, store.LESSON, lesson.name)
           if r["framework"] == fw.name and r["status"] == Outcome.OK and r["profile"] != "smoke"]
    if not ran:
        return None
    result = max(ran, key=lambda r: (r["machine"] == machine, r.get("provenance", {}).get("date", "")))
    medians = {name: statistics.median(v["seconds"]) for name, v in result["variants"].items() if v.get("seconds")}
    others = {name: medians[AS_WRITTEN] / seconds for name, seconds in medians.items()
              if name != AS_WRITTEN and name not in lesson.controls and seconds > 0} if medians.get(AS_WRITTEN) else {}
    if not others:
        return None
    variant = max(others, key=others.get)
    return Tuned(lesson, variant, others[variant], result.get("machine_label", result["machine"]))


def ceilings(site: SiteInput, fw: Framework, tables: dict) -> list[CeilingView]:
    """Each example this row has a program of: its tab's share of the machine's peak (the column its pages show),
    and the tuning lessons' best variant for it. `tables`: example -> (Columns, operations per sample)."""
    found = []
    for example in site.shown:
        if not example.snippet_path(fw).exists():
            continue
        table, operations = tables[example.name]
        column = shown_column(table, fw.name, site.profile) or table.keys[0]    # (another machine's, if none here)
        result = table.by_column[column].get(fw.name)
        peak = recorded_peak(result, table.peaks.get(column))
        share = peak_fraction(result, operations, peak) if result and result["status"] == Outcome.OK else None
        machine = result["machine"] if result else site.machine
        tuned = [t for lesson in site.lessons.lessons
                 if example.name in lesson.concerns and AS_WRITTEN in lesson.variants
                 and (t := best_tuned(site.project, lesson, fw, machine))]
        found.append(CeilingView(example, share, peak, table.labels.get(column[0], column[0]), tuned))
    return found


def fairness_records(project: Project) -> list[dict]:
    """Every (example, framework) the fairness harness measured, on every machine on record."""
    found = []
    for path in sorted((project.root / results.FAIRNESS_FOLDER).glob("*.json")):
        try:
            data = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        if data.get("api_version") == results.FAIRNESS_FORMAT:
            found += data.get("entries", {}).values()
    return found


def fairness(project: Project, fw: Framework, examples: list[Example], records: list[dict]) -> list[FairnessEntry]:
    """The row's fairness records, in example order, marked stale when the snippet or the plain script changed."""
    by_name = {ex.name: ex for ex in examples}
    mine = [e for e in records if e.get("framework") == fw.name]
    found = []
    for entry in sorted(mine, key=lambda e: (by_name[e["example"]].order if e["example"] in by_name else 99,
                                             e["provenance"]["machine"].get("cpu", ""))):
        example = by_name.get(entry["example"])
        found.append(FairnessEntry(entry, example, staleness.fairness_is_stale(project, example, fw, entry)))
    return found


def history(project: Project, fw: Framework, examples: list[Example], all_results: dict) -> HistoryView:
    try:
        system = systems.system_of_row(systems.load_systems(project), fw.name) \
            if systems.systems_file(project).exists() else None
    except systems.SystemsError:
        system = None          # the guide page shows what to fix
    return HistoryView(fw, [ex for ex in examples if ex.snippet_path(fw).exists()], system, all_results)


def recorded_elsewhere(fw: Framework, tables: dict, profile: str) -> dict | None:
    """Of the runs another machine holds that the row's pages show (shown_result), the newest, for a build where
    the row is not installed: its page shows the versions that run recorded, with that machine."""
    ran = [result for table, _ in tables.values() if (result := shown_result(table, fw.name, profile))
           and result.get("shown_from") and result.get("provenance", {}).get("framework_versions")]
    return max(ran, key=lambda r: r["provenance"].get("date", ""), default=None)


def framework(site: SiteInput, fw: Framework, records: list[dict], tables: dict,
              evidence: list[LessonEvidence]) -> FrameworkView:
    env = site.envs.get(fw.name)
    versions, versions_from = None, ""
    if env is not None and env.ok:
        versions = results.key_packages(fw, {**env.fingerprint.get("packages", {}),
                                             "python": env.fingerprint.get("python")})
    elif (elsewhere := recorded_elsewhere(fw, tables, site.profile)) is not None:
        versions = elsewhere["provenance"]["framework_versions"]
        versions_from = elsewhere.get("machine_label", elsewhere["machine"])
    return FrameworkView(
        fw=fw, frameworks=site.frameworks, versions=versions, versions_from=versions_from,
        reason=env.reason if env is not None else "not set up",
        notebooks=[(ex, shown_result(tables[ex.name][0], fw.name, site.profile)) for ex in site.examples
                   if ex.snippet_path(fw).exists() and ex.name in tables],
        history=history(site.project, fw, site.examples, site.all_results),
        fairness=fairness(site.project, fw, site.examples, records),
        ceilings=ceilings(site, fw, tables),
        lessons=[item for item in evidence if any(row.name == fw.name for row in item.rows)],
        machine_info=site.machine_info, profile=site.profile)


def framework_views(site: SiteInput) -> list[FrameworkView]:
    records = fairness_records(site.project)
    tables = {ex.name: (columns(site, ex), timed_operations(site.project, ex, site.profile)) for ex in site.shown}
    evidence = lesson_evidence(site.project, site.lessons, site.frameworks, site.machine, site.profile)
    return [framework(site, fw, records, tables, evidence) for fw in site.frameworks]
