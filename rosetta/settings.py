"""Hyper-parameters and sizes for a snippet: the single source every tab reads.

A snippet calls ``settings("cnn_cifar10")`` and gets the example's hyper-parameters merged
with the sizes of the active profile (``ROSETTA_PROFILE``; the build sets it, and by hand
it defaults to ``full`` on a GPU machine and ``cpu`` otherwise).

A row far slower than the others (ConvNetJS, one image at a time in JavaScript) may have sizes of
its own under ``[row_sizes.<row>.<profile>]``; ``ROSETTA_ROW`` names the row.

``ROSETTA_OVERRIDES`` (a JSON object) replaces settings that already exist, e.g. the
equivalence checks set every dropout rate to 0. An unknown name is an error, not a no-op.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from types import MappingProxyType

from .project import REPO_ROOT, check_name, load_example, resolve_profile
from .report import note

# Examples with a `weights` hyper-parameter load pretrained weights from their model zoo.
# ROSETTA_WEIGHTS=random replaces them with seeded random weights (offline machines);
# the choice travels with the results and every page shows it.
WEIGHTS_CHOICES = ("pretrained", "random")


class Settings:
    """Read-only attribute access to one example's settings under one profile."""

    def __init__(self, example: str, profile: str, values: dict):
        self.example = example
        self.profile = profile
        self._values = MappingProxyType(dict(values))

    def __getattr__(self, name):
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(
                f"{self.example} has no setting {name!r} (known: {', '.join(self._values)})"
            ) from None

    def as_dict(self) -> dict:
        return {"example": self.example, "profile": self.profile, **self._values}

    def __repr__(self):
        inner = ", ".join(f"{k}={v!r}" for k, v in self._values.items())
        return f"Settings({self.example}, profile={self.profile}: {inner})"


def with_overrides(name: str, values: dict) -> dict:
    """The values with ROSETTA_OVERRIDES applied; `data` defaults to the real data set."""
    values = {"data": "real", **values}
    overrides = json.loads(os.environ.get("ROSETTA_OVERRIDES") or "{}")
    for key, value in overrides.items():
        if key not in values:
            raise KeyError(f"ROSETTA_OVERRIDES: {name} has no setting {key!r} (known: {', '.join(values)})")
        values[key] = value
    return values


def settings(example: str, profile: str | None = None, snippets: Path | None = None,
             row: str | None = None) -> Settings:
    """`row` (default ROSETTA_ROW, which the build sets) picks the row's own sizes where the example
    gives it some (`[row_sizes.<row>.<profile>]`)."""
    snippets = Path(snippets or os.environ.get("ROSETTA_SNIPPETS", REPO_ROOT / "snippets"))
    ex = load_example(snippets / example)
    profile = resolve_profile(profile or os.environ.get("ROSETTA_PROFILE"))
    if profile not in ex.profiles:
        raise KeyError(f"example {example!r} defines no {profile!r} profile")
    values = with_overrides(example, {**ex.hyperparameters,
                                      **ex.sizes(profile, row or os.environ.get("ROSETTA_ROW"))})
    if "weights" in values:
        chosen = os.environ.get("ROSETTA_WEIGHTS") or values["weights"]
        values["weights"] = check_name("ROSETTA_WEIGHTS value", chosen, WEIGHTS_CHOICES)
        note(weights="pretrained (the model zoo's ImageNet weights)" if values["weights"] == "pretrained"
             else f"random weights (seeded, seed {values.get('seed')}): ROSETTA_WEIGHTS=random")
    return Settings(example, profile, values)
