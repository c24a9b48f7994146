"""The equivalence check's procedure and arithmetic: which runs a check makes, and how their outputs compare.

It is given `run`, which runs one row's worker (run(fw, inputs, tag, change="", train_cell=False) returns its
outcome, with the output arrays) and `parallel`, which runs a list of calls side by side; how and where a
worker runs, what is kept and when a check is due is the job's side (equivalence.py). What this module
decides changes the numbers of a check: its code is part of every check's cache key (WORKER_CODE there).
"""
from __future__ import annotations

import itertools

import numpy as np

from .. import neutral
from ..project import Framework

OPERATIONS_TOLERANCE = 0.01              # neutral operation count vs a framework's FLOP counter, relative
# The facts an adapter may report from its framework's own FLOP counter (per sample, in GFLOP).
COUNTED = {"forward": "forward GFLOPs per sample", "train": "training GFLOPs per sample"}


def measure(spec: neutral.Spec, run, candidates: list, skipped: dict, inputs: dict, seed: int, parallel) -> dict:
    """Every runnable row from the same inputs (initial weights and batches), every pair compared, then the noise
    floor and each note's experiment; `skipped` holds the outcome of each candidate that cannot run (no
    environment, no adapter). Returns the rows' outcomes (arrays taken out), their outputs, the comparisons and
    the failures."""
    runnable = [fw for fw in candidates if fw.name not in skipped]
    base_runs = parallel([lambda fw=fw: run(fw, inputs, "base", train_cell=True) for fw in runnable])
    outputs, ran = {}, {}
    for fw, outcome in zip(runnable, base_runs):
        arrays = outcome.pop("arrays", None)
        if arrays is not None:
            outputs[fw.name] = arrays
            outcome["losses"] = [float(v) for v in arrays["losses"]]
        ran[fw.name] = outcome
    per_framework = {fw.name: ran.get(fw.name, skipped.get(fw.name)) for fw in candidates
                     if fw.name in ran or fw.name in skipped}
    compared = compare(spec, inputs["weights"], outputs)
    failures = compared.pop("failures")
    failures += [f"{name}: {info['status']}: {info['reason']}" for name, info in per_framework.items()
                 if info["status"] in ("failed", "timeout")]
    by_name = {fw.name: fw for fw in candidates}
    # The noise floor and each note's experiment need the base runs only: they run side by side too.
    first = next(iter(outputs), None)
    follow_ups = [lambda: noise_floor(run, by_name[first], inputs, outputs[first], seed)
                  if first and spec.steps else None]
    follow_ups += [lambda note=note: measure_note(run, note, by_name, inputs, outputs, seed)
                   for note in spec.notes if note.get("against")]
    floor, *measured_notes = parallel(follow_ups)
    notes = []
    for note in spec.notes:
        entry = dict(note)
        if note.get("against"):
            entry["measured"] = measured_notes.pop(0)
            for name, m in entry["measured"].get("frameworks", {}).items():
                if m.get("passed") is False:
                    failures.append(f"note {note['title']!r}: with its change, {name} vs {note['against']} "
                                    f"still differ by {m['after']:.3g} in {m['after_where']} "
                                    f"(tolerance {m['tolerance']:g}): the note does not explain it all")
        notes.append(entry)
    operations = operations_check(spec, per_framework, notes)
    for kind, difference in operations["differences"].items():
        if difference > OPERATIONS_TOLERANCE:
            counted = operations["counted"]
            failures.append(f"operations: the neutral count of {kind} operations per sample "
                            f"({operations['neutral'][kind]:.4g}) and {counted['framework']}'s FLOP counter "
                            f"({counted[kind]:.4g}, {counted['variant']}) differ by {difference:.1%} "
                            f"(tolerance {OPERATIONS_TOLERANCE:.0%}): a positions entry in weights.toml is wrong")
    return {"frameworks": per_framework, "outputs": outputs, "compared": compared, "failures": failures,
            "noise_floor": floor, "notes": notes, "operations": operations}


# --- comparing ---------------------------------------------------------------------------------------

def split(arrays: dict, prefix: str) -> dict:
    return {name[len(prefix):]: value for name, value in arrays.items() if name.startswith(prefix)}


def absolute_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| elementwise; infinite where either side is not finite (a diverged run must never
    compare as close: NaN > tolerance is False)."""
    a, b = a.astype(np.float64), b.astype(np.float64)
    return np.where(np.isfinite(a) & np.isfinite(b), np.abs(a - b), np.inf)


def size(value: float) -> str:
    """A measured difference for a message; infinite means a value was not finite."""
    return f"{value:.3g}" if np.isfinite(value) else "inf (a value is not finite: the run diverged)"


def max_difference(a: dict, b: dict) -> tuple[float, str]:
    """Largest |a - b| over all tensors, and the tensor where it is."""
    worst, where = 0.0, ""
    for name in a:
        diff = float(np.max(absolute_difference(a[name], b[name]), initial=0.0))
        if diff > worst or not where:
            worst, where = diff, name
    return worst, where


def loss_difference(a: np.ndarray, b: np.ndarray) -> tuple[float, int]:
    """Largest relative difference of two loss curves, and the step (1-based) where it is."""
    relative = absolute_difference(a, b) / np.maximum(np.maximum(np.abs(a), np.abs(b)), 1e-12)
    relative = np.where(np.isnan(relative), np.inf, relative)
    step = int(np.argmax(relative))
    return float(relative[step]), step + 1


def logits_difference(spec: neutral.Spec, a: np.ndarray, b: np.ndarray) -> float:
    """Largest |a - b| of two outputs; relative to the largest |b| where the spec says so (features)."""
    diff = float(np.max(absolute_difference(a, b)))
    return diff / max(float(np.max(np.abs(b))), 1e-30) if spec.tolerance.get("relative") else diff


def different_function(spec: neutral.Spec, a: str, b: str) -> bool:
    """A note says one side computes another function (another variant of the model)."""
    return any(n.get("different_function") and {a, b} & set(n["frameworks"]) for n in spec.notes)


def pair_tolerance(spec: neutral.Spec, a: str, b: str) -> float:
    """The final-weights tolerance of a pair: a note about either side may allow the size it explains."""
    allowed = [n["weights_tolerance"] for n in spec.notes
               if "weights_tolerance" in n and {a, b} & set(n["frameworks"])]
    return max([spec.tolerance["weights"], *allowed])


def compare(spec: neutral.Spec, initial: dict, outputs: dict[str, dict]) -> dict:
    """Every pair of frameworks that ran; failures are sentences naming the pair and the size."""
    tol = spec.tolerance
    failures, roundtrip = [], {}
    finals = {}
    for name, arrays in outputs.items():
        back, final = split(arrays, "roundtrip/"), split(arrays, "final/")
        try:
            neutral.check_weights(spec, back, f"{name} adapter, read after load")
            neutral.check_weights(spec, final, f"{name} adapter, read after training")
        except neutral.SpecError as exc:
            failures.append(str(exc))
            roundtrip[name] = None
            continue
        diff, where = max_difference(back, initial)
        roundtrip[name] = diff
        if diff != 0:
            failures.append(f"{name}: round trip neutral -> {name} -> neutral is not exact: "
                            f"{where} differs by {diff:.3g}")
        finals[name] = final
    names = [n for n in outputs if roundtrip.get(n) is not None]
    if not spec.steps:
        finals = {}            # inference only: nothing trained, nothing moved
    # Inference mode: an input's outputs do not depend on the rest of its batch (batch-norm statistics).
    alone = {}
    for name in names:
        if "alone" in outputs[name]:
            alone[name] = logits_difference(spec, outputs[name]["alone"], outputs[name]["logits"][:1])
            if alone[name] > tol["logits"]:
                failures.append(f"forward: {name}: one input alone differs from the same input in its batch by "
                                f"{alone[name]:.3g} (tolerance {tol['logits']:g}): is it in inference mode?")
    # The snippets' own train cells: across frameworks, and each against its adapter's steps.
    cells = {name: split(outputs[name], "cell/") for name in finals if split(outputs[name], "cell/")}
    cell_vs_steps, cell_weights = {}, {}
    for name, cell in cells.items():
        try:
            neutral.check_weights(spec, cell, f"{name} adapter, read after the train cell")
        except neutral.SpecError as exc:
            failures.append(str(exc))
            continue
        cell_vs_steps[name], where = max_difference(cell, finals[name])
        if cell_vs_steps[name] > tol["weights"]:
            failures.append(f"train cell: {name}: the snippet's own train cell ends {size(cell_vs_steps[name])} away "
                            f"from the same {spec.steps} steps taken one by one (in {where}; tolerance "
                            f"{tol['weights']:g})")
    logits, losses, weights, weights_tolerance = {}, {}, {}, {}
    for a, b in itertools.combinations(names, 2):
        pair = f"{a} vs {b}"
        logits[pair] = logits_difference(spec, outputs[a]["logits"], outputs[b]["logits"])
        if logits[pair] > tol["logits"] and not different_function(spec, a, b):
            what = "relative difference of the outputs" if tol.get("relative") else "|Δ logits|"
            failures.append(f"forward: {pair}: max {what} = {logits[pair]:.3g} (tolerance {tol['logits']:g})")
        if not spec.steps:
            continue
        losses[pair], step = loss_difference(outputs[a]["losses"], outputs[b]["losses"])
        if losses[pair] > tol["loss"]:
            failures.append(f"training: {pair}: loss differs by {size(losses[pair])} relative at step {step} "
                            f"({outputs[a]['losses'][step - 1]:.6f} vs {outputs[b]['losses'][step - 1]:.6f}; "
                            f"tolerance {tol['loss']:g})")
        weights[pair], where = max_difference(finals[a], finals[b])
        weights_tolerance[pair] = pair_tolerance(spec, a, b)
        if weights[pair] > weights_tolerance[pair]:
            failures.append(f"training: {pair}: final weights differ by {size(weights[pair])} in {where} "
                            f"after {spec.steps} steps (tolerance {weights_tolerance[pair]:g})")
        if a in cell_vs_steps and b in cell_vs_steps:
            cell_weights[pair], where = max_difference(cells[a], cells[b])
            if cell_weights[pair] > weights_tolerance[pair]:
                failures.append(f"train cell: {pair}: weights after the snippets' own train cells differ by "
                                f"{size(cell_weights[pair])} in {where} (tolerance {weights_tolerance[pair]:g})")
    # How far training moved the weights: the scale the final-weights differences sit against.
    moved = {name: max_difference(final, initial)[0] for name, final in finals.items()}
    return {"roundtrip": roundtrip, "logits": logits, "alone": alone, "losses": losses, "weights": weights,
            "cell_weights": cell_weights, "cell_vs_steps": cell_vs_steps,
            "weights_tolerance": weights_tolerance, "moved": moved, "failures": failures}


def against_one_worker(spec: neutral.Spec, workers: int, outcomes: dict, outputs: dict, alone: dict) -> dict:
    """A data-parallel example: each row's run on `workers` ranks (each taking its share of every batch)
    against the same program on one worker taking whole batches, from the same weights over the same
    batches. The losses and final weights must agree within the example's tolerances, and every rank
    of a run must hold rank 0's weights exactly (`outcomes[row]["ranks_differ"]`): data parallelism
    changes where the arithmetic happens and the order of a sum, nothing else."""
    tol, rows, failures = spec.tolerance, {}, []
    for name, outcome in alone.items():
        if outcome["status"] != "ok":
            rows[name] = {"status": outcome["status"], "reason": outcome["reason"]}
            failures.append(f"{name} on 1 worker: {outcome['status']}: {outcome['reason']}")
            continue
        one, many = outcome["arrays"], outputs[name]
        loss, step = loss_difference(many["losses"], one["losses"])
        weights, where = final_difference(many, one)
        ranks = outcomes[name].get("ranks_differ", 0.0)
        rows[name] = {"status": "ok", "loss": loss, "step": step, "weights": weights, "where": where,
                      "ranks_differ": ranks, "losses_one": [float(v) for v in one["losses"]]}
        if loss > tol["loss"]:
            failures.append(f"workers: {name}: the loss on {workers} workers differs from 1 worker's by "
                            f"{size(loss)} relative at step {step} (tolerance {tol['loss']:g})")
        if weights > tol["weights"]:
            failures.append(f"workers: {name}: the final weights on {workers} workers differ from 1 worker's by "
                            f"{size(weights)} in {where} after {spec.steps} steps (tolerance {tol['weights']:g})")
        if ranks != 0:
            failures.append(f"workers: {name}: the ranks' copies of the model differ by {size(ranks)} after "
                            f"{spec.steps} steps: they must stay equal")
    return {"workers": workers, "rows": rows, "failures": failures}


def final_difference(a: dict, b: dict) -> tuple[float, str]:
    return max_difference(split(a, "final/"), split(b, "final/"))


# --- the follow-up runs ----------------------------------------------------------------------------

def noise_floor(run, fw: Framework, inputs: dict, base: dict, seed: int) -> dict:
    """One framework against itself from starting weights one float32 ulp apart: how far rounding
    alone carries two runs apart in `steps` steps (ReLU and max-pool decisions can flip)."""
    nudged = {**inputs, "weights": neutral.nudged(inputs["weights"], seed)}
    outcome = run(fw, nudged, "nudged")
    if outcome["status"] != "ok":
        return {"framework": fw.name, "status": outcome["status"], "reason": outcome["reason"]}
    weights, where = final_difference(base, outcome["arrays"])
    loss, _ = loss_difference(base["losses"], outcome["arrays"]["losses"])
    return {"framework": fw.name, "status": "ok", "weights": weights, "where": where, "loss": loss}


def note_tolerance(spec: neutral.Spec) -> float:
    """A note's experiment must bring the difference within the plain tolerance of what it compares."""
    return spec.tolerance["weights"] if spec.steps else spec.tolerance["logits"]


def note_metric(spec: neutral.Spec, a: dict, b: dict) -> tuple[float, str]:
    """What a note's experiment compares: the final weights, or for inference only the outputs."""
    if spec.steps:
        return final_difference(a, b)
    return logits_difference(spec, a["logits"], b["logits"]), "outputs"


def measure_note(run, note: dict, by_name: dict, inputs: dict, outputs: dict, seed: int) -> dict:
    """Re-run the note's frameworks with its change (and batches): the difference to `against`
    must fall within the example's plain tolerance, which shows the note explains all of it."""
    spec, against = run.spec, note["against"]
    if against not in outputs:
        return {"status": "not-run", "reason": f"{against} did not run"}
    kind = note.get("batches", "random")
    changed_inputs = inputs if kind == "random" else {**inputs, "batches": neutral.batches(spec, seed, kind)}
    reference = outputs[against]
    if kind != "random":
        outcome = run(by_name[against], changed_inputs, f"note-{kind}")
        if outcome["status"] != "ok":
            return {"status": outcome["status"], "reason": outcome["reason"]}
        reference = outcome["arrays"]
    measured = {}
    for name in note["frameworks"]:
        if name not in outputs:
            measured[name] = {"status": "not-run"}
            continue
        outcome = run(by_name[name], changed_inputs, f"note-{kind}", note.get("change", ""))
        if outcome["status"] != "ok":
            measured[name] = {"status": outcome["status"], "reason": outcome["reason"]}
            continue
        before, before_where = note_metric(spec, outputs[name], outputs[against])
        after, after_where = note_metric(spec, outcome["arrays"], reference)
        measured[name] = {"status": "ok", "before": before, "before_where": before_where,
                          "after": after, "after_where": after_where, "tolerance": note_tolerance(spec),
                          "passed": after <= note_tolerance(spec), "facts_after": outcome.get("facts", {})}
    return {"status": "ok", "against": against, "frameworks": measured}


def operations_check(spec: neutral.Spec, per_framework: dict, notes: list[dict]) -> dict:
    """The neutral operation count against the first framework that counts its own (an adapter's
    facts); where a note says that framework computes another variant, its count after the note's
    change (the neutral variant) is the one compared, and where that change could not be measured
    (its `against` row did not run, as on a machine with only some rows), the next framework is."""
    count = neutral.operations(spec)
    if not spec.steps:
        count.pop("train")                      # inference only
    result = {"neutral": count, "counted": None, "differences": {}, "tolerance": OPERATIONS_TOLERANCE}
    for name, info in per_framework.items():
        facts, variant = info.get("facts") or {}, "as built"
        if COUNTED["forward"] not in facts:
            continue
        unmeasured = False
        for note in notes:
            if not (note.get("different_function") and name in note.get("frameworks", ())):
                continue
            after = (note.get("measured") or {}).get("frameworks", {}).get(name, {}).get("facts_after") or {}
            if COUNTED["forward"] in after:
                facts, variant = after, f"with the change of the note “{note['title']}”"
            else:
                unmeasured = True
        if unmeasured:
            continue
        counted = {kind: facts[key] * 1e9 for kind, key in COUNTED.items() if key in facts and kind in count}
        result["counted"] = {"framework": name, "variant": variant, **counted}
        result["differences"] = {kind: abs(result["counted"][kind] - count[kind]) / count[kind]
                                 for kind in count if kind in result["counted"] and count[kind]}
        break
    return result
