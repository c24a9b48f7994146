"""The lessons' verdicts in words: badges, effects and the reason a cell has none, for the lesson pages,
the benchmark pages' lists of related lessons and the front page's matrix.

Every verdict is computed from stored measurements by rosetta/build/verdict.py when the page is written;
nothing here is typed by hand except the lessons' own words.
"""
from __future__ import annotations

import statistics
from pathlib import Path

from ..build.outcome import Outcome
from ..build.results import machine_label
from ..build.verdict import HOLDS, MIXED, NEEDS_GPU, NO_DIFFERENCE, NO_VERDICT, SMALLER, device_reason, judge
from ..project import Framework
from .gather.common import LessonEvidence
from .markup import STATUS_TEXT, cell_text, doc_link, escape
from .records import has_gpu, recorded_machine

LESSON_STATUS = {**STATUS_TEXT, Outcome.NEEDS_GPU: NEEDS_GPU}
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
    return (result or {}).get("machine_label") or machine_label(machine_info)


def missing_reason(machine_info: dict, profile: str, elsewhere: list[str]) -> tuple[str, str]:
    """(badge, why) for a framework with no result of a lesson on the machine this page describes:
    a publishing build ran nothing; a measuring build did not measure it; other machines may have."""
    label = machine_label(machine_info)
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
        badge, why = missing or (NOT_MEASURED, f"no result on {machine_label(machine_info)}")
        return f"{{bdg-dark}}`{badge}`", cell_text(why)
    if result["status"] != Outcome.OK:
        why = LESSON_STATUS.get(result["status"], result["status"])
        if result["status"] in (Outcome.FAILED, Outcome.TIMEOUT):
            why = f"{{ref}}`{why} <{traceback_label(lesson, result['framework'])}>`"
        else:
            why = cell_text(f"{why}: {result.get('reason', '')}")
        badge = NEEDS_GPU if result["status"] == Outcome.NEEDS_GPU else NO_VERDICT
        return f"{{bdg-dark}}`{badge}`", why
    found = judge(rule, result.get("variants", {}))
    badge = f"{{bdg-{BADGE.get(found['verdict'], 'danger')}}}`{found['verdict']}`"
    where = " · on " + cell_text(result["shown_from"]) if result.get("shown_from") else ""
    if found["verdict"] == NO_VERDICT:
        return badge, cell_text(found["why"]) + where
    stale = " (stale)" if result.get("stale") else ""
    return badge, (f"{effect_text(rule, found['effect'])} "
                   f"({effect_text(rule, found['low'])} to {effect_text(rule, found['high'])})" + stale + where)


def claim_text(rule: dict) -> str:
    """A rule's claim as a table cell, with the device it is judged on where it names one."""
    device = DEVICE_TEXT.get(rule.get("device", ""))
    return cell_text(rule["claim"]) + (f" *({device})*" if device else "")


def rule_frameworks(rule: dict, rows: list[Framework]) -> list[Framework]:
    """The rows a rule judges: the lesson's rows (those with a script of it) that the rule names, or all."""
    named = rule.get("frameworks")
    return [fw for fw in rows if not named or fw.name in named]


def no_rows(rule: dict) -> tuple[str, str]:
    """(badge, why) for a rule that no framework's script answers (it names frameworks without one)."""
    return (f"{{bdg-dark}}`{NO_VERDICT}`",
            cell_text(f"no script of this lesson runs the frameworks the rule names ({', '.join(rule['frameworks'])})"
                      if rule.get("frameworks") else "no script of this lesson runs on any framework here"))



def group_label(column: tuple, found: dict) -> str:
    return f"{next(iter(found.values())).get('machine_label', column[1])}, profile {column[2]}"


def shown_results(evidence: LessonEvidence, profile: str) -> dict:
    """Row -> the result its verdicts are judged on: this build's; where it has none, the newest that another
    machine on record holds (of this profile where one has it), marked with that machine (`shown_from`): a page
    never says "not run here" or "not installed" of a result the site holds."""
    shown = {}
    for fw in evidence.rows:
        found = [(column, group[fw.name]) for column, group in evidence.groups.items() if fw.name in group]
        here = evidence.current.get(fw.name)
        if (here is not None and here["status"] != Outcome.NOT_INSTALLED) or not found:
            continue
        column, result = max(found, key=lambda item: (item[0][2] == profile,
                                                      item[1].get("provenance", {}).get("date", "")))
        shown[fw.name] = {**result, "shown_from": group_label(column, {fw.name: result})}
    return {**evidence.current, **shown}


def missing_of(evidence: LessonEvidence, machine_info: dict, profile: str) -> tuple[str, str]:
    """(badge, why) for a row of the lesson with no result here (see missing_reason)."""
    return missing_reason(machine_info, profile, [group_label(c, f) for c, f in evidence.groups.items()])


def rule_verdicts(rule: dict, evidence: LessonEvidence, machine_info: dict, missing: tuple[str, str],
                  shown: dict) -> list[str]:
    """One rule's verdict per framework ("label: badge effect"), judged on `shown` (shown_results); frameworks
    with the same verdict or the same reason for having none are named together, and one that every framework
    shares is said once."""
    rows = rule_frameworks(rule, evidence.rows)
    if not rows:
        return [" ".join(no_rows(rule))]
    said: dict = {}
    for fw in rows:
        said.setdefault(verdict_cell(rule, shown.get(fw.name), evidence.lesson.name, machine_info, missing),
                        []).append(fw.label)
    if len(said) == 1 and len(rows) > 1:
        (badge, text), = said
        return [f"all {len(rows)} frameworks: {badge} {text}"]
    return [f"{', '.join(labels)}: {badge} {text}" for (badge, text), labels in said.items()]


def judges(current: dict, machine_info: dict) -> str:
    """The machine(s) whose numbers the verdicts of a lesson are judged on, or "" where none ran."""
    labels = sorted({judged_on(r, machine_info) for r in current.values() if r["status"] == Outcome.OK})
    return ", ".join(labels)


def related_lessons(evidence: list[LessonEvidence], example: str, machine_info: dict, profile: str) -> list[str]:
    """The benchmark page's list of the lessons that concern it (of all the lessons' `evidence`): each lesson's
    claims with their verdicts, each judged on the numbers of the machine named (or the reason there is none),
    never a claim alone."""
    lines = []
    for item in evidence:
        lesson = item.lesson
        if example not in lesson.concerns:
            continue
        missing, shown = missing_of(item, machine_info, profile), shown_results(item, profile)
        judged = judges(shown, machine_info)
        verdicts = [rule_verdicts(rule, item, machine_info, missing, shown) for rule in lesson.rules]
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
