"""Pages stage: MyST pages, charts and notebook copies from the results, under docs/_gen/.

Files are written only when their content changed (so Sphinx rebuilds only what changed),
and files no longer produced are removed.
"""
from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .. import neutral
from ..build import environments, equivalence, identity, results
from ..build.files import write_atomically
from ..build.snippets import SnippetError, Step, group_steps, read_notebook
from ..project import PROFILES, REFERENCE_RESULTS, Example, Framework, Project
from ..report import MIME_TYPE
from . import charts, diagrams

GENERATED = "_gen"            # docs/_gen/, see Project.generated
MAX_OUTPUT_LINES = 40
STATUS_TEXT = {"failed": "failed", "timeout": "timed out", "not-installed": "not installed",
               "snippet-error": "snippet error", "data-error": "data missing"}


class Writer:
    """Writes files under a root only when changed; removes what was not written this time."""

    def __init__(self, root: Path):
        self.root = root
        self.produced: set[Path] = set()
        self.changed = 0

    def write(self, relative: str, content: str | bytes) -> None:
        path = self.root / relative
        data = content.encode() if isinstance(content, str) else content
        self.produced.add(path)
        if path.exists() and path.read_bytes() == data:
            return
        write_atomically(path, data)
        self.changed += 1

    def finish(self) -> int:
        if self.root.exists():
            for path in sorted(self.root.rglob("*"), reverse=True):
                if path.is_file() and path not in self.produced:
                    path.unlink()
                    self.changed += 1
                elif path.is_dir() and not any(path.iterdir()):
                    path.rmdir()
        return self.changed


# --- small formatting helpers -------------------------------------------------------------------

def fence(text: str, language: str = "") -> str:
    """A backtick fence longer than any backtick run inside the text."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{language}\n{text.rstrip()}\n{ticks}"


MARKDOWN_SPECIALS = re.compile(r"([\\`*_\[\]<>|~&{}$#])")


def escape(text: str) -> str:
    """A message shown as written: no character of it read as markup (`<class>` would be an HTML tag,
    `__init__` bold, `[x]` a link). CommonMark lets any ASCII punctuation be escaped with a backslash."""
    return MARKDOWN_SPECIALS.sub(r"\\\1", text)


def cell_text(value: str) -> str:
    """Make a message safe for one cell of a markdown table: one line, escaped."""
    return escape(" ".join(value.split()))


def seconds(value: float) -> str:
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"


def time_summary(summary: dict) -> str:
    text = f"{seconds(summary['median'])} s"
    if len(summary["runs"]) > 1:
        text += f" (median of {len(summary['runs'])}; {seconds(summary['min'])}–{seconds(summary['max'])})"
    return text


def sizes_text(sizes: dict) -> str:
    parts = [f"{key.replace('_', ' ')} {value:,}" if isinstance(value, int) else f"{key} {value}"
             for key, value in sizes.items()]
    return ", ".join(parts)


def traceback_label(example: str, framework: str) -> str:
    return f"traceback-{example}-{framework}"


def notebook_doc(example: str, framework: str) -> str:
    """Path of a notebook page under docs/_gen/ (without suffix)."""
    return f"notebooks/{example}/{framework}"


def doc_link(relative: str) -> str:
    """Absolute Sphinx document name of a generated page."""
    return f"/{GENERATED}/{relative}"


# A path into an environment, as a warning prints it ("/home/me/rosetta/.envs/pytorch/lib/python3.11/site-packages/
# torch/jit/_script.py:1480"): the measuring machine's folders are nobody's business, the package's file is.
LOCAL_PATH = re.compile(r"(?:/[^\s:\"'/]+)+/(?:site|dist)-packages/")


def without_local_paths(text: str) -> str:
    return LOCAL_PATH.sub("<environment>/site-packages/", text)


def outputs_text(cells: list) -> str:
    """What the step printed: streams, plain-text results, error lines."""
    chunks = []
    for cell in cells:
        for output in cell.get("outputs", []):
            kind = output.get("output_type")
            if kind == "stream":
                chunks.append(output.get("text", ""))
            elif kind in ("execute_result", "display_data"):
                data = output.get("data", {})
                if "text/plain" in data:
                    chunks.append(data["text/plain"] + "\n")
                if any(key.startswith("image/") for key in data):
                    chunks.append("(a figure: see the full notebook)\n")
            elif kind == "error":
                chunks.append(f"{output.get('ename')}: {output.get('evalue')}\n")
    lines = without_local_paths("".join(chunks)).rstrip("\n").splitlines()
    if len(lines) > MAX_OUTPUT_LINES:
        hidden = len(lines) - MAX_OUTPUT_LINES
        lines = lines[:MAX_OUTPUT_LINES] + [f"… {hidden} more lines in the full notebook"]
    return "\n".join(lines)


# --- the benchmark page ----------------------------------------------------------------------------

def load_executed(project: Project, result: dict):
    if not result.get("notebook"):
        return None
    path = results.result_dir(project, result["machine"], result["profile"], result["example"]) / result["notebook"]
    return nbformat.read(path, as_version=4) if path.exists() else None


@dataclass
class TabGroup:
    """One tab of a step: a script and the rows that ran it (several when one program runs on
    several backends: its code is shown once, each row's outcome under it)."""
    label: str
    sync: str                  # the sync key: the same framework's tab on every page follows the choice
    rows: list
    path: Path


def tab_groups(frameworks: list[Framework], script_of) -> list[TabGroup]:
    groups: dict[Path, list[Framework]] = {}
    for fw in frameworks:
        path = script_of(fw)
        if path.exists():
            groups.setdefault(path, []).append(fw)
    return [TabGroup(rows[0].label if len(rows) == 1 else rows[0].program_label, rows[0].program, rows, path)
            for path, rows in groups.items()]


def executed_steps(example: Example, result: dict | None, notebook) -> dict:
    if notebook is None:
        return {}
    try:
        return {s.name: s for s in group_steps(notebook, example, result["notebook"])}
    except SnippetError:
        return {}


def step_tab(example: Example, group: TabGroup, step: str, current: dict, notebooks: dict, snippet_steps) -> str:
    """The body of one tab: the current code once (with its part marks: the side-by-side view pairs them),
    then each row's output and time, or why there is none."""
    if step not in snippet_steps:
        return "```{warning}\nThis " + ("framework" if len(group.rows) == 1 else "program") + \
            " has no such step.\n```"
    shown = snippet_steps[step]
    if len(group.rows) == 1:
        fw = group.rows[0]
        return "\n\n".join([fence(shown.code, fw.language),
                             *step_outcome(example, fw, step, current.get(fw.name), notebooks.get(fw.name), shown)])
    names = ", ".join(fw.backend for fw in group.rows)
    lines = [fence(shown.code, group.rows[0].language), "",
             f"<p class=\"rosetta-ran-by\">This one program ran {len(group.rows)} times: {names}.</p>", "",
             ":::::{tab-set}", f":sync-group: {group.sync}-row", ""]
    for fw in group.rows:
        outcome = step_outcome(example, fw, step, current.get(fw.name), notebooks.get(fw.name), shown) \
            or ["Not run."]
        lines += [f"::::{{tab-item}} {fw.backend}", f":sync: {fw.name}", "", *outcome, "::::", ""]
    return "\n".join(lines + [":::::"])


def same_substance(ran: Step, shown: Step, language: str) -> bool:
    """Whether the code a run executed for a step is the code shown, comments and layout aside."""
    return identity.code_identity(ran.code, language) == identity.code_identity(shown.code, language)


def step_outcome(example: Example, fw: Framework, step: str, result: dict | None, notebook,
                 shown: Step | None = None) -> list[str]:
    """What one row's run of a step left: output, time, the error, or why it did not run. `shown`: the
    step's current code; where the run executed other code, the output says it comes from older code."""
    status = result["status"] if result else "not-run"
    parts = []
    executed = executed_steps(example, result, notebook)
    if status in ("not-installed", "snippet-error", "data-error"):
        if step == example.steps[0]:
            parts.append(f"```{{warning}}\n{STATUS_TEXT[status]}: {escape(result['reason'])}\n```")
        return parts
    if notebook is None or step not in executed:
        return parts
    date = (result.get("provenance") or {}).get("date", "")[:10]
    if shown is not None and not same_substance(executed[step], shown, fw.language):
        parts.append("```{attention}\nOlder code: the output and time below come from a run"
                     + (f" of {date}" if date else "") + " whose code for this step differs from the code "
                     "shown (not only in comments); `make html` measures it again.\n```")
    elif result.get("stale"):
        parts.append("```{attention}\nThis step's code is the code that ran, but the program or its settings "
                     "changed elsewhere since" + (f" the run of {date}" if date else "") + "; `make html` measures it "
                     "again.\n```")
    cells = [notebook.cells[i] for i in executed[step].cell_indices]
    text = outputs_text(cells)
    if text:
        parts.append(fence(text, "text"))
    error = result.get("error") or {}
    if status in ("failed", "timeout") and error.get("step") == step:
        hint = example.failure_hints.get(step, "")
        parts.append(f"```{{error}}\nThis step {STATUS_TEXT[status]}: {escape(str(error.get('ename')))}: "
                     f"{escape(str(error.get('evalue')))}. The full traceback is in "
                     f"{{ref}}`the notebook <{traceback_label(example.name, fw.name)}>`. {escape(hint)}\n```")
    elif step in result.get("steps", {}):
        parts.append(f"<p class=\"rosetta-step-time\">Step time: {time_summary(result['steps'][step])}</p>")
    else:
        parts.append("<p class=\"rosetta-step-time\">Not run: an earlier step failed.</p>")
    return parts


def status_cell(result: dict, example: str, linked: bool = True) -> str:
    """A result that did not run: its status, linked to its traceback where this site shows its notebook
    (`linked`: this build's own results; another machine's say what failed in words)."""
    stale = " (stale)" if result.get("stale") else ""
    link = f"{{ref}}`{STATUS_TEXT[result['status']]} <{traceback_label(example, result['framework'])}>`"
    if result["status"] in ("failed", "timeout") and linked:
        return link + stale
    reason = " ".join((result.get("reason") or "").split())
    if len(reason) > 90:        # the cell stays on one line: the whole reason is on the framework's page
        reason = reason[:89] + "…"
    return cell_text(f"{STATUS_TEXT[result['status']]}: {reason}") + stale


def metric_text(value, style: str) -> str:
    if value is None:
        return ""
    if style == "percent":
        return f"{value:.2%}"
    if style == "percent1":
        return f"{value:.1%}"
    if style == "int":
        return f"{value:,.0f}"
    if style == "float2":
        return f"{value:.2f}"
    return cell_text(str(value))


def random_weights(column_results: dict, labels: dict) -> str:
    """The legend's word on weights: random for every row, for some (named: a framework without a
    model zoo is random even where the others load pretrained weights), or nothing."""
    ok = {name: r for name, r in column_results.items() if r["status"] == "ok"}
    random = [name for name, r in ok.items() if "random" in r.get("provenance", {}).get("weights", "")]
    if not random:
        return ""
    if len(random) == len(ok):
        return ", **random weights**"
    return ", **random weights** for " + ", ".join(labels.get(name, name) for name in random)


PEAK_METRIC = {"metric": "peak_fraction", "label": "% of peak", "format": "percent1"}


def peak_fraction(result: dict, operations: float | None, peak: dict | None) -> float | None:
    """What share of the machine's float32 matrix-multiply rate the timed step's samples/s amount to."""
    throughput = result["metrics"].get("throughput")
    if not (operations and peak and throughput):
        return None
    return throughput * operations / (peak["gflops"] * 1e9)


def own_sizes(example: Example, profile: str, column_results: dict, frameworks: list[Framework]) -> str:
    """"; ConvNetJS: 640 train images..." for the rows that ran sizes of their own (as their results
    record): their throughput compares with the others', their time and accuracy do not."""
    profile_sizes = example.profiles.get(profile, {})
    own = [f"{fw.label}: {sizes_text(column_results[fw.name]['sizes'])}" for fw in frameworks
           if fw.name in column_results and column_results[fw.name].get("sizes", profile_sizes) != profile_sizes]
    return ("; sizes of its own (too slow for the profile's: compare its throughput, not its time or accuracy): "
            + "; ".join(own)) if own else ""


def short_machine(label: str, key: tuple) -> str:
    """The Machine cell: "[n] 2-core Intel 200–400 GF · cpu" or "[n] H200 · full" (the legend above the table
    describes each machine in full)."""
    band = re.search(r"(\d+–\d+) GFLOP/s", label)
    name = re.sub(r"^NVIDIA |^\d+-core |\(.*?\)|,.*$", "", label).strip()
    cores = re.match(r"^(\d+)-core", label)
    if cores:
        name = f"{cores.group(1)}-core {name.split()[0] if name else 'CPU'}"
    name += f" {band.group(1)} GF" if band else ""
    return f"{name} · {key[1]}" + (" · ref." if len(key) > 2 and key[2] == "reference" else "")


def original_rate(example: Example, value) -> float | None:
    """One of the original study's figures as a rate in this table's unit: its seconds for `samples`
    samples ([reference.compare]), or its seconds per 1,000 samples."""
    if not isinstance(value, int | float) or not value:
        return None
    compare = example.reference.get("compare", {})
    if compare.get("metric") == "seconds_per_1000":
        return 1000 / value
    return compare["samples"] / value if compare.get("samples") else None


def original_header(example: Example) -> str:
    """The original's column: its GPUs and year, in this table's unit."""
    reference = example.reference
    gpus = " · ".join(name.split()[0] for name in reference.get("columns", []))
    return cell_text(f"original {reference.get('year', '')}, {gpus}: {example.throughput_unit}".replace(" ,", ","))


def original_note(example: Example) -> str:
    """Under the table: what the original's figures were and how they became rates."""
    reference, compare = example.reference, example.reference.get("compare", {})
    if not reference.get("columns"):
        return ""
    how = (f"{compare['samples']:,} samples ÷ its seconds" if compare.get("samples") else
           "1,000 ÷ its seconds per 1,000 images" if compare.get("metric") == "seconds_per_1000" else "")
    return (f"*Original*: the original study's figures ({reference.get('year', 'no year on record')}; GPUs "
            f"{', '.join(reference['columns'])}), {escape(compare.get('figure', reference.get('caption', '')))}, "
            f"given here as {example.throughput_unit}" + (f" ({how})" if how else "")
            + ", so that they compare with the throughput column, not with a time measured at other sizes.")


def accuracy_note(example: Example, profile: str, by_column: dict) -> str:
    """Under the table: what the accuracy at the profile's sizes can say, and the full-size accuracy on record
    (this project's full-profile results, and the original study's)."""
    if not any(m["metric"] == "accuracy" for m in example.table_metrics):
        return ""
    sizes, full = example.profiles.get(profile, {}), example.profiles.get("full", {})

    def amount(values: dict) -> str:
        train = next((f"{v:,} {k.removeprefix('train_')}" for k, v in values.items() if k.startswith("train_")), "")
        epochs = values.get("epochs", 1)
        return f"{epochs} epoch{'s' if epochs != 1 else ''} of {train}" if train else "?"
    measured = [f"{r['metrics']['accuracy']:.1%} ({cell_text(r['framework'])}, {r['machine']})"
                for key, column in by_column.items() if key[1] == "full" for r in column.values()
                if r["status"] == "ok" and r.get("metrics", {}).get("accuracy") is not None]
    original = example.reference.get("accuracy", {})
    labels = example.reference.get("labels", {})
    said = ", ".join(f"{value:.1%} ({labels.get(row, row)})" for row, value in original.items())
    return (f"*Accuracy* at profile `{profile}`: after {amount(sizes)}, tested on "
            f"{next((f'{v:,}' for k, v in sizes.items() if k.startswith('test_')), '?')}; the full sizes are "
            f"{amount(full)}. Trained this briefly the model is far from what it can reach: the figure shows "
            "that every tab trains the same model, not how accurate the model gets. At full sizes: "
            + (f"the original study reported {said}; " if said else "")
            + ("this project measured " + "; ".join(measured) if measured
               else "this project has no full-profile result on record yet") + ".") if profile != "full" else ""


def machine_legend(example: Example, frameworks: list[Framework], columns: list[tuple], by_column: dict,
                   machine_labels: dict, rates: dict, origins: dict) -> list[str]:
    """The machines of a results table, one row each: what they are, their rate, what they ran, where
    their figures come from, when, and how many are stale."""
    lines = [":::{container} rosetta-legend", "",
             "| # | Machine | float32 peak | Profile and sizes | Runs | Source | Measured | Stale |",
             "|---|---|---|---|---|---|---|---|"]
    notes = []
    for number, key in enumerate(columns, 1):
        machine, profile = key[0], key[1]
        column = by_column.get(key, {})
        repeats = sorted({r.get("provenance", {}).get("repeats") for r in column.values()} - {None})
        dates = sorted({r.get("provenance", {}).get("date", "")[:10] for r in column.values()} - {""})
        stale = sum(1 for r in column.values() if r.get("stale"))
        sizes = sizes_text(example.profiles.get(profile, {}))
        weights = random_weights(column, {fw.name: fw.label for fw in frameworks}).lstrip(", ")
        own = own_sizes(example, profile, column, frameworks)
        if own:
            notes.append(f"[{number}]{own.lstrip(';')}.")
        rate = rates.get(key)
        lines.append("| " + " | ".join([
            f"[{number}]", f"{cell_text(machine_labels.get(machine, machine))} (`{machine}`)",
            f"{rate['gflops']:.0f} GFLOP/s" if rate else "not measured",
            f"`{profile}`: {cell_text(sizes)}" + (f"; {weights}" if weights else ""),
            f"{'/'.join(map(str, repeats))} per snippet" if repeats else "–",
            cell_text(re.sub(r" \(`.*?`\)", "", origins.get(key) or "this build")),
            " to ".join(dict.fromkeys([dates[0], dates[-1]])) if dates else "–",
            f"{stale} of {len(column)}" if stale else "none"]) + " |")
    return [*lines, "", ":::", "", *notes]


def results_table(example: Example, frameworks: list[Framework], columns: list[tuple],
                  by_column: dict, machine_labels: dict, peaks: dict | None = None,
                  operations: float | None = None, origins: dict | None = None) -> str:
    """One row per framework and machine (the machines of a framework next to each other, then the
    original's figures on its first row), so the table keeps its width however many machines have
    results; its API is said once). `columns` are (machine, profile[, origin]) keys, this build's
    first; `origins` say where each one's results come from (this build, the reference results kept in the
    repository, a results folder). Above it, a legend of the machines; with the operations per sample of the
    timed step and the machines' `peaks`, a "% of peak" column (figures of different machines compare)."""
    peaks, origins = peaks or {}, origins or {}
    # Each column's machine rate: its own folder's machine.json (keyed by column), else its machine's.
    rates = {key: peaks.get(key) or peaks.get(key[0]) for key in columns}
    metrics = [*example.table_metrics, *([PEAK_METRIC] if operations else [])]
    short = {key: f"[{number}] {short_machine(machine_labels.get(key[0], key[0]), key)}"
             for number, key in enumerate(columns, 1)}
    several = len(columns) > 1          # one machine: the legend names it, no column repeats it on every row
    header = ["Framework", "API", *(["Machine"] if several else []), f"{example.timed_step} s",
              *[m["label"] for m in metrics]]
    reference = example.reference
    ref_columns = reference.get("columns", [])
    if ref_columns:
        header.append(original_header(example))
    lines = [*machine_legend(example, frameworks, columns, by_column, machine_labels, rates, origins), "",
             ":::{container} rosetta-results", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for fw in frameworks:
        # The machines that have this framework's result; this build's row always (it may say "not run").
        keys = [key for number, key in enumerate(columns) if number == 0 or fw.name in by_column.get(key, {})]
        if not example.snippet_path(fw).exists() and not any(fw.name in by_column.get(key, {}) for key in keys):
            continue          # no program of this row for this example (ConvNetJS has no GRU): no row
        figures = reference.get(fw.name, [])
        for index, key in enumerate(keys):
            row = [fw.label, cell_text(fw.api) if index == 0 else "", *([short[key]] if several else [])]
            result = by_column.get(key, {}).get(fw.name)
            blanks = [""] * len(metrics)
            if result is None:
                row += ["not run", *blanks]
            elif result["status"] != "ok":
                row += [status_cell(result, example.name, linked=key == columns[0]), *blanks]
            else:
                timed = result["steps"].get(example.timed_step)
                stale = " (stale)" if result.get("stale") else ""
                row.append((time_summary(timed) if timed else "?") + stale)
                values = {**result["metrics"], "peak_fraction": peak_fraction(result, operations, rates[key])}
                row += [metric_text(values.get(m["metric"]), m.get("format", "text")) for m in metrics]
            if ref_columns:
                rates_here = [original_rate(example, value) for value in figures]
                row.append(" · ".join(f"{rate:,.0f}" if rate else "–" for rate in rates_here)
                           if index == 0 and figures else "")
            lines.append("| " + " | ".join(row) + " |")
    profile = columns[0][1]
    notes = [note for note in (accuracy_note(example, profile, by_column), original_note(example)) if note]
    return "\n".join([*lines, "", ":::", "", "\n\n".join(notes)]).rstrip() + "\n"


def other_results(project: Project, example: Example, frameworks: list[Framework], profile: str,
                  machine: str) -> tuple[dict, dict, dict, dict]:
    """The example's results on record besides this build's: other machines and profiles of this
    results folder, the folders given to --from-results and the reference results in the repository.
    Keys (machine, profile) for this folder, (machine, profile, origin) for the others. Each result is
    marked stale when this checkout's code differs from the code it measured."""
    by_column, labels, origins, peaks = {}, {}, {}, {}
    code = {fw.name: results.example_code(example, fw) for fw in frameworks if example.snippet_path(fw).exists()}
    here = project.results.resolve()
    reference = (project.root / REFERENCE_RESULTS).resolve()
    for stored in results.all_results(project, example.name):
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
        by_column.setdefault(key, {})[stored["framework"]] = stored
        labels.setdefault(stored["machine"], stored.get("machine_label", stored["machine"]))
        peaks.setdefault(key, results.known_matmul_rate_in(source, stored["machine"]))   # (its folder's own)
    for key, column in by_column.items():
        origins[key] = origin_text(key, column)
    return by_column, labels, origins, peaks


REFERENCE_TEXT = f"reference results kept in the repository (`{REFERENCE_RESULTS}`)"


def origin_text(key: tuple, column: dict) -> str:
    """Where a column's results come from, when and at which commit they were measured."""
    dates = sorted({r.get("provenance", {}).get("date", "")[:10] for r in column.values()} - {""})
    commits = sorted({(r.get("provenance", {}).get("repository") or {}).get("commit", "")[:10]
                      for r in column.values()} - {""})
    stale = sum(1 for r in column.values() if r.get("stale"))
    where = ("" if len(key) < 3 else REFERENCE_TEXT if key[2] == "reference" else f"results folder `{key[2]}`")
    when = (f"measured {dates[0]}" + (f" to {dates[-1]}" if dates[-1] != dates[0] else "") if dates else "") + \
        (f" at commit {', '.join(commits)}" if commits else "")
    return ", ".join(part for part in (where, when, f"{stale} stale (code changed since)" if stale else "") if part)


def timed_operations(project: Project, example: Example, profile: str) -> float | None:
    """Floating-point operations per sample of the timed step (training or inference), from the
    example's neutral spec; None when the example has none."""
    if not equivalence.has_checks(example):
        return None
    spec = equivalence.load_spec(project, example, profile)
    return neutral.operations(spec)["train" if spec.steps else "forward"]


def has_gpu(machine: dict | None) -> bool:
    return bool((machine or {}).get("gpus"))


def recorded_machine(result: dict | None) -> dict | None:
    """The machine a result was measured on, as the result recorded it (None in an older record)."""
    machine = ((result or {}).get("provenance") or {}).get("machine")
    return machine if isinstance(machine, dict) else None


def column_machine(key: tuple, by_column: dict) -> dict | None:
    """The description of a column's machine, as its results recorded it."""
    return next(filter(None, map(recorded_machine, by_column.get(key, {}).values())), None)


def benchmark_page(project: Project, example: Example, frameworks: list[Framework], current: dict,
                   profile: str, machine: str, machine_info: dict, writer: Writer, check: dict | None = None,
                   related: list[str] | None = None) -> None:
    by_column, machine_labels, origins, peaks = other_results(project, example, frameworks, profile, machine)
    by_column[(machine, profile)] = current
    machine_labels[machine] = results.machine_label(machine_info)
    # A publishing build measured nothing: its own column is the first results folder it was given.
    published = machine_info.get("results_folder")
    origins[(machine, profile)] = ("this build" if not published else REFERENCE_TEXT
                                   if Path(published).resolve() == (project.root / REFERENCE_RESULTS).resolve()
                                   else f"results folder `{Path(published).name}`")
    peaks[(machine, profile)] = machine_info.get("float32_matmul")
    columns = [(machine, profile)] + sorted(c for c in by_column if c != (machine, profile))

    operations = timed_operations(project, example, profile)
    intro_path = example.folder / "README.md"
    intro = intro_path.read_text() if intro_path.exists() else ""
    intro = re.sub(r"^# .*\n", "", intro, count=1).strip()   # the page has its own title
    ok = [r for r in current.values() if r["status"] == "ok"]
    data_sources = sorted({r["provenance"].get("data_source", "") for r in ok} - {""})
    weights = "; ".join(sorted({r["provenance"].get("weights", "") for r in ok} - {""})) or example.weights
    sizes = sizes_text(example.profiles.get(profile, {})) + own_sizes(example, profile, current, frameworks)
    lines = [f"({example.name})=", f"# {example.title}", "",
             *diagrams.figure(project, example, profile), intro, "",   # (the diagram floats beside the intro)
             "```{admonition} " + ("The tabs' results" if published else "This build"), ":class: note",
             f"Measured on **{results.machine_label(machine_info)}**, profile **{profile}** ({sizes})"
             + (f", read from the results folder `{Path(published).name}` (this site was built without "
                "executing anything). " if published else ". ") +
             f"Data: {'; '.join(data_sources) or 'none loaded'}. Weights: {weights}. "
             "One snippet ran at a time; step times come from the notebook cell timestamps "
             "(see {doc}`/methodology`).", "```", "",
             *([] if has_gpu(machine_info) or any(has_gpu(column_machine(key, by_column)) for key in by_column) else
               ["```{important}", "No GPU results yet: every figure on this page was measured on a CPU (the "
                "machines in the legend below). The original study's figures are from GPUs. "
                "{ref}`How to add GPU results <gpu-results>`.", "```", ""]),
             "## Results", "",
             results_table(example, frameworks, columns, by_column, machine_labels, peaks, operations, origins), ""]
    if operations:
        peak = machine_info.get("float32_matmul") or {}
        lines += [f"% of peak: samples/s × {operations / 1e9:.3g} GFLOP per sample (the {example.timed_step} step's "
                  "matrix products and convolutions"
                  + (", forward and backward" if example.timed_step == "train" else "")
                  + ", counted from the neutral model and checked against PyTorch's FLOP counter, see below) ÷ "
                  "the machine's float32 matrix-multiply rate"
                  + (f" (this machine: {peak['gflops']:.0f} GFLOP/s, {escape(peak['how'])}; "
                     + ", ".join(f"{escape(name)} {rate:.0f}" for name, rate in peak.get("by", {}).items()) + ")"
                     if peak else "") + ".",
                  ""]
    shown_rows = [fw for fw in frameworks if example.snippet_path(fw).exists()]
    lines += ["::::{dropdown} On a GPU: the math mode each row would use (no figure above depends on it)", "",
              MATH_INTRO, "", math_table(shown_rows), "", "::::", ""]
    chart = charts.timing_chart(example, frameworks, current)
    if chart:
        writer.write(f"benchmarks/{example.name}-times.png", chart)
        lines += [f"```{{figure}} {example.name}-times.png",
                  f":alt: {example.timed_step} time per framework", ":figclass: rosetta-chart",
                  "", f"{example.timed_step.capitalize()} time per framework on "
                  f"{escape(results.machine_label(machine_info))} (profile {profile}, the sizes of [1] in the "
                  "legend above; lower is better)"
                  + (", with test accuracy." if any("accuracy" in r["metrics"] for r in ok) else "."),
                  "```", ""]
    lines += ["## Step by step", "",
              "Pick a framework once: every step on every page follows, and the choice is remembered. "
              "*Side by side* shows two programs next to each other, the lines that do the same thing "
              "side by side in the same colour (the parts each program marks, `# [loss]`).", "",
              parts_script(example), ""]
    notebooks = {name: load_executed(project, r) for name, r in current.items()}
    groups = tab_groups(frameworks, example.snippet_path)
    snippet_steps = {}
    for group in groups:
        try:
            snippet_steps[group.path] = {s.name: s for s in group_steps(read_notebook(group.path), example,
                                                                         str(group.path))}
        except SnippetError:
            snippet_steps[group.path] = {}
    for step in example.steps:
        # Colon fences nest by length: tab-set 7, tab-item 6, a program's per-row tab-set 5, its items 4.
        lines += [f"### {step.capitalize()}", "", ":::::::{tab-set}", ":sync-group: framework", ""]
        for group in groups:
            body = step_tab(example, group, step, current, notebooks, snippet_steps[group.path])
            lines += [f"::::::{{tab-item}} {group.label}", f":sync: {group.sync}", "", body, "::::::", ""]
        lines += [":::::::", ""]
    if check:
        lines += equivalence_section(example, frameworks, check, writer)
    if related:
        lines += ["## Lessons measured on this model", "", *related, ""]
    lines += whole_programs(example, groups, current)
    writer.write(f"benchmarks/{example.name}.md", "\n".join(lines) + "\n")


def parts_script(example: Example) -> str:
    """The parts each step's programs mark (example.toml [parts]), for the side-by-side view's colours
    and pairs (docs/_static/rosetta-compare.js). A raw HTML block: JSON cannot break out of it."""
    parts = {step: list(names) for step, names in example.parts.items()}
    return ('<script type="application/json" id="rosetta-parts">'
            + json.dumps(parts).replace("</", "<\\/") + "</script>")


def whole_programs(example: Example, groups: list[TabGroup], current: dict) -> list[str]:
    """The last section: per tab (synced with the steps), the program to download, each row's executed
    notebook, and its page. The files are the copies the notebook pages write (see notebook_page)."""
    lines = ["## Whole programs", "",
             "Each program as one file, and each run of it as an executed notebook.", "",
             ":::::{tab-set}", ":sync-group: framework", ""]
    for group in groups:
        folder = f"/{GENERATED}/{notebook_doc(example.name, '')}"
        items = [f"- The program: {{download}}`{group.path.name} <{folder}{group.path.name}>` "
                 "(a jupytext percent script; open it in Jupyter as a notebook)"]
        for fw in group.rows:
            result = current.get(fw.name)
            run = "" if len(group.rows) == 1 else f" ({fw.backend})"
            state = "executed" if result and result["status"] == "ok" else \
                STATUS_TEXT.get(result["status"], result["status"]) if result else "not run"
            items.append(f"- Its run{run}: {{download}}`{fw.name}.ipynb <{folder}{fw.name}.ipynb>` ({state}) · "
                         f"{{doc}}`read it as a page <{doc_link(notebook_doc(example.name, fw.name))}>`")
        lines += [f"::::{{tab-item}} {group.label}", f":sync: {group.sync}", "", *items, "", "::::", ""]
    return lines + [":::::", ""]


# --- "Are these the same model?" -------------------------------------------------------------------

def pair_value(values: dict, a: str, b: str):
    return values.get(f"{a} vs {b}", values.get(f"{b} vs {a}"))


def difference_matrix(frameworks: list[Framework], values: dict, tolerance, exempt=lambda a, b: False) -> str:
    """Framework x framework table of measured differences; ✗ marks one over its tolerance,
    ≠ a pair that a note says computes different functions (measured, not judged)."""
    header = ["vs.", *[fw.label for fw in frameworks]]      # (a heading without text reads as nothing)
    lines = [":::{container} rosetta-differences", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for a in frameworks:
        row = [f"**{a.label}**"]
        for b in frameworks:
            value = pair_value(values, a.name, b.name)
            if a.name == b.name:
                row.append("·")
            elif value is None:
                row.append("not run")
            elif exempt(a.name, b.name):
                row.append(f"{value:.1e} ≠")
            else:
                limit = tolerance(a.name, b.name)
                row.append(f"{value:.1e} ✓" if value <= limit else f"**{value:.1e} ✗**")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join([*lines, "", ":::"])


def versions_text(frameworks: list[Framework], check: dict) -> str:
    parts = []
    for fw in frameworks:
        info = check["frameworks"].get(fw.name)
        if info and info.get("versions"):
            parts.append(f"{fw.label}: " + ", ".join(f"{k} {v}" for k, v in info["versions"].items()))
    return "; ".join(parts)


def fact_text(value) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def operations_text(check: dict, labels: dict) -> str:
    """The neutral operation count, and how it compares with a framework's own FLOP counter."""
    ops = check.get("operations")
    if not ops:
        return ""
    kinds = {"forward": "forward", "train": "one training step"}
    text = "Operations per sample, counted from the neutral model (each kernel at each of its positions): " + \
        ", ".join(f"{kinds[k]} {v / 1e9:.4g} GFLOP" for k, v in ops["neutral"].items()) + "."
    counted = ops.get("counted")
    if counted:
        text += (f" {labels.get(counted['framework'], counted['framework'])}'s FLOP counter on its snippet's model "
                 f"({counted['variant']}): " + ", ".join(
                     f"{kinds[k]} {counted[k] / 1e9:.4g} ({ops['differences'][k]:.2%} apart)"
                     for k in ops["differences"]) + f"; tolerance {ops['tolerance']:.0%}.")
    return text


def note_measurement(note: dict, labels: dict, check: dict) -> str:
    measured = note.get("measured") or {}
    if measured.get("status") != "ok":
        return f"Not measured in this build: {escape(measured.get('reason', ''))}." if measured else ""
    against = labels.get(measured["against"], measured["against"])
    batches = " with batches in which no word repeats" if note.get("batches") == "distinct_tokens" else ""
    sentences = []
    for name, m in measured["frameworks"].items():
        label = labels.get(name, name)
        if m.get("status") != "ok":
            sentences.append(f"{label}: {m.get('status')} {escape(m.get('reason', ''))}".strip())
            continue
        verdict = "✓" if m["passed"] else "✗ more than the tolerance: something else differs too"
        change = (" and the change below" if batches else " with the change below") if note.get("change") else ""
        if check["steps"]:
            what, where_before = f"final weights after {check['steps']} steps", f" (in {m['before_where']})"
        else:
            what, where_before = "relative difference of the outputs", ""
        sentences.append(f"{label} vs {against}, {what}: **{m['before']:.1e}**{where_before} as the snippets "
                         f"stand; **{m['after']:.1e}**{batches}{change} (tolerance {m['tolerance']:g}) {verdict}")
        before_facts = check["frameworks"].get(name, {}).get("facts", {})
        for fact, value in m.get("facts_after", {}).items():
            sentences.append(f"{label}'s {fact}: {fact_text(before_facts.get(fact, '?'))} as built, "
                             f"{fact_text(value)} with the change")
    return "Measured: " + "; ".join(sentences) + "."


def equivalence_section(example: Example, frameworks: list[Framework], check: dict, writer: Writer) -> list[str]:
    """Same weights in, same numbers out? The matrices, the loss chart and the notes."""
    labels = {fw.name: fw.label for fw in frameworks}
    ran = [fw for fw in frameworks if check["frameworks"].get(fw.name, {}).get("status") == "ok"]
    tol = check["tolerance"]
    folder = f"snippets/{example.name}/equivalence"
    different = {n for note in check.get("notes", []) if note.get("different_function") for n in note["frameworks"]}
    overrides = ", ".join(f"`{k} = {v}`" for k, v in check["overrides"].items())
    lines = ["## Are these the same model?", "",
             f"Every tab loads the **same weights** (seeded, framework-neutral: see the layout below) into the "
             f"model that its own snippet builds: the snippet's steps up to *{example.timed_step}* run unchanged "
             f"under these settings: {overrides}. A small adapter per framework (`{folder}/`) maps the "
             f"tensors in and reads them back. Then every tab computes its outputs for the same "
             f"{check['forward_batch']} seeded random inputs"
             + (f", and takes {check['steps']} steps of its snippet's own optimizer on the same batches of "
                f"{check['batch_size']} (random inputs and labels)" if check["steps"] else "")
             + ". Every pair is compared.", ""]
    if check["passed"]:
        agree = "All pairs agree" if not different else "All pairs of the same variant agree"
        lines += [f"```{{admonition}} {agree}", ":class: tip",
                  f"Checked on {check['machine_label']}, {check['date'][:10]}. {versions_text(frameworks, check)}.",
                  "```", ""]
    else:
        failures = "\n".join(f"- {cell_text(f)}" for f in check["failures"]) or "- fewer than two tabs ran"
        lines += ["```{admonition} Differences over the tolerance", ":class: warning",
                  f"Checked on {check['machine_label']}, {check['date'][:10]}. {versions_text(frameworks, check)}.",
                  "", failures, "```", ""]
    if check.get("stale"):
        lines += ["```{admonition} Stale", ":class: warning",
                  "These checks come from an earlier build: a snippet, an adapter, the neutral spec or an "
                  "environment has changed since, and this build did not run them again.", "```", ""]
    missing = [f"{labels.get(n, n)}: {info['status']} ({cell_text(info.get('reason', ''))})"
               for n, info in check["frameworks"].items() if info.get("status") != "ok"]
    if missing:
        lines += ["Not compared: " + "; ".join(missing) + ".", ""]
    roundtrip = check.get("roundtrip", {})
    exact = [fw.label for fw in frameworks if roundtrip.get(fw.name) == 0]
    if exact:
        lines += [f"Round trip neutral → framework → neutral is exact (bit for bit) for {', '.join(exact)}.", ""]
    if tol.get("relative"):
        lines += ["### Forward: the same features", "",
                  f"Largest |difference| of the outputs, relative to the largest output (tolerance {tol['logits']:g}; "
                  "≠: another variant of the model, see the notes below):", ""]
    else:
        lines += ["### Forward: the same logits", "",
                  f"Largest |difference| of the logits, dropout off (tolerance {tol['logits']:g}):", ""]
    lines += [difference_matrix(ran, check["logits"], lambda a, b: tol["logits"],
                                lambda a, b: bool({a, b} & different)), ""]
    alone = check.get("alone", {})
    if alone:
        lines += ["In inference mode an input's outputs must not depend on the rest of its batch. The first input "
                  "alone against the same input inside the batch: "
                  + ", ".join(f"{labels.get(n, n)} {v:.1e}" for n, v in alone.items()) + ".", ""]
    if check["steps"]:
        lines += [f"### Training: the same {check['steps']} steps", "",
                  f"Largest relative difference of the loss at any step (tolerance {tol['loss']:g}):", "",
                  difference_matrix(ran, check["losses"], lambda a, b: tol["loss"]), "",
                  "Largest |difference| of any weight after the last step "
                  f"(tolerance {tol['weights']:g}, or a note's measured allowance below):", "",
                  difference_matrix(ran, check["weights"],
                                    lambda a, b: pair_value(check["weights_tolerance"], a, b)), ""]
        if check.get("cell_weights") or check.get("cell_vs_steps"):
            lines += ["The timed step itself: each snippet's own *train* cell, run unchanged over the same batches "
                      "in the same order (`shuffle = false`, one epoch), from the same weights. Largest |difference| "
                      "of any weight after it:", "",
                      difference_matrix(ran, check.get("cell_weights", {}),
                                        lambda a, b: pair_value(check["weights_tolerance"], a, b)), "",
                      "Each train cell against the same steps taken one by one through its adapter: "
                      + ", ".join(f"{labels.get(n, n)} {v:.1e}" for n, v in check.get("cell_vs_steps", {}).items())
                      + f" (tolerance {tol['weights']:g}).", ""]
        moved = check.get("moved", {})
        if moved:
            lines += [f"For scale: training moved the weights by up to {max(moved.values()):.1e}.", ""]
        floor = check.get("noise_floor")
        if floor and floor.get("status") == "ok":
            lines += [f"Rounding alone: {labels.get(floor['framework'], floor['framework'])} against itself, "
                      f"started from weights one float32 ulp apart, ends {floor['weights']:.1e} apart "
                      f"(in {floor['where']}) after the same {check['steps']} steps; its losses differ by up to "
                      f"{floor['loss']:.1e} relative. Differences of that size say nothing about the frameworks.", ""]
        chart = charts.loss_chart(ran, check)
        if chart:
            writer.write(f"benchmarks/{example.name}-equivalence.png", chart)
            lines += [f"```{{figure}} {example.name}-equivalence.png",
                      f":alt: training loss of every tab over the {check['steps']} checked steps",
                      ":figclass: rosetta-chart", "",
                      f"The loss of every tab over the same {check['steps']} steps, and how far each is from "
                      f"{ran[0].label}'s.", "```", ""]
    if check.get("notes"):
        lines += ["### Where the frameworks differ", ""]
        for note in check["notes"]:
            lines += [f"#### {note['title']}", "", note["text"], ""]
            measurement = note_measurement(note, labels, check)
            if measurement:
                lines += [measurement, ""]
            if note.get("change"):
                lines += [fence(note["change"].strip("\n"), "python"), ""]
    operations = operations_text(check, labels)
    lines += ["### The neutral weights", "", *[f"- {c}" for c in check["conventions"]], "",
              *([operations, ""] if operations else []),
              f":::{{dropdown}} All {len(check['tensors'])} tensors, in the order of the .npz file", "",
              "| tensor | shape |", "|---|---|",
              *[f"| `{t['name']}` | {' × '.join(map(str, t['shape']))} |" for t in check["tensors"]], "", ":::", ""]
    return lines


# --- notebooks, frameworks, environments ------------------------------------------------------------

def notebook_page(project: Project, example: Example, fw: Framework, result: dict | None, writer: Writer) -> None:
    source = example.snippet_path(fw)
    executed = load_executed(project, result) if result else None
    notebook = copy.deepcopy(executed) if executed is not None else read_notebook(source)
    relative = notebook_doc(example.name, fw.name)
    name = fw.name
    script = source.name             # the program's own file name (keras.py for each Keras backend's row)
    info = [f"Downloads: {{download}}`{script} <{script}>` (the snippet, a jupytext script) · "
            f"{{download}}`{name}.ipynb <{name}.ipynb>` (this notebook, executed)."]
    if fw.variables:
        info.append(f"The program `{source.name}` run with " + ", ".join(f"`{k}={v}`" for k, v in fw.variables.items())
                    + f" in the {fw.environment_label} environment.")
    if result:
        prov = result.get("provenance", {})
        versions = ", ".join(f"{k} {v}" for k, v in prov.get("framework_versions", {}).items())
        if result["status"] == "ok":
            info.append(f"Executed {prov.get('date', '')} on {result.get('machine_label', '')}, profile "
                        f"{result['profile']}; {versions}. Data: {prov.get('data_source', '')}. "
                        f"Weights: {prov.get('weights', '')}.")
        else:
            info.append(f"({traceback_label(example.name, fw.name)})=")
            info.append(f"**This run did not complete ({STATUS_TEXT.get(result['status'], result['status'])}).**")
            error = result.get("error")
            detail = error["traceback"] if error else result.get("reason", "")
            info.append(fence(detail or "(no detail)", "text"))
    # The report output's own MIME type is for the build; the page shows its text line.
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(MIME_TYPE, None)
            if output.get("output_type") == "stream":
                output["text"] = without_local_paths(output.get("text", ""))
    # Fixed ids (nbformat would draw random ones): the same results make the same notebook, byte for byte.
    header = nbformat.v4.new_markdown_cell("\n\n".join(info), id="rosetta-provenance")
    position = 1 if notebook.cells and notebook.cells[0].cell_type == "markdown" \
        and notebook.cells[0].source.startswith("#") else 0
    if position == 0:
        notebook.cells.insert(0, nbformat.v4.new_markdown_cell(f"# {example.short_title}: {fw.label}",
                                                               id="rosetta-title"))
        position = 1
    notebook.cells.insert(position, header)
    writer.write(f"{relative}.ipynb", nbformat.writes(notebook))
    writer.write(f"{notebook_doc(example.name, '')}{script}", source.read_bytes())


def fairness_entries(project: Project) -> list[dict]:
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


def fairness_section(project: Project, fw: Framework, examples: list[Example], entries: list[dict]) -> list[str]:
    """Is this tab as fast as the same work in a plain script? The harness's ratios, marked stale when
    the snippet or the plain script changed since."""
    lines = ["## As fast as plain code?", "",
             "`benchmarks/fairness.py` times each snippet's timed step three ways, alternating, several times: "
             "in its Jupyter kernel as the build does (the times on the pages), as the same code without a "
             "kernel, and as a plain script of the same model (`benchmarks/plain/`), in the same environment "
             "at the same sizes. Seconds: median (min–max); within 10 % either way counts as the same.", ""]
    mine = [e for e in entries if e.get("framework") == fw.name]
    if not mine:
        return lines + ["Not measured on any machine yet.", ""]
    lines += ["| example | machine, profile (sizes) | in its kernel | without a kernel | plain script "
              "| kernel / plain | verdict |", "|---|---|---|---|---|---|---|"]
    by_name = {ex.name: ex for ex in examples}
    for entry in sorted(mine, key=lambda e: (by_name[e["example"]].order if e["example"] in by_name else 99,
                                             e["provenance"]["machine"].get("cpu", ""))):
        prov, variants = entry["provenance"], entry["variants"]
        example = by_name.get(entry["example"])
        stale = example is None or results.file_sha256(example.snippet_path(fw)) != prov.get("snippet_sha256") \
            or results.file_sha256(fw.script(project.root / "benchmarks" / "plain" / entry["example"])) \
            != prov.get("plain_sha256")
        times = [f"{variants[v]['median']:.2f} ({variants[v]['min']:.2f}–{variants[v]['max']:.2f})"
                 if variants.get(v, {}).get("status") == "ok" else "failed" for v in ("kernel", "script", "plain")]
        ratio = entry.get("ratios", {}).get("kernel/plain")
        verdict = (entry.get("verdict") or "") + ("" if entry.get("same_work", True) else "; not the same work")
        where = (f"{results.machine_label(prov['machine'])}, {prov['profile']} ({sizes_text(prov['sizes'])}), "
                 f"{prov['repeats']} runs each, {prov['date'][:10]}")
        lines.append("| " + " | ".join([
            example.short_title if example else entry["example"], cell_text(where), *times,
            f"{ratio:.2f}" if ratio else "–", cell_text(verdict + (" (stale: the code changed since)" if stale else ""))
        ]) + " |")
    return lines + [""]


def history_section(project: Project, fw: Framework, examples: list[Example], current: dict) -> list[str]:
    """The original study's K80 and P100 figures for this row beside this build's, in one unit per benchmark:
    a rate (samples/s, s per 1,000 images), since this build's profile does not run the original's amounts.
    Where the original had no figure for the row, its nearest rows there (docs/systems.toml)."""
    from . import guide  # it builds on this module's helpers
    lines = ["## Beside the original study", ""]
    written = [ex for ex in examples if ex.snippet_path(fw).exists()]
    own = [ex for ex in written if guide.has_figure(ex.reference.get(fw.name))]
    missing = [ex for ex in written if ex not in own]
    try:
        system = guide.system_of_row(guide.load_systems(project), fw.name) \
            if guide.systems_file(project).exists() else None
    except guide.SystemsError:
        system = None          # the guide page shows what to fix
    guide_link = f"{{doc}}`{system.name} in the guide <{guide.guide_doc(system)}>`" if system else ""
    own_labels = {guide.label_of(ex, fw.name) for ex in own}
    nearest = [label for label in ([*system.original, *system.nearest] if system else []) if label not in own_labels]
    if own:
        ran = [r for ex in own if (r := current.get(ex.name, {}).get(fw.name)) and r["status"] == "ok"]
        where = f"profile `{ran[0]['profile']}` on {ran[0].get('machine_label') or ran[0]['machine']}" if ran \
            else "a shorter profile"
        figures, how = [], []
        for ex in own:
            compare, label = ex.reference.get("compare", {}), history_metric(ex)["label"]
            figures.append(f"{ex.short_title}: {compare.get('figure', ex.reference.get('caption', ''))}")
            how.append(f"{ex.short_title} in {label} (the {compare['samples']:,} samples of the original's run "
                       "divided by its seconds)" if compare.get("samples")
                       else f"{ex.short_title} in {label}, the original's own unit")
        lines += ["The original timed whole runs on its GPUs (" + "; ".join(figures) + f"); this build ran {where}, "
                  "with far fewer samples, so both sides are compared as rates, which do not depend on how many "
                  "samples ran: " + "; ".join(how) + ". Hardware and versions still differ: read the ratio, "
                  "not the difference.", ""]
        columns = max((guide.column_names(ex) for ex in own), key=len)
        lines += ["| benchmark | compared as | " + " | ".join(f"original, {c}" for c in columns)
                  + " | this build |", "|---|---|" + "---|" * len(columns) + "---|"]
        lines += [history_row(ex, fw, current.get(ex.name, {}).get(fw.name), len(columns)) for ex in own]
        lines.append("")
        for ex in own:
            accuracy = ex.reference.get("accuracy", {}).get(fw.name)
            result = current.get(ex.name, {}).get(fw.name) or {}
            mine = result.get("metrics", {}).get("accuracy") if result.get("status") == "ok" else None
            if accuracy is not None:
                lines += [f"{ex.short_title}: the original reported {accuracy:.1%} test accuracy after its full run"
                          + (f"; this build {mine:.1%} after profile `{result['profile']}`'s much shorter training."
                             if mine is not None else "."), ""]
        if not missing:
            return lines
        lines.append(f"The original had no {fw.label} figure for " + ", ".join(ex.short_title for ex in missing) + ".")
    else:
        lines.append(f"The original study had no {fw.label} row.")
    table = guide.figure_table(nearest, missing)
    if table:
        lines[-1] += f" Its nearest rows there, from {guide_link} (figures as the original published them):"
        lines += ["", *table]
    elif system and not own:
        lines[-1] += f" Nor any row near it (see {guide_link})."
    return lines + [""]


def history_metric(example: Example) -> dict:
    """This build's metric that the original's figures are compared with, as the results table shows it."""
    metric = example.reference.get("compare", {}).get("metric", "throughput")
    return next((m for m in example.table_metrics if m["metric"] == metric),
                {"metric": metric, "label": metric.replace("_", " "), "format": "float2"})


def history_row(example: Example, fw: Framework, result: dict | None, width: int) -> str:
    """One benchmark: the original's figures as this build's metric (its seconds in brackets), then this build's."""
    compare, metric = example.reference.get("compare", {}), history_metric(example)
    style, samples = metric.get("format", "float2"), compare.get("samples")
    figures = list(example.reference.get(fw.name, []))
    cells = []
    for value in figures + ["–"] * (width - len(figures)):
        if not isinstance(value, int | float):
            cells.append("–")
        else:
            cells.append(f"{metric_text(samples / value, style)} ({value:g} s)" if samples else f"{value:g}")
    if result is None:
        mine = "not run"
    elif result["status"] != "ok":
        mine = STATUS_TEXT.get(result["status"], result["status"])
    else:
        timed = result["steps"].get(example.timed_step)
        count = result["metrics"].get(example.samples_metric)
        mine = metric_text(result["metrics"].get(metric["metric"]), style)
        if timed and count:
            mine += f" ({count:,} {example.throughput_unit.split('/')[0]} in {seconds(timed['median'])} s)"
    stale = " (stale)" if result and result.get("stale") else ""
    lower = " (lower is better)" if metric["metric"].startswith("seconds") else ""
    return f"| {example.short_title} | {example.timed_step}, {metric['label']}{lower} | " + " | ".join(cells) \
        + f" | {mine}{stale} |"


def framework_page(fw: Framework, examples: list[Example], current: dict, env, writer: Writer,
                   fairness: list[str] = (), frameworks: list[Framework] = (), history: list[str] = ()) -> None:
    lines = [f"({fw.name})=", f"# {fw.label}", "", f"API used in the tabs: {fw.api}.", ""]
    siblings = [other for other in frameworks if other.program == fw.program and other.name != fw.name]
    if fw.variables or siblings:
        lines += [f"Its snippets are the program `{fw.program}.py`"
                  + (", run with " + ", ".join(f"`{k}={v}`" for k, v in fw.variables.items()) if fw.variables else "")
                  + f" in the {fw.environment_label} environment"
                  + ("; the same files also run as " + ", ".join(
                      f"{{doc}}`{other.label} <{doc_link('frameworks/' + other.name)}>`" for other in siblings)
                     if siblings else "") + ".", ""]
    if env is not None and env.ok:
        versions = results.key_packages(fw, {**env.fingerprint.get("packages", {}),
                                             "python": env.fingerprint.get("python")})
        lines += ["Environment: " + ", ".join(f"{k} {v}" for k, v in versions.items())
                  + f" ({{doc}}`all packages <{doc_link('environments')}>`).", ""]
    else:
        reason = env.reason if env is not None else "not set up"
        lines += [f"```{{warning}}\nNot installed on this machine: {escape(reason)}\n```", ""]
    if fw.install_notes:
        lines += ["## Installing it", "", fw.install_notes.strip(), ""]
    lines += [*history, *fairness, "## Notebooks", ""]
    docs = []
    for example in examples:
        if not example.snippet_path(fw).exists() or example.name not in current:
            continue
        result = current[example.name].get(fw.name)
        state = "not run" if result is None else (
            "ran" if result["status"] == "ok" else STATUS_TEXT.get(result["status"], result["status"]))
        lines.append(f"- {{doc}}`{example.short_title} <{doc_link(notebook_doc(example.name, fw.name))}>` ({state})")
        docs.append(doc_link(notebook_doc(example.name, fw.name)))
    lines += ["", "```{toctree}", ":hidden:", "", *docs, "```"]
    writer.write(f"frameworks/{fw.name}.md", "\n".join(lines) + "\n")


def environments_page(frameworks: list[Framework], envs: dict, machine: str, machine_info: dict,
                      writer: Writer) -> None:
    lines = ["# Environments", "",
             "Each framework runs in its own virtual environment, made from a pinned requirements "
             "file and registered as a Jupyter kernel. The fingerprint (requirements hash and every "
             "installed package) is part of each result: change a package and the results are "
             "measured again.", "", "## Packages by environment", "",
             "::::{tab-set}", ":sync-group: framework", ""]
    owners = {}
    for fw in frameworks:          # rows that share an environment (Keras 3 on a backend) are listed in it
        owners.setdefault(fw.environment, []).append(fw)
    for environment, rows in owners.items():
        fw = next((row for row in rows if row.name == environment), rows[0])
        env = envs.get(fw.name)
        lines += [f":::{{tab-item}} {fw.environment_label}", f":sync: {environment}", ""]
        if len(rows) > 1:
            lines += ["Runs the rows " + ", ".join(
                row.label + (" (" + ", ".join(f"`{k}={v}`" for k, v in row.variables.items()) + ")"
                             if row.variables else "") for row in rows) + ".", ""]
        requirements = fw.requirements.read_text() if fw.requirements.exists() else "(missing)"
        lines += [f"Requirements (`envs/{fw.requirements.name}`):", "", fence(requirements, "text"), ""]
        if env is None or not env.ok:
            lines += [f"```{{warning}}\nNot installed: {escape(env.reason) if env else 'not set up'}\n```", ""]
        else:
            packages = env.fingerprint.get("packages", {})
            if env.fingerprint.get("existing_python"):
                lines += [f"An existing interpreter, `{escape(env.fingerprint['existing_python'])}` (set by "
                          f"`{environments.existing_python_variable(fw)}`): no virtual environment was made, "
                          "and these are its packages as found.", ""]
            lines += [f"Python {env.fingerprint.get('python')}, fingerprint `{env.fingerprint_hash[:16]}`, "
                      f"{len(packages)} packages:", "",
                      fence("\n".join(f"{k}=={v}" for k, v in packages.items()), "text"), ""]
        lines += [":::", ""]
    lines += ["::::", "", "## On a GPU: the math mode each row would use", "", MATH_INTRO, "",
              math_table(frameworks), "", "## This machine", "", *machine_table(machine, machine_info), ""]
    writer.write("environments.md", "\n".join(lines) + "\n")


def machine_table(machine: str, machine_info: dict) -> list[str]:
    """The machine the pages' own results were measured on, in words (never a path of the building machine)."""
    peak = machine_info.get("float32_matmul") or {}
    gpus = machine_info.get("gpus") or []
    published = machine_info.get("results_folder")
    rows = [("Name", f"{cell_text(results.machine_label(machine_info))} (`{machine}`)" if machine_info.get("cpu")
             else f"`{machine}`"),
            ("CPU", f"{machine_info.get('cpu', '?')}, {machine_info.get('cores', '?')} cores"
             + (f", {machine_info['cpu_flags']}" if machine_info.get("cpu_flags") else "")),
            ("Memory", f"{machine_info['memory_gib']} GiB" if machine_info.get("memory_gib") else "not recorded"),
            ("GPU", "; ".join(f"{g.get('name')} ({g.get('memory')}, driver {g.get('driver')}, CUDA "
                              f"{g.get('driver_cuda')})" for g in gpus) or "none: no GPU results from this machine"),
            ("Operating system", machine_info.get("os", "not recorded")),
            ("Python of the build", machine_info.get("python", "not recorded")),
            ("float32 peak", f"{peak['gflops']:.0f} GFLOP/s, {peak.get('how', '')}, measured "
             f"{peak.get('date', '')[:10]}; per environment: "
             + ", ".join(f"{name} {rate:.0f}" for name, rate in peak.get("by", {}).items())
             if peak.get("gflops") else "not measured"),
            ("Results", "read from " + ("the reference results kept in the repository"
                                        if Path(published).name == "reference" else f"the results folder "
                                        f"`{Path(published).name}`") + ": this site executed nothing"
             if published else "measured by this build")]
    return ["| Property | As recorded |", "|---|---|",
            *(f"| {name} | {cell_text(str(value)) if name != 'Name' else value} |" for name, value in rows)]


MATH_INTRO = ("On a GPU, every row computes in float32 (no TF32), lets cuDNN pick its fastest algorithms, "
              "and compiles the way its own documentation recommends; each row sets the first two in its "
              "snippets' setup step, or in its environment variables where the program has no switch "
              "(see {doc}`/methodology`). On a CPU none of the three changes anything.")
MATH_COLUMNS = (("float32", "float32 / TF32"), ("autotune", "cuDNN autotuning"), ("compiler", "compilation"))


def math_table(frameworks: list[Framework]) -> str:
    """Each row's math mode on a GPU, as its envs/<row>.toml [math] declares it."""
    lines = ["| Framework | " + " | ".join(label for _, label in MATH_COLUMNS) + " |",
             "|---|" + "---|" * len(MATH_COLUMNS)]
    for fw in frameworks:
        lines.append(f"| {fw.label} | " + " | ".join(
            " ".join(fw.math.get(key, "not declared").split()).replace("|", "\\|") for key, _ in MATH_COLUMNS) + " |")
    return "\n".join(lines)


@dataclass
class LessonsInput:
    """What the lessons stage hands to the pages: the lessons, this machine's results, unreadable folders."""
    lessons: list = field(default_factory=list)
    results: dict = field(default_factory=dict)
    problems: list = field(default_factory=list)


def write_site(project: Project, examples: list[Example], frameworks: list[Framework], all_results: dict,
               envs: dict, profile: str, machine: str, machine_info: dict, checks: dict | None = None,
               lessons: LessonsInput | None = None) -> int:
    from . import lesson_pages  # it builds on this module's helpers
    lessons = lessons or LessonsInput()
    writer = Writer(project.generated)
    for example in examples:
        if example.name not in all_results:
            continue
        current = all_results[example.name]
        benchmark_page(project, example, frameworks, current, profile, machine, machine_info, writer,
                       (checks or {}).get(example.name),
                       lesson_pages.related_lessons(project, lessons, example.name, frameworks, machine, machine_info,
                                                    profile))
        for fw in frameworks:
            if example.snippet_path(fw).exists():
                notebook_page(project, example, fw, current.get(fw.name), writer)
    fairness = fairness_entries(project)
    for fw in frameworks:
        framework_page(fw, examples, all_results, envs.get(fw.name), writer,
                       fairness_section(project, fw, examples, fairness), frameworks,
                       history_section(project, fw, examples, all_results))
    index_pages(examples, frameworks, all_results, writer)
    from . import matrix  # (matrix builds on this module's helpers)
    matrix.write(project, examples, frameworks, all_results, envs, profile, machine, machine_info, lessons, writer)
    environments_page(frameworks, envs, machine, machine_info, writer)
    writer.write("includes/provenance.md", site_provenance(project, examples, all_results, profile, machine,
                                                           machine_info) + "\n")
    lesson_pages.write(project, lessons.lessons, frameworks, lessons.results, lessons.problems, machine, machine_info,
                       profile, writer)
    from . import guide  # (guide builds on this module's helpers)
    guide.write(project, all_results, frameworks, writer)
    return writer.finish()


def site_provenance(project: Project, examples: list[Example], all_results: dict, profile: str, machine: str,
                    machine_info: dict) -> str:
    """The front page's word on where its figures come from: the pages' own machine and profile, measured when
    the site was built or read from stored results, the other machines on record, and whether any has a GPU."""
    own = [r for rows in all_results.values() for r in rows.values() if (r.get("provenance") or {}).get("date")]
    dates = sorted({r["provenance"]["date"][:10] for r in own})
    commits = sorted({((r["provenance"].get("repository") or {}).get("commit") or "")[:10] for r in own} - {""})
    when = (f"measured {dates[0]}" + (f" to {dates[-1]}" if dates[-1] != dates[0] else "") if dates else "") + \
        (f" at commit {', '.join(commits)}" if commits else "")
    published = machine_info.get("results_folder")
    source = ("the reference results kept in the repository" if published and Path(published).name == "reference"
              else f"the results folder `{Path(published).name}`" if published else "")
    lines = [(f"This site was published from {source}: no program ran while it was built. " if published else
              "This site's own figures were measured when it was built. ")
             + f"Its own column: **{escape(results.machine_label(machine_info))}** (`{machine}`), profile "
               f"`{profile}` ({{doc}}`its sizes </methodology>`)" + (f", {when}" if when else "") + "."]
    others = {(r["machine"], r["profile"]): r for example in examples
              for r in results.all_results(project, example.name)
              if (r["machine"], r["profile"]) != (machine, profile) and r["profile"] != "smoke"}
    if others:
        lines.append("Beside it: " + "; ".join(f"{escape(r.get('machine_label', m))}, profile `{p}`"
                                               for (m, p), r in sorted(others.items())) + ".")
    gpus = has_gpu(machine_info) or any(has_gpu(recorded_machine(r)) for r in others.values())
    if not gpus:
        lines.append("**No GPU results yet**: every figure on this site was measured on a CPU; the original "
                     "study's figures are from GPUs. {ref}`How to add GPU results <gpu-results>`.")
    lines.append("A figure marked *(stale)* was measured with code that has changed since (not only in its "
                 "comments); `make html` measures it again.")
    return " ".join(lines)


def index_pages(examples: list[Example], frameworks: list[Framework], all_results: dict, writer: Writer) -> None:
    """The Benchmarks and Frameworks pages (in example and tab order), and the home page's list."""
    shown = [ex for ex in examples if ex.name in all_results]
    listing = [f"- **{{doc}}`{ex.title} <{doc_link('benchmarks/' + ex.name)}>`**: {ex.summary}" for ex in shown]
    writer.write("includes/benchmark_list.md", "\n".join(listing) + "\n")
    profiles = ["| profile | " + " | ".join(ex.short_title for ex in examples) + " |",
                "|---|" + "---|" * len(examples)]
    for profile in PROFILES:
        profiles.append(f"| `{profile}` | " + " | ".join(
            cell_text(sizes_text(ex.profiles.get(profile, {})) or "–") for ex in examples) + " |")
    writer.write("includes/profiles.md", "\n".join(profiles) + "\n")
    writer.write("benchmarks.md", "\n".join(
        ["# Benchmarks", "", "The three benchmarks of the original study, each in every framework.", "",
         *listing, "", "```{toctree}", ":hidden:", "", *[f"benchmarks/{ex.name}" for ex in shown], "```"]) + "\n")
    writer.write("frameworks.md", "\n".join(
        ["# Frameworks", "", "Each framework's environment and its executed notebooks.", "",
         *[f"- {{doc}}`{fw.label} <{doc_link('frameworks/' + fw.name)}>`: {fw.api}" for fw in frameworks],
         "", "```{toctree}", ":hidden:", "", *[f"frameworks/{fw.name}" for fw in frameworks], "```"]) + "\n")
