"""Framework pages: a row's API and environment, beside the original study, as fast as plain code?, how far from
the machine (the tab, tuned, the peak), and its notebook pages, from its view (gather/ reads the environments,
the fairness records, the lessons' results and the guide's file)."""
from __future__ import annotations

import re

from ..build.outcome import Outcome
from ..build.results import machine_label
from ..project import Example, Framework
from . import charts
from .gather.framework import FairnessEntry, FrameworkView, HistoryView
from .guide import figure_table, guide_doc
from .markup import STATUS_TEXT, Writer, cell_text, doc_link, escape, metric_text, notebook_doc, seconds, sizes_text
from .systems import column_names, has_figure, label_of
from .verdicts import claim_text, missing_of, page_doc, rule_frameworks, shown_results, verdict_cell

# Runs of one tab that differ by more than this (slowest over quickest) are said to differ on the page: a row
# whose time moves between runs (TensorFlow's CNN took 5.1 s or 10.3 s on one machine) needs its median.
SPREAD = 1.10


def fairness_section(fw: Framework, entries: list[FairnessEntry]) -> list[str]:
    """Is this tab as fast as the same work in a plain script? The harness's ratios, marked stale when
    the snippet or the plain script changed since."""
    lines = ["## As fast as plain code?", "",
             "`benchmarks/fairness.py` times each snippet's timed step three ways, alternating, several times: "
             "in its Jupyter kernel as the build does (the times on the pages), as the same code without a "
             "kernel, and as a plain script of the same model (`benchmarks/plain/`), in the same environment "
             "at the same sizes. Seconds: median (min–max); within 10 % either way counts as the same."
             + ("" if fw.language == "python" else " A JavaScript tab has no run without a kernel (the harness "
                "runs a snippet's steps as a script in Python only): its kernel against its plain twin."), ""]
    if not entries:
        return lines + ["Not measured on any machine yet.", ""]
    lines += ["| example | machine, profile (sizes) | in its kernel | without a kernel | plain script "
              "| kernel / plain | verdict |", "|---|---|---|---|---|---|---|"]
    for found in entries:
        entry, example, stale = found.entry, found.example, found.stale
        prov, variants = entry["provenance"], entry["variants"]
        times = ["—" if v not in variants else
                 f"{variants[v]['median']:.2f} ({variants[v]['min']:.2f}–{variants[v]['max']:.2f})"
                 if variants[v].get("status") == Outcome.OK else "failed"
                 for v in ("kernel", "script", "plain")]
        ratio = entry.get("ratios", {}).get("kernel/plain")
        verdict = (entry.get("verdict") or "") + ("" if entry.get("same_work", True) else "; not the same work")
        kernel = variants.get("kernel", {})
        if kernel.get("status") == Outcome.OK and kernel["max"] > SPREAD * kernel["min"]:
            verdict += f"; its runs in the kernel differ by up to {kernel['max'] / kernel['min']:.2f}×"
        where = (f"{machine_label(prov['machine'])}, {prov['profile']} ({sizes_text(prov['sizes'])}), "
                 f"{prov['repeats']} runs each, {prov['date'][:10]}")
        lines.append("| " + " | ".join([
            example.short_title if example else entry["example"], cell_text(where), *times,
            f"{ratio:.2f}" if ratio else "–", cell_text(verdict + (" (stale: the code changed since)" if stale else ""))
        ]) + " |")
    others = [other_twin_line(found) for found in entries if found.entry["provenance"].get("alternatives")]
    return lines + ["", *(f"- {line}" for line in others), *([""] if others else [])]


def other_twin_line(found: FairnessEntry) -> str:
    """A plain twin written another way (JAX without Flax): its time beside the plain twin's, and the ratio
    that says what the plain twin's way costs."""
    entry = found.entry
    name = found.example.short_title if found.example else entry["example"]
    parts = []
    for variant, other in entry["provenance"]["alternatives"].items():
        summary, ratio = entry["variants"].get(variant, {}), entry.get("ratios", {}).get(f"plain/{variant}")
        timed = (f"{summary['median']:.2f} s ({summary['min']:.2f}–{summary['max']:.2f})"
                 if summary.get("status") == Outcome.OK else "failed")
        how = re.sub(r"^Plain-script twin of \S+ ", "", other["about"])      # "without Flax: pure functions..."
        parts.append(f"`{other['file']}` ({escape(how)}): "
                     f"{timed}; the plain twin takes {ratio:.2f}× its time" if ratio else
                     f"`{other['file']}`: {timed}")
    return f"{name}, written another way: " + "; ".join(parts) + "."


def ceiling_section(view: FrameworkView, writer: Writer) -> list[str]:
    """Defaults, tuned, the machine: each benchmark's tab as a share of the machine's float32 peak, the
    tuning lessons' best variant for it, and the peak, as one small chart and its table."""
    fw = view.fw
    lines = ["## How far from the machine?", "",
             "Each benchmark's tab at its defaults, as a share of the machine's float32 matrix-multiply peak "
             "(the results table's \"% of peak\": samples/s × the step's floating-point operations ÷ the "
             "machine's best float32 matrix-product rate), and the fastest variant of the tuning lessons "
             "where one has run on this row: the tab's share × the speed-up the lesson measured over the "
             "code as written. 100 % is the machine's peak: no training step reaches it (convolutions, "
             "element-wise work and the optimizer run below the rate of one large matrix product), but the "
             "distance to it says what is left.", ""]
    shown = [c for c in view.ceilings if c.share is not None]
    if not shown:
        return lines + ["No result with an operation count on record for this row yet.", ""]
    groups = [(c.example.short_title, [("as written", c.share)]
               + [(f"{t.variant} ({t.lesson.name})", c.share * t.speedup) for t in c.tuned]) for c in shown]
    peak = shown[0].peak
    peak_text = f"{peak['gflops']:.0f} GFLOP/s on {shown[0].machine_label}"
    chart = charts.ceiling_chart(groups, f"{peak['gflops']:.0f} GFLOP/s")
    writer.write(f"frameworks/{fw.name}-ceiling.png", chart)
    lines += [f"```{{figure}} {fw.name}-ceiling.png", f":alt: {fw.label}: share of the machine's peak per benchmark",
              ":figclass: rosetta-chart", "", f"{escape(fw.label)} against the machine's float32 peak "
              f"({escape(peak_text)}): the tab as written (blue) and tuned (orange).", "```", "",
              "| benchmark | as written | tuned: the lessons' fastest variant | the machine |", "|---|---|---|---|"]
    for c in shown:
        tuned = "; ".join(f"{c.share * t.speedup:.1%}: {escape(t.variant)} ({t.speedup:.2f}× the code as written "
                          f"in {{doc}}`{escape(t.lesson.title)} <{doc_link('lessons/' + t.lesson.name)}>`, measured on "
                          f"{escape(t.machine_label)})" for t in c.tuned) \
            or "no tuning lesson has a script for this row"
        lines.append(f"| {c.example.short_title} | {c.share:.1%} | {tuned} | 100 % = {c.peak['gflops']:.0f} GFLOP/s |")
    missing = [c.example.short_title for c in view.ceilings if c.share is None]
    if missing:
        lines += ["", f"Not shown: {', '.join(missing)} (no result on record, or no count of the timed step's "
                  "operations to divide by the machine's rate)."]
    return lines + [""]


def history_section(view: HistoryView) -> list[str]:
    """The original study's K80 and P100 figures for this row beside this build's, in one unit per benchmark:
    a rate (samples/s, s per 1,000 images), since this build's profile does not run the original's amounts.
    Where the original had no figure for the row, its nearest rows there (docs/systems.toml)."""
    fw, system, current = view.fw, view.system, view.current
    lines = ["## Beside the original study", ""]
    own = [ex for ex in view.written if has_figure(ex.reference.get(fw.name))]
    missing = [ex for ex in view.written if ex not in own]
    guide_link = f"{{doc}}`{system.name} in the guide <{guide_doc(system)}>`" if system else ""
    own_labels = {label_of(ex, fw.name) for ex in own}
    nearest = [label for label in ([*system.original, *system.nearest] if system else []) if label not in own_labels]
    if own:
        ran = [r for ex in own if (r := current.get(ex.name, {}).get(fw.name)) and r["status"] == Outcome.OK]
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
        columns = max((column_names(ex) for ex in own), key=len)
        lines += ["| benchmark | compared as | " + " | ".join(f"original, {c}" for c in columns)
                  + " | this build |", "|---|---|" + "---|" * len(columns) + "---|"]
        lines += [history_row(ex, fw, current.get(ex.name, {}).get(fw.name), len(columns)) for ex in own]
        lines.append("")
        for ex in own:
            accuracy = ex.reference.get("accuracy", {}).get(fw.name)
            result = current.get(ex.name, {}).get(fw.name) or {}
            mine = result.get("metrics", {}).get("accuracy") if result.get("status") == Outcome.OK else None
            if accuracy is not None:
                lines += [f"{ex.short_title}: the original reported {accuracy:.1%} test accuracy after its full run"
                          + (f"; this build {mine:.1%} after profile `{result['profile']}`'s much shorter training."
                             if mine is not None else "."), ""]
        if not missing:
            return lines
        lines.append(f"The original had no {fw.label} figure for " + ", ".join(ex.short_title for ex in missing) + ".")
    else:
        lines.append(f"The original study had no {fw.label} row.")
    table = figure_table(nearest, missing)
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
    elif result["status"] != Outcome.OK:
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


def lessons_section(view: FrameworkView) -> list[str]:
    """The lessons with a script for this row, each claim with this row's verdict: what the lessons found about
    this framework, on one page (each lesson's page has the other rows and the measurements)."""
    fw = view.fw
    lines = []
    for item in view.lessons:
        rules = [rule for rule in item.lesson.rules
                 if any(row.name == fw.name for row in rule_frameworks(rule, item.rows))]
        if not rules:
            continue
        missing, shown = missing_of(item, view.machine_info, view.profile), shown_results(item, view.profile)
        lines.append(f"- {{doc}}`{escape(item.lesson.title)} <{doc_link(page_doc(item.lesson.name))}>`")
        for rule in rules:
            badge, text = verdict_cell(rule, shown.get(fw.name), item.lesson.name, view.machine_info, missing)
            lines.append(f"  - {claim_text(rule)}: {badge} {text}")
    if not lines:
        return []
    return ["## What the lessons found", "",
            f"The lessons with a script for {escape(fw.label)}, each claim with its verdict for this row, computed "
            f"when this page was written from the numbers of {escape(machine_label(view.machine_info))} "
            f"(profile {view.profile}); each lesson's page has the other rows and the measurements.", "", *lines, ""]


def render(view: FrameworkView, writer: Writer) -> None:
    fw = view.fw
    lines = [f"({fw.name})=", f"# {fw.label}", "", f"API used in the tabs: {fw.api}.", ""]
    siblings = [other for other in view.frameworks if other.program == fw.program and other.name != fw.name]
    if fw.variables or siblings:
        lines += [f"Its snippets are the program `{fw.program}{fw.suffix}`"
                  + (", run with " + ", ".join(f"`{k}={v}`" for k, v in fw.variables.items()) if fw.variables else "")
                  + f" in the {fw.environment_label} environment"
                  + ("; the same files also run as " + ", ".join(
                      f"{{doc}}`{other.label} <{doc_link('frameworks/' + other.name)}>`" for other in siblings)
                     if siblings else "") + ".", ""]
    if view.versions is not None and view.versions_from:
        lines += [f"Environment, as recorded on {escape(view.versions_from)} (where its results on this site were "
                  "measured; this build's own machine has no such environment): "
                  + ", ".join(f"{k} {v}" for k, v in view.versions.items()) + ".", ""]
    elif view.versions is not None:
        lines += ["Environment: " + ", ".join(f"{k} {v}" for k, v in view.versions.items())
                  + f" ({{doc}}`all packages <{doc_link('environments')}>`).", ""]
    else:
        lines += [f"```{{warning}}\nNot installed on this machine: {escape(view.reason)}\n```", ""]
    if fw.install_notes:
        lines += ["## Installing it", "", fw.install_notes.strip(), ""]
    lines += [*history_section(view.history), *fairness_section(fw, view.fairness), *ceiling_section(view, writer),
              *lessons_section(view), "## Notebooks", ""]
    docs = []
    for example, result in view.notebooks:
        state = "not run" if result is None else (
            f"ran on {result['shown_from']}" if result.get("shown_from") else
            "ran" if result["status"] == Outcome.OK else STATUS_TEXT.get(result["status"], result["status"]))
        lines.append(f"- {{doc}}`{example.short_title} <{doc_link(notebook_doc(example.name, fw.name))}>` ({state})")
        docs.append(doc_link(notebook_doc(example.name, fw.name)))
    lines += ["", "```{toctree}", ":hidden:", "", *docs, "```"]
    writer.write(f"frameworks/{fw.name}.md", "\n".join(lines) + "\n")
