"""Try to install, import and use the guide's systems that have no row here, and record what happened.

    .envs/docs/bin/python benchmarks/try_installs.py [--out benchmarks/installs.json] [NAME ...]

Each attempt installs from the package registries (PyPI through uv, never a download site) into a
throwaway folder, on top of the project's environment for the framework it wraps (Theano, TensorFlow,
PyTorch) or a fresh virtual environment, then imports the package and runs a few lines of it. The
environments are not touched: packages go to --target folders put on PYTHONPATH. Needs `make envs`.
docs/systems.toml quotes what this records; benchmarks/installs.json keeps the last run's outcome.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENVS = ROOT / ".envs"
UV = ENVS / "docs" / "bin" / "uv"

# A few lines of each package, once it imports: what a user of it would write first.
SLIM_GRAPH = """
import numpy as np, tensorflow as tf, tf_slim as slim
tf.compat.v1.disable_eager_execution()                      # TF-Slim builds TensorFlow 1 graphs
x = tf.compat.v1.placeholder(tf.float32, (None, 32, 32, 3))
net = slim.max_pool2d(slim.conv2d(x, 50, [3, 3]), [2, 2])
logits = slim.fully_connected(slim.flatten(net), 10, activation_fn=None)
with tf.compat.v1.Session() as session:
    session.run(tf.compat.v1.global_variables_initializer())
    out = session.run(logits, {x: np.zeros((2, 32, 32, 3), np.float32)})
    print("logits", out.shape, "from TensorFlow", tf.__version__)
"""
MMDNN_PYTORCH = """
import argparse, tempfile, torch, torch.nn as nn
model = nn.Sequential(nn.Conv2d(3, 50, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                      nn.Linear(50 * 16 * 16, 10))
folder = tempfile.mkdtemp()
torch.save(model, folder + "/cnn.pth")                       # MMdnn reads a whole pickled model
torch.serialization.add_safe_globals([nn.Sequential, nn.Conv2d, nn.ReLU, nn.MaxPool2d, nn.Flatten, nn.Linear])
from mmdnn.conversion._script.convertToIR import _convert   # what the mmtoir command calls
_convert(argparse.Namespace(srcFramework="pytorch", network=folder + "/cnn.pth", weights=None, inputShape=["3,32,32"],
                            dstPath=folder + "/ir", inNodeName=None, dstNodeName=None, inputNetwork=None, frozen=None))
print("converted to MMdnn's IR:", sorted(__import__("os").listdir(folder)))
"""
ONNX_RUN = """
import numpy as np, onnx, onnxruntime
from onnx import helper, TensorProto
graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
onnx.checker.check_model(model)
session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
print("onnx", onnx.__version__, "onnxruntime", onnxruntime.__version__, "Relu ->",
      session.run(None, {"x": np.array([-1.0, 2.0], np.float32)})[0].tolist())
"""


@dataclass
class Attempt:
    name: str                     # the system's id in docs/systems.toml
    packages: list[str]           # as given to the installer
    base: str                     # a project environment ("theano", ...) or "fresh" (a new virtual environment)
    check: str                    # Python run once the packages are in place
    deps: bool = False            # install their dependencies too (False: the base environment provides them)
    pre: bool = False             # allow pre-releases (the only kind some names have)
    extra: list[str] = field(default_factory=list)   # dependencies the base lacks, installed beside them (no-deps:
                                                     # a second NumPy on the path would break the base's own)


ATTEMPTS = [
    Attempt("onnx", ["onnx==1.23.2", "onnxruntime==1.31.1"], "fresh", ONNX_RUN, deps=True),
    Attempt("mmdnn", ["mmdnn==0.3.1"], "pytorch", MMDNN_PYTORCH, extra=["six", "protobuf==3.20.3"]),
    Attempt("tf-slim", ["tf-slim==1.1.0"], "tensorflow", SLIM_GRAPH),
    Attempt("tflearn", ["tflearn==0.5.0"], "tensorflow", "import tflearn"),
    Attempt("deepy", ["deepy==0.2.1"], "theano", "import deepy"),
    Attempt("nolearn", ["nolearn==0.6.1", "Lasagne==0.1"], "theano", "import nolearn.lasagne", extra=["tabulate"]),
    Attempt("scikit-neuralnetwork", ["scikit-neuralnetwork==0.7", "Lasagne==0.1"], "theano", "import sknn.mlp",
            extra=["scikit-learn==1.3.2", "joblib==1.3.2", "threadpoolctl==3.2.0"]),
    Attempt("caffe2", ["caffe2"], "fresh", "import caffe2", deps=True, pre=True),
    Attempt("pylearn2", ["pylearn2"], "theano", "import pylearn2"),
    Attempt("blocks", ["blocks"], "theano", "import blocks"),
    Attempt("scikit-theano", ["scikit-theano"], "theano", "import scikit_theano"),
    Attempt("cxxnet", ["cxxnet"], "fresh", "import cxxnet"),
]


def tail(text: str, lines: int = 6) -> str:
    kept = [line for line in text.splitlines() if line.strip() and "is ignored: it is neither" not in line]
    return "\n".join(kept[-lines:])


def portable(text: str, work: Path) -> str:
    """The message without this machine's paths (the record is kept in the repository, read on other machines):
    the throwaway folder, the checkout, the home and temporary folders become <scratch>, <repo>, <home>, <tmp>."""
    for path, name in ((work, "<scratch>"), (ROOT, "<repo>"), (Path.home(), "<home>"),
                       (Path(tempfile.gettempdir()), "<tmp>")):
        text = text.replace(str(path), name)
    return text


def environment_variables(base: str) -> dict[str, str]:
    """The variables a project environment's kernels get (Theano's BLAS and compile folder), from its envs/*.toml."""
    import tomllib
    spec = ROOT / "envs" / f"{base}.toml"
    if not spec.exists():
        return {}
    values = tomllib.loads(spec.read_text()).get("variables", {}) or {}
    venv = str(ENVS / base)
    return {key: str(value).replace("{venv}", venv) for key, value in values.items()}


def run(command: list[str], env: dict[str, str] | None = None, timeout: int = 900) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        return subprocess.CompletedProcess(command, 124, "", f"timed out after {exc.timeout} s")


def attempt(spec: Attempt, work: Path) -> dict:
    place = work / spec.name
    if spec.base == "fresh":
        python = place / "venv" / "bin" / "python"
        made = run([sys.executable, "-m", "venv", str(place / "venv")])
        if made.returncode:
            return {"installed": False, "message": tail(made.stderr)}
        target, env = None, dict(os.environ)
    else:
        python = ENVS / spec.base / "bin" / "python"
        if not python.exists():
            return {"installed": False, "message": f"no environment {spec.base}: run make envs first"}
        target = place / "site"
        env = {**os.environ, **environment_variables(spec.base), "PYTHONPATH": str(target)}
        if spec.base == "theano":                     # a throwaway compile folder, not the environment's
            flags = env.get("THEANO_FLAGS", "")
            env["THEANO_FLAGS"] = flags.replace(str(ENVS / "theano" / "theano"), str(place / "theano"))
    install = [str(UV), "pip", "install", "--python", str(python)] + (["--target", str(target)] if target else [])
    options = (["--prerelease", "allow"] if spec.pre else []) + ([] if spec.deps else ["--no-deps"])
    installed = run(install + options + spec.packages)
    result = {"packages": spec.packages, "on": spec.base, "installed": installed.returncode == 0}
    if installed.returncode:
        result["message"] = tail(installed.stderr or installed.stdout)
        return result
    if spec.extra:
        run(install + ["--no-deps"] + spec.extra)
    used = run([str(python), "-c", spec.check], env=env, timeout=600)
    result["works"] = used.returncode == 0
    result["message"] = tail(used.stdout if used.returncode == 0 else used.stderr)
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Try the guide's systems without a row: install, import, use.")
    parser.add_argument("names", nargs="*", help="ids from docs/systems.toml (default: all)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "installs.json"))
    args = parser.parse_args(argv)
    known = {spec.name: spec for spec in ATTEMPTS}
    unknown = [name for name in args.names if name not in known]
    if unknown:
        print(f"error: unknown name(s) {', '.join(unknown)}; known: {', '.join(known)}", file=sys.stderr)
        return 2
    chosen = [known[name] for name in args.names] or ATTEMPTS
    work = Path(tempfile.mkdtemp(prefix="rosetta-installs-"))
    outcomes = {}
    try:
        for spec in chosen:
            outcomes[spec.name] = attempt(spec, work)
            outcomes[spec.name]["message"] = portable(outcomes[spec.name]["message"], work)
            verdict = "works" if outcomes[spec.name].get("works") else (
                "installs, then fails to import or run" if outcomes[spec.name]["installed"] else "does not install")
            print(f"{spec.name}: {verdict}\n  " + outcomes[spec.name]["message"].replace("\n", "\n  "))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    record = {"date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
              "python": platform.python_version(), "machine": platform.platform(), "attempts": outcomes}
    out = Path(args.out)
    previous = json.loads(out.read_text()) if out.exists() and args.names else {}
    if previous:                                  # a partial run updates only the names it tried
        previous["attempts"].update(outcomes)
        record["attempts"] = previous["attempts"]
    out.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    print(f"written: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
