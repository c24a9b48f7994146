"""What each page shows, gathered into plain view objects: the one site module that reads files.

The renderers (one module per page kind) get these views and read nothing: results folders, executed
notebooks, the programs, READMEs, requirements, the fairness harness's records and docs/systems.toml are
read here, once, and handed over as data. `SiteInput` is what the build hands to the site.
"""
from __future__ import annotations

import copy
import json
import re
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .. import model, neutral
from ..build import conversion, environments, equivalence, results, staleness, store
from ..build.lessons import Lesson
from ..build.outcome import Outcome
from ..build.snippets import SnippetError, Step, group_steps, read_notebook
from ..project import REFERENCE_RESULTS, Example, Framework, Project
from . import diagrams, systems
from .markup import outputs_text
from .records import REFERENCE_TEXT, column_machine, has_gpu, origin_text, recorded_machine


@dataclass
class LessonsInput:
    """What the lessons stage hands to the pages: the lessons, this machine's results, unreadable folders."""
    lessons: list = field(default_factory=list)
    results: dict = field(default_factory=dict)
    problems: list = field(default_factory=list)


@dataclass
class SiteInput:
    """Everything the build hands to the site (write_site's arguments), in one value."""
    project: Project
    examples: list[Example]
    frameworks: list[Framework]
    all_results: dict              # example -> row -> this build's result
    envs: dict
    profile: str
    machine: str
    machine_info: dict
    checks: dict = field(default_factory=dict)
    lessons: LessonsInput = field(default_factory=LessonsInput)
    conversions: dict = field(default_factory=dict)    # example -> its ONNX conversions' record

    @property
    def machine_label(self) -> str:
        return results.machine_label(self.machine_info)

    @property
    def shown(self) -> list[Example]:
        """The examples with results: the ones that get pages."""
        return [ex for ex in self.examples if ex.name in self.all_results]


# --- results by machine column (the benchmark table, the front page's matrix) ------------------------

@dataclass
class Columns:
    """An example's results by column: (machine, profile) for this results folder, (machine, profile, origin)
    for the others; this build's own first."""
    keys: list[tuple]
    by_column: dict                # key -> row -> result
    labels: dict                   # machine -> its label
    origins: dict = field(default_factory=dict)     # key -> where its results come from, in words
    peaks: dict = field(default_factory=dict)       # key (or machine) -> its float32 matmul rate


def other_results(project: Project, example: Example, frameworks: list[Framework], profile: str,
                  machine: str) -> Columns:
    """The example's results on record besides this build's: other machines and profiles of this
    results folder, the folders given to --from-results and the reference results in the repository.
    Each result is marked stale when this checkout's code differs from the code it measured."""
    found = Columns([], {}, {})
    code = {fw.name: results.example_code(example, fw) for fw in frameworks if example.snippet_path(fw).exists()}
    here = project.results.resolve()
    reference = (project.root / REFERENCE_RESULTS).resolve()
    for stored in store.all_stored(project, store.BENCHMARK, example.name):
        if stored["profile"] == "smoke" and profile != "smoke":
            continue  # smoke numbers (synthetic data) never sit beside real measurements
        source = Path(stored["source"])
        if source == here and (stored["machine"], stored["profile"]) == (machine, profile):
            continue  # this build's own: the caller has them
        origin = "reference" if source == reference else source.name
        key = (stored["machine"], stored["profile"]) if source == here else \
            (stored["machine"], stored["profile"], origin)
        if stored["framework"] in code:
            stored["stale"] = results.code_changed(stored, code[stored["framework"]])
        found.by_column.setdefault(key, {})[stored["framework"]] = stored
        found.labels.setdefault(stored["machine"], stored.get("machine_label", stored["machine"]))
        found.peaks.setdefault(key, results.known_matmul_rate_in(source, stored["machine"]))   # (its folder's own)
    for key, column in found.by_column.items():
        found.origins[key] = origin_text(key, column)
    return found


def columns(site: SiteInput, example: Example) -> Columns:
    """The example's results by column, as its benchmark page's table has them: this build's first."""
    found = other_results(site.project, example, site.frameworks, site.profile, site.machine)
    own = (site.machine, site.profile)
    found.by_column[own] = site.all_results[example.name]
    found.labels[site.machine] = site.machine_label
    # A publishing build measured nothing: its own column is the first results folder it was given.
    published = site.machine_info.get("results_folder")
    found.origins[own] = ("this build" if not published else REFERENCE_TEXT
                          if Path(published).resolve() == (site.project.root / REFERENCE_RESULTS).resolve()
                          else f"results folder `{Path(published).name}`")
    found.peaks[own] = site.machine_info.get("float32_matmul")
    found.keys = [own] + sorted(c for c in found.by_column if c != own)
    return found


def written_rows(example: Example | Lesson, frameworks: list[Framework]) -> set[str]:
    """The rows that have a program of this example (ConvNetJS has no GRU)."""
    return {fw.name for fw in frameworks if example.snippet_path(fw).exists()}


# --- steps: the code shown, and what a run of it left --------------------------------------------------

@dataclass
class RanStep:
    """One step of an executed notebook: the code that ran and what it printed."""
    step: Step
    output: str


@dataclass
class TabGroup:
    """One tab of a step: a script and the rows that ran it (several when one program runs on
    several backends: its code is shown once, each row's outcome under it)."""
    label: str
    sync: str                  # the sync key: the same framework's tab on every page follows the choice
    rows: list
    path: Path
    steps: dict = field(default_factory=dict)     # step -> its current code (a Step)


def source_steps(path: Path, steps_of, name: str) -> dict:
    """A program's steps by name, as the file stands now ({} where it does not parse)."""
    try:
        return {s.name: s for s in group_steps(read_notebook(path), steps_of, name)}
    except SnippetError:
        return {}


def ran_steps(notebook, steps_of, name: str) -> dict[str, RanStep]:
    """An executed notebook's steps by name, with what each printed ({} without a notebook)."""
    if notebook is None:
        return {}
    try:
        steps = group_steps(notebook, steps_of, name)
    except SnippetError:
        return {}
    return {s.name: RanStep(s, outputs_text([notebook.cells[i] for i in s.cell_indices])) for s in steps}


def tab_groups(frameworks: list[Framework], example: Example) -> list[TabGroup]:
    groups: dict[Path, list[Framework]] = {}
    for fw in frameworks:
        path = example.snippet_path(fw)
        if path.exists():
            groups.setdefault(path, []).append(fw)
    return [TabGroup(rows[0].label if len(rows) == 1 else rows[0].program_label, rows[0].program, rows, path,
                     source_steps(path, example, str(path)))
            for path, rows in groups.items()]


def load_executed(project: Project, result: dict | None):
    if not result or not result.get("notebook"):
        return None
    path = store.BENCHMARK.path(project.results, result["machine"], result["profile"], result["example"],
                                result["framework"]).with_name(result["notebook"])
    return nbformat.read(path, as_version=4) if path.exists() else None


# --- lessons -------------------------------------------------------------------------------------------

@dataclass
class LessonEvidence:
    """A lesson's results: this build's, the other machines' on record (column -> row -> result), and the
    rows that have a script of it."""
    lesson: Lesson
    current: dict
    groups: dict
    rows: list[Framework]


def elsewhere(project: Project, lesson: Lesson, machine: str, profile: str) -> dict:
    """{(folder, machine, profile): {framework: result}} of every other machine and profile on record (a GPU
    lesson's only evidence on a CPU); smoke runs judge nothing and are left out."""
    own = project.results.resolve()
    groups: dict = {}
    for result in store.all_stored(project, store.LESSON, lesson.name):
        column = (result.get("source", str(own)), result["machine"], result["profile"])
        if (column[0] == str(own) and column[1:] == (machine, profile)) or result["profile"] == "smoke":
            continue
        groups.setdefault(column, {})[result["framework"]] = result
    return dict(sorted(groups.items(), key=lambda item: item[0][1:]))


def lesson_evidence(project: Project, given: LessonsInput, frameworks: list[Framework], machine: str,
                    profile: str) -> list[LessonEvidence]:
    return [LessonEvidence(lesson, given.results.get(lesson.name, {}), elsewhere(project, lesson, machine, profile),
                           lesson.frameworks(frameworks)) for lesson in given.lessons]


# --- the benchmark page --------------------------------------------------------------------------------

@dataclass
class BenchmarkView:
    example: Example
    frameworks: list[Framework]
    current: dict                  # row -> this build's result
    profile: str
    machine_info: dict
    machine_label: str
    columns: Columns
    operations: float | None       # per sample of the timed step (None: no neutral spec)
    intro: str                     # the README, without its title
    diagram: list[str]             # the network's figure (MyST lines)
    gpu_anywhere: bool             # a GPU among the machines of the table
    written: set[str]              # rows with a program of this example
    groups: list[TabGroup]
    ran: dict                      # row -> step -> RanStep
    check: dict | None             # the equivalence check
    lessons: list[LessonEvidence]  # every lesson (its page lists those that concern this example)
    workers: int = 1               # processes per row (a data-parallel example: more than one)
    launches: dict = field(default_factory=dict)   # row -> its [data_parallel] table (engine, launcher, env)
    left_out: list = field(default_factory=list)   # [[left_out]]: rows without a program here, and why


def timed_operations(project: Project, example: Example, profile: str) -> float | None:
    """Floating-point operations per sample of the timed step (training or inference), from the
    example's neutral spec; None when the example has none."""
    if not equivalence.has_checks(example):
        return None
    spec = equivalence.load_spec(project, example, profile)
    return neutral.operations(spec)["train" if spec.steps else "forward"]


def readme_text(folder: Path) -> str:
    """A folder's README.md without its title (the page has its own), or ""."""
    path = folder / "README.md"
    return re.sub(r"^# .*\n", "", path.read_text(), count=1).strip() if path.exists() else ""


def benchmark(site: SiteInput, example: Example, evidence: list[LessonEvidence]) -> BenchmarkView:
    found = columns(site, example)
    current = site.all_results[example.name]
    return BenchmarkView(
        example=example, frameworks=site.frameworks, current=current, profile=site.profile,
        machine_info=site.machine_info, machine_label=site.machine_label, columns=found,
        operations=timed_operations(site.project, example, site.profile), intro=readme_text(example.folder),
        diagram=diagrams.figure(site.project, example, site.profile),
        gpu_anywhere=has_gpu(site.machine_info) or any(has_gpu(column_machine(key, found.by_column))
                                                       for key in found.by_column),
        written=written_rows(example, site.frameworks), groups=tab_groups(site.frameworks, example),
        ran={name: ran_steps(load_executed(site.project, r), example, (r or {}).get("notebook") or "")
             for name, r in current.items()},
        check=site.checks.get(example.name),
        lessons=evidence,
        workers=model.example_workers(example),
        launches={fw.name: table for fw in site.frameworks if (table := model.row_data_parallel(fw))},
        left_out=model.example_left_out(example))


def benchmark_views(site: SiteInput) -> list[BenchmarkView]:
    evidence = lesson_evidence(site.project, site.lessons, site.frameworks, site.machine, site.profile)
    return [benchmark(site, example, evidence) for example in site.shown]


# --- notebook pages ------------------------------------------------------------------------------------

@dataclass
class NotebookView:
    example: Example
    fw: Framework
    result: dict | None
    notebook: object               # the executed notebook (a copy), else the program read as one
    script: str                    # the program's own file name (keras.py for each Keras backend's row)
    script_bytes: bytes


def notebook_views(site: SiteInput) -> list[NotebookView]:
    views = []
    for example in site.shown:
        for fw in site.frameworks:
            source = example.snippet_path(fw)
            if not source.exists():
                continue
            result = site.all_results[example.name].get(fw.name)
            executed = load_executed(site.project, result)
            notebook = copy.deepcopy(executed) if executed is not None else read_notebook(source)
            views.append(NotebookView(example, fw, result, notebook, source.name, source.read_bytes()))
    return views


# --- framework pages -----------------------------------------------------------------------------------

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
    versions: dict | None          # its key packages (None: not installed)
    reason: str                    # why it is not installed
    notebooks: list[tuple[Example, dict | None]]    # its notebook pages: example, its result
    history: HistoryView
    fairness: list[FairnessEntry]
    ceilings: list[CeilingView] = field(default_factory=list)
    lessons: list[LessonEvidence] = field(default_factory=list)   # the lessons with a script for this row
    machine_info: dict = field(default_factory=dict)               # the machine their verdicts are judged on
    profile: str = ""


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


def peak_fraction(result: dict, operations: float | None, peak: dict | None) -> float | None:
    """What share of the machine's float32 matrix-multiply rate the timed step's samples/s amount to."""
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
    """Each example this row has a program of: its tab's share of the machine's peak (this build's column),
    and the tuning lessons' best variant for it. `tables`: example -> (Columns, operations per sample)."""
    found = []
    for example in site.shown:
        if not example.snippet_path(fw).exists():
            continue
        table, operations = tables[example.name]
        own = table.keys[0]
        result = table.by_column[own].get(fw.name)
        peak = table.peaks.get(own)
        share = peak_fraction(result, operations, peak) if result and result["status"] == Outcome.OK else None
        machine = result["machine"] if result else site.machine
        tuned = [t for lesson in site.lessons.lessons
                 if example.name in lesson.concerns and AS_WRITTEN in lesson.variants
                 and (t := best_tuned(site.project, lesson, fw, machine))]
        found.append(CeilingView(example, share, peak, table.labels.get(own[0], own[0]), tuned))
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


def framework(site: SiteInput, fw: Framework, records: list[dict], tables: dict,
              evidence: list[LessonEvidence]) -> FrameworkView:
    env = site.envs.get(fw.name)
    versions = None
    if env is not None and env.ok:
        versions = results.key_packages(fw, {**env.fingerprint.get("packages", {}),
                                             "python": env.fingerprint.get("python")})
    return FrameworkView(
        fw=fw, frameworks=site.frameworks, versions=versions, reason=env.reason if env is not None else "not set up",
        notebooks=[(ex, site.all_results[ex.name].get(fw.name)) for ex in site.examples
                   if ex.snippet_path(fw).exists() and ex.name in site.all_results],
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


# --- the environments page -----------------------------------------------------------------------------

@dataclass
class EnvironmentView:
    """One environment: the row that owns it, the rows it runs, its requirements and what was installed."""
    fw: Framework
    rows: list[Framework]
    env: object | None             # environments.Env, or None: not set up
    requirements: str
    existing_variable: str         # the variable that names an existing interpreter for it


@dataclass
class EnvironmentsView:
    frameworks: list[Framework]
    environments: list[EnvironmentView]
    machine: str
    machine_info: dict
    machine_label: str


def environments_views(site: SiteInput) -> list[EnvironmentsView]:
    owners: dict[str, list[Framework]] = {}
    for fw in site.frameworks:      # rows that share an environment (Keras 3 on a backend) are listed in it
        owners.setdefault(fw.environment, []).append(fw)
    found = []
    for environment, rows in owners.items():
        fw = next((row for row in rows if row.name == environment), rows[0])
        found.append(EnvironmentView(fw, rows, site.envs.get(fw.name),
                                     fw.requirements.read_text() if fw.requirements.exists() else "(missing)",
                                     environments.existing_python_variable(fw)))
    return [EnvironmentsView(site.frameworks, found, site.machine, site.machine_info, site.machine_label)]


# --- the front page and the methodology's includes -----------------------------------------------------

@dataclass
class FrontView:
    examples: list[Example]        # with results: the ones listed
    frameworks: list[Framework]
    columns: dict                  # example -> Columns
    written: dict                  # example -> rows with a program of it
    installed: dict                # row -> whether its environment is installed (or unknown)
    lessons: LessonsInput
    lesson_rows: dict              # lesson -> rows with a script of it
    machine_info: dict
    evidence: list = field(default_factory=list)    # LessonEvidence: the lessons' results here and elsewhere
    profile: str = ""


def front_views(site: SiteInput) -> list[FrontView]:
    return [FrontView(
        examples=site.shown, frameworks=site.frameworks,
        columns={ex.name: columns(site, ex) for ex in site.shown},
        written={ex.name: written_rows(ex, site.frameworks) for ex in site.shown},
        installed={fw.name: site.envs.get(fw.name) is None or site.envs[fw.name].ok for fw in site.frameworks},
        lessons=site.lessons,
        lesson_rows={lesson.name: lesson.frameworks(site.frameworks) for lesson in site.lessons.lessons},
        machine_info=site.machine_info,
        evidence=lesson_evidence(site.project, site.lessons, site.frameworks, site.machine, site.profile),
        profile=site.profile)]


@dataclass
class ProvenanceView:
    """Where the site's figures come from (the front page's include), and the profiles (the methodology's)."""
    examples: list[Example]
    all_results: dict
    profile: str
    machine: str
    machine_info: dict
    machine_label: str
    others: dict                   # (machine, profile) -> one result of another machine on record
    gpu: bool                      # a GPU among this build's machine and the others


def provenance_views(site: SiteInput) -> list[ProvenanceView]:
    others = {(r["machine"], r["profile"]): r for example in site.examples
              for r in store.all_stored(site.project, store.BENCHMARK, example.name)
              if (r["machine"], r["profile"]) != (site.machine, site.profile) and r["profile"] != "smoke"}
    gpu = has_gpu(site.machine_info) or any(has_gpu(recorded_machine(r)) for r in others.values())
    return [ProvenanceView(site.examples, site.all_results, site.profile, site.machine, site.machine_info,
                           site.machine_label, others, gpu)]


# --- lesson pages --------------------------------------------------------------------------------------

@dataclass
class LessonView:
    evidence: LessonEvidence
    frameworks: list[Framework]
    machine_info: dict
    profile: str
    words: str                     # the README, without its title
    code: dict                     # row -> step -> its current code (a Step)
    ran: dict                      # row -> step -> RanStep
    executed: dict                 # row -> its executed notebook (None: none)
    scripts: dict                  # row -> the script's bytes
    paths: dict = field(default_factory=dict)   # row -> its script (rows of one program may share it)


@dataclass
class LessonIndexView:
    evidence: list[LessonEvidence]
    frameworks: list[Framework]
    problems: list[str]
    machine_info: dict
    profile: str


def lesson_notebook(project: Project, result: dict | None):
    if not result or not result.get("notebook"):
        return None
    path = store.LESSON.path(project.results, result["machine"], result["profile"], result["lesson"],
                               result["framework"]).with_suffix(".ipynb")
    return nbformat.read(path, as_version=4) if path.exists() else None


def lesson_view(site: SiteInput, evidence: LessonEvidence) -> LessonView:
    lesson = evidence.lesson
    executed = {fw.name: lesson_notebook(site.project, evidence.current.get(fw.name)) for fw in evidence.rows}
    return LessonView(
        evidence=evidence, frameworks=site.frameworks, machine_info=site.machine_info, profile=site.profile,
        words=readme_text(lesson.folder),
        code={fw.name: source_steps(lesson.snippet_path(fw), lesson, lesson.name) for fw in evidence.rows},
        ran={name: ran_steps(notebook, lesson, lesson.name) for name, notebook in executed.items()},
        executed=executed, scripts={fw.name: lesson.snippet_path(fw).read_bytes() for fw in evidence.rows},
        paths={fw.name: lesson.snippet_path(fw) for fw in evidence.rows})


def lesson_views(site: SiteInput) -> list[LessonView]:
    evidence = lesson_evidence(site.project, site.lessons, site.frameworks, site.machine, site.profile)
    return [lesson_view(site, item) for item in evidence]


def lesson_index_views(site: SiteInput) -> list[LessonIndexView]:
    return [LessonIndexView(lesson_evidence(site.project, site.lessons, site.frameworks, site.machine, site.profile),
                            site.frameworks, site.lessons.problems, site.machine_info, site.profile)]


# --- the guide -----------------------------------------------------------------------------------------

@dataclass
class GuideView:
    systems: list[systems.System]
    problems: list[str]            # why docs/systems.toml does not validate
    has_file: bool
    examples: list[Example]
    results_by_example: dict
    frameworks: dict               # row -> Framework
    written: dict                  # example -> rows with a program of it


def guide(project: Project, results_by_example: dict, frameworks: list[Framework]) -> GuideView:
    """The guide's systems (a file that does not validate is printed, and shown on the page)."""
    examples = project.examples()
    has_file = systems.systems_file(project).exists()
    found, problems = [], []
    if has_file:
        try:
            found = systems.load_systems(project)
        except systems.SystemsError as exc:
            problems = exc.problems
            print("guide: " + "\nguide: ".join(problems), file=sys.stderr)
    by_name = {fw.name: fw for fw in frameworks}
    rows = {row for system in found for row in system.rows}
    return GuideView(found, problems, has_file, examples, results_by_example, by_name,
                     {ex.name: {row for row in rows if ex.snippet_path(by_name.get(row, row)).exists()}
                      for ex in examples})


def guide_views(site: SiteInput) -> list[GuideView]:
    return [guide(site.project, site.all_results, site.frameworks)]


# --- the ONNX conversions --------------------------------------------------------------------------------

@dataclass
class ExportTab:
    """One export tab: its file (several rows when one program runs on several backends) and its code."""
    label: str
    sync: str
    rows: list
    path: Path
    code: str


@dataclass
class ConversionView:
    example: Example
    tabs: list[ExportTab]
    record: dict | None            # the conversions' record (this build's, or the one on record)
    left_out: list[tuple[list, str]]    # (rows, why) of the rows with a program and no export tab
    frameworks: list[Framework]
    checker: str                   # the check worker's code that runs each file, as the page shows it
    native: dict = field(default_factory=dict)    # row -> its benchmark result here (for ONNX Runtime's timing)


def export_tabs(example: Example, frameworks: list[Framework]) -> list[ExportTab]:
    groups: dict[Path, list[Framework]] = {}
    for fw in conversion.candidates_of(example, frameworks):
        groups.setdefault(conversion.tab_path(example, fw), []).append(fw)
    return [ExportTab(rows[0].label if len(rows) == 1 else rows[0].program_label, rows[0].program, rows, path,
                      path.read_text()) for path, rows in groups.items()]


def function_source(path: Path, name: str) -> str:
    """A module-level function's source, as it stands in its file."""
    import ast
    text = path.read_text()
    node = next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == name)
    return ast.get_source_segment(text, node)


def conversion_views(site: SiteInput) -> list[ConversionView]:
    """One page per example with export tabs (the index is written even without any)."""
    views, checker = [], function_source(results.REPO_ROOT / conversion.CHECKER, "check")
    for example in site.examples:
        if not conversion.has_conversions(example):
            continue
        by_name = {fw.name: fw for fw in site.frameworks}
        left_out = [([by_name[row] for row in entry["rows"] if row in by_name], entry["why"])
                    for entry in model.export_left_out(example)]
        native = {row: result for row, result in site.all_results.get(example.name, {}).items()
                  if result.get("status") == Outcome.OK}
        views.append(ConversionView(example, export_tabs(example, site.frameworks),
                                    site.conversions.get(example.name), left_out, site.frameworks, checker, native))
    return views
