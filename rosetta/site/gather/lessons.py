"""The lesson pages' views and the lessons index's."""
from __future__ import annotations

from dataclasses import dataclass, field

import nbformat

from ...build import store
from ...project import Framework, Project
from .benchmark import readme_text
from .common import LessonEvidence, SiteInput, lesson_evidence, ran_steps, source_steps


@dataclass
class LessonView:
    evidence: LessonEvidence
    frameworks: list[Framework]
    machine_info: dict
    profile: str
    words: str                     # the README, without its title
    code: dict                     # row -> step -> its current code (a Step)
    ran: dict                      # row -> step -> RanStep
    executed: dict                 # row -> its executed notebook (None: none)
    scripts: dict                  # row -> the script's bytes
    paths: dict = field(default_factory=dict)   # row -> its script (rows of one program may share it)


@dataclass
class LessonIndexView:
    evidence: list[LessonEvidence]
    frameworks: list[Framework]
    problems: list[str]
    machine_info: dict
    profile: str


def lesson_notebook(project: Project, result: dict | None):
    if not result or not result.get("notebook"):
        return None
    path = store.LESSON.path(project.results, result["machine"], result["profile"], result["lesson"],
                               result["framework"]).with_suffix(".ipynb")
    return nbformat.read(path, as_version=4) if path.exists() else None


def lesson_view(site: SiteInput, evidence: LessonEvidence) -> LessonView:
    lesson = evidence.lesson
    executed = {fw.name: lesson_notebook(site.project, evidence.current.get(fw.name)) for fw in evidence.rows}
    return LessonView(
        evidence=evidence, frameworks=site.frameworks, machine_info=site.machine_info, profile=site.profile,
        words=readme_text(lesson.folder),
        code={fw.name: source_steps(lesson.snippet_path(fw), lesson, lesson.name) for fw in evidence.rows},
        ran={name: ran_steps(notebook, lesson, lesson.name) for name, notebook in executed.items()},
        executed=executed, scripts={fw.name: lesson.snippet_path(fw).read_bytes() for fw in evidence.rows},
        paths={fw.name: lesson.snippet_path(fw) for fw in evidence.rows})


def lesson_views(site: SiteInput) -> list[LessonView]:
    evidence = lesson_evidence(site.project, site.lessons, site.frameworks, site.machine, site.profile)
    return [lesson_view(site, item) for item in evidence]


def lesson_index_views(site: SiteInput) -> list[LessonIndexView]:
    return [LessonIndexView(lesson_evidence(site.project, site.lessons, site.frameworks, site.machine, site.profile),
                            site.frameworks, site.lessons.problems, site.machine_info, site.profile)]
