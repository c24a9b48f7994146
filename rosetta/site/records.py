"""What stored records say, read as plain data: the machine a result was measured on, where a column of
results comes from, whether a run executed the code a page shows. No file is read here."""
from __future__ import annotations

from ..build import identity
from ..build.snippets import Step
from ..project import REFERENCE_RESULTS

REFERENCE_TEXT = f"reference results kept in the repository (`{REFERENCE_RESULTS}`)"


def has_gpu(machine: dict | None) -> bool:
    return bool((machine or {}).get("gpus"))


def recorded_machine(result: dict | None) -> dict | None:
    """The machine a result was measured on, as the result recorded it (None in an older record)."""
    machine = ((result or {}).get("provenance") or {}).get("machine")
    return machine if isinstance(machine, dict) else None


def column_machine(key: tuple, by_column: dict) -> dict | None:
    """The description of a column's machine, as its results recorded it."""
    return next(filter(None, map(recorded_machine, by_column.get(key, {}).values())), None)


def origin_text(key: tuple, column: dict) -> str:
    """Where a column's results come from, when and at which commit they were measured."""
    dates = sorted({r.get("provenance", {}).get("date", "")[:10] for r in column.values()} - {""})
    commits = sorted({(r.get("provenance", {}).get("repository") or {}).get("commit", "")[:10]
                      for r in column.values()} - {""})
    stale = sum(1 for r in column.values() if r.get("stale"))
    where = ("" if len(key) < 3 else REFERENCE_TEXT if key[2] == "reference" else f"results folder `{key[2]}`")
    when = (f"measured {dates[0]}" + (f" to {dates[-1]}" if dates[-1] != dates[0] else "") if dates else "") + \
        (f" at commit {', '.join(commits)}" if commits else "")
    return ", ".join(part for part in (where, when, f"{stale} stale (code changed since)" if stale else "") if part)


def same_substance(ran: Step, shown: Step, language: str) -> bool:
    """Whether the code a run executed for a step is the code shown, comments and layout aside."""
    return identity.code_identity(ran.code, language) == identity.code_identity(shown.code, language)
