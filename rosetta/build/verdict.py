"""Decision rules of the lessons: a claim, stated as a rule over measured numbers, and its verdict.

A rule compares a variant with a baseline on one metric (``effect = "ratio"`` or
``"difference"``, ``better = "lower"`` or ``"higher"``, ``at_least`` the claimed effect), or
bounds one variant's values (``at_most`` / ``at_least`` without a baseline). Comparisons use
the medians for the effect and the min–max ranges for the decision: ranges that overlap
mean "no measurable difference", whatever the medians say.

A rule may name the device it is about (``device = "gpu"`` or ``"cpu"``): a lesson script runs
on the GPU where there is one, so a GPU rule is judged only on numbers measured on a machine with
a GPU, and a CPU rule only on numbers measured on one without. Elsewhere the rule gets no
verdict, and says why (``device_reason``), never a verdict about another device's numbers.
"""
from __future__ import annotations

import statistics

HOLDS = "holds"
SMALLER = "smaller than claimed"
NO_DIFFERENCE = "no measurable difference"
REVERSED = "reversed"
DOES_NOT_HOLD = "does not hold"
MIXED = "mixed"
NO_VERDICT = "no verdict"
VERDICTS = (HOLDS, SMALLER, NO_DIFFERENCE, REVERSED, DOES_NOT_HOLD, MIXED, NO_VERDICT)
NEEDS_GPU = "needs a GPU"
NEEDS_CPU = "needs a CPU-only run"
DEVICES = ("cpu", "gpu")
LOWER_IS_BETTER = ("seconds", "peak_memory_mb", "loss")


class RuleError(ValueError):
    """A rule that cannot be decided whatever is measured (a lesson.toml mistake)."""


def check_rule(rule: dict, variants: list[str]) -> None:
    """Raise RuleError for a rule that names an unknown variant or states no threshold."""
    for key in ("claim", "metric", "variant"):
        if not rule.get(key):
            raise RuleError(f"a rule needs {key!r}: {rule}")
    for key in ("variant", "baseline"):
        if rule.get(key) and rule[key] not in variants:
            raise RuleError(f"rule {rule['claim']!r}: {key} {rule[key]!r} is not one of the variants {variants}")
    if rule.get("baseline"):
        if "at_least" not in rule:
            raise RuleError(f"rule {rule['claim']!r}: a comparison needs at_least (the claimed effect)")
        if rule.get("effect", "ratio") not in ("ratio", "difference"):
            raise RuleError(f"rule {rule['claim']!r}: effect must be 'ratio' or 'difference'")
    elif "at_least" not in rule and "at_most" not in rule:
        raise RuleError(f"rule {rule['claim']!r}: without a baseline it needs at_most or at_least")
    if rule.get("better", "lower") not in ("lower", "higher"):
        raise RuleError(f"rule {rule['claim']!r}: better must be 'lower' or 'higher'")
    if "device" in rule and rule["device"] not in DEVICES:
        raise RuleError(f"rule {rule['claim']!r}: device must be \"gpu\" (judged only on a machine with a GPU) "
                        f"or \"cpu\" (only on one without), or absent (anywhere), not {rule['device']!r}")


def device_reason(rule: dict, has_gpu: bool, machine: str = "this machine") -> tuple[str, str] | None:
    """None when the rule may be judged on numbers measured on `machine`; else (status, why)."""
    device = rule.get("device")
    if device == "gpu" and not has_gpu:
        return NEEDS_GPU, f"this claim is about a GPU and is judged only on a machine with one; {machine} has none"
    if device == "cpu" and has_gpu:
        return NEEDS_CPU, (f"this claim is about a CPU and is judged only on a machine without a GPU; {machine} "
                           "has one, and the script runs on it there")
    return None


def better_of(rule: dict) -> str:
    return rule.get("better") or ("lower" if rule["metric"] in LOWER_IS_BETTER else "higher")


def judge(rule: dict, measured: dict[str, dict[str, list[float]]]) -> dict:
    """The verdict of one rule on one framework's measurements ({variant: {metric: [values]}})."""
    metric = rule["metric"]
    wanted = [rule["variant"]] + ([rule["baseline"]] if rule.get("baseline") else [])
    for name in wanted:
        if not measured.get(name, {}).get(metric):
            return {"verdict": NO_VERDICT, "why": f"variant {name!r} has no {metric!r} measurement"}
    values = measured[rule["variant"]][metric]
    if not rule.get("baseline"):
        return _bound(rule, values)
    return _comparison(rule, measured[rule["baseline"]][metric], values)


def _bound(rule: dict, values: list[float]) -> dict:
    low, high = rule.get("at_least", float("-inf")), rule.get("at_most", float("inf"))
    inside = [low <= value <= high for value in values]
    verdict = HOLDS if all(inside) else DOES_NOT_HOLD if not any(inside) else MIXED
    return {"verdict": verdict, "effect": statistics.median(values), "low": min(values), "high": max(values),
            "why": f"{sum(inside)} of {len(values)} values within the bound"}


def _gain(rule: dict, baseline: float, variant: float) -> float:
    """How much better the variant is than the baseline: > 1 (ratio) or > 0 (difference) is better."""
    lower = better_of(rule) == "lower"
    if rule.get("effect", "ratio") == "difference":
        return baseline - variant if lower else variant - baseline
    return baseline / variant if lower else variant / baseline


def _comparison(rule: dict, baseline: list[float], variant: list[float]) -> dict:
    ratio = rule.get("effect", "ratio") == "ratio"
    if ratio and min(baseline + variant) <= 0:
        return {"verdict": NO_VERDICT, "why": "a ratio of values that are not all positive"}
    lower = better_of(rule) == "lower"
    effect = _gain(rule, statistics.median(baseline), statistics.median(variant))
    # The least and the most favourable pairing of the two ranges.
    if lower:
        worst, best = _gain(rule, min(baseline), max(variant)), _gain(rule, max(baseline), min(variant))
    else:
        worst, best = _gain(rule, max(baseline), min(variant)), _gain(rule, min(baseline), max(variant))
    neutral = 1.0 if ratio else 0.0
    if worst > neutral:
        verdict = HOLDS if effect >= rule["at_least"] else SMALLER
        why = "the variant's range is entirely better than the baseline's"
    elif best < neutral:
        verdict, why = REVERSED, "the baseline's range is entirely better than the variant's"
    else:
        verdict, why = NO_DIFFERENCE, "the two ranges overlap"
    return {"verdict": verdict, "effect": effect, "low": worst, "high": best, "why": why}
