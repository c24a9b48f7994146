"""The front page and the lists it links to: the Benchmarks and Frameworks pages, the home page's list of
benchmarks, and its "which one, for what?" table: every framework row against every benchmark.

Each cell of the table gives, for each machine with results (this build's, then the other results shown on
the benchmark pages: other profiles, other results folders, the reference results in the repository),
how many times slower than the fastest framework on that machine and benchmark it ran (by throughput:
rows that ran sizes of their own compare too), and the test accuracy where the benchmark has one. A
last column counts the lessons' verdicts per framework on this build's machine. Cells that did not
run say why (not installed, failed, no program for this benchmark), never blank.
"""
from __future__ import annotations

from collections import Counter

from ..build.outcome import Outcome
from ..build.verdict import NEEDS_CPU, NEEDS_GPU, NO_VERDICT, VERDICTS, device_reason, judge
from ..project import Example, Framework
from .gather.front import FrontView
from .markup import STATUS_TEXT, Writer, cell_text, doc_link
from .records import origin_text
from .verdicts import BADGE, measured_with_gpu, rule_frameworks, shown_results

OWN_SIZES = "†"
NO_BREAK_HYPHEN = "\u2011"


def slowdowns(column: dict) -> dict[str, float]:
    """Row -> its throughput's shortfall against the column's fastest (1.0 for the fastest)."""
    rates = {name: r["metrics"]["throughput"] for name, r in column.items()
             if r["status"] == Outcome.OK and r.get("metrics", {}).get("throughput")}
    fastest = max(rates.values(), default=0)
    return {name: fastest / rate for name, rate in rates.items()}


def cell_line(example: Example, fw: Framework, key: tuple, column: dict, has_program: bool,
              installed_here: bool) -> str:
    """One machine's figures for one framework and benchmark, or why there are none (`installed_here`: false
    where this build's own column's row is not installed)."""
    result = column.get(fw.name)
    if result is None:
        if not has_program:
            return "no program"
        return "not run" if installed_here else "not installed"
    stale = " (stale)" if result.get("stale") else ""
    if result["status"] != Outcome.OK:
        return STATUS_TEXT.get(result["status"], result["status"]) + stale
    slower = slowdowns(column)
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


def lesson_cell(fw: Framework, view: FrontView) -> str:
    """The verdicts of the lessons' claims on this framework, counted: on this build's machine, or where it has
    no result of a lesson, on the machine on record that has (shown_results)."""
    found: Counter = Counter()
    machine_info = view.machine_info
    shown = {item.lesson.name: shown_results(item, view.profile) for item in view.evidence}
    for lesson in view.lessons.lessons:
        for rule in lesson.rules:
            if fw.name not in {f.name for f in rule_frameworks(rule, view.lesson_rows[lesson.name])}:
                continue
            result = shown.get(lesson.name, view.lessons.results.get(lesson.name, {})).get(fw.name)
            off = device_reason(rule, measured_with_gpu(result, machine_info or {}), "")
            if off:                   # a claim about another device: no verdict from these numbers
                found[off[0]] += 1
            elif result is None:
                found["not run"] += 1
            elif result["status"] != Outcome.OK:
                found["needs a GPU" if result["status"] == Outcome.NEEDS_GPU else NO_VERDICT] += 1
            else:
                found[judge(rule, result.get("variants", {}))["verdict"]] += 1
    if not found:
        return "no lesson"
    judged = [f"{{bdg-{BADGE.get(verdict, 'danger')}}}`{verdict}: {found[verdict]}`" for verdict in VERDICTS
              if found[verdict]]
    rest = [f"{verdict}: {found[verdict]}" for verdict in (NEEDS_GPU, NEEDS_CPU, "not run") if found[verdict]]
    return " ".join(judged + ([", ".join(rest)] if rest else []))


def matrix_table(view: FrontView) -> str:
    """The front page's table (includes/matrix.md), over the benchmarks' machine columns."""
    shown = view.examples
    legend: dict[tuple, int] = {}        # every machine column of any benchmark, numbered once
    legend_texts = []
    for example in shown:
        table = view.columns[example.name]
        for key in table.keys:
            if key not in legend:
                legend[key] = len(legend) + 1
                legend_texts.append(f"{table.labels.get(key[0], key[0])}, profile `{key[1]}`, "
                                    f"{table.origins.get(key) or origin_text(key, table.by_column.get(key, {}))}")
    numbered = len(legend) > 1
    # (A heading wraps at its spaces, never inside "CIFAR-10" or "ResNet-50": non-breaking hyphens.)
    header = ["Framework", *[f"{{ref}}`{cell_text(ex.short_title).replace('-', NO_BREAK_HYPHEN)} <{ex.name}>`"
                             for ex in shown]]
    with_lessons = bool(view.lessons.lessons)
    if with_lessons:
        header.append(f"{{doc}}`Lessons <{doc_link('lessons')}>`: claims' verdicts here")
    rows = []
    for fw in view.frameworks:
        installed = view.installed[fw.name]
        name = f"{{doc}}`{cell_text(fw.label)} <{doc_link('frameworks/' + fw.name)}>`" + \
            ("" if installed else " (not installed here)")
        cells = [name]
        for example in shown:
            table = view.columns[example.name]
            keys = [key for number, key in enumerate(table.keys)
                    if number == 0 or fw.name in table.by_column.get(key, {})]
            lines = [(f"[{legend[key]}] " if numbered else "")
                     + cell_line(example, fw, key, table.by_column.get(key, {}), fw.name in view.written[example.name],
                                 installed or number != 0)
                     for number, key in enumerate(keys)]
            cells.append("<br>".join(lines))
        if with_lessons:
            cells.append(lesson_cell(fw, view))
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
            "; the lessons column counts the verdicts of the lessons' claims on this build's machine, or, for a "
            "lesson it has no result of, on the machine on record that has one"
            if with_lessons else "") + "."])


def render(view: FrontView, writer: Writer) -> None:
    """The Benchmarks and Frameworks pages (in example and tab order), the home page's list and its table."""
    shown, frameworks = view.examples, view.frameworks
    listing = [f"- **{{doc}}`{ex.title} <{doc_link('benchmarks/' + ex.name)}>`**: {ex.summary}" for ex in shown]
    writer.write("includes/benchmark_list.md", "\n".join(listing) + "\n")
    writer.write("benchmarks.md", "\n".join(
        ["# Benchmarks", "", "The three benchmarks of the original study, each in every framework.", "",
         *listing, "", f"Each benchmark's model exported to ONNX from every framework that can, and checked: "
         f"{{doc}}`ONNX <{doc_link('conversions')}>`.", "",
         "```{toctree}", ":hidden:", "", *[f"benchmarks/{ex.name}" for ex in shown], "conversions", "```"]) + "\n")
    writer.write("frameworks.md", "\n".join(
        ["# Frameworks", "", "Each framework's environment and its executed notebooks.", "",
         *[f"- {{doc}}`{fw.label} <{doc_link('frameworks/' + fw.name)}>`: {fw.api}" for fw in frameworks],
         "", "```{toctree}", ":hidden:", "", *[f"frameworks/{fw.name}" for fw in frameworks], "```"]) + "\n")
    writer.write("includes/matrix.md", matrix_table(view) + "\n")
