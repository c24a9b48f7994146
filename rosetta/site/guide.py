"""The guide to every framework: docs/_gen/guide.md (the coverage matrix, system x benchmark) and
docs/_gen/guide/<id>.md (each system's evidence and the original study's figures for it), from the
guide's view (gather/guide.py reads docs/systems.toml, systems.py validates it and computes each status).
"""
from __future__ import annotations

import re
from pathlib import Path

from ..build.outcome import Outcome
from ..project import Example, Framework, Project
from . import gather
from .gather.guide import GuideView
from .markup import Writer, cell_text, doc_link, escape, metric_text, notebook_doc, time_summary
from .systems import (
    LEGEND,
    SYSTEMS_FILE,
    System,
    column_names,
    coverage,
    figure_text,
    has_figure,
    label_of,
    matrix_cell,
    original_figures,
    row_state,
    status_of,
)


def guide_doc(system: System) -> str:
    return doc_link(f"guide/{system.id}")


def coverage_matrix(view: GuideView) -> list[str]:
    header = ["System", "Graph", "Here", *[example.short_title for example in view.examples]]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for system in view.systems:
        status = status_of(system, view.results_by_example)
        cells = [f"{{doc}}`{cell_text(system.name)} <{guide_doc(system)}>`", system.graph, status.kind,
                 *[matrix_cell(coverage(system, example, view.results_by_example, view.written[example.name]))
                   for example in view.examples]]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def build_text(results_by_example: dict) -> str:
    """Which profile and machine this build's results come from."""
    found = [r for per_row in results_by_example.values() for r in per_row.values()]
    profiles = sorted({r.get("profile", "?") for r in found})
    machines = sorted({r.get("machine_label") or r.get("machine", "?") for r in found})
    if not found:
        return "This build has no results."
    return f"This build: profile {', '.join(f'`{p}`' for p in profiles)} on {'; '.join(machines)}."


def first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s+(?=[A-Z])", text.strip(), maxsplit=1)[0]


def guide_page(view: GuideView) -> str:
    lines = ["(guide)=", "# Guide to every framework", "",
             "Every system of the original study, and of a survey of the deep-learning frameworks of its time: "
             "who made it, how it turns a model into computation, what it offered for several GPUs or machines, "
             "and where it went. A system that a row of this project runs shows what happened to it in this "
             "build; one without a row says whether it installs here, or why it cannot "
             "(`benchmarks/try_installs.py` tries those again and records what happened). What the original "
             "study set out of its scope (support, pretrained models, custom layers, data loaders, debugging, "
             "platforms, distributed training), and what this site covers of it: see "
             "{ref}`the methodology <out-of-scope>`.", ""]
    systems = view.systems
    if view.problems:
        lines += ["```{error}", f"`docs/{SYSTEMS_FILE}` does not validate, so the guide lists no system:", "",
                  *[f"- {escape(problem)}" for problem in view.problems], "```", ""]
    elif not view.has_file:
        lines += [f"This project has no `docs/{SYSTEMS_FILE}`: there is no system to list.", ""]
    if not systems:
        return "\n".join(lines) + "\n"
    lines += ["## Coverage", "",
              build_text(view.results_by_example) + " One row per system, one column per benchmark:", "",
              *coverage_matrix(view), "",
              "Legend: " + "; ".join(f"**{word}**: {meaning}" for word, meaning in LEGEND) + ". "
              "*Here* is the system's status in this build: **runs** (a row ran at least one benchmark), "
              "**fails here** (its rows ran and failed), **not installed**, **installs** or **cannot install**.", "",
              "## How they build a graph", "",
              "The *Graph* column uses a small vocabulary (defined at the top of `docs/systems.toml`):", ""]
    meanings = {system.graph: system.graph_meaning for system in systems}
    lines += [f"- **{graph}**: {meaning}." for graph, meaning in meanings.items()]
    lines += ["", "## The systems", ""]
    lines += [f"- {{doc}}`{cell_text(system.name)} <{guide_doc(system)}>`: {first_sentence(system.summary)}"
              for system in systems]
    lines += ["", "```{toctree}", ":hidden:", "", *[f"guide/{system.id}" for system in systems], "```"]
    return "\n".join(lines) + "\n"


def result_figures(example: Example, result: dict) -> str:
    """The timed step and the table's metrics of one ok result, in the benchmark table's formats."""
    timed = result.get("steps", {}).get(example.timed_step)
    parts = [f"{example.timed_step} {time_summary(timed)}"] if timed else []
    for metric in example.table_metrics:
        value = result.get("metrics", {}).get(metric["metric"])
        if value is not None:
            parts.append(f"{metric['label']} {metric_text(value, metric.get('format', 'text'))}")
    return ", ".join(parts)


def evidence_lines(system: System, view: GuideView) -> list[str]:
    """Which rows, which results: one table row per (row, benchmark)."""
    results_by_example = view.results_by_example
    lines = ["| row | benchmark | result | figures |", "|---|---|---|---|"]
    for row in system.rows:
        fw = view.frameworks.get(row)
        row_cell = f"{{doc}}`{cell_text(fw.label)} <{doc_link('frameworks/' + row)}>`" if fw else row
        for example in view.examples:
            shown = example.name in results_by_example
            bench = (f"{{doc}}`{example.short_title} <{doc_link('benchmarks/' + example.name)}>`"
                     if shown else example.short_title)
            if row not in view.written[example.name]:
                lines.append(f"| {row_cell} | {bench} | not written | |")
                continue
            result = results_by_example.get(example.name, {}).get(row)
            state = row_state(result)
            if shown and fw is not None:
                state = f"{{doc}}`{state} <{doc_link(notebook_doc(example.name, row))}>`"
            if result is None:
                figures = ""
            elif result["status"] == Outcome.OK:
                figures = cell_text(result_figures(example, result))
            else:
                figures = cell_text(result.get("reason") or "")
            stale = " (stale)" if result and result.get("stale") else ""
            lines.append(f"| {row_cell} | {bench} | {state}{stale} | {figures} |")
    return lines


def figure_table(labels, examples: list[Example]) -> list[str]:
    """The original's figures under some of its labels, one table row per (label, benchmark); [] if none."""
    rows = []
    for label in labels:
        for example in examples:
            figures = original_figures(example).get(label)
            if not has_figure(figures):
                continue
            unit = example.reference.get("unit", "s")
            cells = [f"{name} {figure_text(value, unit)}" for name, value in zip(column_names(example), figures)]
            what = example.reference.get("compare", {}).get("figure", example.reference.get("caption", ""))
            rows.append(f"| {cell_text(label)} | {example.short_title} | {', '.join(cells)} | "
                        f"{cell_text(what)} |")
    return ["| the original's row | benchmark | figures | each figure is |", "|---|---|---|---|", *rows] if rows else []


def original_lines(system: System, examples: list[Example]) -> list[str]:
    """The original study's figures for the system's labels, then for its nearest rows."""
    lines = []
    own, nearest = figure_table(system.original, examples), figure_table(system.nearest, examples)
    if own:
        lines += [*own, ""]
    if nearest:
        lines += [f"{'It also' if own else system.name + ' had no row of its own there, but it'} ran underneath "
                  f"these rows:", "", *nearest, ""]
    accuracy = []
    for example in examples:
        for row, value in example.reference.get("accuracy", {}).items():
            if label_of(example, row) in system.original:
                accuracy.append(f"{label_of(example, row)} {value:.1%} on {example.short_title}")
    if accuracy:
        lines += ["Test accuracy the original reported: " + "; ".join(accuracy) + ".", ""]
    if not lines:
        lines = [f"The original study had no row for {system.name}.", ""]
    return lines


def system_page(system: System, view: GuideView) -> str:
    status = status_of(system, view.results_by_example)
    lines = [f"(guide-{system.id})=", f"# {system.name}", "", system.summary, "",
             f"- **Made by:** {system.made_by}",
             f"- **Language:** {system.language}",
             f"- **Graph:** {system.graph}: {system.graph_meaning}",
             f"- **Several GPUs or machines:** {system.distributed}",
             f"- **Fate:** {system.fate}",
             f"- **Here:** **{status.kind}**" + ("" if system.status else f": {escape(status.detail)}"), "",
             "## In this build", ""]
    if system.rows:
        fws = [view.frameworks[row] for row in system.rows if row in view.frameworks]
        names = ", ".join(f"{{doc}}`{cell_text(fw.label)} <{doc_link('frameworks/' + fw.name)}>`"
                          for fw in fws)
        lines += [f"Run by {'the row' if len(system.rows) == 1 else 'the rows'} {names or ', '.join(system.rows)}. "
                  + build_text(view.results_by_example), "",
                  *evidence_lines(system, view), ""]
    elif system.status == "installs":
        lines += [f"It installs here: {system.install.rstrip('.')}.", ""]
    else:
        lines += [f"It cannot be installed here: {system.reason.rstrip('.')}.", ""]
    lines += ["## In the original study", "", *original_lines(system, view.examples)]
    return "\n".join(lines).rstrip("\n") + "\n"


def pages_of(view: GuideView) -> dict[str, str]:
    """The guide's files under docs/_gen/: the guide page, and one page per system."""
    return {"guide.md": guide_page(view), **{f"guide/{system.id}.md": system_page(system, view)
                                             for system in view.systems}}


def render(view: GuideView, writer: Writer) -> None:
    for relative, text in pages_of(view).items():
        writer.write(relative, text)


def write(project: Project, results_by_example: dict, frameworks: list[Framework]) -> list[Path]:
    """The guide alone (outside a site build): write its pages, remove the pages of systems no longer in the
    file, and return the paths. Only changed files are written. A file that does not validate is shown on the
    page (and printed), so the site still builds and says what to fix."""
    writer = Writer(project.generated)
    written = pages_of(gather.guide.guide(project, results_by_example, frameworks))
    paths = [writer.root / relative for relative in written]
    for relative, text in written.items():
        writer.write(relative, text)
    for leftover in sorted((writer.root / "guide").glob("*.md")):
        if leftover not in paths:
            leftover.unlink()
    return paths
