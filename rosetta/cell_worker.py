"""Runs inside one rank of a data-parallel row: the snippet's own timed cell, in a process of its own.

    python -P -m rosetta.cell_worker JOB_DIR

equivalence_worker runs a snippet's steps twice in one process: once for the adapter's steps, once more
for the timed cell from a fresh namespace. A data-parallel program joins its process group once per
process (init_process_group, jax.distributed.initialize, MultiWorkerMirroredStrategy, a dist kvstore), so
its ranks run equivalence_worker without the cell, and then this worker: the steps before the timed one,
the neutral weights loaded, the timed cell exactly as the reader sees it, the weights read back as
`cell/<tensor>` in JOB_DIR/out.npz.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from . import neutral
from .equivalence_worker import load_adapter, prepared
from .step_runner import compile_cell


def run(job_dir: Path) -> None:
    job = json.loads((job_dir / "job.json").read_text())
    weights = neutral.load(job_dir / "weights.npz")
    data = neutral.load(job_dir / "batches.npz")
    started = time.perf_counter()
    adapter = load_adapter(Path(job["adapter"]))
    namespace = prepared(job, adapter, weights, data["forward_x"])
    exec(compile_cell(job["train_code"], f"{job['snippet']} [timed step]"), namespace)
    out = {f"cell/{name}": np.asarray(value) for name, value in adapter.read(namespace).items()}
    out["seconds"] = np.array(time.perf_counter() - started)
    neutral.save(job_dir / "out.npz", out)


if __name__ == "__main__":
    run(Path(sys.argv[1]))
