"""The one call a snippet makes to hand over its non-time metrics (accuracy, counts).

The numbers travel as a notebook output of their own MIME type, next to a readable line,
so the build reads them from the executed notebook instead of parsing printed text.
Loaders add what the reader cannot see in the snippet (the data source) through ``note``.
"""
from __future__ import annotations

import json
import sys

MIME_TYPE = "application/vnd.rosetta.report+json"
_context: dict = {}


def note(**facts) -> None:
    """Record provenance facts (e.g. data_source) to travel with the next report."""
    _context.update(facts)


def _readable(value) -> str:
    return f"{value:.4f}" if isinstance(value, float) else str(value)


def report(line: str | None = None, **metrics) -> dict:
    """Hand the metrics to the build; `line` replaces the readable line shown under the code."""
    payload = {"metrics": metrics, "context": dict(_context)}
    line = line or "reported: " + ", ".join(f"{k}={_readable(v)}" for k, v in metrics.items())
    if "IPython" in sys.modules and getattr(sys.modules["IPython"], "get_ipython", lambda: None)():
        from IPython.display import display
        display({MIME_TYPE: json.loads(json.dumps(payload)), "text/plain": line}, raw=True)
    else:  # run as a plain script: print both
        print(line)
        print(json.dumps(payload))
    return payload
