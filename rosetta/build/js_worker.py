"""The equivalence check's worker for a row written in JavaScript (rosetta/js/equivalence_worker.ts, run by the
row's Deno): the same job as rosetta/equivalence_worker.py, its arrays handed over as raw files.

JavaScript reads no .npz, so before the worker starts, this module writes the job's neutral weights and batches
as one raw file per array (little-endian, C order) with an index.json naming their shapes and dtypes, the format
of rosetta.bridge's `load`; after it, it packs the worker's raw output into out.npz, which the check reads as it
reads any other worker's.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .. import neutral
from ..project import REPO_ROOT, Framework, Project
from .benchmark import deno_run, write_working_files

WORKER = REPO_ROOT / "rosetta" / "js" / "equivalence_worker.ts"
RAW = "raw"                 # job_dir/raw/{weights,batches,out}/
INDEX = "index.json"
DTYPES = {"float32": "float32", "float64": "float64", "int32": "int32", "int64": "int32", "uint8": "uint8"}


def write_raw(arrays: dict[str, np.ndarray], folder: Path) -> None:
    """Each array as folder/<n>.bin, named in folder/index.json (int64 goes as int32: JavaScript's typed
    arrays hold token ids and labels as int32, as the tabs do)."""
    folder.mkdir(parents=True, exist_ok=True)
    index = {}
    for n, (name, array) in enumerate(sorted(arrays.items())):
        dtype = DTYPES.get(array.dtype.name)
        if dtype is None:
            raise TypeError(f"{name}: a JavaScript worker takes {', '.join(DTYPES)}, not {array.dtype}")
        if dtype != array.dtype.name and np.abs(array).max(initial=0) >= 2 ** 31:
            raise ValueError(f"{name}: values beyond int32")
        raw = np.ascontiguousarray(array, dtype=np.dtype(dtype).newbyteorder("<"))
        (folder / f"{n}.bin").write_bytes(raw.tobytes())
        index[name] = {"file": f"{n}.bin", "shape": list(array.shape), "dtype": dtype}
    (folder / INDEX).write_text(json.dumps({"arrays": index}))


def read_raw(folder: Path) -> dict[str, np.ndarray]:
    index = json.loads((folder / INDEX).read_text())["arrays"]
    return {name: np.frombuffer((folder / entry["file"]).read_bytes(), dtype=np.dtype(entry["dtype"]).newbyteorder("<"))
            .astype(entry["dtype"]).reshape(entry["shape"]) for name, entry in index.items()}


def prepare(job_dir: Path) -> None:
    """The job's weights.npz and batches.npz, as raw files the worker reads."""
    for name in ("weights", "batches"):
        write_raw(neutral.load(job_dir / f"{name}.npz"), job_dir / RAW / name)


def finish(job_dir: Path) -> None:
    """The worker's raw output as out.npz, as every worker leaves it."""
    neutral.save(job_dir / "out.npz", read_raw(job_dir / RAW / "out"))


def command(project: Project, fw: Framework, run_dir: Path, job_dir: Path) -> list[str]:
    """Deno, with the row's import map (written into run_dir as its kernel finds it), running the worker."""
    write_working_files(project, fw, run_dir)
    return deno_run(project, fw, run_dir, str(WORKER), str(job_dir))
