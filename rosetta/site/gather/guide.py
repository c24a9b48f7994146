"""The guide's view: docs/systems.toml (through systems.py) and the coverage matrix from the results."""
from __future__ import annotations

import sys
from dataclasses import dataclass

from ...project import Example, Framework, Project
from .. import systems
from .common import SiteInput


@dataclass
class GuideView:
    systems: list[systems.System]
    problems: list[str]            # why docs/systems.toml does not validate
    has_file: bool
    examples: list[Example]
    results_by_example: dict
    frameworks: dict               # row -> Framework
    written: dict                  # example -> rows with a program of it


def guide(project: Project, results_by_example: dict, frameworks: list[Framework]) -> GuideView:
    """The guide's systems (a file that does not validate is printed, and shown on the page)."""
    examples = project.examples()
    has_file = systems.systems_file(project).exists()
    found, problems = [], []
    if has_file:
        try:
            found = systems.load_systems(project)
        except systems.SystemsError as exc:
            problems = exc.problems
            print("guide: " + "\nguide: ".join(problems), file=sys.stderr)
    by_name = {fw.name: fw for fw in frameworks}
    rows = {row for system in found for row in system.rows}
    return GuideView(found, problems, has_file, examples, results_by_example, by_name,
                     {ex.name: {row for row in rows if ex.snippet_path(by_name.get(row, row)).exists()}
                      for ex in examples})


def guide_views(site: SiteInput) -> list[GuideView]:
    return [guide(site.project, site.all_results, site.frameworks)]
