"""Runs inside one framework's environment: the snippet's model with the neutral weights, exported to ONNX.

    python -P -m rosetta.conversion_worker JOB_DIR

JOB_DIR holds job.json (the snippet's steps before the timed one, the equivalence adapter's path, the export
tab's path), weights.npz and batches.npz (the equivalence checks' neutral weights and batches). The worker
builds the model as the equivalence worker does (equivalence_worker.prepared), computes its own logits of the
forward batch, then calls the export tab:

    inputs(ns, x) -> the neutral batch (images (N, C, H, W), token ids (N, T)) as the snippet's model takes it
    export(ns, x, path)   writes the model, in inference mode, to `path` as ONNX (x: what inputs() returned)

It writes out.npz (`logits`: the framework's own; `inputs`: the batch the ONNX model is to be fed),
model.onnx when the export succeeded, and outcome.json: whether it did, and when not, the exporter's message.
A refused export is a result, not a failure of the worker: only the snippet's own steps can fail it.
"""
from __future__ import annotations

import json
import sys
import time
import traceback
from pathlib import Path

import numpy as np

from . import neutral
from .equivalence_worker import load_adapter, prepared

MODEL_FILE = "model.onnx"


MESSAGE_LENGTH = 240                     # characters of an exporter's message kept (some raise pages of graph)


def exporter_message(exc: BaseException) -> str:
    """One line: the exception's type and the first sentence of its message, over several lines where it goes on
    ("however input 'v706' of node:" and what it announces), up to MESSAGE_LENGTH."""
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    text = lines[0]
    for line in lines[1:]:              # the sentence goes on: after a colon or a comma, or in lower case
        if not (text.endswith((":", ",")) or line[0].islower()) or len(text) >= MESSAGE_LENGTH:
            break
        text = f"{text} {line}"
    text = text if len(text) <= MESSAGE_LENGTH else text[:MESSAGE_LENGTH - 1] + "…"
    return f"{type(exc).__name__}: {text}"


def run(job_dir: Path) -> None:
    job = json.loads((job_dir / "job.json").read_text())
    weights = neutral.load(job_dir / "weights.npz")
    x = neutral.load(job_dir / "batches.npz")["forward_x"]
    adapter, tab = load_adapter(Path(job["adapter"])), load_adapter(Path(job["export"]))
    namespace = prepared(job, adapter, weights, x)
    logits = np.asarray(adapter.forward(namespace, x), dtype=np.float32)
    inputs = np.ascontiguousarray(tab.inputs(namespace, x))          # its own type: float images, integer ids
    path = job_dir / MODEL_FILE
    path.unlink(missing_ok=True)
    started = time.perf_counter()
    try:
        tab.export(namespace, inputs, str(path))
        outcome = {"exported": path.exists(), "message": "" if path.exists() else "the exporter wrote no file"}
    except Exception as exc:          # the exporter's refusal, shown on the page as it said it
        traceback.print_exc()
        outcome = {"exported": False, "message": exporter_message(exc)}
    outcome["seconds"] = time.perf_counter() - started
    neutral.save(job_dir / "out.npz", {"logits": logits, "inputs": inputs})
    (job_dir / "outcome.json").write_text(json.dumps(outcome))


if __name__ == "__main__":
    run(Path(sys.argv[1]))
