"""Pages of the lessons: an index table of claims and verdicts, and one page per lesson.

Every verdict here is computed from stored measurements by rosetta/verdict.py when the page
is written; nothing on these pages is typed by hand except the lessons' own words.
"""
from __future__ import annotations

import re
import statistics

import nbformat

from . import charts, lessons, results
from .lessons import Lesson
from .pages import STATUS_TEXT, Writer, cell_text, doc_link, escape, fence, outputs_text, sizes_text
from .project import Framework, Project
from .report import MIME_TYPE
from .snippets import SnippetError, group_steps, read_notebook
from .verdict import HOLDS, MIXED, NO_DIFFERENCE, NO_VERDICT, SMALLER, judge

LESSON_STATUS = {**STATUS_TEXT, "needs-gpu": "needs a GPU"}
BADGE = {HOLDS: "success", SMALLER: "warning", NO_DIFFERENCE: "secondary", MIXED: "warning", NO_VERDICT: "dark"}


def page_doc(lesson: str) -> str:
    return f"lessons/{lesson}"


def traceback_label(lesson: str, framework: str) -> str:
    return f"lesson-traceback-{lesson}-{framework}"


def notebook_file(lesson: str, framework: str) -> str:
    return f"lessons/notebooks/{lesson}-{framework}.ipynb"


# --- numbers in words ------------------------------------------------------------------------------

def number(value: float) -> str:
    if value == 0:
        return "0"
    if abs(value) < 1e-3 or abs(value) >= 1e5:
        return f"{value:.1e}"
    return f"{value:.3g}"


def effect_text(rule: dict, value: float) -> str:
    """An effect (or a bounded value) in the rule's unit: a ratio as ×, accuracy as points."""
    if rule.get("baseline") and rule.get("effect", "ratio") == "ratio":
        return f"{value:.2f}×"
    unit = rule.get("unit", "")
    if unit == "points":
        return f"{value * 100:.1f} points"
    return f"{number(value)}{(' ' + unit) if unit else ''}"


def measured_text(values: list[float], metric: str) -> str:
    scale, unit = (100, " %") if metric == "accuracy" else (1, "")
    median = statistics.median(values) * scale
    if len(values) == 1:
        return f"{number(median)}{unit}"
    return f"{number(median)}{unit} ({number(min(values) * scale)}–{number(max(values) * scale)})"


def verdict_cell(rule: dict, result: dict | None, lesson: str) -> tuple[str, str]:
    """(verdict badge, effect with range) for one rule on one framework's result."""
    if result is None:
        return "", ""
    if result["status"] != "ok":
        why = LESSON_STATUS.get(result["status"], result["status"])
        if result["status"] in ("failed", "timeout"):
            why = f"{{ref}}`{why} <{traceback_label(lesson, result['framework'])}>`"
        else:
            why = cell_text(f"{why}: {result.get('reason', '')}")
        return f"{{bdg-dark}}`{NO_VERDICT}`", why
    found = judge(rule, result.get("variants", {}))
    badge = f"{{bdg-{BADGE.get(found['verdict'], 'danger')}}}`{found['verdict']}`"
    if found["verdict"] == NO_VERDICT:
        return badge, cell_text(found["why"])
    stale = " (stale)" if result.get("stale") else ""
    return badge, (f"{effect_text(rule, found['effect'])} "
                   f"({effect_text(rule, found['low'])} to {effect_text(rule, found['high'])})" + stale)


def rule_frameworks(rule: dict, lesson: Lesson, frameworks: list[Framework]) -> list[Framework]:
    named = rule.get("frameworks")
    return [fw for fw in lesson.frameworks(frameworks) if not named or fw.name in named]


# --- one lesson ------------------------------------------------------------------------------------

def verdict_table(lesson: Lesson, frameworks: list[Framework], current: dict) -> list[str]:
    lines = ["| claim | framework | verdict | effect (worst to best pairing of the ranges) |", "|---|---|---|---|"]
    for rule in lesson.rules:
        for fw in rule_frameworks(rule, lesson, frameworks):
            badge, effect = verdict_cell(rule, current.get(fw.name), lesson.name)
            lines.append(f"| {cell_text(rule['claim'])} | {fw.label} | {badge} | {effect} |")
    return lines


def measurement_table(lesson: Lesson, frameworks: list[Framework], current: dict) -> list[str]:
    metrics = []
    for result in current.values():
        for measured in result.get("variants", {}).values():
            metrics += [m for m in measured if m not in metrics]
    if not metrics:
        return []
    lines = ["| framework | variant | " + " | ".join(metric_label(m) for m in metrics) + " |",
             "|---|---|" + "---|" * len(metrics)]
    for fw in lesson.frameworks(frameworks):
        result = current.get(fw.name)
        if not result or result["status"] != "ok":
            continue
        for variant, measured in result.get("variants", {}).items():
            cells = [measured_text(measured[m], m) if measured.get(m) else "" for m in metrics]
            lines.append(f"| {fw.label} | `{variant}` | " + " | ".join(cells) + " |")
    return lines


def metric_label(metric: str) -> str:
    return {"seconds": "seconds per call", "peak_memory_mb": "extra peak memory, MB",
            "accuracy": "test accuracy"}.get(metric, metric.replace("_", " "))


def lesson_tab(lesson: Lesson, step: str, result: dict | None, executed, source_steps: dict) -> str:
    steps = {}
    if executed is not None:
        try:
            steps = {s.name: s for s in group_steps(executed, lesson, lesson.name)}
        except SnippetError:
            steps = {}
    code_step = steps.get(step) or source_steps.get(step)
    if code_step is None:
        return "```{warning}\nThis script has no such step.\n```"
    parts = [fence(code_step.code, "python")]
    if step in steps:
        text = outputs_text([executed.cells[i] for i in steps[step].cell_indices])
        if text:
            parts.append(fence(text, "text"))
    error = (result or {}).get("error") or {}
    if result and result["status"] in ("failed", "timeout") and error.get("step") == step:
        parts.append(f"```{{error}}\nThis step {LESSON_STATUS[result['status']]}: {escape(str(error.get('ename')))}: "
                     f"{escape(str(error.get('evalue')))} ({{ref}}`traceback <"
                     f"{traceback_label(lesson.name, result['framework'])}>`).\n```")
    elif result and result["status"] not in ("ok", "failed", "timeout") and step == lesson.steps[0]:
        parts.append(f"```{{note}}\n{LESSON_STATUS.get(result['status'], result['status'])}: "
                     f"{escape(result.get('reason', ''))}\n```")
    return "\n\n".join(parts)


def load_notebook(project: Project, result: dict):
    if not result or not result.get("notebook"):
        return None
    path = lessons.result_path(project, result["machine"], result["profile"], result["lesson"],
                               result["framework"]).with_suffix(".ipynb")
    return nbformat.read(path, as_version=4) if path.exists() else None


def other_machines(project: Project, lesson: Lesson, frameworks: list[Framework], machine: str,
                   profile: str) -> list[str]:
    """Verdicts of every other machine and profile on record (a GPU lesson's only evidence on a CPU)."""
    groups: dict = {}
    for result in lessons.stored(project, lesson.name):
        column = (result["machine"], result["profile"])
        if column != (machine, profile) and result["profile"] != "smoke":
            groups.setdefault(column, {})[result["framework"]] = result
    lines = []
    for (other, other_profile), found in sorted(groups.items()):
        label = next(iter(found.values())).get("machine_label", other)
        dates = sorted(r["provenance"].get("date", "") for r in found.values())
        lines += [f"### {escape(label)}, profile {other_profile}", "",
                  f"Measured {dates[0][:10]}" + (f" to {dates[-1][:10]}" if dates[-1][:10] != dates[0][:10] else "")
                  + ". A change of the scripts since then is not re-measured here.", "",
                  *verdict_table(lesson, frameworks, found), ""]
    return lines


def warmup_text(lesson: Lesson, profile: str, ran: list[dict]) -> str:
    found = {r["provenance"].get("warmup") for r in ran} - {None}
    count = found.pop() if len(found) == 1 else \
        lesson.profiles.get(profile, {}).get("warmup", lesson.settings.get("warmup", 1))
    if not count:
        return "No warm-up call (the rounds measure results, not time). "
    return f"Each variant is first called {'once' if count == 1 else f'{count} times'} untimed (warm-up). "


def lesson_page(project: Project, lesson: Lesson, frameworks: list[Framework], current: dict, machine: str,
                machine_info: dict, profile: str, writer: Writer) -> None:
    readme = lesson.folder / "README.md"
    words = re.sub(r"^# .*\n", "", readme.read_text(), count=1).strip() if readme.exists() else ""
    ran = [r for r in current.values() if r["status"] == "ok"]
    sizes = sizes_text(lesson.profiles.get(profile, {}))
    data = "; ".join(sorted({r["provenance"].get("data_source", "") for r in ran} - {""})) or "none"
    lines = [f"(lesson-{lesson.name})=", f"# {lesson.title}", "",
             f"**Claim.** {escape(lesson.claim)}", "", f"**Source:** {escape(lesson.source)}", "", words, ""]
    if lesson.requires == "gpu":
        lines += ["```{important}", "This lesson is about a GPU feature: it is judged only on a machine with a GPU. "
                  + ("This machine has one." if any(r["status"] != "needs-gpu" for r in current.values())
                     else "The machine that built this page has none; results of machines that had one, "
                          "if any are on record, are below."), "```", ""]
    measured_here = any(r["status"] != "needs-gpu" for r in current.values())
    lines += ["```{admonition} This build", ":class: note",
              (f"Measured on **{escape(results.machine_label(machine_info))}**, profile **{profile}** ({sizes}). "
               if measured_here else f"Not run on **{escape(results.machine_label(machine_info))}**, which has no "
               f"GPU; its sizes at profile **{profile}**: {sizes}. ") +
              warmup_text(lesson, profile, ran) + "Each round calls every variant once, alternating their order "
              "from round to round, one call at a time, in the framework's own kernel. Data: " + escape(data) + ".",
              "```", "",
              "## Verdict", "", *verdict_table(lesson, frameworks, current), "",
              "A comparison holds when the variant's whole range (min–max over the rounds) is better than the "
              "baseline's and the median effect reaches the claim; overlapping ranges are "
              "\"no measurable difference\". The effect's range pairs the worst and the best round of each side.", ""]
    table = measurement_table(lesson, frameworks, current)
    if table:
        lines += ["## Measurements", "", "Median over the rounds (min–max).", "", *table, ""]
    charted = set()
    for rule in lesson.rules:
        if not rule.get("baseline") or rule["metric"] in charted:
            continue
        charted.add(rule["metric"])
        judged = {fw.name for other in lesson.rules if other["metric"] == rule["metric"]
                  for fw in rule_frameworks(other, lesson, frameworks)}
        rows = [(fw.label, current.get(fw.name)) for fw in lesson.frameworks(frameworks) if fw.name in judged]
        chart = charts.variants_chart(lesson, rule["metric"], metric_label(rule["metric"]), rows)
        if chart:
            name = f"lessons/{lesson.name}-{rule['metric']}.png"
            writer.write(name, chart)
            lines += [f"```{{figure}} {lesson.name}-{rule['metric']}.png", f":alt: {metric_label(rule['metric'])}",
                      ":figclass: rosetta-chart", "",
                      f"{metric_label(rule['metric']).capitalize()} per variant and framework "
                      "(bars: median; whiskers: min–max).", "```", ""]
    shown = lesson.frameworks(frameworks)
    executed = {fw.name: load_notebook(project, current.get(fw.name)) for fw in shown}
    source_steps = {}
    for fw in shown:
        try:
            source_steps[fw.name] = {s.name: s for s in group_steps(read_notebook(lesson.snippet_path(fw)),
                                                                    lesson, lesson.name)}
        except SnippetError:
            source_steps[fw.name] = {}
    lines += ["## The code", "", "The same framework choice as on every other page.", ""]
    # A row syncs with its program's tab on the benchmark pages (Keras 3), unless the lesson has
    # several rows of that program: then each row is a tab of its own.
    programs = [fw.program for fw in shown]
    sync = {fw.name: fw.program if programs.count(fw.program) == 1 else fw.name for fw in shown}
    for step in lesson.steps:
        lines += [f"### {step.capitalize()}", "", "::::{tab-set}", ":sync-group: framework", ""]
        for fw in shown:
            body = lesson_tab(lesson, step, current.get(fw.name), executed[fw.name], source_steps[fw.name])
            lines += [f":::{{tab-item}} {fw.label}", f":sync: {sync[fw.name]}", "", body, ":::", ""]
        lines += ["::::", ""]
    downloads = []
    for fw in shown:
        writer.write(f"lessons/scripts/{lesson.name}-{fw.name}.py", lesson.snippet_path(fw).read_bytes())
        link = f"{{download}}`{fw.name}.py <scripts/{lesson.name}-{fw.name}.py>`"
        if executed[fw.name] is not None:
            notebook = executed[fw.name]
            for cell in notebook.cells:
                for output in cell.get("outputs", []):
                    output.get("data", {}).pop(MIME_TYPE, None)
            writer.write(notebook_file(lesson.name, fw.name), nbformat.writes(notebook))
            link += f" · {{download}}`executed notebook <notebooks/{lesson.name}-{fw.name}.ipynb>`"
        downloads.append(f"- {fw.label}: {link}")
    lines += ["## Downloads", "", *downloads, ""]
    failed = [r for r in current.values() if r["status"] in ("failed", "timeout")]
    if failed:
        lines += ["## Failures", ""]
        for result in failed:
            error = result.get("error") or {}
            lines += [f"({traceback_label(lesson.name, result['framework'])})=",
                      f"### {escape(result['label'])}: {LESSON_STATUS[result['status']]}", "",
                      fence(error.get("traceback") or result.get("reason") or "(no detail)", "text"), ""]
    others = other_machines(project, lesson, frameworks, machine, profile)
    if others:
        lines += ["## Other machines", "", *others]
    writer.write(f"{page_doc(lesson.name)}.md", "\n".join(lines) + "\n")


# --- the index -------------------------------------------------------------------------------------

def index_page(lessons_list: list[Lesson], frameworks: list[Framework], lesson_results: dict, problems: list[str],
               machine_label: str, writer: Writer) -> None:
    lines = ["# Lessons learned, measured", "",
             "Each lesson of the original study, and each one our equivalence checks found, is an experiment "
             "that ran when this site was built. Its claim is a rule over the measured numbers, and the verdict "
             "below is computed from them: \"no measurable difference\" when the ranges of the rounds overlap.", "",
             "| lesson | claim | verdict here, per framework: effect (range) | machine |", "|---|---|---|---|"]
    for lesson in lessons_list:
        current = lesson_results.get(lesson.name, {})
        for number_, rule in enumerate(lesson.rules):
            verdicts = []
            for fw in rule_frameworks(rule, lesson, frameworks):
                badge, effect = verdict_cell(rule, current.get(fw.name), lesson.name)
                if badge:
                    verdicts.append(f"{fw.label}: {badge} {effect}")
            title = f"{{doc}}`{escape(lesson.title)} <{doc_link(page_doc(lesson.name))}>`" if number_ == 0 else "″"
            lines.append(f"| {title} | {cell_text(rule['claim'])} | {'<br>'.join(verdicts) or 'not run'} | "
                         f"{cell_text(machine_label)} |")
    for problem in problems:
        lines += ["", f"```{{warning}}\nA lesson could not be read: {escape(problem)}\n```"]
    lines += ["", "```{toctree}", ":hidden:", "", *[page_doc(lesson.name) for lesson in lessons_list], "```"]
    writer.write("lessons.md", "\n".join(lines) + "\n")


def related_lessons(lessons_list: list[Lesson], example: str) -> list[str]:
    """The benchmark page's list of the lessons that concern it."""
    return [f"- {{doc}}`{escape(lesson.title)} <{doc_link(page_doc(lesson.name))}>`: {escape(lesson.claim)}"
            for lesson in lessons_list if example in lesson.concerns]


def write(project: Project, lessons_list: list[Lesson], frameworks: list[Framework], lesson_results: dict,
          problems: list[str], machine: str, machine_info: dict, profile: str, writer: Writer) -> None:
    for lesson in lessons_list:
        lesson_page(project, lesson, frameworks, lesson_results.get(lesson.name, {}), machine, machine_info,
                    profile, writer)
    index_page(lessons_list, frameworks, lesson_results, problems, results.machine_label(machine_info), writer)
