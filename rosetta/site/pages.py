"""The site writer: MyST pages, charts and notebook copies from the results, under docs/_gen/.

It walks a registry of page kinds: each gathers its views from what the build hands over (gather/, the
one module that reads files) and renders them (one module per kind). Files are written only when their
content changed (so Sphinx rebuilds only what changed), and files no longer produced are removed.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import (
    benchmark_page,
    conversion_page,
    environments_page,
    framework_page,
    front_page,
    gather,
    guide,
    lesson_pages,
    methodology,
    notebook_page,
)
from .gather.common import SiteInput
from .markup import Writer


@dataclass(frozen=True)
class PageKind:
    """A kind of page: how its views are gathered from the site's input, and how one view is rendered."""
    name: str
    gather: Callable[[SiteInput], list]
    render: Callable[[object, Writer], None]


PAGE_KINDS = (
    PageKind("benchmark", gather.benchmark.benchmark_views, benchmark_page.render),
    PageKind("notebook", gather.notebook.notebook_views, notebook_page.render),
    PageKind("framework", gather.framework.framework_views, framework_page.render),
    PageKind("front page", gather.front.front_views, front_page.render),
    PageKind("environments", gather.environments.environments_views, environments_page.render),
    PageKind("methodology and provenance", gather.front.provenance_views, methodology.render),
    PageKind("lesson", gather.lessons.lesson_views, lesson_pages.render_lesson),
    PageKind("lessons index", gather.lessons.lesson_index_views, lesson_pages.render_index),
    PageKind("guide", gather.guide.guide_views, guide.render),
    PageKind("conversion", gather.conversion.conversion_views, conversion_page.render),
    PageKind("conversions index", lambda site: [gather.conversion.conversion_views(site)],
             conversion_page.render_index),
)


def write_site(site: SiteInput) -> int:
    """Write every page of every kind; return how many files were written, updated or removed."""
    writer = Writer(site.project.generated)
    for kind in PAGE_KINDS:
        for view in kind.gather(site):
            kind.render(view, writer)
    return writer.finish()
