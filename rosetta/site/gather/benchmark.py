"""A benchmark page's view: its results by machine, its step tabs, its network, its lessons."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ... import model, neutral
from ...build import equivalence
from ...project import Example, Framework, Project
from .. import diagrams
from ..records import column_machine, has_gpu
from .common import (
    Columns,
    LessonEvidence,
    SiteInput,
    TabGroup,
    columns,
    lesson_evidence,
    load_executed,
    ran_steps,
    shown_result,
    tab_groups,
    written_rows,
)


@dataclass
class BenchmarkView:
    example: Example
    frameworks: list[Framework]
    current: dict                  # row -> this build's result
    profile: str
    machine_info: dict
    machine_label: str
    columns: Columns
    operations: float | None       # per sample of the timed step (None: no neutral spec)
    intro: str                     # the README, without its title
    diagram: list[str]             # the network's figure (MyST lines)
    gpu_anywhere: bool             # a GPU among the machines of the table
    written: set[str]              # rows with a program of this example
    groups: list[TabGroup]
    ran: dict                      # row -> step -> RanStep (of its shown result)
    check: dict | None             # the equivalence check
    lessons: list[LessonEvidence]  # every lesson (its page lists those that concern this example)
    workers: int = 1               # processes per row (a data-parallel example: more than one)
    launches: dict = field(default_factory=dict)   # row -> its [data_parallel] table (engine, launcher, env)
    left_out: list = field(default_factory=list)   # [[left_out]]: rows without a program here, and why
    shown: dict = field(default_factory=dict)      # row -> the result its tabs show (common.shown_result)


def timed_operations(project: Project, example: Example, profile: str) -> float | None:
    """Floating-point operations per sample of the timed step (training or inference), from the
    example's neutral spec; None when the example has none."""
    if not equivalence.has_checks(example):
        return None
    spec = equivalence.load_spec(project, example, profile)
    return neutral.operations(spec)["train" if spec.steps else "forward"]


def readme_text(folder: Path) -> str:
    """A folder's README.md without its title (the page has its own), or ""."""
    path = folder / "README.md"
    return re.sub(r"^# .*\n", "", path.read_text(), count=1).strip() if path.exists() else ""


def benchmark(site: SiteInput, example: Example, evidence: list[LessonEvidence]) -> BenchmarkView:
    found = columns(site, example)
    current = site.all_results[example.name]
    shown = {fw.name: result for fw in site.frameworks
             if (result := shown_result(found, fw.name, site.profile)) is not None}
    return BenchmarkView(
        example=example, frameworks=site.frameworks, current=current, profile=site.profile,
        machine_info=site.machine_info, machine_label=site.machine_label, columns=found,
        operations=timed_operations(site.project, example, site.profile), intro=readme_text(example.folder),
        diagram=diagrams.figure(site.project, example, site.profile),
        gpu_anywhere=has_gpu(site.machine_info) or any(has_gpu(column_machine(key, found.by_column))
                                                       for key in found.by_column),
        written=written_rows(example, site.frameworks), groups=tab_groups(site.frameworks, example),
        ran={name: ran_steps(load_executed(site.project, r), example, (r or {}).get("notebook") or "")
             for name, r in shown.items()},
        shown=shown,
        check=site.checks.get(example.name),
        lessons=evidence,
        workers=model.example_workers(example),
        launches={fw.name: table for fw in site.frameworks if (table := model.row_data_parallel(fw))},
        left_out=model.example_left_out(example))


def benchmark_views(site: SiteInput) -> list[BenchmarkView]:
    evidence = lesson_evidence(site.project, site.lessons, site.frameworks, site.machine, site.profile)
    return [benchmark(site, example, evidence) for example in site.shown]
