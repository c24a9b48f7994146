"""Lessons as files: lesson.toml validation, the helper the scripts call, and every real lesson's shape."""
from __future__ import annotations

import json
import textwrap

import pytest

from rosetta import lesson, lessons
from rosetta.lessons import LessonError, load_lesson
from rosetta.project import UsageError
from rosetta.snippets import check_alignment, parse

GOOD = textwrap.dedent("""\
    title = "A lesson"
    claim = "b is faster"
    source = "a test"
    [variants]
    a = "the slow way"
    b = "the quick way"
    [[rules]]
    claim = "b at least 1.1x faster"
    metric = "seconds"
    variant = "b"
    baseline = "a"
    at_least = 1.1
    [settings]
    size = 3
    [profiles.smoke]
    repeats = 1
    [profiles.cpu]
    repeats = 3
    size = 5
    """)


def write(tmp_path, text, name="one"):
    folder = tmp_path / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "lesson.toml").write_text(text)
    return folder


def test_a_lesson_is_read_from_its_toml(tmp_path):
    found = load_lesson(write(tmp_path, GOOD))
    assert found.name == "one" and list(found.variants) == ["a", "b"] and found.steps == lessons.DEFAULT_STEPS
    assert found.rules[0]["baseline"] == "a" and found.profiles["cpu"]["size"] == 5


@pytest.mark.parametrize("change, problem", [
    (lambda t: t.replace("[[rules]]", "[[ignored]]"), "no \\[\\[rules\\]\\]"),
    (lambda t: t.replace('variant = "b"', 'variant = "c"'), "not one of the variants"),
    (lambda t: t.replace("[profiles.cpu]\nrepeats = 3", "[profiles.cpu]\nrepeats = 2"), "at least 3 repeats"),
    (lambda t: t.replace("[profiles.smoke]", "[profiles.quick]"), "unknown profile 'quick'"),
    (lambda t: t.replace('title = "A lesson"\n', ""), "KeyError: 'title'"),
    (lambda t: "requires = 'tpu'\n" + t, "requires must be"),
    (lambda t: t.replace("at_least = 1.1", "at_least = "), "TOMLDecodeError"),
])
def test_a_broken_lesson_toml_is_one_message_naming_the_file(tmp_path, change, problem):
    folder = write(tmp_path, change(GOOD))
    with pytest.raises(LessonError, match=problem) as raised:
        load_lesson(folder)
    assert str(folder / "lesson.toml") in str(raised.value)


def test_a_smoke_profile_may_time_once(tmp_path):
    assert load_lesson(write(tmp_path, GOOD)).profiles["smoke"]["repeats"] == 1


def test_settings_merge_the_profile_and_refuse_unknown_profiles(tmp_path, monkeypatch):
    write(tmp_path, GOOD)
    monkeypatch.setenv("ROSETTA_LESSONS", str(tmp_path))
    hp = lesson.settings("one", "cpu")
    assert (hp.size, hp.repeats, hp.warmup, hp.seed, hp.data) == (5, 3, 1, 0, "real")
    with pytest.raises(UsageError, match="profile of lesson 'one'"):
        lesson.settings("one", "full")
    monkeypatch.setenv("ROSETTA_OVERRIDES", json.dumps({"size": 7}))
    assert lesson.settings("one", "smoke").size == 7


def test_compare_warms_up_alternates_passes_seeds_and_reports(tmp_path, monkeypatch, capsys):
    write(tmp_path, GOOD)
    monkeypatch.setenv("ROSETTA_LESSONS", str(tmp_path))
    hp = lesson.settings("one", "cpu")
    calls = []

    def a():
        calls.append("a")

    def b(seed):
        calls.append(f"b{seed}")
        return {"accuracy": 0.5 + seed}

    lesson.compare(hp, {"a": a, "b": b}, memory=True, facts={"b": {"max_difference": 0.0}})
    printed = capsys.readouterr().out
    payload = json.loads(printed.splitlines()[-1])     # outside a kernel, report() prints its JSON
    # One warm-up call each, then three rounds whose order alternates.
    assert calls == ["a", "b0", "a", "b0", "b1", "a", "a", "b2"]
    measured = payload["metrics"]["variants"]
    assert measured["b"]["accuracy"] == [0.5, 1.5, 2.5] and measured["b"]["max_difference"] == [0.0]
    assert len(measured["a"]["seconds"]) == 3 and all(s >= 0 for s in measured["a"]["seconds"])
    assert len(measured["a"]["peak_memory_mb"]) == 3
    assert "3 rounds after 1 warm-up" in printed
    with pytest.raises(KeyError, match="not a variant"):
        lesson.compare(hp, {"a": a}, facts={"z": {"x": 1}})


def test_a_variant_must_return_none_or_a_dict(tmp_path, monkeypatch):
    write(tmp_path, GOOD)
    monkeypatch.setenv("ROSETTA_LESSONS", str(tmp_path))
    with pytest.raises(TypeError, match="return None or a dict"):
        lesson.compare(lesson.settings("one", "smoke"), {"a": lambda: 3})


def test_unknown_lesson_names_get_a_hint(project):
    found, _ = lessons.all_lessons(project)
    with pytest.raises(UsageError, match="Did you mean 'relu_after_pool'"):
        lessons.pick("relu_after_poll", found)
    assert lessons.pick("none", found) == []


def test_every_real_lesson_loads_and_its_scripts_align(project):
    found, problems = lessons.all_lessons(project)
    assert not problems
    assert len(found) >= 12
    frameworks = project.frameworks()
    for item in found:
        assert (item.folder / "README.md").exists(), item.name
        scripts = item.frameworks(frameworks)
        assert scripts, f"{item.name} has no script"
        assert not check_alignment(item, [parse(item.snippet_path(fw), item) for fw in scripts], frameworks)
        for fw in scripts:
            text = item.snippet_path(fw).read_text()
            assert text.count("lesson.compare(") == 1, f"{item.name}/{fw.name}: one compare call"
            assert f'lesson.settings("{item.name}")' in text
        for profile in ("smoke", "cpu"):
            assert profile in item.profiles, f"{item.name} has no {profile} profile"
        assert item.profiles["smoke"].get("data", "real") != "real", f"{item.name}: smoke reads no real data"


def test_the_verdict_printer_refuses_unknown_names_in_one_line(capsys):
    assert lessons.main(["relu_after_poll"]) == 2
    assert lessons.main(["--profile", "fast"]) == 2
    err = capsys.readouterr().err
    assert "unknown lesson 'relu_after_poll'. Did you mean 'relu_after_pool'?" in err
    assert "unknown profile 'fast'" in err and "Traceback" not in err
