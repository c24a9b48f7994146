"""benchmarks/try_installs.py: the guide's install attempts. Framework-free, no registry needed: the names it
tries match the guide's entries, a wrong name is refused with one message, and the guide quotes each attempt."""
from __future__ import annotations

import importlib.util
import json
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SPEC = importlib.util.spec_from_file_location("try_installs", REPO / "benchmarks" / "try_installs.py")
try_installs = importlib.util.module_from_spec(SPEC)
sys.modules["try_installs"] = try_installs                  # its dataclass looks its module up by name
SPEC.loader.exec_module(try_installs)


def guide_entries() -> dict[str, dict]:
    return {entry["id"]: entry for entry in tomllib.loads((REPO / "docs" / "systems.toml").read_text())["system"]}


def test_every_attempt_is_a_guide_entry_without_a_row_that_names_the_script():
    entries = guide_entries()
    for attempt in try_installs.ATTEMPTS:
        entry = entries[attempt.name]
        assert "rows" not in entry, f"{attempt.name} has a row: nothing to try"
        said = entry.get("install") or entry.get("reason")
        assert f"benchmarks/try_installs.py {attempt.name}" in said, f"{attempt.name}: the guide does not cite it"


def test_the_recorded_outcomes_agree_with_the_guide():
    """What benchmarks/installs.json recorded is what the guide says: installs means installed (and, for the
    ones said to work, working); cannot-install means it did not install or did not import."""
    recorded = json.loads((REPO / "benchmarks" / "installs.json").read_text())["attempts"]
    entries = guide_entries()
    for name, outcome in recorded.items():
        if entries[name]["status"] == "installs":
            assert outcome["installed"], name
        else:
            assert not outcome["installed"] or not outcome.get("works"), name


def test_an_unknown_name_is_refused_with_the_known_ones(capsys, tmp_path):
    assert try_installs.main(["no-such-system", "--out", str(tmp_path / "out.json")]) == 2
    message = capsys.readouterr().err
    assert "unknown name(s) no-such-system" in message and "mmdnn" in message
    assert not (tmp_path / "out.json").exists()


def test_tail_drops_the_registry_mirror_noise():
    text = "WARNING: Location 'file:///x' is ignored: it is neither a file nor a directory.\nreal error\n\n"
    assert try_installs.tail(text) == "real error"


def test_the_record_names_no_path_of_the_machine_that_made_it(tmp_path):
    """benchmarks/installs.json is read on other machines: no checkout, home or temporary folder in it."""
    text = (REPO / "benchmarks" / "installs.json").read_text()
    for local in (str(REPO), str(Path.home()), "/tmp/"):
        assert local not in text, local
    scratch = tmp_path / "rosetta-installs-x"
    said = f"File {scratch}/a.py and {REPO}/.envs/theano/x.py, {Path.home()}/.cache/uv/y"
    portable = try_installs.portable(said, scratch)
    assert portable == "File <scratch>/a.py and <repo>/.envs/theano/x.py, <home>/.cache/uv/y"
