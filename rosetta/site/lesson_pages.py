"""Pages of the lessons: an index table of claims and verdicts, and one page per lesson.

Every verdict here is computed from stored measurements by rosetta/build/verdict.py when the page
is written; nothing on these pages is typed by hand except the lessons' own words.
"""
from __future__ import annotations

import re
import statistics
from pathlib import Path

import nbformat

from ..build import lessons, results
from ..build.lessons import Lesson
from ..build.snippets import SnippetError, group_steps, read_notebook
from ..build.verdict import HOLDS, MIXED, NEEDS_GPU, NO_DIFFERENCE, NO_VERDICT, SMALLER, device_reason, judge
from ..project import Framework, Project
from ..report import MIME_TYPE
from . import charts
from .pages import (
    STATUS_TEXT,
    Writer,
    cell_text,
    doc_link,
    escape,
    fence,
    has_gpu,
    outputs_text,
    recorded_machine,
    same_substance,
    sizes_text,
    without_local_paths,
)

LESSON_STATUS = {**STATUS_TEXT, "needs-gpu": NEEDS_GPU}
BADGE = {HOLDS: "success", SMALLER: "warning", NO_DIFFERENCE: "secondary", MIXED: "warning", NO_VERDICT: "dark"}
NOT_RUN_HERE = "not run here"        # a publishing build: it ran nothing, and its results hold none
NOT_MEASURED = "not measured"        # a measuring build that has no result of this lesson
DEVICE_TEXT = {"gpu": "judged on a GPU only", "cpu": "judged on a CPU only"}


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


def measured_with_gpu(result: dict | None, machine_info: dict) -> bool:
    """Whether a result was measured on a machine with a GPU: its own record of the machine, where it has one
    (a result read from another machine's folder), else the machine this page describes."""
    measured_on = recorded_machine(result)
    return has_gpu(measured_on if measured_on and "gpus" in measured_on else machine_info)


def judged_on(result: dict | None, machine_info: dict) -> str:
    """The machine whose numbers a verdict is judged on: the one that measured them."""
    return (result or {}).get("machine_label") or results.machine_label(machine_info)


def missing_reason(machine_info: dict, profile: str, elsewhere: list[str]) -> tuple[str, str]:
    """(badge, why) for a framework with no result of a lesson on the machine this page describes:
    a publishing build ran nothing; a measuring build did not measure it; other machines may have."""
    label = results.machine_label(machine_info)
    folder = machine_info.get("results_folder")
    if folder:
        why = (f"nothing was run here: this site was published from the results of {label} (folder "
               f"{Path(folder).name}), which hold none of this lesson at profile {profile}")
        badge = NOT_RUN_HERE
    else:
        why, badge = f"not measured on {label} at profile {profile}", NOT_MEASURED
    if elsewhere:
        why += "; measured on " + ", ".join(elsewhere) + ": see Other machines on its page"
    else:
        why += "; not measured on any machine on record"
    return badge, why


def verdict_cell(rule: dict, result: dict | None, lesson: str, machine_info: dict | None = None,
                 missing: tuple[str, str] | None = None) -> tuple[str, str]:
    """(verdict badge, effect with range, or the reason there is none) for one rule on one framework's result.
    Never blank: a rule about another device, a missing result and a run that failed each say so."""
    machine_info = machine_info or {"gpus": [], "cores": "?", "cpu": "this machine"}
    off = device_reason(rule, measured_with_gpu(result, machine_info), judged_on(result, machine_info))
    if off:
        return f"{{bdg-dark}}`{off[0]}`", cell_text(off[1])
    if result is None:
        badge, why = missing or (NOT_MEASURED, f"no result on {results.machine_label(machine_info)}")
        return f"{{bdg-dark}}`{badge}`", cell_text(why)
    if result["status"] != "ok":
        why = LESSON_STATUS.get(result["status"], result["status"])
        if result["status"] in ("failed", "timeout"):
            why = f"{{ref}}`{why} <{traceback_label(lesson, result['framework'])}>`"
        else:
            why = cell_text(f"{why}: {result.get('reason', '')}")
        badge = NEEDS_GPU if result["status"] == "needs-gpu" else NO_VERDICT
        return f"{{bdg-dark}}`{badge}`", why
    found = judge(rule, result.get("variants", {}))
    badge = f"{{bdg-{BADGE.get(found['verdict'], 'danger')}}}`{found['verdict']}`"
    if found["verdict"] == NO_VERDICT:
        return badge, cell_text(found["why"])
    stale = " (stale)" if result.get("stale") else ""
    return badge, (f"{effect_text(rule, found['effect'])} "
                   f"({effect_text(rule, found['low'])} to {effect_text(rule, found['high'])})" + stale)


def claim_text(rule: dict) -> str:
    """A rule's claim as a table cell, with the device it is judged on where it names one."""
    device = DEVICE_TEXT.get(rule.get("device", ""))
    return cell_text(rule["claim"]) + (f" *({device})*" if device else "")


def rule_frameworks(rule: dict, lesson: Lesson, frameworks: list[Framework]) -> list[Framework]:
    named = rule.get("frameworks")
    return [fw for fw in lesson.frameworks(frameworks) if not named or fw.name in named]


def no_rows(rule: dict) -> tuple[str, str]:
    """(badge, why) for a rule that no framework's script answers (it names frameworks without one)."""
    return (f"{{bdg-dark}}`{NO_VERDICT}`",
            cell_text(f"no script of this lesson runs the frameworks the rule names ({', '.join(rule['frameworks'])})"
                      if rule.get("frameworks") else "no script of this lesson runs on any framework here"))


# --- one lesson ------------------------------------------------------------------------------------

def verdict_table(lesson: Lesson, frameworks: list[Framework], current: dict, machine_info: dict,
                  missing: tuple[str, str] | None = None) -> list[str]:
    lines = ["| claim | framework | verdict | effect (worst to best pairing of the ranges), or why there is none |",
             "|---|---|---|---|"]
    for rule in lesson.rules:
        for fw in rule_frameworks(rule, lesson, frameworks):
            badge, effect = verdict_cell(rule, current.get(fw.name), lesson.name, machine_info, missing)
            lines.append(f"| {claim_text(rule)} | {fw.label} | {badge} | {effect} |")
        if not rule_frameworks(rule, lesson, frameworks):
            lines.append(f"| {claim_text(rule)} | – | {' | '.join(no_rows(rule))} |")
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
    shown = source_steps.get(step) or steps.get(step)       # the current script's code, as the download is
    if shown is None:
        return "```{warning}\nThis script has no such step.\n```"
    parts = [fence(shown.code, "python")]
    if step in steps:
        if step in source_steps and not same_substance(steps[step], source_steps[step], "python"):
            parts.append("```{attention}\nOlder code: the output below comes from a run whose code for this step "
                         "differs from the code shown (not only in comments); `make html` measures it again.\n```")
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


def elsewhere(project: Project, lesson: Lesson, machine: str, profile: str) -> dict:
    """{(folder, machine, profile): {framework: result}} of every other machine and profile on record (a GPU
    lesson's only evidence on a CPU); smoke runs judge nothing and are left out."""
    own = project.results.resolve()
    groups: dict = {}
    for result in lessons.stored(project, lesson.name):
        column = (result.get("source", str(own)), result["machine"], result["profile"])
        if (column[0] == str(own) and column[1:] == (machine, profile)) or result["profile"] == "smoke":
            continue
        groups.setdefault(column, {})[result["framework"]] = result
    return dict(sorted(groups.items(), key=lambda item: item[0][1:]))


def group_label(column: tuple, found: dict) -> str:
    return f"{next(iter(found.values())).get('machine_label', column[1])}, profile {column[2]}"


def other_machines(lesson: Lesson, frameworks: list[Framework], groups: dict) -> list[str]:
    """Verdicts of every other machine and profile on record, each judged on that machine's numbers."""
    lines = []
    for column, found in groups.items():
        dates = sorted(r["provenance"].get("date", "") for r in found.values())
        info = next((r["provenance"]["machine"] for r in found.values()
                     if isinstance(r.get("provenance", {}).get("machine"), dict)), {"gpus": [], "cores": "?",
                                                                                      "cpu": column[1]})
        lines += [f"### {escape(group_label(column, found))}", "",
                  f"Measured {dates[0][:10]}" + (f" to {dates[-1][:10]}" if dates[-1][:10] != dates[0][:10] else "")
                  + f" (results folder `{Path(column[0]).name}`). A change of the scripts since then is not "
                  "re-measured here.", "",
                  *verdict_table(lesson, frameworks, found, info,
                                 (NOT_MEASURED, f"not measured on this machine at profile {column[2]}")), ""]
    return lines


def build_text(lesson: Lesson, current: dict, machine_info: dict, profile: str, sizes: str, ran: list[dict],
               groups: dict) -> str:
    """The "This build" box: what ran, on which machine, or why nothing did."""
    label = escape(results.machine_label(machine_info))
    folder = machine_info.get("results_folder")
    measured = [r for r in current.values() if r["status"] not in ("needs-gpu", "not-installed")]
    how = (warmup_text(lesson, profile, ran) + "Each round calls every variant once, alternating their order "
           "from round to round, one call at a time, in the framework's own kernel. ")
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


def lesson_page(project: Project, lesson: Lesson, frameworks: list[Framework], current: dict, machine: str,
                machine_info: dict, profile: str, writer: Writer) -> None:
    readme = lesson.folder / "README.md"
    words = re.sub(r"^# .*\n", "", readme.read_text(), count=1).strip() if readme.exists() else ""
    ran = [r for r in current.values() if r["status"] == "ok"]
    sizes = sizes_text(lesson.profiles.get(profile, {}))
    lines = [f"(lesson-{lesson.name})=", f"# {lesson.title}", "",
             f"**Claim.** {escape(lesson.claim)}", "", f"**Source:** {escape(lesson.source)}", "", words, ""]
    if lesson.requires == "gpu":
        lines += ["```{important}", "This lesson is about a GPU feature: it is judged only on a machine with a GPU. "
                  + ("This machine has one." if machine_info.get("gpus")
                     else "The machine this page describes has none; results of machines that had one, "
                          "if any are on record, are below."), "```", ""]
    groups = elsewhere(project, lesson, machine, profile)
    missing = missing_reason(machine_info, profile, [group_label(c, f) for c, f in groups.items()])
    lines += ["```{admonition} This build", ":class: note",
              build_text(lesson, current, machine_info, profile, sizes, ran, groups), "```", "",
              "## Verdict", "", *verdict_table(lesson, frameworks, current, machine_info, missing), "",
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
                    if output.get("output_type") == "stream":
                        output["text"] = without_local_paths(output.get("text", ""))
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
    others = other_machines(lesson, frameworks, groups)
    if others:
        lines += ["## Other machines", "", *others]
    writer.write(f"{page_doc(lesson.name)}.md", "\n".join(lines) + "\n")


# --- the index -------------------------------------------------------------------------------------

def rule_verdicts(rule: dict, lesson: Lesson, frameworks: list[Framework], current: dict, machine_info: dict,
                  missing: tuple[str, str]) -> list[str]:
    """One rule's verdict per framework, "label: badge effect"; frameworks with the same verdict or the same
    reason for having none are named together, and one that every framework shares is said once."""
    rows = rule_frameworks(rule, lesson, frameworks)
    if not rows:
        return [" ".join(no_rows(rule))]
    said: dict = {}
    for fw in rows:
        said.setdefault(verdict_cell(rule, current.get(fw.name), lesson.name, machine_info, missing), []).append(
            fw.label)
    if len(said) == 1 and len(rows) > 1:
        (badge, text), = said
        return [f"all {len(rows)} frameworks: {badge} {text}"]
    return [f"{', '.join(labels)}: {badge} {text}" for (badge, text), labels in said.items()]


def judges(current: dict, machine_info: dict) -> str:
    """The machine(s) whose numbers the verdicts of a lesson are judged on, or "" where none ran."""
    labels = sorted({judged_on(r, machine_info) for r in current.values() if r["status"] == "ok"})
    return ", ".join(labels)


def index_page(project: Project, lessons_list: list[Lesson], frameworks: list[Framework], lesson_results: dict,
               problems: list[str], machine: str, machine_info: dict, profile: str, writer: Writer) -> None:
    label = results.machine_label(machine_info)
    published = machine_info.get("results_folder")
    lines = ["# Lessons learned, measured", "",
             "Each lesson of the original study, and each one our equivalence checks found, is an experiment "
             + (f"measured on {escape(label)} and published here from its results (folder "
                f"`{Path(published).name}`): this build ran nothing. " if published else
                "that ran when this site was built. ") +
             "Its claim is a rule over the measured numbers, and the verdict below is computed from them, on the "
             "machine named: \"no measurable difference\" when the ranges of the rounds overlap. A cell without a "
             "verdict says why: a claim about another device, nothing run or measured, a run that failed.", "",
             "| lesson | claim | verdict here, per framework: effect (range), or why there is none | machine |",
             "|---|---|---|---|"]
    for lesson in lessons_list:
        current = lesson_results.get(lesson.name, {})
        groups = elsewhere(project, lesson, machine, profile)
        missing = missing_reason(machine_info, profile, [group_label(c, f) for c, f in groups.items()])
        judged = judges(current, machine_info) or label
        for number_, rule in enumerate(lesson.rules):
            verdicts = rule_verdicts(rule, lesson, frameworks, current, machine_info, missing)
            title = f"{{doc}}`{escape(lesson.title)} <{doc_link(page_doc(lesson.name))}>`" if number_ == 0 else "″"
            lines.append(f"| {title} | {claim_text(rule)} | {'<br>'.join(verdicts)} | {cell_text(judged)} |")
    for problem in problems:
        lines += ["", f"```{{warning}}\nA lesson could not be read: {escape(problem)}\n```"]
    lines += ["", "```{toctree}", ":hidden:", "", *[page_doc(lesson.name) for lesson in lessons_list], "```"]
    writer.write("lessons.md", "\n".join(lines) + "\n")


def related_lessons(project: Project, lessons_input, example: str, frameworks: list[Framework], machine: str,
                    machine_info: dict, profile: str) -> list[str]:
    """The benchmark page's list of the lessons that concern it: each lesson's claims with their verdicts,
    each judged on the numbers of the machine named (or the reason there is none), never a claim alone."""
    lines = []
    for lesson in lessons_input.lessons:
        if example not in lesson.concerns:
            continue
        current = lessons_input.results.get(lesson.name, {})
        groups = elsewhere(project, lesson, machine, profile)
        missing = missing_reason(machine_info, profile, [group_label(c, f) for c, f in groups.items()])
        judged = judges(current, machine_info)
        verdicts = [rule_verdicts(rule, lesson, frameworks, current, machine_info, missing) for rule in lesson.rules]
        link = f"{{doc}}`{escape(lesson.title)} <{doc_link(page_doc(lesson.name))}>`"
        claims = [f"{escape(rule['claim'])}" + (f" *({DEVICE_TEXT[rule['device']]})*" if rule.get("device") else "")
                  for rule in lesson.rules]
        if len({tuple(v) for v in verdicts}) == 1 and len(verdicts[0]) == 1 and not judged:
            # One reason for every claim (nothing ran, or the lesson needs a GPU): said once.
            lines += [f"- {link}: no verdict: {verdicts[0][0]}. "
                      + ("Its claim, unjudged here: " if len(claims) == 1 else "Its claims, unjudged here: ")
                      + "; ".join(claims) + "."]
            continue
        lines.append(f"- {link}" + (f" (verdicts judged on {escape(judged)}, profile {profile}):" if judged else ":"))
        for claim, found in zip(claims, verdicts):
            lines.append(f"  - claim: {claim}. Verdict: {'; '.join(found)}")
    if lines:
        lines = ["Each lesson's claims, with the verdict of each on the numbers of the machine named, computed "
                 f"when this page was written (all lessons: {{doc}}`Lessons <{doc_link('lessons')}>`).", "", *lines]
    return lines


def write(project: Project, lessons_list: list[Lesson], frameworks: list[Framework], lesson_results: dict,
          problems: list[str], machine: str, machine_info: dict, profile: str, writer: Writer) -> None:
    for lesson in lessons_list:
        lesson_page(project, lesson, frameworks, lesson_results.get(lesson.name, {}), machine, machine_info,
                    profile, writer)
    index_page(project, lessons_list, frameworks, lesson_results, problems, machine, machine_info, profile, writer)
