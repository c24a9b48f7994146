"""Parse stage: a snippet file -> its steps, and the check that every tab has the same steps.

Parsing is jupytext's own (``jupytext.reads``); this module only reads the cell tags.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import jupytext
import nbformat

from .project import SUFFIXES, Example, Framework


class SnippetError(Exception):
    """A snippet that breaks the conventions; the message names the file and cell."""


@dataclass
class Step:
    name: str
    code: str                           # the step's code cells joined, as the reader sees them
    cell_indices: list[int] = field(default_factory=list)   # positions in the notebook


@dataclass
class Snippet:
    example: str
    framework: str
    path: Path
    notebook: nbformat.NotebookNode
    steps: list[Step]

    @property
    def step_names(self) -> list[str]:
        return [step.name for step in self.steps]


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """A percent script in any language a row may be written in (`.py`, `.js`): jupytext knows each one's
    comment marks."""
    return jupytext.reads(path.read_text(encoding="utf-8"), fmt=f"{path.suffix.lstrip('.')}:percent")


def parse(path: Path, example: Example) -> Snippet:
    """Read one snippet and group its code cells into steps; raise SnippetError on any slip."""
    notebook = read_notebook(path)
    return Snippet(example.name, path.stem, path, notebook, group_steps(notebook, example, str(path)))


def group_steps(notebook: nbformat.NotebookNode, example: Example, where: str) -> list[Step]:
    """The notebook's code cells grouped by their step tag (also used on executed notebooks)."""
    steps: list[Step] = []
    for index, cell in enumerate(notebook.cells):
        # jupytext keeps metadata it could not parse (e.g. tags=[model] without quotes)
        # under this key instead of failing: a silently untagged cell would vanish from a tab.
        if "incorrectly_encoded_metadata" in cell.metadata:
            raise SnippetError(
                f"{where}: cell {index + 1} has unparsable metadata "
                f"{cell.metadata['incorrectly_encoded_metadata']!r}; write it as tags=[\"step\"]"
            )
        if cell.cell_type != "code":
            continue
        tags = [t for t in cell.metadata.get("tags", []) if t in example.steps]
        if len(tags) != 1:
            first_line = cell.source.strip().splitlines()[0] if cell.source.strip() else "(empty)"
            raise SnippetError(
                f"{where}: code cell {index + 1} ({first_line!r}) needs exactly one step tag "
                f"out of {list(example.steps)}, has {cell.metadata.get('tags', [])}"
            )
        name = tags[0]
        if steps and steps[-1].name == name:
            steps[-1].code += "\n\n" + cell.source
            steps[-1].cell_indices.append(index)
        elif name in [s.name for s in steps]:
            raise SnippetError(f"{where}: step {name!r} appears twice, split by another step")
        else:
            steps.append(Step(name, cell.source, [index]))
    return steps


def kernel_name_of(snippet: Snippet) -> str | None:
    return snippet.notebook.metadata.get("kernelspec", {}).get("name")


def check_alignment(example: Example, snippets: list[Snippet], frameworks: list[Framework]) -> list[str]:
    """Every problem that would make the tabs of one step disagree; empty when aligned."""
    problems = []
    for snippet in snippets:
        if snippet.step_names != list(example.steps):
            problems.append(
                f"{snippet.path}: steps {snippet.step_names} differ from the example's "
                f"{list(example.steps)} (same steps, same order, in every framework)"
            )
        # A program run by several rows (Keras on three backends) opens in the kernel of one of them.
        expected = sorted({fw.kernel_name for fw in frameworks if snippet.framework in (fw.name, fw.program)})
        if expected and kernel_name_of(snippet) not in expected:
            problems.append(f"{snippet.path}: kernelspec name is {kernel_name_of(snippet)!r}, "
                            f"expected {' or '.join(map(repr, expected))}")
    known = {fw.name for fw in frameworks} | {fw.program for fw in frameworks}
    for path in sorted(p for suffix in SUFFIXES.values() for p in example.folder.glob(f"*{suffix}")):
        if path.stem not in known:
            problems.append(f"{path}: no framework {path.stem!r} (known: {', '.join(sorted(known))})")
    return problems


def load_example_snippets(example: Example, frameworks: list[Framework]) -> dict[str, Snippet | SnippetError]:
    """framework (row) name -> its parsed snippet, or the error that stops it (other tabs still build).
    Rows that run one program get the same file, parsed once."""
    found, by_path = {}, {}
    for fw in frameworks:
        path = example.snippet_path(fw)
        if not path.exists():
            continue
        if path not in by_path:
            try:
                by_path[path] = parse(path, example)
            except SnippetError as exc:
                by_path[path] = exc
        found[fw.name] = by_path[path]
    return found
