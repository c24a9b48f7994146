"""Runs inside one framework's environment: the snippet's own setup and model steps, then its adapter.

    python -P -m rosetta.equivalence_worker JOB_DIR

JOB_DIR holds job.json (the snippet's steps before the timed one, the timed step itself when it
trains, the adapter's path), weights.npz (neutral initial weights) and batches.npz. The worker
writes out.npz: the round-tripped weights, the forward logits (and those of the first input
alone, which must not depend on the rest of its batch), the loss of every training step taken
through the adapter, the final weights, and, when the timed step trains, the weights after the
snippet's OWN train cell ran over the same batches (the data step reads them under
`data = "neutral"`, the cell does not shuffle under `shuffle = false`). All in the neutral format.

An adapter module defines four functions over the snippet's namespace `ns`:
    load(ns, weights, x)      neutral weights -> the snippet's model (x: a neutral input batch,
                              for frameworks that infer shapes on a first call)
    read(ns) -> weights       the model's current weights, neutral again
    forward(ns, x) -> logits  inference mode (dropout off), numpy float32
    train_step(ns, x, y)      one step of the snippet's optimizer on its loss; returns the loss
and may define facts(ns) -> {label: value}: measured facts about the model shown with the checks.
"""
from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path

import numpy as np

from . import neutral
from .step_runner import compile_cell


def load_adapter(path: Path):
    spec = importlib.util.spec_from_file_location(f"rosetta_adapter_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def prepared(job: dict, adapter, weights: dict, first_x) -> dict:
    """A fresh namespace: the snippet's steps before the timed one (and a note's change), then the
    neutral weights loaded into the model they built."""
    namespace = {"__name__": "__main__"}
    exec(compile_cell(job["code"], f"{job['snippet']} [steps]"), namespace)   # the reader's setup, data, model
    adapter.load(namespace, weights, first_x)
    return namespace


def run(job_dir: Path) -> None:
    job = json.loads((job_dir / "job.json").read_text())
    weights = neutral.load(job_dir / "weights.npz")
    data = neutral.load(job_dir / "batches.npz")
    started = time.perf_counter()
    adapter = load_adapter(Path(job["adapter"]))
    namespace = prepared(job, adapter, weights, data["forward_x"])
    back = adapter.read(namespace)
    logits = np.asarray(adapter.forward(namespace, data["forward_x"]), dtype=np.float32)
    alone = np.asarray(adapter.forward(namespace, data["forward_x"][:1]), dtype=np.float32)
    losses = [float(adapter.train_step(namespace, x, y)) for x, y in zip(data["train_x"], data["train_y"])]
    final = adapter.read(namespace)
    facts = adapter.facts(namespace) if hasattr(adapter, "facts") else {}
    out = {"logits": logits, "alone": alone, "losses": np.array(losses, dtype=np.float64)}
    if job.get("train_code"):
        # The timed cell exactly as the reader sees it, from the same starting weights, in a fresh
        # namespace (a fresh optimizer): it must end where the adapter's steps ended.
        namespace = prepared(job, adapter, weights, data["forward_x"])
        exec(compile_cell(job["train_code"], f"{job['snippet']} [timed step]"), namespace)
        out.update({f"cell/{name}": np.asarray(value) for name, value in adapter.read(namespace).items()})
    (job_dir / "facts.json").write_text(json.dumps(facts))
    out["seconds"] = np.array(time.perf_counter() - started)
    out.update({f"roundtrip/{name}": np.asarray(value) for name, value in back.items()})
    out.update({f"final/{name}": np.asarray(value) for name, value in final.items()})
    neutral.save(job_dir / "out.npz", out)


if __name__ == "__main__":
    run(Path(sys.argv[1]))
