"""Runs inside one environment: how fast its framework multiplies two float32 matrices.

    python -P -m rosetta.matmul_worker CODE_FILE [SIZE]

CODE_FILE defines `make(a, b)`: given two numpy float32 matrices, it returns a function that
multiplies them once with the framework's own routine and returns when the product is done.
Prints {"gflops": ...}: 2·size³ operations over the best of five products, after one warm-up.
The build takes the best rate over every environment as the machine's peak (results.py).
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np


def rate(make, size: int = 2048, repeats: int = 5) -> float:
    rng = np.random.default_rng(0)
    product = make(*(rng.standard_normal((size, size), dtype=np.float32) for _ in range(2)))
    product()                                   # warm-up: threads started, buffers allocated
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        product()
        best = min(best, time.perf_counter() - started)
    return 2 * size ** 3 / best / 1e9


if __name__ == "__main__":
    namespace: dict = {}
    exec(compile(Path(sys.argv[1]).read_text(), sys.argv[1], "exec"), namespace)
    print(json.dumps({"gflops": rate(namespace["make"], *(int(a) for a in sys.argv[2:3]))}))
