"""Runs in the environment that has ONNX Runtime and onnx2torch (envs/pytorch.txt): reads each exported model,
runs it, and brings it back into PyTorch.

    python -P -m rosetta.onnx_check_worker JOB_DIR [JOB_DIR ...]

Each JOB_DIR is a conversion worker's (conversion_worker.py): model.onnx and out.npz (`inputs`, the batch as
the exported model takes it). For each, the worker writes check.npz (`ort`: ONNX Runtime's outputs; `torch`:
those of the model onnx2torch made of the file) and check.json: the file's opset and operators, what the ONNX
checker said, the files that hold its weights where the exporter wrote them beside it (ONNX's external data:
Keras on JAX does), and the message of any step that refused (loading, running, importing). A file with
external data is also saved whole (WHOLE_FILE), the copy the build keeps. Comparing the outputs with the
framework's own is the build's (conversion.py), with the equivalence checks' tolerances.

(ONNX, ONNX Runtime, onnx2torch and PyTorch are imported where they are used: the package's kernel side
imports no framework at module level, test_architecture.py.)
"""
from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

import numpy as np

from . import neutral
from .conversion_worker import MODEL_FILE, exporter_message

WHOLE_FILE = "whole.onnx"          # model.onnx with its external data inside: one file to keep


def feed_name(model) -> str:
    """The graph's one real input: some exporters (onnx_chainer) list the weights among the inputs too."""
    weights = {initializer.name for initializer in model.graph.initializer}
    return [i.name for i in model.graph.input if i.name not in weights][0]


def describe(model) -> dict:
    """The opset of the default domain (others by name) and how many nodes of each operator the graph has."""
    import onnx
    opsets = {entry.domain or "ai.onnx": entry.version for entry in model.opset_import}
    operators = collections.Counter(node.op_type if node.domain in ("", "ai.onnx") else
                                    f"{node.domain}.{node.op_type}" for node in model.graph.node)
    try:
        onnx.checker.check_model(model)
        checker = ""
    except onnx.checker.ValidationError as exc:
        checker = exporter_message(exc)
    producer = f"{model.producer_name} {model.producer_version}".strip()
    return {"opset": opsets.get("ai.onnx"), "opsets": opsets, "operators": dict(sorted(operators.items())),
            "checker": checker, "ir_version": model.ir_version, "producer": producer}


def message(exc: BaseException, job_dir: Path) -> str:
    """The refusal's line, without the folder it ran in (ONNX Runtime names the file it loaded)."""
    return exporter_message(exc).replace(f"{job_dir}/", "")


def check(job_dir: Path) -> None:
    import onnx
    import onnxruntime
    import torch
    from onnx2torch import convert

    inputs = neutral.load(job_dir / "out.npz")["inputs"]
    model = onnx.load(job_dir / MODEL_FILE, load_external_data=False)
    external = sorted({entry.value for tensor in model.graph.initializer
                       if tensor.data_location == onnx.TensorProto.EXTERNAL
                       for entry in tensor.external_data if entry.key == "location"})
    onnx.load_external_data_for_model(model, str(job_dir))
    if external:
        onnx.save_model(model, job_dir / WHOLE_FILE)
    found, outputs = {**describe(model), "external_data": external}, {}
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3                     # errors only: its warnings are about graph rewrites
    try:
        session = onnxruntime.InferenceSession(str(job_dir / MODEL_FILE), options,
                                               providers=["CPUExecutionProvider"])
        outputs["ort"] = np.asarray(session.run(None, {feed_name(model): inputs})[0], dtype=np.float32)
        found["runtime"] = ""
    except Exception as exc:           # ONNX Runtime refuses the file (an operator, a shape): shown as it says
        found["runtime"] = message(exc, job_dir)
    try:
        module = convert(model).eval()
        with torch.no_grad():
            outputs["torch"] = np.asarray(module(torch.from_numpy(inputs)).numpy(), dtype=np.float32)
        found["import"] = ""
    except Exception as exc:
        found["import"] = message(exc, job_dir)
    found["versions"] = {"onnx": onnx.__version__, "onnxruntime": onnxruntime.__version__,
                         "onnx2torch": _version("onnx2torch"), "torch": torch.__version__.split("+")[0]}
    neutral.save(job_dir / "check.npz", outputs)
    (job_dir / "check.json").write_text(json.dumps(found))


def _version(distribution: str) -> str:
    from importlib.metadata import version
    return version(distribution)


if __name__ == "__main__":
    for folder in sys.argv[1:]:
        check(Path(folder))
