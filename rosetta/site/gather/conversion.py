"""The ONNX conversion pages' views: each example's export tabs and what each file became."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ... import model
from ...build import conversion, results
from ...build.outcome import Outcome
from ...project import Example, Framework
from .common import SiteInput, columns


@dataclass
class ExportTab:
    """One export tab: its file (several rows when one program runs on several backends) and its code."""
    label: str
    sync: str
    rows: list
    path: Path
    code: str


@dataclass
class ConversionView:
    example: Example
    tabs: list[ExportTab]
    record: dict | None            # the conversions' record (this build's, or the one on record)
    left_out: list[tuple[list, str]]    # (rows, why) of the rows with a program and no export tab
    frameworks: list[Framework]
    checker: str                   # the check worker's code that runs each file, as the page shows it
    native: dict = field(default_factory=dict)    # row -> its benchmark result here (for ONNX Runtime's timing)


def export_tabs(example: Example, frameworks: list[Framework]) -> list[ExportTab]:
    groups: dict[Path, list[Framework]] = {}
    for fw in conversion.candidates_of(example, frameworks):
        groups.setdefault(conversion.tab_path(example, fw), []).append(fw)
    return [ExportTab(rows[0].label if len(rows) == 1 else rows[0].program_label, rows[0].program, rows, path,
                      path.read_text()) for path, rows in groups.items()]


def function_source(path: Path, name: str) -> str:
    """A module-level function's source, as it stands in its file."""
    import ast
    text = path.read_text()
    node = next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == name)
    return ast.get_source_segment(text, node)


def conversion_views(site: SiteInput) -> list[ConversionView]:
    """One page per example with export tabs (the index is written even without any)."""
    views, checker = [], function_source(results.REPO_ROOT / conversion.CHECKER, "check")
    for example in site.examples:
        if not conversion.has_conversions(example):
            continue
        by_name = {fw.name: fw for fw in site.frameworks}
        left_out = [([by_name[row] for row in entry["rows"] if row in by_name], entry["why"])
                    for entry in model.export_left_out(example)]
        record = site.conversions.get(example.name)
        native = {row: result for row, result in native_results(site, example, record).items()
                  if result.get("status") == Outcome.OK}
        views.append(ConversionView(example, export_tabs(example, site.frameworks), record, left_out,
                                    site.frameworks, checker, native))
    return views


def native_results(site: SiteInput, example: Example, record: dict | None) -> dict:
    """The benchmark results the conversions' ONNX Runtime times stand beside: the same machine's and profile's,
    this build's own or, for conversions another machine made, that machine's (row -> result)."""
    if record is None or (record.get("machine"), record.get("profile")) == (site.machine, site.profile):
        return site.all_results.get(example.name, {})
    table = columns(site, example)
    key = next((key for key in table.keys if key[:2] == (record.get("machine"), record.get("profile"))), None)
    return table.by_column.get(key, {}) if key else {}
