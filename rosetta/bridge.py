"""The Python side of the helpers for rows written in another language (ConvNetJS's JavaScript).

    python -m rosetta.bridge settings EXAMPLE
    python -m rosetta.bridge load EXAMPLE LOADER OUTDIR [--layout NHWC]

A JavaScript tab gets the same settings and the same data as the Python tabs by asking this
module, run by its environment's Python (``ROSETTA_PYTHON_BRIDGE``), instead of repeating the
logic: ``settings`` prints one JSON object, the example's settings under the active profile (the
same ``ROSETTA_PROFILE``, ``ROSETTA_OVERRIDES``, ``ROSETTA_ROW`` and ``ROSETTA_WEIGHTS`` rules as
``rosetta.settings``); ``load`` calls ``rosetta.data.<LOADER>.load`` with those settings and
writes each array it returns to ``OUTDIR/<name>.bin`` (raw, little-endian, C order) with
``OUTDIR/index.json`` naming their shapes and dtypes. Both also hand over the provenance notes
(``rosetta.report.note``: data source, weights) under "context", for the caller's report.
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

import numpy as np

from .project import check_name
from .report import _context
from .settings import settings

# The names of what each loader returns, in order (camelCase on the JavaScript side: x_train -> xTrain).
ARRAY_NAMES = {
    "cifar10": ("x_train", "y_train", "x_test", "y_test"),
    "imdb": ("x_train", "y_train", "x_test", "y_test"),
    "random_images": ("images",),
}
# The dtypes a typed array can hold as they are (Float32Array, Int32Array, ...).
DTYPES = ("float32", "float64", "int32", "uint8")
INDEX = "index.json"


def settings_payload(example: str) -> dict:
    """The example's settings (profile included) and the notes that reading them recorded."""
    return {"settings": settings(example).as_dict(), "context": dict(_context)}


def load(example: str, loader: str, outdir: Path, layout: str | None = None) -> dict:
    """Write the loader's arrays into outdir; returns (and writes) the index."""
    check_name("loader", loader, list(ARRAY_NAMES))
    module = importlib.import_module(f"rosetta.data.{loader}")
    hp = settings(example)
    found = module.load(hp, layout=layout) if layout else module.load(hp)
    arrays = found if isinstance(found, tuple) else (found,)
    outdir.mkdir(parents=True, exist_ok=True)
    index = {"example": example, "loader": loader, "layout": layout, "arrays": {}}
    for name, array in zip(ARRAY_NAMES[loader], arrays, strict=True):
        if array.dtype.name not in DTYPES:
            raise TypeError(f"{loader}.load returned {name} as {array.dtype}; the bridge sends {', '.join(DTYPES)}")
        little_endian = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
        (outdir / f"{name}.bin").write_bytes(little_endian.tobytes())
        index["arrays"][name] = {"file": f"{name}.bin", "shape": list(array.shape), "dtype": array.dtype.name}
    index["context"] = dict(_context)
    (outdir / INDEX).write_text(json.dumps(index))
    return index


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rosetta.bridge", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("settings", help="print the example's settings as JSON").add_argument("example")
    loading = commands.add_parser("load", help="write a data loader's arrays as raw files + index.json")
    loading.add_argument("example")
    loading.add_argument("loader", help=f"a module of rosetta.data: {', '.join(ARRAY_NAMES)}")
    loading.add_argument("outdir", type=Path)
    loading.add_argument("--layout", choices=("NCHW", "NHWC"), help="for image loaders")
    args = parser.parse_args(argv)
    if args.command == "settings":
        print(json.dumps(settings_payload(args.example)))
    else:
        print(json.dumps(load(args.example, args.loader, args.outdir, args.layout)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
