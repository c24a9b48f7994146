"""Parse stage: a snippet file -> its steps, and the check that every tab has the same steps.

Parsing is jupytext's own (``jupytext.reads``); this module only reads the cell tags, and the part
markers inside a step (comment lines ``# [loss] ...``) by which two programs' lines are paired.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path

import jupytext
import nbformat

from ..project import PART_ID, SUFFIXES, Example, Framework


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
    notebook = jupytext.reads(path.read_text(encoding="utf-8"), fmt=f"{path.suffix.lstrip('.')}:percent")
    for number, cell in enumerate(notebook.cells):    # (nbformat would draw random ids: the same script, the
        cell.id = f"cell-{number}"                    # same notebook, byte for byte)
    return notebook


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


# --- part markers ------------------------------------------------------------------------------
# A step that declares parts in its example.toml ([parts]) is cut into bands, each starting at a marker:
# a comment line on its own, `# [part] free comment` (`// [part]` in JavaScript), or `# [part, other]`
# for one band that does two parts at once. A band runs to the next marker or the end of the step.

# The comment mark of each language a snippet may be written in.
COMMENT_MARKS = {"python": "#", "javascript": "//"}
# One regex for every language, as the pages' JavaScript mirrors it: group 1 the comment mark, group 2
# the part ids (separated by ", "), group 3 the free text (None when there is none).
MARKER = rf"^\s*(#|//) \[({PART_ID}(?:, {PART_ID})*)\](?: (.*))?$"
LANGUAGES = {suffix: language for language, suffix in SUFFIXES.items()}


def marker_regex(language: str) -> re.Pattern:
    """MARKER with this language's own comment mark only (`//` is no comment in Python)."""
    return re.compile(MARKER.replace("(#|//)", f"({re.escape(COMMENT_MARKS[language])})", 1))


def _lookalike_regex(language: str) -> re.Pattern:
    """A comment whose text starts with `[` and a letter: meant as a marker, so a slip in it
    (`#[loss]`, `# [Loss]`, `# [loss,optimizer]`) is reported instead of silently read as prose."""
    return re.compile(rf"^(\s*){re.escape(COMMENT_MARKS[language])}\s*\[\s*([A-Za-z][^\]]*)(\]?)(.*)$")


def language_of(path: Path) -> str:
    return LANGUAGES.get(path.suffix, "python")


@dataclass
class Part:
    ids: tuple[str, ...]      # the parts this band does (two or more: one band doing them at once)
    first_line: int           # 0-based lines of step.code, inclusive; first_line is the marker itself
    last_line: int
    text: str = ""            # the marker's free comment, if any


def scan_parts(code: str, language: str, declared: tuple[str, ...], where: str,
               others: dict[str, tuple[str, ...]] | None = None) -> tuple[list[Part], list[str]]:
    """A step's bands, and every problem with its markers (one line each, starting with `where`).
    `others`: every step's parts, to say where a part that is not this step's belongs."""
    strict, lookalike = marker_regex(language), _lookalike_regex(language)
    mark = COMMENT_MARKS[language]
    lines = code.splitlines()
    parts: list[Part] = []
    problems: list[str] = []
    for number, line in enumerate(lines):
        found = strict.match(line)
        if not found:
            slip = lookalike.match(line)
            if slip:
                indent, inside, closed, rest = slip.groups()
                ids = [re.sub(r"[\s_]+", "-", i.strip().lower()) for i in inside.split(",") if i.strip()]
                fixed = f"{mark} [{', '.join(ids)}]" + (f" {rest.strip()}" if closed and rest.strip() else "")
                problems.append(f"{where}: {line.strip()!r} looks like a part marker but is malformed; "
                                f"write {fixed!r} (a space after {mark!r}, lowercase ids separated by ', ', "
                                f"a space before any text)")
            continue
        ids = tuple(found.group(2).split(", "))
        if not declared:
            problems.append(f"{where}: marker {line.strip()!r}, but this step declares no parts "
                            f"([parts] in example.toml)")
            continue
        for part_id in ids:
            if part_id not in declared:
                problems.append(f"{where}: unknown part {part_id!r} in marker {line.strip()!r}"
                                f"{_did_you_mean(part_id, declared, others)} (this step's parts: "
                                f"{', '.join(declared)})")
        if len(set(ids)) != len(ids):
            problems.append(f"{where}: marker {line.strip()!r} names a part twice")
        if parts:
            parts[-1].last_line = number - 1
        parts.append(Part(ids, number, len(lines) - 1, found.group(3) or ""))
    if not declared:
        return parts, problems
    first_code = next((n for n, line in enumerate(lines) if line.strip()), None)
    if not parts:
        problems.append(f"{where}: no part markers; this step's parts are {', '.join(declared)}: start it with "
                        f"'{mark} [{declared[0]}] ...' and mark where each part begins")
        return parts, problems
    if first_code is not None and first_code < parts[0].first_line:
        problems.append(f"{where}: {lines[first_code].strip()!r} comes before the first marker: start the step "
                        f"with a marker, e.g. '{mark} [{declared[0]}] ...'")
    marked = {part_id for part in parts for part_id in part.ids}
    for part_id in declared:
        if part_id not in marked:
            problems.append(f"{where}: part {part_id!r} has no marker: mark the line where it begins with "
                            f"'{mark} [{part_id}] ...' (a band may name two parts: '{mark} [a, b]')")
    return parts, problems


def _did_you_mean(part_id: str, declared: tuple[str, ...], others: dict | None) -> str:
    hint = difflib.get_close_matches(part_id, declared, n=1)
    if hint:
        return f"; did you mean {hint[0]!r}?"
    home = [step for step, ids in (others or {}).items() if part_id in ids]
    return f"; it is a part of step {home[0]!r}" if home else ""


def step_parts(step: Step, language: str, declared: tuple[str, ...]) -> list[Part]:
    """The bands of one step's code (empty when it declares no parts); SnippetError on a broken rule."""
    parts, problems = scan_parts(step.code, language, declared, f"step {step.name!r}")
    if problems:
        raise SnippetError("; ".join(problems))
    return parts


def check_parts(example: Example, snippet: Snippet) -> list[str]:
    """The marker problems of one snippet, one line each naming the file, the step and the part."""
    declared = getattr(example, "parts", {})           # lessons have none: their scripts carry no markers
    language = language_of(snippet.path)
    problems = []
    for step in snippet.steps:
        problems += scan_parts(step.code, language, declared.get(step.name, ()),
                               f"{snippet.path}: step {step.name!r}", declared)[1]
    return problems


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
        problems += check_parts(example, snippet)
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
