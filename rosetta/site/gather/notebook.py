"""The view of each row's executed notebook page."""
from __future__ import annotations

import copy
from dataclasses import dataclass

from ...build.snippets import read_notebook
from ...project import Example, Framework
from .common import SiteInput, columns, load_executed, shown_result


@dataclass
class NotebookView:
    example: Example
    fw: Framework
    result: dict | None
    notebook: object               # the executed notebook (a copy), else the program read as one
    script: str                    # the program's own file name (keras.py for each Keras backend's row)
    script_bytes: bytes


def notebook_views(site: SiteInput) -> list[NotebookView]:
    views = []
    for example in site.shown:
        table = columns(site, example)
        for fw in site.frameworks:
            source = example.snippet_path(fw)
            if not source.exists():
                continue
            result = shown_result(table, fw.name, site.profile)     # (another machine's, where none ran here)
            executed = load_executed(site.project, result)
            notebook = copy.deepcopy(executed) if executed is not None else read_notebook(source)
            views.append(NotebookView(example, fw, result, notebook, source.name, source.read_bytes()))
    return views
