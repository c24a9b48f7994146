#!/usr/bin/env python3
"""The GPU software stack as the frameworks see it, as JSON on standard output.

    python benchmarks/gpu/versions.py [--python PYTHON ...]

Without --python it asks this interpreter; with them it asks each one in a subprocess (PyTorch and JAX
may live in different interpreters) and keeps, per framework, the first that has it. nvidia-smi is
asked once. A field that cannot be known (no GPU, a CPU build, the framework absent) is null, never an
error. run.sh saves the answer as <results>/<machine>/gpu-stack.json, beside machine.json (whose GPU
model and driver the build records itself); the top-level "driver", "cuda" and "cudnn" are what a page
shows:

    {"driver": "580.159.03", "cuda": {"driver_supports": "13.0", "torch": "13.0", "jax": "13.0"},
     "cudnn": {"torch": "9.13.0", "jax": "9.13.0"}, "frameworks": {"torch": {...}, "jax": {...}, ...}}

The lead's build may call `stack(pythons)` instead of running the script.
"""
from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import warnings
from datetime import UTC, datetime

FORMAT = 1
# The distributions worth naming in the provenance of a GPU run, where installed.
PACKAGES = ("torch", "torchvision", "jax", "jaxlib", "jax-cuda13-plugin", "jax-cuda13-pjrt", "jax-cuda12-plugin",
            "jax-cuda12-pjrt", "flax", "optax", "keras", "numpy", "cupy-cuda13x", "cupy-cuda12x",
            "nvidia-cudnn-cu13", "nvidia-cudnn-cu12", "nvidia-cuda-runtime", "nvidia-cuda-runtime-cu12",
            "nvidia-cublas", "nvidia-cublas-cu12", "ipykernel", "nbclient", "jupytext")
PROBE_TIMEOUT = 300     # seconds: initialising CUDA in two frameworks takes a few


def cuda_version(number) -> str | None:
    """CUDA's integer version (13000, 12040) as "13.0", "12.4"."""
    if not number:
        return None
    number = int(number)
    return f"{number // 1000}.{number % 1000 // 10}"


def cudnn_version(number) -> str | None:
    """cuDNN's integer version as "9.13.0": major*10000 + minor*100 + patch from cuDNN 9 on,
    major*1000 + minor*100 + patch before."""
    if not number:
        return None
    number = int(number)
    if number >= 90000:
        return f"{number // 10000}.{number % 10000 // 100}.{number % 100}"
    return f"{number // 1000}.{number % 1000 // 100}.{number % 100}"


def _try(function, default=None):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return function()
    except Exception:       # noqa: BLE001 -- a version that cannot be read is null, whatever the reason
        return default


def probe_torch() -> dict | None:
    try:
        import torch
    except Exception:       # noqa: BLE001 -- absent, or broken: either way it cannot say
        return None
    available = bool(_try(torch.cuda.is_available, False))
    count = _try(torch.cuda.device_count, 0) if available else 0
    return {
        "python": sys.executable,
        "version": torch.__version__,
        "cuda": torch.version.cuda,                       # the CUDA release this torch was built for
        "cudnn": cudnn_version(_try(torch.backends.cudnn.version)),
        "cudnn_raw": _try(torch.backends.cudnn.version),
        "cuda_available": available,
        "devices": [_try(lambda i=i: torch.cuda.get_device_name(i)) for i in range(count)],
        "capability": (".".join(map(str, _try(lambda: torch.cuda.get_device_capability(0), ())))
                       or None) if available else None,
        # the math modes a snippet gets when it sets none (they decide TF32 in matrix products and convolutions)
        "defaults": {
            "float32_matmul_precision": _try(torch.get_float32_matmul_precision),
            "matmul_allow_tf32": _try(lambda: torch.backends.cuda.matmul.allow_tf32),
            "cudnn_allow_tf32": _try(lambda: torch.backends.cudnn.allow_tf32),
            "cudnn_benchmark": _try(lambda: torch.backends.cudnn.benchmark),
        },
    }


def probe_jax() -> dict | None:
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")   # a probe, not a run: no 75 % of the GPU
    try:
        import jax
    except Exception:       # noqa: BLE001
        return None
    devices = _try(jax.devices, [])
    # jaxlib's CUDA plugin exposes the versions it loaded (private module; absent on a CPU build).
    versions = _try(lambda: __import__("jax._src.lib", fromlist=["cuda_versions"]).cuda_versions)

    def call(name: str):
        return _try(getattr(versions, name)) if versions is not None and hasattr(versions, name) else None

    return {
        "python": sys.executable,
        "version": jax.__version__,
        "jaxlib": _try(lambda: importlib.metadata.version("jaxlib")),
        "backend": _try(jax.default_backend),
        "devices": [getattr(d, "device_kind", str(d)) for d in devices],
        "cuda_plugin": getattr(versions, "__name__", None),
        "cuda": cuda_version(call("cuda_runtime_get_version")),
        "cuda_build": cuda_version(call("cuda_runtime_build_version")),
        "cuda_driver": cuda_version(call("cuda_driver_get_version")),
        "cudnn": cudnn_version(call("cudnn_get_version")),
        "cudnn_build": cudnn_version(call("cudnn_build_version")),
        "defaults": {"default_matmul_precision": _try(lambda: jax.config.jax_default_matmul_precision)},
    }


def probe_cupy() -> dict | None:
    try:
        import cupy
    except Exception:       # noqa: BLE001
        return None
    runtime = _try(lambda: cupy.cuda.runtime)
    return {
        "python": sys.executable,
        "version": cupy.__version__,
        "cuda": cuda_version(_try(runtime.runtimeGetVersion)) if runtime else None,
        "cuda_driver": cuda_version(_try(runtime.driverGetVersion)) if runtime else None,
        "cudnn": cudnn_version(_try(lambda: __import__("cupy_backends.cuda.libs.cudnn", fromlist=["x"]).getVersion())),
    }


def packages() -> dict:
    found = {"python": platform.python_version()}
    for name in PACKAGES:
        version = _try(lambda name=name: importlib.metadata.version(name))
        if version:
            found[name] = version
    return found


def probe() -> dict:
    """What this interpreter's frameworks see."""
    return {"python": sys.executable, "packages": packages(),
            "frameworks": {"torch": probe_torch(), "jax": probe_jax(), "cupy": probe_cupy()}}


def nvidia_smi() -> dict | None:
    if not shutil.which("nvidia-smi"):
        return None
    try:
        query = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"],
                               capture_output=True, text=True, timeout=30)
        header = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    gpus = []
    for line in query.stdout.strip().splitlines() if query.returncode == 0 else []:
        parts = [part.strip() for part in line.split(",")]
        if len(parts) == 3:
            gpus.append({"name": parts[0], "memory": parts[1], "driver": parts[2]})
    supports = re.search(r"CUDA Version:\s*([\d.]+)", header.stdout or "")
    return {"driver": gpus[0]["driver"] if gpus else None,
            "cuda_driver_supports": supports.group(1) if supports else None, "gpus": gpus}


def ask(python: str) -> dict:
    """probe() in another interpreter."""
    try:
        done = subprocess.run([python, os.path.abspath(__file__), "--probe"], capture_output=True, text=True,
                              timeout=PROBE_TIMEOUT, env={**os.environ, "XLA_PYTHON_CLIENT_PREALLOCATE": "false"})
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError) as exc:
        tail = locals().get("done")
        why = (tail.stderr.strip().splitlines() or [""])[-1] if tail is not None else str(exc)
        return {"python": python, "error": f"{type(exc).__name__}: {why}"[:500], "frameworks": {}}


def stack(pythons: list[str] | None = None) -> dict:
    """The whole record: nvidia-smi, and each framework as the first interpreter that has it sees it."""
    answers = [ask(python) for python in dict.fromkeys(pythons)] if pythons else [probe()]
    frameworks = {}
    for name in ("torch", "jax", "cupy"):
        frameworks[name] = next((a["frameworks"][name] for a in answers if a["frameworks"].get(name)), None)
    smi = nvidia_smi()
    pick = lambda name, key: (frameworks[name] or {}).get(key)   # noqa: E731
    return {
        "format": FORMAT,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "driver": (smi or {}).get("driver"),
        "cuda": {"driver_supports": (smi or {}).get("cuda_driver_supports"),
                 "torch": pick("torch", "cuda"), "jax": pick("jax", "cuda"), "cupy": pick("cupy", "cuda")},
        "cudnn": {"torch": pick("torch", "cudnn"), "jax": pick("jax", "cudnn"), "cupy": pick("cupy", "cudnn")},
        "nvidia_smi": smi,
        "frameworks": frameworks,
        "interpreters": {a["python"]: {k: v for k, v in a.items() if k not in ("python", "frameworks")}
                         for a in answers},
    }


def describe(record: dict) -> str:
    """A few lines for a log."""
    lines = [f"driver {record['driver'] or '-'} (supports CUDA {record['cuda']['driver_supports'] or '-'})"]
    for name, seen in record["frameworks"].items():
        if seen:
            lines.append(f"{name} {seen['version']}: CUDA {seen.get('cuda') or '-'}, cuDNN {seen.get('cudnn') or '-'}, "
                         f"devices {', '.join(d or '?' for d in seen.get('devices') or []) or 'none'}"
                         f"  [{seen['python']}]")
        else:
            lines.append(f"{name}: not importable")
    for python, answer in record["interpreters"].items():
        if answer.get("error"):
            lines.append(f"{python}: {answer['error']}")
        else:
            lines.append(f"{python}: " + ", ".join(f"{k} {v}" for k, v in answer["packages"].items()))
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", action="append", help="an interpreter to ask (repeatable); default: this one")
    parser.add_argument("--probe", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--describe", action="store_true", help="also print a summary to standard error")
    args = parser.parse_args(argv)
    if args.probe:
        print(json.dumps(probe()))
        return 0
    record = stack(args.python)
    print(json.dumps(record, indent=1, sort_keys=True))
    if args.describe:
        print(describe(record), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
