"""The ROSETTA_* settings the build side reads, read and checked here once (README, "Options").

The kernel side reads some of the same variables for itself (ROSETTA_DATA, ROSETTA_CACHE and ROSETTA_VENVS
through rosetta.data.fetch and rosetta.project, ROSETTA_WEIGHTS through rosetta.settings): the build only
checks those, so that a setting that points nowhere is named once, before anything runs, not silently ignored.
ROSETTA_PYTHON and ROSETTA_PYTHON_<ENVIRONMENT> are read here too, when an environment is looked at
(environments.py asks): a GPU machine's overlay may name a Python for any environment.
"""
from __future__ import annotations

import importlib
import os
import re
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..data.fetch import usable_in
from ..project import UsageError
from ..settings import WEIGHTS_CHOICES


@dataclass(frozen=True)
class Variables:
    data: tuple[str, ...] = ()            # ROSETTA_DATA entries: folders searched for data sets first
    cache: str = ""                       # ROSETTA_CACHE: downloads and decoded arrays
    venvs: str = ""                       # ROSETTA_VENVS: where the environments are made
    weights: str = ""                     # ROSETTA_WEIGHTS: pretrained or random (seeded); "": each example's own
    machine: str = ""                     # ROSETTA_MACHINE: this machine's name, when given
    check_workers: int = 0                # ROSETTA_CHECK_WORKERS: equivalence workers (and smoke kernels) at once


def read(environ: Mapping[str, str] | None = None) -> Variables:
    """The settings of this process's environment; UsageError names one that cannot be used."""
    environ = os.environ if environ is None else environ
    weights = environ.get("ROSETTA_WEIGHTS", "")
    if weights and weights not in WEIGHTS_CHOICES:
        raise UsageError(f"ROSETTA_WEIGHTS={weights!r}: use one of {', '.join(WEIGHTS_CHOICES)}")
    workers = environ.get("ROSETTA_CHECK_WORKERS", "").strip()
    return Variables(
        data=tuple(p for p in environ.get("ROSETTA_DATA", "").split(os.pathsep) if p),
        cache=environ.get("ROSETTA_CACHE", ""), venvs=environ.get("ROSETTA_VENVS", ""), weights=weights,
        machine=environ.get("ROSETTA_MACHINE", ""),
        check_workers=int(workers) if workers.isdigit() and int(workers) > 0 else 0)


def existing_python_variable(environment: str) -> str:
    """The setting that points an environment at an existing Python: ROSETTA_PYTHON_<ENVIRONMENT>."""
    return "ROSETTA_PYTHON_" + re.sub(r"[^A-Z0-9]", "_", environment.upper())


def existing_python(environment: str) -> Path | None:
    """The existing interpreter an environment uses instead of a venv of its own (a GPU machine's Python whose
    CUDA stack already works: ROSETTA_PYTHON_<ENVIRONMENT>), or None. A bare name is looked up on PATH."""
    given = os.environ.get(existing_python_variable(environment), "").strip()
    if not given:
        return None
    found = shutil.which(given) if os.sep not in given else given
    return Path(os.path.abspath(found or given))


def base_python() -> str:
    """The interpreter new venvs are made from: ROSETTA_PYTHON, else the one behind this venv."""
    return os.environ.get("ROSETTA_PYTHON") or getattr(sys, "_base_executable", sys.executable)


def looked_for(data_modules: set[str]) -> list[str]:
    """The names and globs that the given data modules accept (their LOOKED_FOR)."""
    patterns = []
    for name in sorted(filter(None, data_modules)):
        try:
            patterns += getattr(importlib.import_module(name), "LOOKED_FOR", ())
        except ImportError:
            continue           # (the example's own build says so)
    return list(dict.fromkeys(patterns))


def path_problems(variables: Variables, data_modules: set[str]) -> list[str]:
    """One line per path setting that points nowhere: a data folder that is missing or holds none of the data
    the examples and lessons read (`data_modules`), a cache or venvs folder that cannot be made or written."""
    problems, patterns = [], None
    for entry in variables.data:
        folder = Path(entry).expanduser()
        if not folder.is_dir():
            problems.append(f"ROSETTA_DATA entry {folder}: {'not a folder' if folder.exists() else 'no such folder'}"
                            " (ignored: data is looked for in the other entries and the cache)")
            continue
        patterns = looked_for(data_modules) if patterns is None else patterns
        if patterns and not usable_in(folder, patterns):
            problems.append(f"ROSETTA_DATA entry {folder}: holds none of the data this build reads "
                            f"(looked for {', '.join(patterns)})")
    for name, value in (("ROSETTA_CACHE", variables.cache), ("ROSETTA_VENVS", variables.venvs)):
        if value:
            folder = Path(value).expanduser()
            nearest = next(p for p in (folder, *folder.parents) if p.exists())     # (made when first used)
            if nearest == folder and not folder.is_dir():
                problems.append(f"{name}={folder}: not a folder")
            elif not nearest.is_dir():
                problems.append(f"{name}={folder}: cannot be created ({nearest} is a file)")
            elif not os.access(nearest, os.W_OK):
                problems.append(f"{name}={folder}: not writable by this user")
    return problems
