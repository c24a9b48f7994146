"""The store: every result a build keeps (benchmark rows, lesson rows, equivalence checks, ONNX conversions),
their notebooks, and where each lives (README, "Results and their provenance").

    results/<machine>/<profile>/<example>/<framework>.json (+ .ipynb)     a benchmark row
    results/<machine>/<profile>/_lessons/<lesson>/<framework>.json (+ .ipynb)   a lesson row
    results/<machine>/<profile>/_equivalence/<example>.json               an example's equivalence check
    results/<machine>/<profile>/_conversion/<example>.json (+ <example>/<row>.onnx)   its ONNX conversions

Every file carries its kind's `api_version`; a file of another version, cut off or edited by hand is refused
with a message naming it (ResultFileError) and treated as absent: measured again, never misread. Every file
is written beside its place and renamed into it (files.write_atomically).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..project import Project
from .files import write_atomically


class ResultFileError(Exception):
    """A stored file that cannot be used (missing, truncated, edited, of another format): the message
    names the file and what is wrong; the build treats it as missing and measures it again."""


@dataclass(frozen=True)
class Kind:
    """One kind of stored result: its folder under a profile's, its format, the fields its readers need."""
    name: str
    folder: str                       # "" for benchmark rows: each example's folder sits in the profile's
    api_version: int
    fields: tuple[str, ...]
    rows: bool = True                 # one file per framework (a check is one file per example)

    def path(self, root: Path, machine: str, profile: str, name: str, row: str = "") -> Path:
        folder = root / machine / profile / self.folder if self.folder else root / machine / profile
        return folder / name / f"{row}.json" if self.rows else folder / f"{name}.json"

    def pattern(self, name: str = "*") -> str:
        """The glob of every file of `name` under a machine's profile folder."""
        inner = f"{self.folder}/{name}" if self.folder else name
        return f"{inner}/*.json" if self.rows else f"{inner}.json"

    def files(self, profile_folder: Path, name: str = "*") -> list[Path]:
        return sorted(profile_folder.glob(self.pattern(name)))


BENCHMARK = Kind("benchmark", "", 1, ("example", "framework", "status", "steps", "metrics", "provenance"))
LESSON = Kind("lesson", "_lessons", 1, ("lesson", "framework", "status", "cache_key"))
# 4: operation counts; 3: the snippets' own train cells, inputs alone
CHECK = Kind("equivalence", "_equivalence", 4, ("example", "cache_key", "frameworks", "failures", "passed"),
             rows=False)
CONVERSION = Kind("conversion", "_conversion", 1, ("example", "cache_key", "frameworks"), rows=False)


def read_stored(path: Path, api_version: int, fields: tuple[str, ...] = ()) -> dict:
    """A JSON record this build wrote: a dict of this format with these fields, or ResultFileError."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise ResultFileError(f"{path}: missing") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ResultFileError(f"{path}: unreadable ({exc})") from None
    except json.JSONDecodeError as exc:
        raise ResultFileError(f"{path}: not valid JSON, truncated or edited ({exc})") from None
    if not isinstance(data, dict):
        raise ResultFileError(f"{path}: holds a {type(data).__name__}, not a record")
    if data.get("api_version") != api_version:
        raise ResultFileError(f"{path}: results format {data.get('api_version')!r}, this build reads {api_version}")
    missing = [name for name in fields if name not in data]
    if missing:
        raise ResultFileError(f"{path}: fields missing: {', '.join(missing)}")
    return data


def write_json(path: Path, data: dict) -> Path:
    """Written beside and renamed into place: a reader never sees half a file."""
    return write_atomically(path, json.dumps(data, indent=1, sort_keys=True))


def load(kind: Kind, path: Path) -> dict:
    return read_stored(path, kind.api_version, kind.fields)


def previous(kind: Kind, path: Path, log=lambda line: None) -> dict | None:
    """The result on record at `path`, or None: one that cannot be read is named (`log`) and measured again."""
    if not path.exists():
        return None
    try:
        return load(kind, path)
    except ResultFileError as exc:
        log(f"  {exc}: treated as missing, measured again")
        return None


# A path into an environment, as a warning prints it ("/home/me/rosetta/.envs/pytorch/lib/python3.11/site-packages/
# torch/jit/_script.py:1480"): the measuring machine's folders are nobody's business, the package's file is.
LOCAL_PATH = re.compile(r"(?:/[^\s:\"'/]+)+/(?:site|dist)-packages/")


def without_local_paths(text: str) -> str:
    return LOCAL_PATH.sub("<environment>/site-packages/", text)


def save(kind: Kind, path: Path, result: dict, notebook: str | None = None) -> Path:
    """The result (and the notebook it ran, beside it: written first, so a result never names a missing one).
    The notebook keeps no path of the measuring machine: stored results are committed and published."""
    if notebook is not None:
        write_atomically(path.with_suffix(".ipynb"), without_local_paths(notebook))
    return write_json(path, result)


def results_roots(project: Project) -> list[Path]:
    """Where results are read from: this build's folder first, then the folders given to
    --from-results, then the reference results kept in the repository."""
    roots = [project.results, *project.extra_results]
    return list(dict.fromkeys(root.resolve() for root in roots if root.exists()))


def everywhere(project: Project, kind: Kind, name: str, profile: str = "*") -> list[tuple[Path, Path]]:
    """(results folder, file) of every stored result of `name`, on every machine (and profile) of every results
    folder, in order."""
    return [(root, path) for root in results_roots(project)
            for path in sorted(root.glob(f"*/{profile}/{kind.pattern(name)}"))]


def all_stored(project: Project, kind: Kind, name: str) -> list[dict]:
    """Every readable result of `name` everywhere; each says which folder it came from (`source`). One that
    cannot be read is skipped here: the build that owns its folder names it and measures it again."""
    found = []
    for root, path in everywhere(project, kind, name):
        try:
            found.append({**load(kind, path), "source": str(root)})
        except ResultFileError:
            continue
    return found


def rows_measured(profile_folder: Path) -> int:
    """How many benchmark rows a machine's profile folder holds (its _lessons and _equivalence aside)."""
    return sum(1 for path in profile_folder.glob("*/*.json") if not path.parent.name.startswith("_"))
