"""Charts for the pages, drawn with matplotlib (Agg) into PNG bytes."""
from __future__ import annotations

import io

import matplotlib
import numpy as np
from PIL import Image

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from ..build.outcome import Outcome
from ..project import Example, Framework  # noqa: E402


def png(figure) -> bytes:
    """The figure as PNG bytes, without the matplotlib version in its metadata (stable files), in a palette
    of 256 colours: a third of the size of matplotlib's RGBA (the CNN page's equivalence chart 136 KB ->
    43 KB, the heaviest file of the page), with no difference to see in lines, bars and text drawn on white."""
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    plt.close(figure)
    drawn = Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")
    paletted = io.BytesIO()
    drawn.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        paletted, format="PNG", optimize=True)
    return paletted.getvalue()


def timing_chart(example: Example, frameworks: list[Framework], current: dict) -> bytes | None:
    """Horizontal bars of the timed step per framework, labelled with test accuracy."""
    rows = []
    for fw in frameworks:
        result = current.get(fw.name)
        if result and result["status"] == Outcome.OK and example.timed_step in result["steps"]:
            summary = result["steps"][example.timed_step]
            # A row that ran sizes of its own (ConvNetJS): its bar says how many samples it timed.
            own = result.get("sizes", {}) != example.profiles.get(result.get("profile"), result.get("sizes", {}))
            samples = result["metrics"].get(example.samples_metric)
            unit = example.throughput_unit.split("/")[0]
            rows.append((fw.label, summary, result["metrics"].get("accuracy"),
                         f"\n own sizes: {samples:,} {unit}" if own and samples else ""))
    if not rows:
        return None
    figure, axes = plt.subplots(figsize=(7, 0.6 * len(rows) + 1.2), dpi=110)
    labels = [label for label, *_ in rows][::-1]
    medians = [summary["median"] for _, summary, *_ in rows][::-1]
    errors = [[s["median"] - s["min"] for _, s, *_ in rows][::-1], [s["max"] - s["median"] for _, s, *_ in rows][::-1]]
    bars = axes.barh(labels, medians, xerr=errors, color=["#a6b8d8" if own else "#4c72b0" for *_, own in rows[::-1]])
    for bar, (_, _, accuracy, own) in zip(bars, rows[::-1]):
        note = f" {bar.get_width():.1f} s" + (f", accuracy {accuracy:.1%}" if accuracy is not None else "") + own
        axes.text(bar.get_width(), bar.get_y() + bar.get_height() / 2, note, va="center", fontsize=9)
    axes.set_xlabel(f"{example.timed_step} time, seconds (median; whiskers: min–max)")
    axes.set_xlim(0, max(medians) * (1.9 if any(own for *_, own in rows) else 1.6))   # room for the notes
    axes.spines[["top", "right"]].set_visible(False)
    return png(figure)


def loss_chart(frameworks: list[Framework], check: dict) -> bytes | None:
    """The equivalence check's training losses: overlaid, and each relative to the first tab's."""
    curves = [(fw.label, np.array(check["frameworks"][fw.name]["losses"])) for fw in frameworks
              if check["frameworks"].get(fw.name, {}).get("losses")]
    if len(curves) < 2:
        return None
    steps = np.arange(1, len(curves[0][1]) + 1)
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(7, 5.2), dpi=110, sharex=True,
                                         gridspec_kw={"height_ratios": [3, 2]})
    markers = "osD^vx"
    for index, (label, losses) in enumerate(curves):
        top.plot(steps, losses, marker=markers[index % len(markers)], markersize=4, linewidth=1.2,
                 label=label, alpha=0.8, color=f"C{index}")
    top.set_ylabel("training loss")
    top.legend(frameon=False, fontsize=9)
    reference_label, reference = curves[0]
    for index, (label, losses) in enumerate(curves[1:], 1):
        relative = np.abs(losses - reference) / np.abs(reference)
        bottom.semilogy(steps, np.maximum(relative, 1e-9), marker=markers[index % len(markers)], markersize=4,
                        linewidth=1, label=f"{label} vs {reference_label}", color=f"C{index}")
    bottom.axhline(check["tolerance"]["loss"], color="#c44e52", linestyle="--", linewidth=1, label="tolerance")
    bottom.set_ylabel("relative difference\n(1e-9: equal)")
    bottom.xaxis.set_major_locator(MaxNLocator(integer=True))
    bottom.set_xlabel("optimizer step (the same batches in every tab)")
    bottom.legend(frameon=False, fontsize=8, ncol=2)
    for axes in (top, bottom):
        axes.spines[["top", "right"]].set_visible(False)
    return png(figure)


def variants_chart(lesson, metric: str, label: str, rows: list[tuple[str, dict | None]]) -> bytes | None:
    """A lesson's metric per framework (groups) and variant (bars, only those the framework ran):
    median with min–max whiskers; one colour per variant across the groups."""
    groups = []
    for name, result in rows:
        if result and result["status"] == Outcome.OK:
            bars = [(v, result["variants"][v][metric]) for v in lesson.variants
                    if result.get("variants", {}).get(v, {}).get(metric)]
            if bars:
                groups.append((name, bars))
    if not groups:
        return None
    colours = {v: plt.get_cmap("tab10")(i % 10) for i, v in enumerate(lesson.variants)}
    n_bars = sum(len(bars) for _, bars in groups)
    figure, axes = plt.subplots(figsize=(7, 0.4 * n_bars + 0.3 * len(groups) + 1.2), dpi=110)
    position, ticks, shown = 0.0, [], {}
    for name, bars in reversed(groups):
        first = position
        for variant, values in reversed(bars):
            middle = float(np.median(values))
            shown[variant] = axes.barh(position, middle, height=0.8, color=colours[variant],
                                       xerr=[[middle - min(values)], [max(values) - middle]])
            position += 1
        ticks.append(((first + position - 1) / 2, name))
        position += 0.6                                   # a gap between frameworks
    axes.set_yticks([at for at, _ in ticks], [name for _, name in ticks])
    axes.set_xlabel(f"{label} (median; whiskers: min–max)")
    ordered = [v for v in lesson.variants if v in shown]
    axes.legend([shown[v] for v in ordered], ordered, loc="lower right", bbox_to_anchor=(1, 1),
                ncol=min(3, len(ordered)), fontsize=8, frameon=False)   # above the axes: never over a bar
    axes.spines[["top", "right"]].set_visible(False)
    return png(figure)


def curve_chart(curve: dict, labels: dict, rows: list[tuple[str, dict | None]]) -> tuple[bytes, list[str]] | None:
    """A lesson whose variants are points on an axis (batch sizes): a panel per metric in `curve["metrics"]`
    that some row measured (titled by `labels`), a line per framework through the medians with min–max
    whiskers, on logarithmic axes (batch sizes double; a throughput that doubles is as far up at any
    height; a panel with values below 1 is linear up to 1). The PNG and the metrics drawn."""
    x = curve["x"]
    panels = []
    for metric in curve["metrics"]:
        lines = []
        for name, result in rows:
            variants = result.get("variants", {}) if result and result["status"] == Outcome.OK else {}
            points = sorted((at, variants[v][metric]) for v, at in x.items() if variants.get(v, {}).get(metric))
            if points:
                lines.append((name, points))
        if lines:
            panels.append((metric, lines))
    if not panels:
        return None
    figure, grid = plt.subplots(1, len(panels), figsize=(4.2 * len(panels) + 0.6, 3.8), dpi=110, squeeze=False)
    names = list(dict.fromkeys(name for _, lines in panels for name, _ in lines))
    colours = {name: plt.get_cmap("tab10")(i % 10) for i, name in enumerate(names)}
    for axes, (metric, lines) in zip(grid[0], panels):
        for name, points in lines:
            at = [point for point, _ in points]
            middle = [float(np.median(values)) for _, values in points]
            low = [m - min(values) for m, (_, values) in zip(middle, points)]
            high = [max(values) - m for m, (_, values) in zip(middle, points)]
            axes.errorbar(at, middle, yerr=[low, high], color=colours[name], marker="o", markersize=4,
                          capsize=3, label=name)
        axes.set_xscale("log", base=2)
        if min(min(values) for _, points in lines for _, values in points) < 1:
            axes.set_yscale("symlog", linthresh=1)        # values near 0 (memory a pool already held): linear below 1
            axes.set_ylim(bottom=0)
        else:
            axes.set_yscale("log")
        ticks = sorted({point for _, points in lines for point, _ in points})   # the sizes measured, not all in x
        axes.set_xticks(ticks, [f"{value:g}" for value in ticks])
        axes.minorticks_off()
        axes.set_xlabel(curve["x_label"])
        axes.set_title(labels.get(metric, metric), fontsize=10)
        axes.grid(True, which="major", linewidth=0.4, alpha=0.5)
        axes.spines[["top", "right"]].set_visible(False)
    grid[0][0].legend(fontsize=8, frameon=False)
    return png(figure), [metric for metric, _ in panels]


def ceiling_chart(groups: list[tuple[str, list[tuple[str, float]]]], peak_text: str) -> bytes | None:
    """How far a row is from its machine: per benchmark, bars of the share of the machine's float32
    matrix-multiply peak (the tab as written, then tuned), on an axis that ends at the peak (100 %)."""
    bars = [(f"{group}: {label}", share, index == 0) for group, items in groups
            for index, (label, share) in enumerate(items)]        # each group's first bar: the tab as written
    if not bars:
        return None
    figure, axes = plt.subplots(figsize=(7, 0.45 * len(bars) + 1.3), dpi=110)
    labels = [label for label, *_ in bars][::-1]
    shares = [share * 100 for _, share, _ in bars][::-1]
    colours = ["#4c72b0" if as_written else "#dd8452" for *_, as_written in bars][::-1]
    drawn = axes.barh(labels, shares, color=colours)
    for bar, share in zip(drawn, shares):
        axes.text(bar.get_width() + 1, bar.get_y() + bar.get_height() / 2, f"{share:.1f} %", va="center", fontsize=9)
    axes.axvline(100, color="#c44e52", linewidth=1.5)
    axes.text(99, len(bars) - 0.45, "the machine's peak", ha="right", va="top", fontsize=9, color="#c44e52")
    axes.set_xlim(0, 105)
    axes.set_xlabel(f"% of the machine's peak ({peak_text})")
    axes.spines[["top", "right"]].set_visible(False)
    return png(figure)
