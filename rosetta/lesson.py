"""The helper a lesson script calls: its settings, and one call that measures its variants.

A lesson script (``lessons/<lesson>/<framework>.py``) writes each variant as a function and
ends with ``lesson.compare(hp, {"a": run_a, "b": run_b})``. The helper calls every variant
``hp.warmup`` times untimed, then ``hp.repeats`` rounds, alternating the order each round
(A B, B A, ...), one call at a time. It times each call with a monotonic clock and, with
``memory=True``, records the extra resident memory at the call's peak (freed memory is handed
back to the system before each call, so that the peak is the call's own). A variant returns
None (only its time counts) or a dict of further measurements (accuracy, a difference...);
one that takes an argument gets the round's seed (``hp.seed + round``), so repeats over
seeds show the spread. On a GPU, a variant must end with a blocking read (``.item()``,
``asnumpy()``) so that its time includes the work it queued. Numbers the script measured
once, outside the timed calls (how far two variants' outputs differ), travel as ``facts``.
"""
from __future__ import annotations

import ctypes
import gc
import inspect
import os
import statistics
import time
import tomllib
from pathlib import Path

from .project import REPO_ROOT, check_name, resolve_profile
from .report import report
from .settings import Settings, with_overrides

FOLDER = "lessons"


def lessons_root() -> Path:
    return Path(os.environ.get("ROSETTA_LESSONS", REPO_ROOT / FOLDER))


def settings(name: str, profile: str | None = None, root: Path | None = None) -> Settings:
    """The lesson's [settings] merged with the sizes of the active profile (ROSETTA_PROFILE)."""
    meta = tomllib.loads(((root or lessons_root()) / name / "lesson.toml").read_text())
    profile = resolve_profile(profile or os.environ.get("ROSETTA_PROFILE"))
    profiles = meta.get("profiles", {})
    check_name(f"profile of lesson {name!r}", profile, list(profiles))
    values = {"seed": 0, "warmup": 1, "repeats": 3, **meta.get("settings", {}), **profiles[profile]}
    return Settings(name, profile, with_overrides(name, values))


def _resident_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak() -> bool:
    """Linux lets a process reset its own peak resident size (VmHWM) by writing 5 to clear_refs."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def _release_freed_memory() -> None:
    """The C allocator keeps freed blocks for reuse, which would hide the next call's peak from the
    resident-memory count; glibc's malloc_trim hands them back to the system (outside the timing)."""
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _call(function, seed: int, memory: bool) -> dict:
    takes_seed = bool(inspect.signature(function).parameters)
    if memory:
        gc.collect()
        _release_freed_memory()
    before = _resident_kib("VmRSS") if memory and _reset_peak() else None
    started = time.perf_counter()
    returned = function(seed) if takes_seed else function()
    measured = {"seconds": time.perf_counter() - started}
    if before is not None:
        peak = _resident_kib("VmHWM")
        if peak is not None:
            measured["peak_memory_mb"] = max(0, peak - before) / 1024
    if returned is not None:
        if not isinstance(returned, dict):
            raise TypeError(f"{function.__name__} returned {type(returned).__name__}: return None or a dict")
        measured.update({key: float(value) for key, value in returned.items()})
    return measured


def _readable(values: list[float]) -> str:
    median = statistics.median(values)
    if len(values) == 1:
        return f"{median:.4g}"
    return f"{median:.4g} ({min(values):.4g}–{max(values):.4g})"


def compare(hp: Settings, variants: dict, memory: bool = False, facts: dict | None = None,
            per_second: dict | None = None) -> None:
    """Measure every variant (see the module's docstring); print a summary and report the numbers.

    `facts` ({variant: {name: value}}) are numbers the script measured once, outside the timed
    calls (e.g. the largest difference between two variants' outputs): they join the variant's
    measurements, so that a rule can check them. `per_second` ({unit: {variant: count}}) names
    what one call of a variant processes (64 images): each timed call then also records
    `<unit>_per_second`, the count over that call's seconds, so that a rule can compare throughputs.
    """
    names = list(variants)
    for unit, counts in (per_second or {}).items():
        if set(counts) != set(names):
            raise KeyError(f"per_second[{unit!r}] counts {sorted(counts)}; the variants are {names}")
    for name in names:
        for _ in range(hp.warmup):
            _call(variants[name], hp.seed, memory=False)
    measured: dict[str, dict[str, list[float]]] = {name: {} for name in names}
    for round_ in range(hp.repeats):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            values = _call(variants[name], hp.seed + round_, memory)
            for unit, counts in (per_second or {}).items():
                values[f"{unit}_per_second"] = counts[name] / values["seconds"]
            for key, value in values.items():
                measured[name].setdefault(key, []).append(value)
    for name, values in (facts or {}).items():
        if name not in measured:
            raise KeyError(f"facts for {name!r}, which is not a variant ({', '.join(names)})")
        measured[name].update({key: [float(value)] for key, value in values.items()})
    width = max(len(name) for name in names)
    print(f"{hp.repeats} rounds after {hp.warmup} warm-up call(s) each; median (min–max):")
    for name in names:
        summary = ", ".join(f"{key} {_readable(values)}" for key, values in measured[name].items())
        print(f"  {name:<{width}}  {summary}")
    # Nothing returned: as a cell's last line, a value would be printed under the code.
    report(line=f"reported: {len(names)} variants x {hp.repeats} rounds", variants=measured,
           repeats=hp.repeats, warmup=hp.warmup)
