"""The model of the project: every TOML file that describes it, read and checked here.

The files: ``envs/<row>.toml``, ``snippets/<example>/example.toml`` (and its ``onnx/left_out.toml`` and
``equivalence/own_sizes.toml``), ``lessons/<lesson>/lesson.toml`` and ``docs/systems.toml``. Every key is
checked against the lists below, tables and arrays of tables included: a misspelt key is one error that names
the file, the key and the nearest known one, where it used to be a setting silently ignored. The build and the
site ask this module (and rosetta/project.py) what the files say; they never open them
(tests/test_architecture.py).

rosetta/project.py builds the examples and rows (Example, Framework) from the same files. It is code every
snippet runs (settings.py reads example.toml through it), so its identity is part of every measured result;
it is kept as it is, and what it does not carry is read here: a row's [data_parallel], export_environment and
[untimed_variables], an example's [data_parallel] and [[left_out]], the ONNX tabs' [[left_out]]. The kernel
side's own readers (rosetta/lesson.py reads a lesson's sizes, rosetta/neutral.py an equivalence spec) run
inside the kernels, for the same reason.
"""
from __future__ import annotations

import copy
import tomllib
from pathlib import Path

from .project import UsageError, check_name

ANY = None                     # a key whose value is not checked here (a free table: sizes, variables...)
EVERY = "*"                    # in a schema: any key, each a table of the keys given (a row's name, say)
LEFT_OUT = [{"rows": ANY, "why": ANY}]     # [[left_out]]: rows = [...], why = "..."

# Each file's keys: key -> ANY, a table (dict: its keys checked in turn) or an array of tables ([dict]).
ROW = {
    "label": ANY, "api": ANY, "order": ANY, "packages": ANY, "matmul": ANY, "install_notes": ANY, "math": ANY,
    "variables": ANY, "untimed_variables": ANY, "install_first": ANY, "no_build_isolation": ANY,
    "program": ANY, "program_label": ANY, "backend": ANY, "environment": ANY, "export_environment": ANY,
    "language": ANY, "npm": ANY, "kernel_argv": ANY, "kernel_transport": ANY, "working_files": ANY,
    "data_parallel": {"engine": ANY, "launcher": ANY, "env": ANY, "start": ANY, "runner": ANY,
                      "helpers": [{"name": ANY, "code": ANY, "env": ANY}]},
}
EXAMPLE = {
    "title": ANY, "short_title": ANY, "order": ANY, "summary": ANY, "steps": ANY, "timed_step": ANY,
    "throughput_unit": ANY, "samples_metric": ANY, "data_module": ANY, "weights": ANY, "parts": ANY,
    "table_metrics": [{"metric": ANY, "label": ANY, "format": ANY}], "failure_hints": ANY,
    "hyperparameters": ANY, "profiles": ANY, "reference": ANY, "row_sizes": ANY,
    "data_parallel": {"workers": ANY}, "left_out": LEFT_OUT,
}
LESSON = {
    "title": ANY, "claim": ANY, "source": ANY, "order": ANY, "concerns": ANY, "data_module": ANY, "steps": ANY,
    "variants": ANY, "settings": ANY, "profiles": ANY, "requires": ANY, "controls": ANY, "left_out": LEFT_OUT,
    "rules": [{"claim": ANY, "metric": ANY, "variant": ANY, "baseline": ANY, "at_least": ANY, "at_most": ANY,
               "effect": ANY, "better": ANY, "unit": ANY, "device": ANY, "frameworks": ANY}],
    "curve": {"x_label": ANY, "x": ANY, "metrics": ANY},
}
SYSTEMS = {
    "graphs": ANY,
    "system": [{"id": ANY, "name": ANY, "made_by": ANY, "language": ANY, "graph": ANY, "distributed": ANY,
                "fate": ANY, "summary": ANY, "original": ANY, "nearest": ANY, "rows": ANY, "status": ANY,
                "install": ANY, "reason": ANY}],
}
EXPORT_LEFT_OUT = {"left_out": LEFT_OUT}
# The rows an equivalence check runs on the batches their own row trains: [<row>] against = "<row>", ...
OWN_SIZES = {EVERY: {"against": ANY, "steps": ANY, "batch_size": ANY, "profiles": ANY, "why": ANY}}


def schema_of(path: Path) -> dict:
    """Which of the project's files a path is, by its name and folder."""
    if path.name == "example.toml":
        return EXAMPLE
    if path.name == "lesson.toml":
        return LESSON
    if path.name == "systems.toml":
        return SYSTEMS
    if path.name == "left_out.toml":
        return EXPORT_LEFT_OUT
    if path.name == "own_sizes.toml":
        return OWN_SIZES
    if path.parent.name == "envs":
        return ROW
    raise ValueError(f"{path} is none of the project's TOML files")


def problems_in(table: dict, schema: dict, where: str = "") -> list[str]:
    """One line per unknown key, at any depth ("[data_parallel] key 'evn'"), with the nearest known key."""
    found = []
    for key, value in table.items():
        if key not in schema and EVERY in schema and isinstance(value, dict):
            found += problems_in(value, schema[EVERY], f"{where}[{key}] ")
        elif key not in schema:
            try:
                check_name(f"key {where}".rstrip(), key, list(schema))     # (the message: a "did you mean")
            except UsageError as exc:
                found.append(str(exc))
        elif isinstance(schema[key], dict) and isinstance(value, dict):
            found += problems_in(value, schema[key], f"{where}[{key}] ")
        elif isinstance(schema[key], list) and isinstance(value, list):
            for number, entry in enumerate(value, 1):
                if isinstance(entry, dict):
                    found += problems_in(entry, schema[key][0], f"{where}[[{key}]] #{number} ")
    return found


def read(path: Path) -> dict:
    """A project file's tables, its keys checked; UsageError names the file and every unknown key."""
    path = Path(path)
    stat = path.stat()          # (FileNotFoundError for a missing file: the caller says what it means)
    return copy.deepcopy(_read(path, stat.st_mtime_ns, stat.st_size))


_cache: dict[tuple, dict] = {}


def _read(path: Path, mtime_ns: int, size: int) -> dict:
    """Each version of a file is parsed and checked once (a build asks for an example's tables many times)."""
    key = (path.resolve(), mtime_ns, size)
    if key not in _cache:
        data = parse(path)
        problems = problems_in(data, schema_of(path))
        if problems:
            raise UsageError("\n".join(f"{path}: {problem}" for problem in problems))
        _cache[key] = data
    return _cache[key]


def parse(path: Path) -> dict:
    """A file's tables, unchecked (for a reader that reports every problem of a file at once, the guide's)."""
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from None


def read_if_there(path: Path | None) -> dict:
    return read(path) if path is not None and path.exists() else {}


# --- what rosetta/project.py's Example and Framework do not carry ----------------------------------

def example_workers(example) -> int:
    """How many processes each row of the example runs as: [data_parallel] workers (1: none)."""
    return int(read_if_there(example.folder / "example.toml").get("data_parallel", {}).get("workers", 1))


def example_left_out(example) -> list[dict]:
    """The rows without a program of the example, and why ([[left_out]] rows = [...], why = "...")."""
    return read_if_there(example.folder / "example.toml").get("left_out", [])


def export_left_out(example) -> list[dict]:
    """The rows without an ONNX export tab, and why (snippets/<example>/onnx/left_out.toml)."""
    return read_if_there(example.folder / "onnx" / "left_out.toml").get("left_out", [])


def own_sizes(example) -> dict[str, dict]:
    """The rows the example's equivalence check runs on the batches their own row trains, by name
    (snippets/<example>/equivalence/own_sizes.toml)."""
    return read_if_there(example.folder / "equivalence" / "own_sizes.toml")


def row_data_parallel(fw) -> dict:
    """The row's own [data_parallel] table (envs/<row>.toml: a Keras row's, not its environment's)."""
    return read_if_there(fw.definition.parent / f"{fw.name}.toml" if fw.definition else None).get("data_parallel", {})


def export_environment(fw) -> str:
    """The environment a row's ONNX export runs in, where not its own (its environment's export_environment)."""
    return read_if_there(fw.definition).get("export_environment", "")


def untimed_variables(fw) -> dict[str, str]:
    """The row's environment's [untimed_variables]: settings for runs that time nothing (XLA's -O0)."""
    return {str(k): str(v) for k, v in read_if_there(fw.definition).get("untimed_variables", {}).items()}


def check_project(project) -> None:
    """Every row's and example's file read and checked before a build starts: UsageError lists each unknown
    key of them all. (Lessons are checked as they load, a problem each; the guide's file as its page is made.)"""
    paths = [*sorted(project.envs.glob("*.toml")), *sorted(project.snippets.glob("*/example.toml")),
             *sorted(project.snippets.glob("*/onnx/left_out.toml")),
             *sorted(project.snippets.glob("*/equivalence/own_sizes.toml"))]
    problems = []
    for path in paths:
        try:
            read(path)
        except UsageError as exc:
            problems.append(str(exc))
    if problems:
        raise UsageError("\n".join(problems))
