"""The benchmark page's "Are these the same model?": the equivalence check's matrices, loss chart and notes,
rendered from the stored check (a plain dict, see rosetta/build/equivalence.py)."""
from __future__ import annotations

from ..build.outcome import Outcome
from ..project import Example, Framework
from . import charts
from .markup import Writer, cell_text, escape, fence


def pair_value(values: dict, a: str, b: str):
    return values.get(f"{a} vs {b}", values.get(f"{b} vs {a}"))


def marked(value: float, limit: float) -> str:
    """A measured difference with its verdict: ✓ within the tolerance, ✗ (bold) over it."""
    return f"{value:.1e} ✓" if value <= limit else f"**{value:.1e} ✗**"


def difference_matrix(frameworks: list[Framework], values: dict, tolerance, exempt=lambda a, b: False) -> str:
    """Framework x framework table of measured differences; ✗ marks one over its tolerance,
    ≠ a pair that a note says computes different functions (measured, not judged)."""
    header = ["vs.", *[fw.label for fw in frameworks]]      # (a heading without text reads as nothing)
    lines = [":::{container} rosetta-differences", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for a in frameworks:
        row = [f"**{a.label}**"]
        for b in frameworks:
            value = pair_value(values, a.name, b.name)
            if a.name == b.name:
                row.append("·")
            elif value is None:
                row.append("not run")
            elif exempt(a.name, b.name):
                row.append(f"{value:.1e} ≠")
            else:
                row.append(marked(value, tolerance(a.name, b.name)))
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join([*lines, "", ":::"])


def versions_text(frameworks: list[Framework], check: dict) -> str:
    parts = []
    for fw in frameworks:
        info = check["frameworks"].get(fw.name)
        if info and info.get("versions"):
            parts.append(f"{fw.label}: " + ", ".join(f"{k} {v}" for k, v in info["versions"].items()))
    return "; ".join(parts)


def fact_text(value) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def operations_text(check: dict, labels: dict) -> str:
    """The neutral operation count, and how it compares with a framework's own FLOP counter."""
    ops = check.get("operations")
    if not ops:
        return ""
    kinds = {"forward": "forward", "train": "one training step"}
    text = "Operations per sample, counted from the neutral model (each kernel at each of its positions): " + \
        ", ".join(f"{kinds[k]} {v / 1e9:.4g} GFLOP" for k, v in ops["neutral"].items()) + "."
    counted = ops.get("counted")
    if counted:
        text += (f" {labels.get(counted['framework'], counted['framework'])}'s FLOP counter on its snippet's model "
                 f"({counted['variant']}): " + ", ".join(
                     f"{kinds[k]} {counted[k] / 1e9:.4g} ({ops['differences'][k]:.2%} apart)"
                     for k in ops["differences"]) + f"; tolerance {ops['tolerance']:.0%}.")
    return text


def note_measurement(note: dict, labels: dict, check: dict) -> str:
    measured = note.get("measured") or {}
    if measured.get("status") != Outcome.OK:
        return f"Not measured in this build: {escape(measured.get('reason', ''))}." if measured else ""
    against = labels.get(measured["against"], measured["against"])
    batches = " with batches in which no word repeats" if note.get("batches") == "distinct_tokens" else ""
    sentences = []
    for name, m in measured["frameworks"].items():
        label = labels.get(name, name)
        if m.get("status") != Outcome.OK:
            sentences.append(f"{label}: {m.get('status')} {escape(m.get('reason', ''))}".strip())
            continue
        verdict = "✓" if m["passed"] else "✗ more than the tolerance: something else differs too"
        change = (" and the change below" if batches else " with the change below") if note.get("change") else ""
        if check["steps"]:
            what, where_before = f"final weights after {check['steps']} steps", f" (in {m['before_where']})"
        else:
            what, where_before = "relative difference of the outputs", ""
        sentences.append(f"{label} vs {against}, {what}: **{m['before']:.1e}**{where_before} as the snippets "
                         f"stand; **{m['after']:.1e}**{batches}{change} (tolerance {m['tolerance']:g}) {verdict}")
        before_facts = check["frameworks"].get(name, {}).get("facts", {})
        for fact, value in m.get("facts_after", {}).items():
            sentences.append(f"{label}'s {fact}: {fact_text(before_facts.get(fact, '?'))} as built, "
                             f"{fact_text(value)} with the change")
    return "Measured: " + "; ".join(sentences) + "."


def equivalence_section(example: Example, frameworks: list[Framework], check: dict, writer: Writer) -> list[str]:
    """Same weights in, same numbers out? The matrices, the loss chart and the notes."""
    labels = {fw.name: fw.label for fw in frameworks}
    own = check.get("own_sizes") or {}        # rows checked on their own sizes: their own section below
    ran = [fw for fw in frameworks if check["frameworks"].get(fw.name, {}).get("status") == Outcome.OK
           and fw.name not in own]
    folder = f"snippets/{example.name}/equivalence"
    different = {n for note in check.get("notes", []) if note.get("different_function") for n in note["frameworks"]}
    overrides = ", ".join(f"`{k} = {v}`" for k, v in check["overrides"].items())
    lines = ["## Are these the same model?", "",
             f"Every tab loads the **same weights** (seeded, framework-neutral: see the layout below) into the "
             f"model that its own snippet builds: the snippet's steps up to *{example.timed_step}* run unchanged "
             f"under these settings: {overrides}. A small adapter per framework (`{folder}/`) maps the "
             f"tensors in and reads them back. Then every tab computes its outputs for the same "
             f"{check['forward_batch']} seeded random inputs"
             + (f", and takes {check['steps']} steps of its snippet's own optimizer on the same batches of "
                f"{check['batch_size']} (random inputs and labels)" if check["steps"] else "")
             + ". Every pair is compared.", ""]
    if check["passed"]:
        agree = "All pairs agree" if not different else "All pairs of the same variant agree"
        lines += [f"```{{admonition}} {agree}", ":class: tip",
                  f"Checked on {check['machine_label']}, {check['date'][:10]}. {versions_text(frameworks, check)}.",
                  "```", ""]
    else:
        failures = "\n".join(f"- {cell_text(f)}" for f in check["failures"]) or "- fewer than two tabs ran"
        lines += ["```{admonition} Differences over the tolerance", ":class: warning",
                  f"Checked on {check['machine_label']}, {check['date'][:10]}. {versions_text(frameworks, check)}.",
                  "", failures, "```", ""]
    if check.get("stale"):
        lines += ["```{admonition} Stale", ":class: warning",
                  "These checks come from an earlier build: a snippet, an adapter, the neutral spec or an "
                  "environment has changed since, and this build did not run them again.", "```", ""]
    missing = [f"{labels.get(n, n)}: {info['status']} ({cell_text(info.get('reason', ''))})"
               for n, info in check["frameworks"].items() if info.get("status") != Outcome.OK]
    if missing:
        lines += ["Not compared: " + "; ".join(missing) + ".", ""]
    roundtrip = check.get("roundtrip", {})
    exact = [fw.label for fw in frameworks if roundtrip.get(fw.name) == 0]
    if exact:
        lines += [f"Round trip neutral → framework → neutral is exact (bit for bit) for {', '.join(exact)}.", ""]
    lines += forward_lines(ran, check, different, labels)
    if check["steps"]:
        lines += training_lines(example, ran, check, labels, writer)
    for row, result in own.items():
        lines += own_sizes_lines(row, result, check, labels)
    return lines + notes_lines(check, labels)


def forward_lines(ran: list[Framework], check: dict, different: set, labels: dict) -> list[str]:
    """The same inputs, the same outputs? Every pair's largest difference, and batch independence."""
    tol = check["tolerance"]
    lines = []
    if tol.get("relative"):
        lines += ["### Forward: the same features", "",
                  f"Largest |difference| of the outputs, relative to the largest output (tolerance {tol['logits']:g}; "
                  "≠: another variant of the model, see the notes below):", ""]
    else:
        lines += ["### Forward: the same logits", "",
                  f"Largest |difference| of the logits, dropout off (tolerance {tol['logits']:g}):", ""]
    lines += [difference_matrix(ran, check["logits"], lambda a, b: tol["logits"],
                                lambda a, b: bool({a, b} & different)), ""]
    alone = check.get("alone", {})
    if alone:
        lines += ["In inference mode an input's outputs must not depend on the rest of its batch. The first input "
                  "alone against the same input inside the batch: "
                  + ", ".join(f"{labels.get(n, n)} {v:.1e}" for n, v in alone.items()) + ".", ""]
    return lines


def training_lines(example: Example, ran: list[Framework], check: dict, labels: dict, writer: Writer) -> list[str]:
    """The same steps, the same losses and weights? The matrices, the train cells, the rounding floor, the chart."""
    tol = check["tolerance"]
    lines = [f"### Training: the same {check['steps']} steps", "",
             f"Largest relative difference of the loss at any step (tolerance {tol['loss']:g}):", "",
             difference_matrix(ran, check["losses"], lambda a, b: tol["loss"]), "",
             "Largest |difference| of any weight after the last step "
             f"(tolerance {tol['weights']:g}, or a note's measured allowance below):", "",
             difference_matrix(ran, check["weights"],
                               lambda a, b: pair_value(check["weights_tolerance"], a, b)), ""]
    if check.get("cell_weights") or check.get("cell_vs_steps"):
        lines += ["The timed step itself: each snippet's own *train* cell, run unchanged over the same batches "
                  "in the same order (`shuffle = false`, one epoch), from the same weights. Largest |difference| "
                  "of any weight after it:", "",
                  difference_matrix(ran, check.get("cell_weights", {}),
                                    lambda a, b: pair_value(check["weights_tolerance"], a, b)), "",
                  "Each train cell against the same steps taken one by one through its adapter: "
                  + ", ".join(f"{labels.get(n, n)} {v:.1e}" for n, v in check.get("cell_vs_steps", {}).items())
                  + f" (tolerance {tol['weights']:g}).", ""]
    lines += workers_lines(ran, check)
    moved = check.get("moved", {})
    if moved:
        lines += [f"For scale: training moved the weights by up to {max(moved.values()):.1e}.", ""]
    floor = check.get("noise_floor")
    if floor and floor.get("status") == Outcome.OK:
        lines += [f"Rounding alone: {labels.get(floor['framework'], floor['framework'])} against itself, "
                  f"started from weights one float32 ulp apart, ends {floor['weights']:.1e} apart "
                  f"(in {floor['where']}) after the same {check['steps']} steps; its losses differ by up to "
                  f"{floor['loss']:.1e} relative. Differences of that size say nothing about the frameworks.", ""]
    chart = charts.loss_chart(ran, check)
    if chart:
        writer.write(f"benchmarks/{example.name}-equivalence.png", chart)
        lines += [f"```{{figure}} {example.name}-equivalence.png",
                  f":alt: training loss of every tab over the {check['steps']} checked steps",
                  ":figclass: rosetta-chart", "",
                  f"The loss of every tab over the same {check['steps']} steps, and how far each is from "
                  f"{ran[0].label}'s.", "```", ""]
    return lines


def own_sizes_lines(row: str, result: dict, check: dict, labels: dict) -> list[str]:
    """A row checked on the batches its own row trains, against one other row run again on them: each comparison
    of the sections above for that pair, in one table."""
    label, against, tol = labels.get(row, row), labels.get(result["against"], result["against"]), check["tolerance"]
    status = result["frameworks"].get(result["against"], {}).get("status")
    info = check["frameworks"].get(row, {})
    lines = [f"### {label}, on the batches its row trains", "", result.get("why", ""), "",
             f"So {label} takes {result['steps']} steps on batches of {result['batch_size']} (random inputs and "
             f"labels), the sizes its own row trains here, from the same neutral weights, and {against} is run "
             f"again on the same batches as the other side; the forward check is on the same "
             f"{result['forward_batch']} inputs as above.", ""]
    if info.get("status") != Outcome.OK or status != Outcome.OK:
        return lines + ["Not compared in this build: " + "; ".join(
            f"{labels.get(n, n)}: {i.get('status')} ({cell_text(i.get('reason', ''))})"
            for n, i in ((row, info), (result["against"], result["frameworks"].get(result["against"], {})))
            if i.get("status") != Outcome.OK) + ".", ""]
    pair = f"{result['against']} vs {row}"

    if pair not in result.get("logits", {}):          # an adapter read back the wrong tensors: said above
        return lines + ["Not compared: the weights read back did not match the neutral layout (see the "
                        "differences above).", ""]
    weights_limit = pair_value(result["weights_tolerance"], row, result["against"])
    roundtrip = result["roundtrip"].get(row)
    table = [("Round trip neutral → " + label + " → neutral", "exact ✓" if roundtrip == 0 else f"**{roundtrip} ✗**",
              "exact"),
             ("Logits, largest \\|difference\\| (dropout off)", marked(result["logits"][pair], tol["logits"]),
              f"{tol['logits']:g}")]
    if row in result.get("alone", {}):
        table.append((f"{label}'s first input alone against the same input in its batch",
                      marked(result["alone"][row], tol["logits"]), f"{tol['logits']:g}"))
    table += [(f"Loss at any of the {result['steps']} steps, largest relative difference",
               marked(result["losses"][pair], tol["loss"]), f"{tol['loss']:g}"),
              ("Any weight after the last step, largest \\|difference\\|",
               marked(result["weights"][pair], weights_limit), f"{weights_limit:g}")]
    if pair in result.get("cell_weights", {}):
        table += [("Any weight after each snippet's own *train* cell over the same batches",
                   marked(result["cell_weights"][pair], weights_limit), f"{weights_limit:g}"),
                  (f"{label}'s train cell against the same steps taken one by one",
                   marked(result["cell_vs_steps"][row], tol["weights"]), f"{tol['weights']:g}")]
    lines += [f"| {label} against {against} | measured | tolerance |", "|---|---|---|",
              *[f"| {what} | {value} | {limit} |" for what, value, limit in table], ""]
    floor = result.get("noise_floor") or {}
    if floor.get("status") == Outcome.OK:
        lines += [f"For scale at these sizes: training moved the weights by up to "
                  f"{max(result['moved'].values()):.1e}; {against} against itself, from weights one float32 ulp "
                  f"apart, ends {floor['weights']:.1e} apart.", ""]
    return lines


def workers_lines(ran: list[Framework], check: dict) -> list[str]:
    """A data-parallel example: each row on N workers against the same program on one (measured per row)."""
    against = check.get("workers")
    if not against:
        return []
    n, tol, rows = against["workers"], check["tolerance"], against["rows"]
    lines = [f"### {n} workers against one", "",
             f"Each tab above ran as {n} processes, each taking its share of every batch of {check['batch_size']}. "
             f"Here the same program runs as 1 process taking whole batches, from the same weights over the same "
             f"batches: data parallelism may change the order of a sum, nothing else. Every rank's copy of the "
             f"model must also end equal to rank 0's, bit for bit.", "",
             f"| | loss vs 1 worker, largest relative difference (tolerance {tol['loss']:g}) "
             f"| final weights vs 1 worker, largest \\|difference\\| (tolerance {tol['weights']:g}) "
             f"| ranks' copies, largest \\|difference\\| |", "|---|---|---|---|"]
    for fw in ran:
        row = rows.get(fw.name)
        if row is None:
            continue
        if row["status"] != Outcome.OK:
            lines.append(f"| **{fw.label}** | 1 worker: {row['status']} ({cell_text(row.get('reason', ''))}) | | |")
            continue
        marks = [f"{row['loss']:.1e} " + ("✓" if row["loss"] <= tol["loss"] else "✗"),
                 f"{row['weights']:.1e} " + ("✓" if row["weights"] <= tol["weights"] else "✗")
                 + f" (in `{row['where']}`)",
                 "equal ✓" if row["ranks_differ"] == 0 else f"**{row['ranks_differ']:.1e} ✗**"]
        lines.append(f"| **{fw.label}** | " + " | ".join(marks) + " |")
    return lines + [""]


def notes_lines(check: dict, labels: dict) -> list[str]:
    """Where the frameworks differ (each note, measured), and the neutral weights' layout."""
    lines = []
    if check.get("notes"):
        lines += ["### Where the frameworks differ", ""]
        for note in check["notes"]:
            lines += [f"#### {note['title']}", "", note["text"], ""]
            measurement = note_measurement(note, labels, check)
            if measurement:
                lines += [measurement, ""]
            if note.get("change"):
                lines += [fence(note["change"].strip("\n"), "python"), ""]
    operations = operations_text(check, labels)
    lines += ["### The neutral weights", "", *[f"- {c}" for c in check["conventions"]], "",
              *([operations, ""] if operations else []),
              f":::{{dropdown}} All {len(check['tensors'])} tensors, in the order of the .npz file", "",
              "| tensor | shape |", "|---|---|",
              *[f"| `{t['name']}` | {' × '.join(map(str, t['shape']))} |" for t in check["tensors"]], "", ":::", ""]
    return lines
