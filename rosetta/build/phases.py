"""Where a build's time goes: wall seconds per phase, printed as a table at the end of every build and
saved beside the site's build files (``_build/phases.json``) for ``benchmarks/build_timings.py``.

Phases are named by what a reader of the table asks about: "environments", "machine peak",
"cnn_cifar10: kernel start-ups", "cnn_cifar10: snippets", "cnn_cifar10: equivalence", "lessons:
kernel start-ups", "lessons: scripts" (at smoke "lessons: scripts, 2 at a time": its wall time), "pages",
"sphinx-build". A phase entered twice adds up.
"""
from __future__ import annotations

import json
import time
from contextlib import contextmanager
from pathlib import Path

from .files import write_atomically


class Phases:
    def __init__(self):
        self.seconds: dict[str, float] = {}
        self.started = time.perf_counter()

    def reset(self) -> None:
        self.__init__()

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + max(seconds, 0.0)

    @contextmanager
    def timing(self, name: str):
        started = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - started)

    def total(self) -> float:
        return time.perf_counter() - self.started

    def table(self) -> str:
        """The phases in the order they first ran, each with its share of the whole build."""
        total = max(self.total(), 1e-9)
        width = max([len(name) for name in self.seconds] + [len("whole build")])
        lines = [f"{'phase':<{width}}  {'wall s':>8}  {'share':>6}"]
        for name, seconds in self.seconds.items():
            lines.append(f"{name:<{width}}  {seconds:8.1f}  {seconds / total:6.1%}")
        other = total - sum(self.seconds.values())
        lines.append(f"{'(the rest)':<{width}}  {other:8.1f}  {other / total:6.1%}")
        lines.append(f"{'whole build':<{width}}  {total:8.1f}  {1:6.1%}")
        return "\n".join(lines)

    def record(self) -> dict:
        return {"phases": {name: round(seconds, 2) for name, seconds in self.seconds.items()},
                "total": round(self.total(), 2)}

    def save(self, path: Path) -> None:
        write_atomically(path, json.dumps(self.record(), indent=1))


CLOCK = Phases()      # the build's one clock: one build per process (cli.main), reset when it starts
