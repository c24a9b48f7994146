"""Runs in the environment that has ONNX Runtime (envs/pytorch.txt): times each exported model's inference, alone.

    python -P -m rosetta.onnx_timing_worker SPEC_JSON

SPEC_JSON names the files ({row: job folder with model.onnx and out.npz}), the benchmark's batch size and number
of batches, the rounds and the threads. Each file gets one ONNX Runtime session (the threads as the frameworks'
kernels get them: every core this process may use, intra-op; one inter-op), one untimed warm-up batch, then
`rounds` timed passes over the batches, rows interleaved round by round (as a lesson alternates its variants),
so that a machine that slows down mid-run slows every row alike. The images are seeded random values of the
shape the exported model takes (its channels first or last), as the benchmark's synthetic data. It writes
timing.json: each row's seconds per pass, and why a file was not timed (a batch size its exporter fixed).

(ONNX Runtime is imported where it is used: see onnx_check_worker.)
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from . import neutral
from .conversion_worker import MODEL_FILE
from .onnx_check_worker import feed_name


def session(job_dir: Path, threads: int, batch_size: int):
    """(session, input name, "") for a file that takes the benchmark's batches; (None, "", why) for one whose
    exporter fixed another batch size (onnx_chainer traces one batch and has no dynamic axes)."""
    import onnx
    import onnxruntime
    model = onnx.load(job_dir / MODEL_FILE, load_external_data=False)
    name = feed_name(model)
    first = next(i for i in model.graph.input if i.name == name).type.tensor_type.shape.dim[0]
    if first.HasField("dim_value") and first.dim_value != batch_size:
        return None, name, (f"not timed: its exporter fixed the batch size at {first.dim_value} "
                            f"(the benchmark's is {batch_size})")
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
    options.log_severity_level = 3
    return onnxruntime.InferenceSession(str(job_dir / MODEL_FILE), options, providers=["CPUExecutionProvider"]), \
        name, ""


def run(spec_path: Path) -> None:
    spec = json.loads(spec_path.read_text())
    threads = spec.get("threads") or len(os.sched_getaffinity(0))
    rng = np.random.default_rng(spec["seed"])
    runs, skipped = {}, {}
    for row, folder in spec["files"].items():
        folder = Path(folder)
        shape = neutral.load(folder / "out.npz")["inputs"].shape[1:]          # as the exported model takes it
        batches = [rng.standard_normal((spec["batch_size"], *shape), dtype=np.float32) for _ in range(spec["batches"])]
        sess, name, why = session(folder, threads, spec["batch_size"])
        if sess is None:
            skipped[row] = why
            continue
        sess.run(None, {name: batches[0]})                                   # warm-up: not timed
        runs[row] = (sess, name, batches)
    seconds = {row: [] for row in runs}
    for _ in range(spec["rounds"]):
        for row, (sess, name, batches) in runs.items():
            started = time.perf_counter()
            for batch in batches:
                sess.run(None, {name: batch})
            seconds[row].append(time.perf_counter() - started)
    import onnxruntime
    out = {"seconds": seconds, "skipped": skipped, "threads": threads, "onnxruntime": onnxruntime.__version__,
           "images": spec["batch_size"] * spec["batches"]}
    (spec_path.parent / "timing.json").write_text(json.dumps(out))


if __name__ == "__main__":
    run(Path(sys.argv[1]))
