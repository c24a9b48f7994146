"""What a run ran, in substance: the identities that decide whether a stored result is current.

A result is stale only when what it ran changed. A snippet's identity is its code cells, each without
comments, docstrings, part marks and whitespace (Python: the syntax tree; JavaScript: its tokens without
comments), with the step tags that say which step's time a cell counts in, and the kernel it runs in.
An `example.toml`'s or `lesson.toml`'s identity is its values that reach a run (sizes, settings, seeds),
without the page's own keys (`[parts]`, titles, claims, the original study's figures). TOML comments
never reach the parsed values.
"""
from __future__ import annotations

import ast
import hashlib
import json
import re
import threading
from pathlib import Path

from .. import model
from .snippets import language_of, read_notebook

# Keys of example.toml that only the pages read (everything else reaches a run, or is treated so).
# ([[left_out]]: the rows without a program of the example, and why, which the page lists.)
EXAMPLE_PAGE_KEYS = ("title", "short_title", "order", "summary", "throughput_unit", "table_metrics", "parts",
                     "reference", "weights", "left_out")
# Keys of lesson.toml that only the pages read: the rules are judged from the measured values when a page
# is written; of the variants, only their names reach a run (the text describes them).
LESSON_PAGE_KEYS = ("title", "claim", "source", "order", "concerns", "rules", "left_out", "curve", "controls")


# Python 3.11 before 3.11.8 cannot build syntax trees in two threads at once (CPython gh-106905: "SystemError:
# AST constructor recursion depth mismatch", seen here with jobs side by side): one parse at a time.
PARSING = threading.Lock()


def python_identity(source: str) -> str:
    """A Python cell or module without comments, docstrings and layout: its syntax tree."""
    with PARSING:
        tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body \
                and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant) \
                and isinstance(node.body[0].value.value, str):
            node.body = node.body[1:] or [ast.Pass()]
    return ast.dump(tree)


# JavaScript tokens: comments and whitespace are dropped; strings and template literals are whole tokens
# (a `//` inside one is not a comment); every other character run is a word or a punctuation mark.
JS_TOKEN = re.compile(r"""
    (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<space>\s+)
  | (?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`)
  | (?P<word>[A-Za-z0-9_$.]+)
  | (?P<mark>.)
""", re.VERBOSE | re.DOTALL)


def javascript_identity(source: str) -> str:
    """A JavaScript cell without comments and layout: its tokens, one per line."""
    return "\n".join(m.group() for m in JS_TOKEN.finditer(source) if m.lastgroup not in ("comment", "space"))


CODE_IDENTITY = {"python": python_identity, "javascript": javascript_identity}


def code_identity(code: str, language: str) -> str:
    """One piece of code's substance. Code that does not parse is its own identity without blank lines
    (it fails the same way until it changes)."""
    try:
        return CODE_IDENTITY[language](code)
    except SyntaxError:
        return "\n".join(line.rstrip() for line in code.splitlines() if line.strip())


def notebook_identity(notebook, language: str) -> str:
    """A snippet read as a notebook: its kernel, and each code cell's tags and substance (markdown is prose)."""
    kernel = notebook.metadata.get("kernelspec", {}).get("name", "")
    empty = code_identity("", language)        # (a cell of comments only, or one jupytext made of blank lines)
    cells = [(sorted(cell.metadata.get("tags", [])), code_identity(cell.source, language))
             for cell in notebook.cells if cell.cell_type == "code"]
    cells = [cell for cell in cells if cell[1] != empty]
    return json.dumps({"kernel": kernel, "cells": cells})


def snippet_identity(path: Path) -> str | None:
    """The sha256 of a snippet file's substance, or None when it does not exist."""
    if not path.exists():
        return None
    return sha256(notebook_identity(read_notebook(path), language_of(path)))


def script_identity(path: Path) -> str | None:
    """The sha256 of a plain script's substance (no comments, docstrings or layout; Python or JavaScript, by its
    suffix), or None."""
    if not path.exists():
        return None
    return sha256(code_identity(path.read_text(encoding="utf-8"), language_of(path)))


def definition_values(path: Path, row: str | None = None) -> dict:
    """The values of an example.toml or lesson.toml that reach a run: of `[row_sizes]`, only `row`'s own
    sizes (another row's sizes never reach this row's run, so a new row with sizes of its own stales no
    other row's results; with no row, as for the checks across rows, none)."""
    data = model.read(path)
    page_keys = LESSON_PAGE_KEYS if path.name == "lesson.toml" else EXAMPLE_PAGE_KEYS
    values = {key: value for key, value in data.items() if key not in page_keys}
    if isinstance(values.get("variants"), dict):
        values["variants"] = sorted(values["variants"])
    own_sizes = values.pop("row_sizes", {}).get(row)
    if own_sizes is not None:
        values["row_sizes"] = {row: own_sizes}
    return values


def definition_identity(path: Path, row: str | None = None) -> str | None:
    """The sha256 of a definition's run values for `row` (see definition_values), or None when the file does
    not exist."""
    if not path.exists():
        return None
    return sha256(json.dumps(definition_values(path, row), sort_keys=True, default=str))


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
