"""The lessons' decision rules on planted numbers: a verdict follows from the ranges, never from hope."""
from __future__ import annotations

import pytest

from rosetta.build import verdict
from rosetta.build.verdict import RuleError, check_rule, judge

FASTER = {"claim": "b at least 1.2x faster", "metric": "seconds", "variant": "b", "baseline": "a",
          "effect": "ratio", "at_least": 1.2}
HIGHER = {"claim": "b at least 2 points more accurate", "metric": "accuracy", "variant": "b", "baseline": "a",
          "effect": "difference", "at_least": 0.02}


def times(a, b, metric="seconds"):
    return {"a": {metric: a}, "b": {metric: b}}


def test_a_clearly_faster_variant_holds_with_its_effect_and_range():
    found = judge(FASTER, times([2.0, 2.1, 2.2], [1.0, 1.05, 1.1]))
    assert found["verdict"] == verdict.HOLDS
    assert found["effect"] == pytest.approx(2.1 / 1.05)
    assert found["low"] == pytest.approx(2.0 / 1.1) and found["high"] == pytest.approx(2.2 / 1.0)


def test_a_slower_variant_is_never_declared_faster():
    assert judge(FASTER, times([1.0, 1.05, 1.1], [2.0, 2.1, 2.2]))["verdict"] == verdict.REVERSED


def test_overlapping_ranges_give_no_measurable_difference_whatever_the_medians():
    # The variant's median is 1.5x better, but one round of it is slower than the baseline's best.
    found = judge(FASTER, times([1.5, 1.6, 3.0], [1.0, 1.1, 1.55]))
    assert found["effect"] > 1.2
    assert found["verdict"] == verdict.NO_DIFFERENCE


def test_a_real_but_small_effect_is_smaller_than_claimed():
    assert judge(FASTER, times([1.10, 1.11, 1.12], [1.00, 1.01, 1.02]))["verdict"] == verdict.SMALLER


def test_higher_is_better_for_accuracy_differences():
    holds = judge(HIGHER, times([0.70, 0.71, 0.72], [0.75, 0.76, 0.77], "accuracy"))
    assert holds["verdict"] == verdict.HOLDS and holds["effect"] == pytest.approx(0.05)
    assert judge(HIGHER, times([0.75, 0.76, 0.77], [0.70, 0.71, 0.72], "accuracy"))["verdict"] == verdict.REVERSED
    # Identical deterministic values: the ranges touch, no difference.
    assert judge(HIGHER, times([0.7] * 3, [0.7] * 3, "accuracy"))["verdict"] == verdict.NO_DIFFERENCE


def test_a_failed_or_missing_variant_gives_no_verdict_and_says_why():
    found = judge(FASTER, {"a": {"seconds": [1.0]}})
    assert found["verdict"] == verdict.NO_VERDICT and "'b'" in found["why"]
    assert judge(FASTER, {})["verdict"] == verdict.NO_VERDICT


def test_ratios_of_non_positive_values_are_not_judged():
    assert judge(FASTER, times([0.0, 1.0], [1.0, 1.0]))["verdict"] == verdict.NO_VERDICT


def test_bounds_hold_for_all_none_or_some_values():
    same = {"claim": "same outputs", "metric": "max_difference", "variant": "b", "at_most": 1e-5}
    assert judge(same, {"b": {"max_difference": [0.0, 1e-6]}})["verdict"] == verdict.HOLDS
    assert judge(same, {"b": {"max_difference": [1e-3, 2e-3]}})["verdict"] == verdict.DOES_NOT_HOLD
    assert judge(same, {"b": {"max_difference": [0.0, 2e-3]}})["verdict"] == verdict.MIXED


@pytest.mark.parametrize("rule, problem", [
    ({"metric": "seconds", "variant": "b", "baseline": "a", "at_least": 1.1}, "claim"),
    ({**FASTER, "variant": "c"}, "not one of the variants"),
    ({key: value for key, value in FASTER.items() if key != "at_least"}, "at_least"),
    ({"claim": "x", "metric": "seconds", "variant": "b"}, "at_most or at_least"),
    ({**FASTER, "effect": "percent"}, "effect"),
    ({**FASTER, "better": "faster"}, "better"),
])
def test_rules_that_cannot_be_decided_are_refused(rule, problem):
    with pytest.raises(RuleError, match=problem):
        check_rule(rule, ["a", "b"])


def test_a_rule_names_a_device_it_knows_or_is_refused():
    check_rule({**FASTER, "device": "gpu"}, ["a", "b"])
    check_rule({**FASTER, "device": "cpu"}, ["a", "b"])
    with pytest.raises(RuleError, match="device must be \"gpu\".*not 'tpu'"):
        check_rule({**FASTER, "device": "tpu"}, ["a", "b"])


def test_a_gpu_rule_on_a_machine_without_a_gpu_needs_a_gpu_and_the_mirror():
    gpu, cpu = {**FASTER, "device": "gpu"}, {**FASTER, "device": "cpu"}
    status, why = verdict.device_reason(gpu, has_gpu=False, machine="2-core Box")
    assert status == verdict.NEEDS_GPU and "2-core Box has none" in why
    status, why = verdict.device_reason(cpu, has_gpu=True, machine="1x H200")
    assert status == verdict.NEEDS_CPU and "1x H200 has one" in why
    assert verdict.device_reason(gpu, has_gpu=True) is None and verdict.device_reason(cpu, has_gpu=False) is None
    assert verdict.device_reason(FASTER, has_gpu=True) is None and verdict.device_reason(FASTER, has_gpu=False) is None


def test_a_gpu_rule_is_never_judged_on_numbers_measured_on_a_cpu():
    """Numbers that would hold: on a CPU machine the GPU rule still says it needs a GPU, and why."""
    from rosetta.build import results
    from rosetta.site import verdicts
    box = {"cpu": "Test CPU", "cores": 2, "gpus": []}
    on_cpu = {"framework": "b", "status": "ok", "machine_label": "2-core Test CPU",
              "provenance": {"machine": box}, "variants": times([2.0, 2.1, 2.2], [1.0, 1.05, 1.1])}
    badge, why = verdicts.verdict_cell({**FASTER, "device": "gpu"}, on_cpu, "one", box)
    assert badge == "{bdg-dark}`needs a GPU`" and "judged only on a machine with one" in why
    assert "2-core Test CPU has none" in why
    assert verdicts.verdict_cell({**FASTER, "device": "cpu"}, on_cpu, "one", box)[0] == "{bdg-success}`holds`"
    # Read on a CPU machine, a result measured on a GPU machine is judged by its own machine's GPU.
    gpu_box = {"cpu": "x", "cores": 16, "gpus": [{"name": "NVIDIA H200"}]}
    on_gpu = {**on_cpu, "machine_label": "NVIDIA H200", "provenance": {"machine": gpu_box}}
    assert verdicts.verdict_cell({**FASTER, "device": "gpu"}, on_gpu, "one", box)[0] == "{bdg-success}`holds`"
    badge, why = verdicts.verdict_cell({**FASTER, "device": "cpu"}, on_gpu, "one", box)
    assert badge == f"{{bdg-dark}}`{verdict.NEEDS_CPU}`" and "NVIDIA H200 has one" in why
    # No result at all: the rule's device is still the first reason.
    assert verdicts.verdict_cell({**FASTER, "device": "gpu"}, None, "one", box)[0] == "{bdg-dark}`needs a GPU`"
    assert results.machine_label(box) in verdicts.verdict_cell(FASTER, None, "one", box)[1]
