"""Benchmark pages: the machines and the results table, the charts, every step in every program (tabs, and
the side-by-side view's parts), the equivalence check and the whole programs, from the page's view
(gather/ reads the results, notebooks, programs and README)."""
from __future__ import annotations

import json
import re
from pathlib import Path

from ..build.outcome import Outcome
from ..build.snippets import Step
from ..project import Example, Framework
from . import charts
from .environments_page import MATH_INTRO, math_table
from .gather.benchmark import BenchmarkView
from .gather.common import Columns, TabGroup
from .gather.framework import peak_fraction, recorded_peak
from .markup import (
    GENERATED,
    STATUS_TEXT,
    Writer,
    cell_text,
    doc_link,
    escape,
    fence,
    metric_text,
    notebook_doc,
    sizes_text,
    time_summary,
    traceback_label,
)
from .records import same_substance
from .same_model import equivalence_section
from .verdicts import related_lessons


def step_tab(example: Example, group: TabGroup, step: str, results: dict, ran: dict) -> str:
    """The body of one tab: the current code once (with its part marks: the side-by-side view pairs them),
    then each row's output and time, or why there is none. `results`: row -> the result its tab shows."""
    snippet_steps = group.steps
    if step not in snippet_steps:
        return "```{warning}\nThis " + ("framework" if len(group.rows) == 1 else "program") + \
            " has no such step.\n```"
    shown = snippet_steps[step]
    if len(group.rows) == 1:
        fw = group.rows[0]
        return "\n\n".join([fence(shown.code, fw.language),
                             *step_outcome(example, fw, step, results.get(fw.name), ran.get(fw.name, {}), shown)])
    names = ", ".join(fw.backend for fw in group.rows)
    lines = [fence(shown.code, group.rows[0].language), "",
             f"<p class=\"rosetta-ran-by\">This one program ran {len(group.rows)} times: {names}.</p>", "",
             ":::::{tab-set}", f":sync-group: {group.sync}-row", ""]
    for fw in group.rows:
        outcome = step_outcome(example, fw, step, results.get(fw.name), ran.get(fw.name, {}), shown) \
            or ["Not run."]
        lines += [f"::::{{tab-item}} {fw.backend}", f":sync: {fw.name}", "", *outcome, "::::", ""]
    return "\n".join(lines + [":::::"])


def step_outcome(example: Example, fw: Framework, step: str, result: dict | None, executed: dict,
                 shown: Step | None = None) -> list[str]:
    """What one row's run of a step left: output, time, the error, or why it did not run. `shown`: the
    step's current code; where the run executed other code, the output says it comes from older code."""
    status = result["status"] if result else "not-run"
    parts = []
    if status in (Outcome.NOT_INSTALLED, Outcome.SNIPPET_ERROR, Outcome.DATA_ERROR):
        if step == example.steps[0]:
            parts.append(f"```{{warning}}\n{STATUS_TEXT[status]}: {escape(result['reason'])}\n```")
        return parts
    if step not in executed:
        return parts
    date = (result.get("provenance") or {}).get("date", "")[:10]
    if shown is not None and not same_substance(executed[step].step, shown, fw.language):
        parts.append("```{attention}\nOlder code: the output and time below come from a run"
                     + (f" of {date}" if date else "") + " whose code for this step differs from the code "
                     "shown (not only in comments); `make html` measures it again.\n```")
    elif result.get("stale"):
        parts.append("```{attention}\nThis step's code is the code that ran, but the program or its settings "
                     "changed elsewhere since" + (f" the run of {date}" if date else "") + "; `make html` measures it "
                     "again.\n```")
    text = executed[step].output
    if text:
        parts.append(fence(text, "text"))
    error = result.get("error") or {}
    if status in (Outcome.FAILED, Outcome.TIMEOUT) and error.get("step") == step:
        hint = example.failure_hints.get(step, "")
        parts.append(f"```{{error}}\nThis step {STATUS_TEXT[status]}: {escape(str(error.get('ename')))}: "
                     f"{escape(str(error.get('evalue')))}. The full traceback is in "
                     f"{{ref}}`the notebook <{traceback_label(example.name, fw.name)}>`. {escape(hint)}\n```")
    elif step in result.get("steps", {}) and result.get("shown_from"):
        # (Not run by this build: where its output and time come from, said under every step.)
        parts.append(f"<p class=\"rosetta-step-time\">Step time on {escape(result['shown_from'])}, profile "
                     f"{result['profile']}: {time_summary(result['steps'][step])}</p>")
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
    if result["status"] in (Outcome.FAILED, Outcome.TIMEOUT) and linked:
        return link + stale
    reason = " ".join((result.get("reason") or "").split())
    if len(reason) > 90:        # the cell stays on one line: the whole reason is on the framework's page
        reason = reason[:89] + "…"
    return cell_text(f"{STATUS_TEXT[result['status']]}: {reason}") + stale



def random_weights(column_results: dict, labels: dict) -> str:
    """The legend's word on weights: random for every row, for some (named: a framework without a
    model zoo is random even where the others load pretrained weights), or nothing."""
    ok = {name: r for name, r in column_results.items() if r["status"] == Outcome.OK}
    random = [name for name, r in ok.items() if "random" in r.get("provenance", {}).get("weights", "")]
    if not random:
        return ""
    if len(random) == len(ok):
        return ", **random weights**"
    return ", **random weights** for " + ", ".join(labels.get(name, name) for name in random)


PEAK_METRIC = {"metric": "peak_fraction", "label": "% of peak", "format": "percent1"}


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
                if r["status"] == Outcome.OK and r.get("metrics", {}).get("accuracy") is not None]
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


def peak_text(column: dict, folder_rate: dict | None) -> str:
    """A column's float32 peak as its runs recorded it (one figure, or the range where runs of several days
    differ), else its folder's."""
    rates = sorted({round(rate["gflops"]) for result in column.values()
                    if (rate := recorded_peak(result, None))})
    if not rates:
        return f"{folder_rate['gflops']:.0f} GFLOP/s" if folder_rate else "not measured"
    return f"{rates[0]} GFLOP/s" if len(rates) == 1 else f"{rates[0]}–{rates[-1]} GFLOP/s (runs of several days)"


def machine_legend(example: Example, frameworks: list[Framework], table: Columns, rates: dict) -> list[str]:
    """The machines of a results table, one row each: what they are, their rate, what they ran, where
    their figures come from, when, and how many are stale."""
    lines = [":::{container} rosetta-legend", "",
             "| # | Machine | float32 peak | Profile and sizes | Runs | Source | Measured | Stale |",
             "|---|---|---|---|---|---|---|---|"]
    notes = []
    for number, key in enumerate(table.keys, 1):
        machine, profile = key[0], key[1]
        column = table.by_column.get(key, {})
        repeats = sorted({r.get("provenance", {}).get("repeats") for r in column.values()} - {None})
        dates = sorted({r.get("provenance", {}).get("date", "")[:10] for r in column.values()} - {""})
        stale = sum(1 for r in column.values() if r.get("stale"))
        sizes = sizes_text(example.profiles.get(profile, {}))
        weights = random_weights(column, {fw.name: fw.label for fw in frameworks}).lstrip(", ")
        own = own_sizes(example, profile, column, frameworks)
        if own:
            notes.append(f"[{number}]{own.lstrip(';')}.")
        lines.append("| " + " | ".join([
            f"[{number}]", f"{cell_text(table.labels.get(machine, machine))} (`{machine}`)",
            peak_text(column, rates.get(key)),
            f"`{profile}`: {cell_text(sizes)}" + (f"; {weights}" if weights else ""),
            f"{'/'.join(map(str, repeats))} per snippet" if repeats else "–",
            cell_text(re.sub(r" \(`.*?`\)", "", table.origins.get(key) or "this build")),
            " to ".join(dict.fromkeys([dates[0], dates[-1]])) if dates else "–",
            f"{stale} of {len(column)}" if stale else "none"]) + " |")
    return [*lines, "", ":::", "", *notes]


def results_table(example: Example, frameworks: list[Framework], table: Columns, operations: float | None = None,
                  written: set[str] | None = None, api_by_row: dict[str, str] | None = None) -> str:
    """One row per framework and machine (the machines of a framework next to each other, then the
    original's figures on its first row), so the table keeps its width however many machines have
    results; its API is said once). The table's `keys` are (machine, profile[, origin]), this build's
    first; its `origins` say where each one's results come from (this build, the reference results kept in the
    repository, a results folder). Above it, a legend of the machines; with the operations per sample of the
    timed step and the machines' `peaks`, a "% of peak" column (figures of different machines compare).
    `written`: the rows with a program of the example (default: all); a row with neither a program nor a
    result gets no line (ConvNetJS has no GRU)."""
    columns, by_column = table.keys, table.by_column
    # Each column's machine rate: its own folder's machine.json (keyed by column), else its machine's; a run that
    # recorded its own rate is measured against that one (recorded_peak).
    rates = {key: table.peaks.get(key) or table.peaks.get(key[0]) for key in columns}
    metrics = [*example.table_metrics, *([PEAK_METRIC] if operations else [])]
    short = {key: f"[{number}] {short_machine(table.labels.get(key[0], key[0]), key)}"
             for number, key in enumerate(columns, 1)}
    several = len(columns) > 1          # one machine: the legend names it, no column repeats it on every row
    header = ["Framework", "API", *(["Machine"] if several else []), f"{example.timed_step} s",
              *[m["label"] for m in metrics]]
    if example.reference.get("columns", []):
        header.append(original_header(example))
    lines = [*machine_legend(example, frameworks, table, rates), "",
             ":::{container} rosetta-results", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for fw in frameworks:
        # The machines that have this framework's result; this build's row always (it may say "not run").
        keys = [key for number, key in enumerate(columns) if number == 0 or fw.name in by_column.get(key, {})]
        if written is not None and fw.name not in written \
                and not any(fw.name in by_column.get(key, {}) for key in keys):
            continue
        for index, key in enumerate(keys):
            api = (api_by_row or {}).get(fw.name, fw.api)
            row = [fw.label, cell_text(api) if index == 0 else "", *([short[key]] if several else [])]
            row += result_cells(example, by_column.get(key, {}).get(fw.name), metrics, operations, rates[key],
                                linked=key == columns[0])
            if example.reference.get("columns", []):
                row.append(original_cell(example, fw) if index == 0 else "")
            lines.append("| " + " | ".join(row) + " |")
    profile = columns[0][1]
    notes = [note for note in (accuracy_note(example, profile, by_column), original_note(example)) if note]
    return "\n".join([*lines, "", ":::", "", "\n\n".join(notes)]).rstrip() + "\n"


def workers_lines(view: BenchmarkView) -> list[str]:
    """A data-parallel example: how the build started each row's workers, and the rows without a tab, and why."""
    lines = []
    if view.workers > 1:
        lines += ["## How the workers start", "",
                  f"Each row runs as **{view.workers} worker processes**, one kernel each, on the loopback interface "
                  f"(on a machine with GPUs, one per GPU, at most {view.workers}). "
                  "The build is their launcher: it gives each worker the variables that the row's own launcher would "
                  "set (below), starts the helper processes a row needs first, and stops every worker of a row when "
                  "one of them fails or runs past the timeout. An MPI row's world is made by MPI's own launcher: the "
                  "build runs it (`mpiexec`, from the row's environment), and it starts the workers' kernels, to "
                  "which the build then connects. On a CPU each worker has cores of its own when there "
                  "are enough. A tab shows worker 0's notebook, with the other workers' printed lines marked "
                  "`[rank i]`, and its step times are worker 0's.", "",
                  "| Framework | engine | a reader starts it with | each worker gets | helpers |",
                  "|---|---|---|---|---|"]
        for fw in view.frameworks:
            table = view.launches.get(fw.name)
            if fw.name not in view.written or not table:
                continue
            names = ", ".join(f"`{name}`" for name in table.get("env", {}))
            if table.get("start"):                                  # (the launcher's own variables: MPI's)
                names = f"its MPI rank, from `{Path(table['start'][0]).name}`" + (f"; {names}" if names else "")
            helpers = ", ".join(h["name"] for h in table.get("helpers", ())) or "none"
            launcher = table.get("launcher", "").replace("|", "\\|")        # (markdown: may hold `code`)
            lines.append(f"| {fw.label} | {cell_text(table.get('engine', ''))} | {launcher} | {names} | {helpers} |")
        lines.append("")
        lines += overhead_lines(view)
    if view.left_out:
        labels = {fw.name: fw.label for fw in view.frameworks}
        lines += ["**Rows without a tab here:**", ""]
        lines += [f"- {', '.join(labels.get(row, row) for row in entry['rows'])}: {entry['why']}"
                  for entry in view.left_out]
        lines.append("")
    return lines


def timed_against_one(view: BenchmarkView):
    """The rows this build ran as its workers and again as 1 (`one_process`): (row, result, its 1-process run,
    the workers' median timed step)."""
    for fw in view.frameworks:
        result = view.current.get(fw.name) or {}
        if result.get("status") == Outcome.OK and result.get("one_process"):
            yield fw, result, result["one_process"], result["steps"].get(view.example.timed_step, {}).get("median")


def timed(seconds: float, run: dict, unit: str) -> str:
    return f"{seconds:.2f} ({run['metrics'].get('throughput', 0):,.0f} {unit})"


def overhead_lines(view: BenchmarkView) -> list[str]:
    """Each row's N workers against the same program as 1 process on the same cores (this build's runs); on a
    machine with GPUs, one worker per GPU against 1 GPU: the scaling table."""
    measured = list(timed_against_one(view))
    at_once = max((result["provenance"].get("side_by_side", 1) for _, result, _, _ in measured), default=1)
    if at_once > 1:          # (a profile that measures nothing: rows shared the machine, no figure is a cost)
        return [f"### {view.workers} workers against 1 process", "",
                f"Not measured by this build: it ran {at_once} rows at a time, each on part of the machine (its "
                f"profile, {view.profile}, measures nothing), so neither the workers nor the 1 process had what "
                f"this comparison is about. A build at the cpu profile times each row alone.", ""]
    if view.machine_info.get("gpus"):
        return scaling_lines(view, measured)
    step, unit, rows = view.example.timed_step, view.example.throughput_unit, []
    for fw, result, alone, many in measured:
        if alone["status"] != Outcome.OK:
            rows.append(f"| {fw.label} | {many:.2f} | {alone['status']}: {cell_text(alone.get('reason', ''))} | |")
            continue
        one = alone["steps"][step]["median"]
        change = many / one - 1
        rows.append(f"| {fw.label} | {timed(many, result, unit)} | {timed(one, alone, unit)} "
                    f"| {'+' if change >= 0 else '−'}{abs(change):.0%} |")
    if not rows:
        return []
    cores = view.machine_info.get("cores", "?")
    return [f"### {view.workers} workers against 1 process", "",
            f"The same program, timed after the {view.workers}-worker runs (timed runs never overlap): once as "
            f"{view.workers} workers, each on cores of its own, once as 1 process on all of them ({cores} here). "
            f"The workers add every step's gradient all-reduce between processes and give each process a smaller "
            f"batch: that is their **overhead**, and a positive figure below is its cost. A negative one says "
            f"that the single process used its cores worse than the workers did (its own threads within each "
            f"operation), not that communication is free. Neither is the speed-up of data parallelism, which "
            f"needs a device per worker. Median *{step}* step, seconds:", "",
            f"| Framework | {view.workers} workers | 1 process | time of the workers against 1 process |",
            "|---|---|---|---|", *rows, ""]


def scaling_lines(view: BenchmarkView, measured: list) -> list[str]:
    """On GPUs, each row's N workers (one per GPU) against the same program on 1 GPU (its `one_process` run):
    the speed-up, and the efficiency (speed-up / N: 100 % would be perfect scaling)."""
    step, unit, rows = view.example.timed_step, view.example.throughput_unit, []
    counts = {result["provenance"].get("workers", 1) for _, result, _, _ in measured}
    for fw, result, alone, many in measured:
        if alone["status"] != Outcome.OK:
            rows.append(f"| {fw.label} | {alone['status']}: {cell_text(alone.get('reason', ''))} | {many:.2f} | | |")
            continue
        one = alone["steps"][step]["median"]
        speedup = one / many
        rows.append(f"| {fw.label} | {timed(one, alone, unit)} | {timed(many, result, unit)} | {speedup:.2f}× "
                    f"| {speedup / result['provenance'].get('workers', 1):.0%} |")
    if not rows:
        return []
    n = "/".join(str(count) for count in sorted(counts))
    return [f"### 1 GPU against {n}", "",
            f"The same program, timed after the {n}-GPU runs (timed runs never overlap): once with one worker per "
            f"GPU, once as 1 worker on 1 GPU taking whole batches. The speed-up is the 1-GPU time over the "
            f"{n}-GPU time; the efficiency is the speed-up per GPU (100 % would be perfect scaling: every step's "
            f"all-reduce and the smaller batch per GPU take it away). Median *{step}* step, seconds:", "",
            f"| Framework | 1 GPU | {n} GPUs | speed-up | efficiency |", "|---|---|---|---|---|", *rows, ""]


def apis(view: BenchmarkView) -> dict[str, str]:
    """The API column: a data-parallel example's rows are told apart by their distributed engine."""
    return {fw.name: (view.launches.get(fw.name, {}).get("engine") if view.workers > 1 else None) or fw.api
            for fw in view.frameworks}


def result_cells(example: Example, result: dict | None, metrics: list[dict], operations: float | None,
                 rate: dict | None, linked: bool) -> list[str]:
    """One machine's result of one row: the timed step's time and the metrics, or why there are none."""
    blanks = [""] * len(metrics)
    if result is None:
        return ["not run", *blanks]
    if result["status"] != Outcome.OK:
        return [status_cell(result, example.name, linked=linked), *blanks]
    timed = result["steps"].get(example.timed_step)
    stale = " (stale)" if result.get("stale") else ""
    values = {**result["metrics"], "peak_fraction": peak_fraction(result, operations, rate)}
    return [(time_summary(timed) if timed else "?") + stale,
            *[metric_text(values.get(m["metric"]), m.get("format", "text")) for m in metrics]]


def original_cell(example: Example, fw: Framework) -> str:
    """The original study's figures for a row, as rates in the table's unit ("" where it had none)."""
    figures = example.reference.get(fw.name, [])
    return " · ".join(f"{rate:,.0f}" if rate else "–" for rate in
                      (original_rate(example, value) for value in figures)) if figures else ""


def head_lines(view: BenchmarkView) -> list[str]:
    """The title, the network beside the introduction, where the tabs' results come from, the results table."""
    example, profile, current, machine_info = view.example, view.profile, view.current, view.machine_info
    published = machine_info.get("results_folder")
    ok = [r for r in current.values() if r["status"] == Outcome.OK]
    data_sources = sorted({r["provenance"].get("data_source", "") for r in ok} - {""})
    weights = "; ".join(sorted({r["provenance"].get("weights", "") for r in ok} - {""})) or example.weights
    sizes = sizes_text(example.profiles.get(profile, {})) + own_sizes(example, profile, current, view.frameworks)
    at_once = max([r["provenance"].get("side_by_side", 1) for r in ok] or [1])
    return [f"({example.name})=", f"# {example.title}", "",
            *view.diagram, view.intro, "",   # (the diagram floats beside the intro)
            "```{admonition} " + ("The tabs' results" if published else "This build"), ":class: note",
            f"Measured on **{view.machine_label}**, profile **{profile}** ({sizes})"
            + (f", read from the results folder `{Path(published).name}` (this site was built without "
               "executing anything). " if published else ". ") +
            f"Data: {'; '.join(data_sources) or 'none loaded'}. Weights: {weights}. "
            + (f"At this profile, which checks that the snippets run and measures nothing, {at_once} snippets ran "
               "at a time, each kernel on a core of its own: these times are not measurements; "
               if at_once > 1 else "One snippet ran at a time; ")
            + "step times come from the notebook cell timestamps (see {doc}`/methodology`).", "```", "",
            *([] if view.gpu_anywhere else
              ["```{important}", "No GPU results yet: every figure on this page was measured on a CPU (the "
               "machines in the legend below). The original study's figures are from GPUs. "
               "{ref}`How to add GPU results <gpu-results>`.", "```", ""]),
            "## Results", "",
            results_table(example, view.frameworks, view.columns, view.operations, view.written, apis(view)), ""]


def peak_lines(view: BenchmarkView) -> list[str]:
    """How the "% of peak" column is computed (nothing without the example's operation count)."""
    operations, example = view.operations, view.example
    if not operations:
        return []
    peak = view.machine_info.get("float32_matmul") or {}
    return [f"% of peak: samples/s × {operations / 1e9:.3g} GFLOP per sample (the {example.timed_step} step's "
            "matrix products and convolutions"
            + (", forward and backward" if example.timed_step == "train" else "")
            + ", counted from the neutral model and checked against PyTorch's FLOP counter, see below) ÷ "
            "the machine's float32 matrix-multiply rate"
            + (f" (this machine: {peak['gflops']:.0f} GFLOP/s, {escape(peak['how'])}; "
               + ", ".join(f"{escape(name)} {rate:.0f}" for name, rate in peak.get("by", {}).items()) + ")"
               if peak else "") + ".",
            ""]


def chart_lines(view: BenchmarkView, writer: Writer) -> list[str]:
    """The timed step's chart (written beside the page), under the math modes' dropdown."""
    example = view.example
    shown_rows = [fw for fw in view.frameworks if fw.name in view.written]
    lines = ["::::{dropdown} On a GPU: the math mode each row would use (no figure above depends on it)", "",
             MATH_INTRO, "", math_table(shown_rows), "", "::::", ""]
    chart = charts.timing_chart(example, view.frameworks, view.current)
    if chart:
        ok = [r for r in view.current.values() if r["status"] == Outcome.OK]
        writer.write(f"benchmarks/{example.name}-times.png", chart)
        lines += [f"```{{figure}} {example.name}-times.png",
                  f":alt: {example.timed_step} time per framework", ":figclass: rosetta-chart",
                  "", f"{example.timed_step.capitalize()} time per framework on "
                  f"{escape(view.machine_label)} (profile {view.profile}, the sizes of [1] in the "
                  "legend above; lower is better)"
                  + (", with test accuracy." if any("accuracy" in r["metrics"] for r in ok) else "."),
                  "```", ""]
    return lines


def step_lines(view: BenchmarkView) -> list[str]:
    """Every step, a tab per program."""
    example = view.example
    lines = ["## Step by step", "",
             "Pick a framework once: every step on every page follows, and the choice is remembered. "
             "*Side by side* shows two programs next to each other, the lines that do the same thing "
             "side by side in the same colour (the parts each program marks, `# [loss]`).", "",
             parts_script(example), ""]
    for step in example.steps:
        # Colon fences nest by length: tab-set 7, tab-item 6, a program's per-row tab-set 5, its items 4.
        lines += [f"### {step.capitalize()}", "", ":::::::{tab-set}", ":sync-group: framework", ""]
        for group in view.groups:
            body = step_tab(example, group, step, view.shown, view.ran)
            lines += [f"::::::{{tab-item}} {group.label}", f":sync: {group.sync}", "", body, "::::::", ""]
        lines += [":::::::", ""]
    return lines


def render(view: BenchmarkView, writer: Writer) -> None:
    example = view.example
    lines = [*head_lines(view), *workers_lines(view), *peak_lines(view), *chart_lines(view, writer), *step_lines(view)]
    if view.check:
        lines += equivalence_section(example, view.frameworks, view.check, writer)
    related = related_lessons(view.lessons, example.name, view.machine_info, view.profile)
    if related:
        lines += ["## Lessons measured on this model", "", *related, ""]
    lines += whole_programs(example, view.groups, view.current)
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
            state = "executed" if result and result["status"] == Outcome.OK else \
                STATUS_TEXT.get(result["status"], result["status"]) if result else "not run"
            items.append(f"- Its run{run}: {{download}}`{fw.name}.ipynb <{folder}{fw.name}.ipynb>` ({state}) · "
                         f"{{doc}}`read it as a page <{doc_link(notebook_doc(example.name, fw.name))}>`")
        lines += [f"::::{{tab-item}} {group.label}", f":sync: {group.sync}", "", *items, "", "::::", ""]
    return lines + [":::::", ""]

