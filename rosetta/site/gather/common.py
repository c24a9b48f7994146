"""What more than one page kind reads: the build's hand-over (SiteInput), each example's results by machine
column, the steps of the programs and of their runs, and each lesson's evidence."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from ...build import results, store
from ...build.lessons import Lesson
from ...build.outcome import Outcome
from ...build.snippets import SnippetError, Step, group_steps, read_notebook
from ...project import REFERENCE_RESULTS, Example, Framework, Project
from ..markup import outputs_text
from ..records import REFERENCE_TEXT, origin_text


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
    # example -> its Columns, read once: the benchmark, framework and front pages all read them
    column_cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def machine_label(self) -> str:
        return results.machine_label(self.machine_info)

    @property
    def shown(self) -> list[Example]:
        """The examples with results: the ones that get pages."""
        return [ex for ex in self.examples if ex.name in self.all_results]


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
    """The example's results by column, as its benchmark page's table has them: this build's first (read from
    the results folders once per build)."""
    if example.name in site.column_cache:
        return site.column_cache[example.name]
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
    site.column_cache[example.name] = found
    return found


def shown_column(table: Columns, row: str, profile: str) -> tuple | None:
    """The column whose result of the row a page shows: this build's own (the table's first), failed or not;
    where it has none or its environment is not installed here, the column of the newest run of the row that
    another machine on record holds (this profile's first, current code before stale). None: none anywhere."""
    own = table.keys[0]
    here = table.by_column[own].get(row)
    if here is not None and here["status"] != Outcome.NOT_INSTALLED:
        return own
    ran = [key for key in table.keys[1:]
           if (result := table.by_column[key].get(row)) is not None and result["status"] == Outcome.OK]
    if not ran:
        return own if here is not None else None
    return max(ran, key=lambda key: (key[1] == profile, not table.by_column[key][row].get("stale"),
                                     table.by_column[key][row].get("provenance", {}).get("date", "")))


def shown_result(table: Columns, row: str, profile: str) -> dict | None:
    """The row's result in that column (shown_column), marked with its machine (`shown_from`) where it is not
    this build's: a page never says "not run" of a result the site holds."""
    key = shown_column(table, row, profile)
    if key is None:
        return None
    result = table.by_column[key][row]
    return result if key == table.keys[0] else {**result, "shown_from": table.labels.get(key[0], key[0])}


def written_rows(example: Example | Lesson, frameworks: list[Framework]) -> set[str]:
    """The rows that have a program of this example (ConvNetJS has no GRU)."""
    return {fw.name for fw in frameworks if example.snippet_path(fw).exists()}


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
    folder = Path(result["source"]) if result.get("source") else project.results    # (another folder's result)
    path = store.BENCHMARK.path(folder, result["machine"], result["profile"], result["example"],
                                result["framework"]).with_name(result["notebook"])
    return nbformat.read(path, as_version=4) if path.exists() else None


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
