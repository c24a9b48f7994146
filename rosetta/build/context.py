"""What one build runs with, built once from the command line and passed down: the run context.

The command line makes it (cli.py); the stages add what they learn (the machine, the environments) with
`dataclasses.replace`, and every stage below reads it, never the command line's `args`.
"""
from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..project import Example, Framework, Project
from .variables import Variables


def say(line: str) -> None:
    # One write per line: jobs side by side (jobs.run_side_by_side) log from two threads, and print()
    # writes the line and its newline apart.
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


@dataclass(frozen=True)
class Options:
    """How the build runs (the command line's options that reach below it)."""
    force: bool = False                # re-execute even what is current
    repeats: int = 1                   # timed runs per benchmark row
    timeout: int = 1800                # seconds one cell may run
    strict: bool = False               # any failure makes the exit status non-zero
    equivalence: bool = True           # run the selected examples' equivalence checks
    equivalence_only: bool = False     # ... and none of their rows
    setup_only: bool = False
    lock: bool = False
    measure_only: bool = False         # no pages, no Sphinx
    sphinx: bool = True
    output: Path | None = None         # the HTML folder
    published: tuple[Path, ...] = ()   # results folders to publish from (nothing runs)

    @property
    def publishing(self) -> bool:
        return bool(self.published)


@dataclass(frozen=True)
class Selection:
    """What this build measures where stale; everything else keeps its last results."""
    frameworks: frozenset[str] = frozenset()
    examples: frozenset[str] = frozenset()
    lessons: frozenset[str] = frozenset()

    def rows(self, chosen: bool, equivalence_only: bool = False) -> frozenset[str]:
        """The rows measured of an example or lesson: the selected frameworks, when it is chosen."""
        return self.frameworks if chosen and not equivalence_only else frozenset()


@dataclass(frozen=True)
class RunContext:
    project: Project
    profile: str | None
    options: Options
    selection: Selection
    variables: Variables
    frameworks: tuple[Framework, ...]          # every framework, example and lesson the project has
    examples: tuple[Example, ...]
    lessons: tuple                             # (lessons.Lesson: the lessons' module runs in this context)
    lesson_problems: tuple[str, ...] = ()      # lesson folders that cannot be read
    machine: str = ""                          # known once the machine is described (or the results are found)
    machine_info: dict = field(default_factory=dict)
    # framework -> environments.EnvStatus (read only); and an export environment's name -> its EnvStatus
    envs: Mapping = field(default_factory=dict)
    log: Callable[[str], None] = say
