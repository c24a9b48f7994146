"""The front page's view (the matrix of rows against benchmarks, the lessons' verdicts) and the methodology's
provenance includes."""
from __future__ import annotations

from dataclasses import dataclass, field

from ...build import store
from ...project import Example, Framework
from ..records import has_gpu, recorded_machine
from .common import LessonsInput, SiteInput, columns, lesson_evidence, written_rows


@dataclass
class FrontView:
    examples: list[Example]        # with results: the ones listed
    frameworks: list[Framework]
    columns: dict                  # example -> Columns
    written: dict                  # example -> rows with a program of it
    installed: dict                # row -> whether its environment is installed (or unknown)
    lessons: LessonsInput
    lesson_rows: dict              # lesson -> rows with a script of it
    machine_info: dict
    evidence: list = field(default_factory=list)    # LessonEvidence: the lessons' results here and elsewhere
    profile: str = ""


def front_views(site: SiteInput) -> list[FrontView]:
    return [FrontView(
        examples=site.shown, frameworks=site.frameworks,
        columns={ex.name: columns(site, ex) for ex in site.shown},
        written={ex.name: written_rows(ex, site.frameworks) for ex in site.shown},
        installed={fw.name: site.envs.get(fw.name) is None or site.envs[fw.name].ok for fw in site.frameworks},
        lessons=site.lessons,
        lesson_rows={lesson.name: lesson.frameworks(site.frameworks) for lesson in site.lessons.lessons},
        machine_info=site.machine_info,
        evidence=lesson_evidence(site.project, site.lessons, site.frameworks, site.machine, site.profile),
        profile=site.profile)]


@dataclass
class ProvenanceView:
    """Where the site's figures come from (the front page's include), and the profiles (the methodology's)."""
    examples: list[Example]
    all_results: dict
    profile: str
    machine: str
    machine_info: dict
    machine_label: str
    others: dict                   # (machine, profile) -> one result of another machine on record
    gpu: bool                      # a GPU among this build's machine and the others


def provenance_views(site: SiteInput) -> list[ProvenanceView]:
    others = {(r["machine"], r["profile"]): r for example in site.examples
              for r in store.all_stored(site.project, store.BENCHMARK, example.name)
              if (r["machine"], r["profile"]) != (site.machine, site.profile) and r["profile"] != "smoke"}
    gpu = has_gpu(site.machine_info) or any(has_gpu(recorded_machine(r)) for r in others.values())
    return [ProvenanceView(site.examples, site.all_results, site.profile, site.machine, site.machine_info,
                           site.machine_label, others, gpu)]
