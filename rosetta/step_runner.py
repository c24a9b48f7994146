"""Runs inside one framework's environment: a snippet's steps as plain Python, each one timed.

    python -P -m rosetta.step_runner JOB.json

JOB.json holds {"snippet": path, "steps": [{"name": ..., "code": ...}, ...], "output": path}.
The steps run in order in one namespace, as the notebook's cells would, but without a kernel;
the runner writes {"steps": {name: seconds}} to the output path. A step that raises stops the
run: the output then also holds {"error": {"step", "ename", "evalue", "traceback"}}, the
traceback goes to stderr and its last line names the step, and the exit status is 1.

benchmarks/fairness.py compares these times with the same code in its kernel (the build's
measurement) and with a plain script, which separates kernel overhead from code differences.
"""
from __future__ import annotations

import json
import linecache
import sys
import time
import traceback
from pathlib import Path


def compile_cell(code: str, filename: str):
    """Compile code under a name of its own whose lines linecache knows, as IPython does for a cell:
    tools that read a function's source (TensorFlow's AutoGraph in tf.function) find the right lines,
    and tracebacks show them."""
    linecache.cache[filename] = (len(code), None, code.splitlines(keepends=True), filename)
    return compile(code, filename, "exec")


def run(job_path: Path) -> int:
    job = json.loads(job_path.read_text())
    namespace = {"__name__": "__main__"}
    out: dict = {"steps": {}}
    status = 0
    for step in job["steps"]:
        # Compiled before the clock starts, as a kernel compiles a cell before running it.
        code = compile_cell(step["code"], f"{job['snippet']} [{step['name']}]")
        started = time.perf_counter()
        try:
            exec(code, namespace)
        except BaseException as exc:     # SystemExit, KeyboardInterrupt too: say which step it was
            out["error"] = {"step": step["name"], "ename": type(exc).__name__, "evalue": str(exc),
                            "traceback": traceback.format_exc()}
            traceback.print_exc()
            first_line = (str(exc).strip().splitlines() or [""])[0]     # the harness keeps the last stderr line
            print(f"step {step['name']!r} failed: {type(exc).__name__}: {first_line}", file=sys.stderr)
            status = 1
            break
        out["steps"][step["name"]] = time.perf_counter() - started
    Path(job["output"]).write_text(json.dumps(out))
    return status


if __name__ == "__main__":
    sys.exit(run(Path(sys.argv[1])))
