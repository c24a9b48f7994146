"""The guide's data: docs/systems.toml, validated, and each system's status and coverage from this build's results.

Every system of the original study and of the survey of its time has an entry in docs/systems.toml:
who made it, in what language, what kind of graph, what it offered for several machines, where it
went. A system that rows of this project run gets its status from this build's results (never typed
in the file); one without a row says whether it installs here or why it cannot. The guide's pages
(guide.py) render it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .. import model
from ..build.outcome import Outcome
from ..project import Example, Project, UsageError
from .markup import STATUS_TEXT

SYSTEMS_FILE = "systems.toml"          # under docs/: the one hand-written source of the guide
TEXT_FIELDS = ("id", "name", "made_by", "language", "graph", "distributed", "fate", "summary")
TYPED = {"installs": "install", "cannot-install": "reason"}     # a typed status and the field it needs
SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


class SystemsError(Exception):
    """docs/systems.toml does not validate: one line per problem, each naming the file and the entry."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass(frozen=True)
class System:
    id: str
    name: str
    made_by: str
    language: str
    graph: str
    graph_meaning: str
    distributed: str
    fate: str
    summary: str
    original: tuple[str, ...] = ()     # the original study's labels for it
    nearest: tuple[str, ...] = ()      # the original's rows in which it ran underneath another API
    rows: tuple[str, ...] = ()         # this project's rows that run it
    status: str = ""                   # typed: "installs" or "cannot-install" (empty when it has rows)
    install: str = ""
    reason: str = ""


@dataclass(frozen=True)
class Status:
    kind: str        # runs, fails here, not installed, not run (computed); installs, cannot install (typed)
    detail: str      # the evidence, one line


def systems_file(project: Project) -> Path:
    return project.docs / SYSTEMS_FILE


# --- the original study's figures, from the examples' [reference] tables ----------------------------

def original_figures(example: Example) -> dict[str, list]:
    """The original's label -> its figures (one per reference column) for one example: the rows of this
    project keyed by row name (named by [reference.labels]) and the others under [reference.others]."""
    reference = example.reference
    found = {label: reference[row] for row, label in reference.get("labels", {}).items() if row in reference}
    found.update(reference.get("others", {}))
    return found


def has_figure(figures) -> bool:
    return any(isinstance(value, int | float) for value in figures or ())


def known_labels(examples: list[Example]) -> set[str]:
    return {label for example in examples for label in original_figures(example)}


def label_of(example: Example, row: str) -> str | None:
    """The original's name for a row of this project, where the original ran that system that way."""
    return example.reference.get("labels", {}).get(row)


def figure_text(value, unit: str = "s") -> str:
    return f"{value:g} {unit}" if isinstance(value, int | float) else "–"


def column_names(example: Example) -> list[str]:
    """The reference columns by their GPU: "K80 (CUDA 8, cuDNN 6)" -> "K80"."""
    return [column.split()[0] for column in example.reference.get("columns", [])]


# --- loading and validating docs/systems.toml -----------------------------------------------------

def load_systems(project: Project) -> list[System]:
    """Every system of docs/systems.toml, in file order; SystemsError lists every problem found."""
    path = systems_file(project)
    try:
        data = model.parse(path)
    except FileNotFoundError:
        raise SystemsError([f"{path}: missing"]) from None
    except UsageError as exc:
        raise SystemsError([str(exc)]) from None
    problems = []
    graphs = data.get("graphs")
    if not isinstance(graphs, dict) or not graphs:
        problems.append(f"{path}: no [graphs] table: the vocabulary of the `graph` field")
        graphs = {}
    problems += [f"{path}: {problem}" for problem in model.problems_in(
        {key: value for key, value in data.items() if key != "system"}, model.SYSTEMS)]
    entries = data.get("system", [])
    if not entries:
        problems.append(f"{path}: no [[system]] entry")
    labels = known_labels(project.examples())
    systems, seen_ids, row_owner = [], set(), {}
    for number, entry in enumerate(entries, 1):
        name = entry.get("id") if isinstance(entry.get("id"), str) and entry.get("id") else "?"
        where = f"{path}: [[system]] #{number} ({name})"
        found = [*field_problems(entry, where, graphs, seen_ids)]
        lists, listed = label_lists(entry, where, labels)
        found += listed
        found += status_problems(entry, where, project, row_owner, name)
        problems += found
        if not found:
            systems.append(System(
                **{key: entry[key].strip() for key in TEXT_FIELDS}, graph_meaning=graphs.get(entry["graph"], ""),
                original=lists["original"], nearest=lists.get("nearest", ()), rows=tuple(entry.get("rows") or ()),
                status=entry.get("status") or "", install=entry.get("install", ""), reason=entry.get("reason", "")))
    if problems:
        raise SystemsError(problems)
    return systems


def field_problems(entry: dict, where: str, graphs: dict, seen_ids: set) -> list[str]:
    """The text fields, the id (a slug, not seen before: `seen_ids` grows) and the graph's vocabulary."""
    problems = []
    for key in TEXT_FIELDS:
        if key not in entry:
            problems.append(f"{where}: missing field {key!r}")
        elif not isinstance(entry[key], str) or not entry[key].strip():
            problems.append(f"{where}: field {key!r} must be a non-empty string")
    problems += [f"{where}: {problem}" for problem in model.problems_in(entry, model.SYSTEMS["system"][0])]
    ident = entry.get("id")
    if isinstance(ident, str) and ident:
        if not SLUG.match(ident):
            problems.append(f"{where}: id {ident!r} is not a slug (lower-case letters, digits, hyphens)")
        if ident in seen_ids:
            problems.append(f"{where}: duplicate id {ident!r}")
        seen_ids.add(ident)
    graph = entry.get("graph")
    if isinstance(graph, str) and graph and graphs and graph not in graphs:
        problems.append(f"{where}: graph {graph!r} is not in the [graphs] vocabulary ({', '.join(graphs)})")
    return problems


def label_lists(entry: dict, where: str, labels: set[str]) -> tuple[dict, list[str]]:
    """The entry's `original` and `nearest` labels (each one the original study's), and the problems found."""
    lists, problems = {}, []
    for key in ("original", "nearest"):
        value = entry.get(key, [] if key == "nearest" else None)
        if value is None:
            problems.append(f"{where}: missing field 'original' (use [] when the original had no row for it)")
        elif not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            problems.append(f"{where}: field {key!r} must be a list of the original study's labels")
        else:
            lists[key] = tuple(value)
            for label in value:
                if label not in labels:
                    problems.append(f"{where}: {key} label {label!r} is in no example's [reference] "
                                    f"(known: {', '.join(sorted(labels)) or 'none'})")
    return lists, problems


def status_problems(entry: dict, where: str, project: Project, row_owner: dict, name: str) -> list[str]:
    """Rows of this project (each one system's: `row_owner` grows) or a typed status with its field."""
    problems = []
    status, rows = entry.get("status"), entry.get("rows")
    if status == "runs":
        problems.append(f"{where}: status 'runs' is typed: a status of running is computed from this "
                        f"build's results; give the rows that run it instead (rows = [...])")
    elif rows is not None and status is not None:
        problems.append(f"{where}: both rows and status: a system with rows gets its status from the results")
    elif rows is not None:
        if not isinstance(rows, list) or not rows or not all(isinstance(r, str) and r for r in rows):
            problems.append(f"{where}: rows must be a non-empty list of row names")
            rows = []
        for row in rows:
            if row == "docs" or not (project.envs / f"{row}.toml").exists():
                problems.append(f"{where}: unknown row {row!r}: there is no envs/{row}.toml")
            elif row in row_owner:
                problems.append(f"{where}: row {row!r} is already the row of system {row_owner[row]!r}")
            else:
                row_owner[row] = name
        for key in TYPED.values():
            if key in entry:
                problems.append(f"{where}: field {key!r} belongs to a typed status, not to a system with rows")
    elif status is None:
        problems.append(f"{where}: neither rows nor status: give rows = [...] (rows of this project that "
                        f"run it) or status = \"installs\" / \"cannot-install\"")
    elif status not in TYPED:
        problems.append(f"{where}: unknown status {status!r} (one of: {', '.join(TYPED)}; "
                        f"with rows, the status is computed)")
    else:
        problems += typed_problems(entry, where, status)
    return problems


def typed_problems(entry: dict, where: str, status: str) -> list[str]:
    """A typed status needs its own field, and not the other status's."""
    problems = []
    needed = TYPED[status]
    if not isinstance(entry.get(needed), str) or not entry[needed].strip():
        problems.append(f"{where}: status {status!r} needs {needed} = \"...\" "
                        + ("(what installs, as tried)" if needed == "install" else "(the reason found)"))
    other = next(key for key in TYPED.values() if key != needed)
    if other in entry:
        problems.append(f"{where}: field {other!r} does not go with status {status!r}")
    return problems


def system_of_row(systems: list[System], row: str) -> System | None:
    return next((system for system in systems if row in system.rows), None)


# --- status and coverage, from this build's results ----------------------------------------------------

def row_state(result: dict | None) -> str:
    """One row's outcome on one benchmark, as the matrix says it."""
    if result is None:
        return "not run"
    return {Outcome.OK: "ran", Outcome.FAILED: "failed", Outcome.TIMEOUT: "failed", Outcome.SNIPPET_ERROR: "failed",
            Outcome.NOT_INSTALLED: "not installed",
            Outcome.DATA_ERROR: "no data"}.get(result["status"], result["status"])


def status_of(system: System, results_by_example: dict) -> Status:
    """runs: a row has an "ok" result in this build; fails here: its rows have results, none ok;
    not installed: every result says so; installs / cannot install: typed in the file."""
    if system.status == "installs":
        return Status("installs", system.install)
    if system.status == "cannot-install":
        return Status("cannot install", system.reason)
    found = [result for per_row in results_by_example.values() for row in system.rows
             if (result := per_row.get(row)) is not None]
    if not found:
        return Status("not run", "this build has no result of its rows")
    ran = [r for r in found if r["status"] == Outcome.OK]
    if ran:
        return Status("runs", f"{len(ran)} of its {len(found)} results in this build ran")
    if all(r["status"] == Outcome.NOT_INSTALLED for r in found):
        return Status("not installed", f"its environment is not installed here: {found[0].get('reason', '')}")
    states = sorted({STATUS_TEXT.get(r["status"], r["status"]) for r in found})
    return Status("fails here", f"none of its {len(found)} results ran ({', '.join(states)})")


def coverage(system: System, example: Example, results_by_example: dict, written: set[str]) -> str:
    """One cell of the matrix: ran / failed / not installed / not run / not written / cannot install / —.
    `written`: the rows with a program of the example."""
    if system.status == "installs":
        return "—"
    if system.status == "cannot-install":
        return "cannot install"
    shown = [row for row in system.rows if row in written]
    if not shown:
        return "not written"
    per_row = results_by_example.get(example.name, {})
    states = [row_state(per_row.get(row)) for row in shown]
    if len(set(states)) == 1:
        cell = states[0]
    elif "ran" in states:
        cell = f"ran ({states.count('ran')} of {len(states)} rows)"
    else:
        cell = ", ".join(sorted(set(states)))
    stale = any((per_row.get(row) or {}).get("stale") for row in shown)
    return cell + (" (stale)" if stale else "")


MARKS = {"ran": "✓ ", "failed": "✗ "}
LEGEND = [
    ("✓ ran", "a row of this project ran it in this build (for a system with several rows: how many ran)"),
    ("✗ failed", "its script ran here and stopped with an error or timed out (the notebook shows where)"),
    ("not installed", "its script exists, its environment is not installed on this machine"),
    ("no data", "its data set was not found on this machine"),
    ("not run", "its script exists, this build has no result for it"),
    ("not written", "the system runs here, but none of its rows has a script for this benchmark"),
    ("cannot install", "the system cannot be installed on this machine; its page says why"),
    ("—", "the system installs here, but no row of this project uses it yet"),
]


def matrix_cell(cell: str) -> str:
    return MARKS.get(cell.split(" ")[0], "") + cell
