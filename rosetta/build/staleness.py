"""Whether a stored result is stale for this checkout: decided here, for the results a build did not measure
itself (a publishing build's, another machine's check) and for the reference results (reference.py).

A fairness record (benchmarks/fairness.py) is stale when the snippet or its plain twin changed in substance
(one measured before their identities were recorded: when either file changed at all).
A benchmark or lesson row is stale when what it ran changed since, in substance (results.code_record: its
script, its definition's values, the helper code): its cache key also names data paths and environments of
the machine that measured, which mean nothing here. An equivalence check is stale by its key, computed with
the environments its own machine recorded. (A build's own results are current when their key is: jobs.py.)
"""
from __future__ import annotations

from ..project import Example, Framework, Project
from . import conversion, equivalence, identity, lessons, results, store


def row_is_stale(kind: store.Kind, thing, fw: Framework, result: dict) -> bool:
    """A benchmark row (`thing` an Example) or a lesson row (a Lesson) whose code changed since it ran."""
    now = results.example_code(thing, fw) if kind is store.BENCHMARK else lessons.lesson_code(thing, fw)
    return results.code_changed(result, now)


def check_is_stale(project: Project, example: Example, frameworks: list[Framework], envs: dict, profile: str,
                   machine: str, check: dict) -> bool:
    key = equivalence.cache_key(project, example, equivalence.candidates_of(example, frameworks), envs, profile,
                                machine)
    return check.get("cache_key") != key


def mark_rows(results_by_name: dict, things: list, frameworks: list[Framework], kind: store.Kind) -> None:
    """Marks every measured row of these examples or lessons stale or not, by its code (a publishing build)."""
    by_name = {fw.name: fw for fw in frameworks}
    for thing in things:
        for name, result in results_by_name.get(thing.name, {}).items():
            if name in by_name and was_measured(kind, result):
                result["stale"] = row_is_stale(kind, thing, by_name[name], result)


def was_measured(kind: store.Kind, result: dict) -> bool:
    """A row that ran (a record of one that could not run has no key: nothing it measured can be stale)."""
    if kind is store.BENCHMARK and not result.get("provenance", {}).get("date"):
        return False
    return bool(result.get("cache_key"))


def newest_elsewhere(project: Project, kind: store.Kind, example: Example, profile: str, machine: str,
                     is_stale) -> dict | None:
    """The newest record of `kind` (a check, conversions) that another machine of the results folders made for
    the example at this profile, marked stale or not by `is_stale(record, envs, machine)` with the environments
    its own machine recorded."""
    found = []
    for root, path in store.everywhere(project, kind, example.name, profile):
        other = path.parent.parent.parent.name
        record = store.previous(kind, path)
        if (root, other) == (project.results.resolve(), machine) or record is None:
            continue
        try:
            recorded = results.recorded_environments(results.load_machine(root, other)[1])
        except store.ResultFileError:
            continue
        record["stale"] = is_stale(record, recorded, other)
        found.append(record)
    return max(found, key=lambda d: d.get("date", ""), default=None)


def check_elsewhere(project: Project, example: Example, profile: str, machine: str,
                    frameworks: list[Framework]) -> dict | None:
    """The newest check another machine made at this profile (a check re-measured alone on another machine; the
    reference's, beside a new machine's first build)."""
    return newest_elsewhere(project, store.CHECK, example, profile, machine, lambda check, envs, other:
                            check_is_stale(project, example, frameworks, envs, profile, other, check))


def conversions_elsewhere(project: Project, example: Example, profile: str, machine: str,
                          frameworks: list[Framework]) -> dict | None:
    """The newest ONNX conversions another machine made at this profile, as for a check: stale by their key."""
    candidates = conversion.candidates_of(example, frameworks)
    return newest_elsewhere(project, store.CONVERSION, example, profile, machine, lambda record, envs, other:
                            record.get("cache_key") != conversion.cache_key(project, example, candidates, envs,
                                                                            profile, other))


def check_on_record(project: Project, example: Example, profile: str, machine: str, frameworks: list[Framework],
                    envs: dict) -> dict | None:
    """The last check on record for an example: this machine's, marked stale when what it depends on has
    changed since, else another machine's (check_elsewhere)."""
    check = store.previous(store.CHECK, store.CHECK.path(project.results, machine, profile, example.name))
    if check is None:
        return check_elsewhere(project, example, profile, machine, frameworks)
    check["stale"] = check_is_stale(project, example, frameworks, envs, profile, machine, check)
    return check


def fairness_is_stale(project: Project, example: Example | None, fw: Framework, entry: dict) -> bool:
    """A fairness record whose tab or plain twin changed since it was measured (or whose example is gone)."""
    if example is None:
        return True
    prov = entry["provenance"]
    snippet = example.snippet_path(fw)
    plain = fw.script(project.root / "benchmarks" / "plain" / entry["example"])
    if "snippet_identity" in prov:
        return identity.snippet_identity(snippet) != prov["snippet_identity"] \
            or identity.script_identity(plain) != prov.get("plain_identity") \
            or any(alternative_changed(project, other) for other in prov.get("alternatives", {}).values())
    return results.file_sha256(snippet) != prov.get("snippet_sha256") \
        or results.file_sha256(plain) != prov.get("plain_sha256")


def alternative_changed(project: Project, recorded: dict) -> bool:
    """Another plain twin (fairness.py's plain@<name>) gone or changed in substance since it was measured."""
    return identity.script_identity(project.root / recorded["file"]) != recorded["identity"]   # None: gone
