"""Pages of the lessons: an index table of claims and verdicts, and one page per lesson, from their views
(gather/ reads the results, notebooks and scripts; verdicts.py says the verdicts in words).
"""
from __future__ import annotations

from pathlib import Path

import nbformat

from ..build.lessons import Lesson
from ..build.outcome import Outcome
from ..build.results import machine_label
from ..project import Framework
from . import charts
from .gather.common import LessonEvidence
from .gather.lessons import LessonIndexView, LessonView
from .markup import Writer, cell_text, doc_link, escape, fence, sizes_text, without_build_outputs
from .records import same_substance
from .verdicts import (
    DEVICE_TEXT,
    LESSON_STATUS,
    NOT_MEASURED,
    claim_text,
    group_label,
    judges,
    measured_text,
    missing_of,
    no_rows,
    notebook_file,
    page_doc,
    rule_frameworks,
    rule_verdicts,
    shown_results,
    traceback_label,
    verdict_cell,
)

# --- one lesson ------------------------------------------------------------------------------------

def verdict_table(lesson: Lesson, rows: list[Framework], current: dict, machine_info: dict,
                  missing: tuple[str, str] | None = None) -> list[str]:
    """Each rule's verdict on each of the lesson's `rows`, judged on `current` (row -> result)."""
    lines = ["| claim | framework | verdict | effect (worst to best pairing of the ranges), or why there is none |",
             "|---|---|---|---|"]
    for rule in lesson.rules:
        for fw in rule_frameworks(rule, rows):
            badge, effect = verdict_cell(rule, current.get(fw.name), lesson.name, machine_info, missing)
            lines.append(f"| {claim_text(rule)} | {fw.label} | {badge} | {effect} |")
        if not rule_frameworks(rule, rows):
            lines.append(f"| {claim_text(rule)} | – | {' | '.join(no_rows(rule))} |")
    return lines


def measurement_table(lesson: Lesson, rows: list[Framework], current: dict) -> list[str]:
    """Each row's variants, in the order lesson.toml lists them (batch_1, batch_4, batch_16: not as sorted text)."""
    metrics = []
    for result in current.values():
        for measured in result.get("variants", {}).values():
            metrics += [m for m in measured if m not in metrics]
    if not metrics:
        return []
    order = {name: index for index, name in enumerate(lesson.variants)}
    lines = ["| framework | variant | " + " | ".join(metric_label(m) for m in metrics) + " |",
             "|---|---|" + "---|" * len(metrics)]
    for fw in rows:
        result = current.get(fw.name)
        if not result or result["status"] != Outcome.OK:
            continue
        ran = result.get("variants", {})
        for variant, measured in sorted(ran.items(), key=lambda item: order.get(item[0], len(order))):
            cells = [measured_text(measured[m], m) if measured.get(m) else "" for m in metrics]
            lines.append(f"| {fw.label} | `{variant}` | " + " | ".join(cells) + " |")
    return lines


def sentence(text: str) -> str:
    """`text` with a capital first letter, and the rest as it is (MB stays MB)."""
    return text[:1].upper() + text[1:]


def metric_label(metric: str) -> str:
    return {"seconds": "seconds per call", "peak_memory_mb": "extra peak memory, MB",
            "gpu_peak_memory_mb": "peak GPU memory, MB",
            "accuracy": "test accuracy"}.get(metric, metric.replace("_per_", " per ").replace("_", " "))


def lesson_tab(lesson: Lesson, fw: Framework, step: str, result: dict | None, ran: dict, source_steps: dict,
               code: bool = True) -> str:
    """One row's tab of a step: the script's current code (unless `code` is False: a program shown once for
    several rows), what its run printed, its error or why it did not run."""
    steps = {name: found.step for name, found in ran.items()}
    shown = source_steps.get(step) or steps.get(step)       # the current script's code, as the download is
    if shown is None:
        return "```{warning}\nThis script has no such step.\n```"
    parts = [fence(shown.code, fw.language)] if code else []
    if step in steps:
        if step in source_steps and not same_substance(steps[step], source_steps[step], fw.language):
            parts.append("```{attention}\nOlder code: the output below comes from a run whose code for this step "
                         "differs from the code shown (not only in comments); `make html` measures it again.\n```")
        text = ran[step].output
        if text:
            parts.append(fence(text, "text"))
    error = (result or {}).get("error") or {}
    if result and result["status"] in (Outcome.FAILED, Outcome.TIMEOUT) and error.get("step") == step:
        parts.append(f"```{{error}}\nThis step {LESSON_STATUS[result['status']]}: {escape(str(error.get('ename')))}: "
                     f"{escape(str(error.get('evalue')))} ({{ref}}`traceback <"
                     f"{traceback_label(lesson.name, result['framework'])}>`).\n```")
    elif result and result["status"] not in (Outcome.OK, Outcome.FAILED, Outcome.TIMEOUT) and step == lesson.steps[0]:
        parts.append(f"```{{note}}\n{LESSON_STATUS.get(result['status'], result['status'])}: "
                     f"{escape(result.get('reason', ''))}\n```")
    return "\n\n".join(parts)


def program_tab(view: LessonView, rows: list[Framework], step: str) -> str:
    """One program's tab for the rows that ran it (Keras 3 on three backends): its code once, then a tab per
    row with that run's output, as on the benchmark pages."""
    lesson, first = view.evidence.lesson, rows[0]
    code = view.code[first.name].get(step)
    if code is None:
        return "```{warning}\nThis program has no such step.\n```"
    lines = [fence(code.code, first.language), "",
             f"<p class=\"rosetta-ran-by\">This one program ran {len(rows)} times: "
             f"{', '.join(fw.backend for fw in rows)}.</p>", "",
             ":::::{tab-set}", f":sync-group: {first.program}-row", ""]
    for fw in rows:
        outcome = lesson_tab(lesson, fw, step, view.evidence.current.get(fw.name), view.ran[fw.name],
                             view.code[fw.name], code=False)
        outcome = outcome or ("It printed nothing." if step in view.ran[fw.name] else "Not run.")
        lines += [f"::::{{tab-item}} {fw.backend}", f":sync: {fw.name}", "", outcome, "::::", ""]
    return "\n".join(lines + [":::::"])


def other_machines(evidence: LessonEvidence) -> list[str]:
    """Verdicts of every other machine and profile on record, each judged on that machine's numbers."""
    lines = []
    for column, found in evidence.groups.items():
        dates = sorted(r["provenance"].get("date", "") for r in found.values())
        info = next((r["provenance"]["machine"] for r in found.values()
                     if isinstance(r.get("provenance", {}).get("machine"), dict)), {"gpus": [], "cores": "?",
                                                                                      "cpu": column[1]})
        lines += [f"### {escape(group_label(column, found))}", "",
                  f"Measured {dates[0][:10]}" + (f" to {dates[-1][:10]}" if dates[-1][:10] != dates[0][:10] else "")
                  + f" (results folder `{Path(column[0]).name}`). A change of the scripts since then is not "
                  "re-measured here.", "",
                  *verdict_table(evidence.lesson, evidence.rows, found, info,
                                 (NOT_MEASURED, f"not measured on this machine at profile {column[2]}")), ""]
    return lines


def build_text(lesson: Lesson, current: dict, machine_info: dict, profile: str, sizes: str, ran: list[dict],
               groups: dict) -> str:
    """The "This build" box: what ran, on which machine, or why nothing did."""
    label = escape(machine_label(machine_info))
    folder = machine_info.get("results_folder")
    measured = [r for r in current.values() if r["status"] not in (Outcome.NEEDS_GPU, Outcome.NOT_INSTALLED)]
    how = (warmup_text(lesson, profile, ran) + "Each round calls every variant once, alternating their order "
           "from round to round, one call at a time, in the framework's own kernel. ")
    at_once = max([r["provenance"].get("side_by_side", 1) for r in ran if r.get("provenance")] or [1])
    if at_once > 1:
        how += (f"At this profile, which checks that the scripts run and measures nothing, {at_once} scripts ran "
                "at a time, each kernel on a core of its own: these times are not measurements. ")
    others = ("Results of " + ", ".join(escape(group_label(c, f)) for c, f in groups.items())
              + " are under Other machines below." if groups else "No machine on record has measured it.")
    if measured:
        data = "; ".join(sorted({r["provenance"].get("data_source", "") for r in ran} - {""})) or "none"
        where = (f", read from the results folder `{Path(folder).name}` (nothing was run in this build)"
                 if folder else "")
        gpu = bool(machine_info.get("gpus"))
        skipped = sorted({rule["device"] for rule in lesson.rules if rule.get("device", "gpu" if gpu else "cpu")
                          != ("gpu" if gpu else "cpu")})
        note = "".join(f" Its claims {DEVICE_TEXT[d]} get no verdict here: "
                       + ("this machine has no GPU." if d == "gpu" else "this machine's lesson scripts run on its GPU.")
                       for d in skipped)
        return (f"Measured on **{label}**, profile **{profile}** ({sizes}){where}. " + how + "Data: " + escape(data)
                + "." + note)
    if lesson.requires == "gpu" and not machine_info.get("gpus"):
        return (f"Not run on **{label}**, which has no GPU: this lesson is judged only on a machine with one "
                f"(its sizes at profile **{profile}**: {sizes}). " + others)
    if folder:
        return (f"Nothing was run for this lesson here: this site was published from the results of **{label}** "
                f"(folder `{Path(folder).name}`), which hold no result of it at profile **{profile}** ({sizes}). "
                + others)
    return f"Not measured on **{label}** at profile **{profile}** ({sizes}). " + others


def warmup_text(lesson: Lesson, profile: str, ran: list[dict]) -> str:
    found = {r["provenance"].get("warmup") for r in ran} - {None}
    count = found.pop() if len(found) == 1 else \
        lesson.profiles.get(profile, {}).get("warmup", lesson.settings.get("warmup", 1))
    if not count:
        return "No warm-up call (the rounds measure results, not time). "
    return f"Each variant is first called {'once' if count == 1 else f'{count} times'} untimed (warm-up). "




def verdict_lines(view: LessonView) -> list[str]:
    """The claim, the lesson's words, the "This build" box and the verdict table."""
    item, machine_info, profile = view.evidence, view.machine_info, view.profile
    lesson, current = item.lesson, item.current
    ran = [r for r in current.values() if r["status"] == Outcome.OK]
    sizes = sizes_text(lesson.profiles.get(profile, {}))
    lines = [f"(lesson-{lesson.name})=", f"# {lesson.title}", "",
             f"**Claim.** {escape(lesson.claim)}", "", f"**Source:** {escape(lesson.source)}", "", view.words, ""]
    if lesson.requires == "gpu":
        lines += ["```{important}", "This lesson is about a GPU feature: it is judged only on a machine with a GPU. "
                  + ("This machine has one." if machine_info.get("gpus")
                     else "The machine this page describes has none; results of machines that had one, "
                          "if any are on record, are below."), "```", ""]
    return lines + [
        "```{admonition} This build", ":class: note",
        build_text(lesson, current, machine_info, profile, sizes, ran, item.groups), "```", "",
        "## Verdict", "", *verdict_table(lesson, item.rows, shown_results(item, profile), machine_info,
                                         missing_of(item, machine_info, profile)), "",
        "A comparison holds when the variant's whole range (min–max over the rounds) is better than the "
        "baseline's and the median effect reaches the claim; overlapping ranges are "
        "\"no measurable difference\". The effect's range pairs the worst and the best round of each side.", "",
        *rows_lines(lesson, item.rows, view.frameworks)]


def rows_lines(lesson: Lesson, rows: list[Framework], frameworks: list[Framework]) -> list[str]:
    """Which rows run the lesson, and why each other row does not (its lesson.toml's [[left_out]])."""
    if not rows:
        return []
    lines = ["**Rows.** It runs on " + ", ".join(escape(fw.label) for fw in rows) + "."]
    reasons: dict[str, list[str]] = {}
    for fw in frameworks:
        if fw not in rows:
            reasons.setdefault(lesson.left_out.get(fw.name, "no script, and its lesson.toml gives no reason"),
                               []).append(escape(fw.label))
    if reasons:
        lines += ["Left out:", "", *(f"- {', '.join(labels)}: {escape(why)}" for why, labels in reasons.items())]
    return [*lines, ""]


def chart_lines(view: LessonView, writer: Writer) -> list[str]:
    """A chart per metric that a rule compares with a baseline (written beside the page)."""
    lesson, current, lines, charted = view.evidence.lesson, view.evidence.current, [], set()
    if lesson.curve:                                       # variants as points of a line: one chart of them all
        charted.update(lesson.curve["metrics"])
        labels = {metric: metric_label(metric) for metric in lesson.curve["metrics"]}
        rows = [(fw.label, current.get(fw.name)) for fw in view.evidence.rows]
        drawn = charts.curve_chart(lesson.curve, labels, rows)
        if drawn:
            chart, metrics = drawn
            writer.write(f"lessons/{lesson.name}-curve.png", chart)
            shown = " and ".join(labels[metric] for metric in metrics)
            lines += [f"```{{figure}} {lesson.name}-curve.png", f":alt: {shown} against {lesson.curve['x_label']}",
                      ":figclass: rosetta-chart", "",
                      f"{sentence(shown)} against {lesson.curve['x_label']}, per framework "
                      "(points: median; whiskers: min–max; logarithmic axes, linear below 1).", "```", ""]
    for rule in lesson.rules:
        if not rule.get("baseline") or rule["metric"] in charted:
            continue
        charted.add(rule["metric"])
        judged = {fw.name for other in lesson.rules if other["metric"] == rule["metric"]
                  for fw in rule_frameworks(other, view.evidence.rows)}
        rows = [(fw.label, current.get(fw.name)) for fw in view.evidence.rows if fw.name in judged]
        chart = charts.variants_chart(lesson, rule["metric"], metric_label(rule["metric"]), rows)
        if chart:
            writer.write(f"lessons/{lesson.name}-{rule['metric']}.png", chart)
            lines += [f"```{{figure}} {lesson.name}-{rule['metric']}.png", f":alt: {metric_label(rule['metric'])}",
                      ":figclass: rosetta-chart", "",
                      f"{sentence(metric_label(rule['metric']))} per variant and framework "
                      "(bars: median; whiskers: min–max).", "```", ""]
    return lines


def code_lines(view: LessonView) -> list[str]:
    """Each step's tabs: one per script, its rows' outcomes under it (a program that several rows ran, Keras 3's,
    shows its code once and a tab per backend)."""
    lesson = view.evidence.lesson
    groups: dict = {}
    for fw in view.evidence.rows:
        groups.setdefault(view.paths[fw.name], []).append(fw)
    # A tab syncs with its program's tab on the benchmark pages (Keras 3), unless the lesson has several
    # scripts of that program (keras.py and keras-torch.py): then each is a tab of its own.
    programs = [rows[0].program for rows in groups.values()]
    lines = ["## The code", "", "The same framework choice as on every other page.", ""]
    for step in lesson.steps:
        # Colon fences nest by length: tab-set 7, tab-item 6, a program's per-row tab-set 5, its items 4.
        lines += [f"### {step.capitalize()}", "", ":::::::{tab-set}", ":sync-group: framework", ""]
        for rows in groups.values():
            first = rows[0]
            if len(rows) > 1:
                label, sync, body = first.program_label, first.program, program_tab(view, rows, step)
            else:
                label, sync = first.label, first.program if programs.count(first.program) == 1 else first.name
                body = lesson_tab(lesson, first, step, view.evidence.current.get(first.name), view.ran[first.name],
                                  view.code[first.name])
            lines += [f"::::::{{tab-item}} {label}", f":sync: {sync}", "", body, "::::::", ""]
        lines += [":::::::", ""]
    return lines


def download_lines(view: LessonView, writer: Writer) -> list[str]:
    """Each row's script and executed notebook, written beside the page, and the list of them."""
    lesson, downloads = view.evidence.lesson, []
    for fw in view.evidence.rows:
        writer.write(f"lessons/scripts/{lesson.name}-{fw.name}.py", view.scripts[fw.name])
        link = f"{{download}}`{fw.name}.py <scripts/{lesson.name}-{fw.name}.py>`"
        notebook = view.executed[fw.name]
        if notebook is not None:
            without_build_outputs(notebook)
            writer.write(notebook_file(lesson.name, fw.name), nbformat.writes(notebook))
            link += f" · {{download}}`executed notebook <notebooks/{lesson.name}-{fw.name}.ipynb>`"
        downloads.append(f"- {fw.label}: {link}")
    return ["## Downloads", "", *downloads, ""]


def failure_lines(view: LessonView) -> list[str]:
    lesson = view.evidence.lesson
    failed = [r for r in view.evidence.current.values() if r["status"] in (Outcome.FAILED, Outcome.TIMEOUT)]
    lines = ["## Failures", ""] if failed else []
    for result in failed:
        error = result.get("error") or {}
        lines += [f"({traceback_label(lesson.name, result['framework'])})=",
                  f"### {escape(result['label'])}: {LESSON_STATUS[result['status']]}", "",
                  fence(error.get("traceback") or result.get("reason") or "(no detail)", "text"), ""]
    return lines


def render_lesson(view: LessonView, writer: Writer) -> None:
    lines = [*verdict_lines(view)]
    table = measurement_table(view.evidence.lesson, view.evidence.rows, view.evidence.current)
    if table:
        lines += ["## Measurements", "", "Median over the rounds (min–max).", "", *table, ""]
    lines += [*chart_lines(view, writer), *code_lines(view), *download_lines(view, writer), *failure_lines(view)]
    others = other_machines(view.evidence)
    if others:
        lines += ["## Other machines", "", *others]
    writer.write(f"{page_doc(view.evidence.lesson.name)}.md", "\n".join(lines) + "\n")


# --- the index -------------------------------------------------------------------------------------

def render_index(view: LessonIndexView, writer: Writer) -> None:
    label = machine_label(view.machine_info)
    published = view.machine_info.get("results_folder")
    lines = ["# Lessons learned, measured", "",
             "Each lesson of the original study, and each one our equivalence checks found, is an experiment "
             + (f"measured on {escape(label)} and published here from its results (folder "
                f"`{Path(published).name}`): this build ran nothing. " if published else
                "that ran when this site was built. ") +
             "Its claim is a rule over the measured numbers, and the verdict below is computed from them, on the "
             "machine named: \"no measurable difference\" when the ranges of the rounds overlap. A cell without a "
             "verdict says why: a claim about another device, nothing run or measured, a run that failed.", "",
             ":::{container} rosetta-lesson-index", "",     # (a block per claim on a phone: rosetta.css)
             "| lesson | claim | verdict here, per framework: effect (range), or why there is none | machine |",
             "|---|---|---|---|"]
    for item in view.evidence:
        lesson = item.lesson
        missing, shown = missing_of(item, view.machine_info, view.profile), shown_results(item, view.profile)
        judged = judges(shown, view.machine_info) or label
        for number_, rule in enumerate(lesson.rules):
            verdicts = rule_verdicts(rule, item, view.machine_info, missing, shown)
            title = f"{{doc}}`{escape(lesson.title)} <{doc_link(page_doc(lesson.name))}>`" if number_ == 0 else "″"
            lines.append(f"| {title} | {claim_text(rule)} | {'<br>'.join(verdicts)} | {cell_text(judged)} |")
    lines += ["", ":::"]
    for problem in view.problems:
        lines += ["", f"```{{warning}}\nA lesson could not be read: {escape(problem)}\n```"]
    lines += ["", "```{toctree}", ":hidden:", "", *[page_doc(item.lesson.name) for item in view.evidence], "```"]
    writer.write("lessons.md", "\n".join(lines) + "\n")
