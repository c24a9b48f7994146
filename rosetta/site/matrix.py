"""The front page's "which one, for what?" table: every framework row against every benchmark.

Each cell gives, for each machine with results (this build's, then the other results shown on the
benchmark pages: other profiles, other results folders, the reference results in the repository),
how many times slower than the fastest framework on that machine and benchmark it ran (by throughput:
rows that ran sizes of their own compare too), and the test accuracy where the benchmark has one. A
last column counts the lessons' verdicts per framework on this build's machine. Cells that did not
run say why (not installed, failed, no program for this benchmark), never blank.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from ..build import results
from ..build.verdict import NEEDS_CPU, NEEDS_GPU, NO_VERDICT, VERDICTS, device_reason, judge
from ..project import REFERENCE_RESULTS, Example, Framework, Project
from .lesson_pages import BADGE, measured_with_gpu, rule_frameworks
from .pages import REFERENCE_TEXT, STATUS_TEXT, LessonsInput, Writer, cell_text, doc_link, origin_text, other_results

OWN_SIZES = "†"


def columns_of(project: Project, example: Example, frameworks: list[Framework], current: dict, profile: str,
               machine: str, machine_info: dict) -> tuple[list[tuple], dict, dict, dict]:
    """The example's results by column, as its benchmark page's table has them: this build's first."""
    by_column, labels, origins, _ = other_results(project, example, frameworks, profile, machine)
    own = (machine, profile)
    by_column[own] = current
    labels[machine] = results.machine_label(machine_info)
    published = machine_info.get("results_folder")
    origins[own] = ("this build" if not published else REFERENCE_TEXT
                    if Path(published).resolve() == (project.root / REFERENCE_RESULTS).resolve()
                    else f"results folder `{Path(published).name}`")
    return [own] + sorted(c for c in by_column if c != own), by_column, labels, origins


def slowdowns(column: dict) -> dict[str, float]:
    """Row -> its throughput's shortfall against the column's fastest (1.0 for the fastest)."""
    rates = {name: r["metrics"]["throughput"] for name, r in column.items()
             if r["status"] == "ok" and r.get("metrics", {}).get("throughput")}
    fastest = max(rates.values(), default=0)
    return {name: fastest / rate for name, rate in rates.items()}


def cell_line(example: Example, fw: Framework, key: tuple, column: dict, slower: dict, installed: bool,
              own: bool) -> str:
    """One machine's figures for one framework and benchmark, or why there are none."""
    result = column.get(fw.name)
    if result is None:
        if not example.snippet_path(fw).exists():
            return "no program"
        return "not installed" if own and not installed else "not run"
    stale = " (stale)" if result.get("stale") else ""
    if result["status"] != "ok":
        return STATUS_TEXT.get(result["status"], result["status"]) + stale
    if fw.name not in slower:
        return "no throughput" + stale
    ratio = slower[fw.name]
    # Two decimals near the fastest, so that only the fastest reads 1.0×.
    speed = "1.0×" if ratio == 1 else f"{ratio:.2f}×" if ratio < 2 else f"{ratio:.1f}×" if ratio < 10 \
        else f"{ratio:.0f}×"
    speed = f"{{ref}}`{speed} <{example.name}>`"          # to the benchmark page, whose table has the times
    speed = f"**{speed}**" if ratio == 1 else speed
    accuracy = result["metrics"].get("accuracy")
    sizes = result.get("sizes")
    mark = OWN_SIZES if sizes is not None and sizes != example.profiles.get(key[1], {}) else ""
    return speed + (f" · {accuracy:.1%}{mark}" if accuracy is not None else mark) + stale


def lesson_cell(fw: Framework, lessons: LessonsInput, frameworks: list[Framework],
                machine_info: dict | None = None) -> str:
    """The verdicts of the lessons' claims on this framework (this build's machine), counted."""
    found: Counter = Counter()
    for lesson in lessons.lessons:
        for rule in lesson.rules:
            if fw.name not in {f.name for f in rule_frameworks(rule, lesson, frameworks)}:
                continue
            result = lessons.results.get(lesson.name, {}).get(fw.name)
            off = device_reason(rule, measured_with_gpu(result, machine_info or {}), "")
            if off:                   # a claim about another device: no verdict from these numbers
                found[off[0]] += 1
            elif result is None:
                found["not run"] += 1
            elif result["status"] != "ok":
                found["needs a GPU" if result["status"] == "needs-gpu" else NO_VERDICT] += 1
            else:
                found[judge(rule, result.get("variants", {}))["verdict"]] += 1
    if not found:
        return "no lesson"
    judged = [f"{{bdg-{BADGE.get(verdict, 'danger')}}}`{verdict}: {found[verdict]}`" for verdict in VERDICTS
              if found[verdict]]
    rest = [f"{verdict}: {found[verdict]}" for verdict in (NEEDS_GPU, NEEDS_CPU, "not run") if found[verdict]]
    return " ".join(judged + ([", ".join(rest)] if rest else []))


def table(project: Project, examples: list[Example], frameworks: list[Framework], all_results: dict, envs: dict,
          profile: str, machine: str, machine_info: dict, lessons: LessonsInput) -> str:
    shown = [ex for ex in examples if ex.name in all_results]
    legend: dict[tuple, int] = {}        # every machine column of any benchmark, numbered once
    legend_texts = []
    per_example = {}
    for example in shown:
        columns, by_column, labels, origins = columns_of(project, example, frameworks, all_results[example.name],
                                                         profile, machine, machine_info)
        per_example[example.name] = (columns, by_column, {key: slowdowns(by_column.get(key, {})) for key in columns})
        for key in columns:
            if key not in legend:
                legend[key] = len(legend) + 1
                legend_texts.append(f"{labels.get(key[0], key[0])}, profile `{key[1]}`, "
                                    f"{origins.get(key) or origin_text(key, by_column.get(key, {}))}")
    numbered = len(legend) > 1
    header = ["Framework", *[f"{{ref}}`{cell_text(ex.short_title)} <{ex.name}>`" for ex in shown]]
    with_lessons = bool(lessons.lessons)
    if with_lessons:
        header.append(f"{{doc}}`Lessons <{doc_link('lessons')}>`: claims' verdicts here")
    rows = []
    for fw in frameworks:
        env = envs.get(fw.name)
        installed = env is None or env.ok
        name = f"{{doc}}`{cell_text(fw.label)} <{doc_link('frameworks/' + fw.name)}>`" + \
            ("" if installed else " (not installed here)")
        cells = [name]
        for example in shown:
            columns, by_column, slower = per_example[example.name]
            keys = [key for number, key in enumerate(columns) if number == 0 or fw.name in by_column.get(key, {})]
            lines = [(f"[{legend[key]}] " if numbered else "")
                     + cell_line(example, fw, key, by_column.get(key, {}), slower[key], installed, number == 0)
                     for number, key in enumerate(keys)]
            cells.append("<br>".join(lines))
        if with_lessons:
            cells.append(lesson_cell(fw, lessons, frameworks, machine_info))
        rows.append("| " + " | ".join(cells) + " |")
    machines = ("Machines: " + "; ".join(f"[{number}] {text}" for number, text in enumerate(legend_texts, 1))
                if numbered else f"Machine: {legend_texts[0]}" if legend_texts else "")
    return "\n".join([
        machines + ".", "",
        ":::{container} rosetta-matrix", "",
        "| " + " | ".join(header) + " |", "|" + "---|" * len(header), *rows, "", ":::", "",
        "Each cell: how many times slower than the fastest framework on the same machine and benchmark "
        "(its throughput against the fastest's, so **1.0×** is the fastest and lower is better), then the test "
        f"accuracy where the benchmark has one. {OWN_SIZES}: sizes of its own (fewer images, too slow for the "
        "profile's): its speed compares, its accuracy does not. The benchmark pages have the times, the "
        "machines and the code" + (
            "; the lessons column counts the verdicts of the lessons' claims on this build's machine"
            if with_lessons else "") + "."])


def write(project: Project, examples: list[Example], frameworks: list[Framework], all_results: dict, envs: dict,
          profile: str, machine: str, machine_info: dict, lessons: LessonsInput, writer: Writer) -> None:
    writer.write("includes/matrix.md", table(project, examples, frameworks, all_results, envs, profile, machine,
                                             machine_info, lessons) + "\n")
