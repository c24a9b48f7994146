"""Lessons as files: lesson.toml validation, the helper the scripts call, and every real lesson's shape."""
from __future__ import annotations

import json
import textwrap
import time

import pytest

from rosetta import lesson
from rosetta.build import lessons
from rosetta.build.lessons import LessonError, load_lesson
from rosetta.build.snippets import check_alignment, parse
from rosetta.project import UsageError
from rosetta.site.markup import escape

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
    (lambda t: t.replace("[[rules]]", "[[ignored]]"), "unknown key 'ignored'"),   # (rosetta/model.py)
    (lambda t: t.replace(t[t.index("[[rules]]"):t.index("[settings]")], ""), "no \\[\\[rules\\]\\]"),
    (lambda t: t.replace('variant = "b"', 'variant = "c"'), "not one of the variants"),
    (lambda t: t.replace("[profiles.cpu]\nrepeats = 3", "[profiles.cpu]\nrepeats = 2"), "at least 3 repeats"),
    (lambda t: t.replace("[profiles.smoke]", "[profiles.quick]"), "unknown profile 'quick'"),
    (lambda t: t.replace('title = "A lesson"\n', ""), "KeyError: 'title'"),
    (lambda t: "requires = 'tpu'\n" + t, "requires must be"),
    (lambda t: t.replace("at_least = 1.1", "at_least = "), "not valid TOML"),
    (lambda t: t + '[curve]\nx_label = "n"\nmetrics = ["seconds"]\nx = {a = 1, c = 2}\n', "not variants"),
    (lambda t: t + '[curve]\nx_label = "n"\nmetrics = ["seconds"]\nx = {a = 0, b = 2}\n', "positive numbers"),
    (lambda t: t + '[curve]\nx = {a = 1, b = 2}\n', "it needs x_label"),
    (lambda t: 'controls = ["c"]\n' + t, "controls \\['c'\\] are not variants"),
])
def test_a_broken_lesson_toml_is_one_message_naming_the_file(tmp_path, change, problem):
    folder = write(tmp_path, change(GOOD))
    with pytest.raises(LessonError, match=problem) as raised:
        load_lesson(folder)
    assert str(folder / "lesson.toml") in str(raised.value)


LEFT_OUT = '[[left_out]]\nrows = ["pytorch", "chainer"]\nwhy = "a reason"\n'


def test_the_rows_left_out_are_read_with_their_reason(tmp_path):
    found = load_lesson(write(tmp_path, GOOD + LEFT_OUT + '[[left_out]]\nrows = ["jax"]\nwhy = "not written yet"\n'))
    assert found.left_out == {"pytorch": "a reason", "chainer": "a reason", "jax": lessons.NOT_WRITTEN}


@pytest.mark.parametrize("entry, problem", [
    (LEFT_OUT + LEFT_OUT.replace('"pytorch", ', ""), "row 'chainer' is left out twice"),
    ('[[left_out]]\nrows = ["pytorch"]\nwhy = " "\n', "needs rows"),
    ('[[left_out]]\nrows = []\nwhy = "a reason"\n', "needs rows"),
    ('[[left_out]]\nwhy = "a reason"\n', "KeyError: 'rows'"),
])
def test_a_wrong_left_out_entry_is_one_message_naming_the_file(tmp_path, entry, problem):
    folder = write(tmp_path, GOOD + entry)
    with pytest.raises(LessonError, match=problem) as raised:
        load_lesson(folder)
    assert str(folder / "lesson.toml") in str(raised.value)


def test_a_left_out_row_must_be_a_row_without_a_script(project, tmp_path):
    folder = write(tmp_path, GOOD + '[[left_out]]\nrows = ["pytorch", "pytroch"]\nwhy = "a reason"\n')
    (folder / "pytorch.py").write_text("")
    problems = lessons.accounting_problems(load_lesson(folder), project.frameworks())
    assert len(problems) == 2 and all(str(folder / "lesson.toml") in problem for problem in problems)
    assert "'pytroch' is not a row" in problems[0] and "'pytorch' has a script (pytorch.py)" in problems[1]


def test_every_real_lesson_accounts_for_every_row(project):
    """Each row has a script of each lesson or the lesson says why not: the claim does not speak of it, another
    row or lesson measures the same thing, or "not written yet" (what is left to do, shown on its page)."""
    found, problems = lessons.all_lessons(project)
    assert not problems
    for item in found:
        for fw in project.frameworks():
            assert item.snippet_path(fw).exists() != (fw.name in item.left_out), (item.name, fw.name)


def test_no_real_lesson_leaves_a_row_it_speaks_of_unwritten(project):
    """Every row a claim speaks of has its script: a row left out says why (another row measures the same
    thing, the framework has no such switch), never "not written yet"."""
    found, _ = lessons.all_lessons(project)
    unwritten = [f"{item.name}/{row}" for item in found for row, why in item.left_out.items()
                 if why == lessons.NOT_WRITTEN]
    assert not unwritten, unwritten


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


def test_compare_records_a_throughput_per_timed_call(tmp_path, monkeypatch, capsys):
    write(tmp_path, GOOD)
    monkeypatch.setenv("ROSETTA_LESSONS", str(tmp_path))
    hp = lesson.settings("one", "cpu")
    lesson.compare(hp, {"a": lambda: time.sleep(0.01), "b": lambda: time.sleep(0.02)},
                   per_second={"images": {"a": 4, "b": 32}})
    measured = json.loads(capsys.readouterr().out.splitlines()[-1])["metrics"]["variants"]
    for name, count in (("a", 4), ("b", 32)):
        seconds, rates = measured[name]["seconds"], measured[name]["images_per_second"]
        assert len(rates) == 3 and rates == pytest.approx([count / s for s in seconds])
    with pytest.raises(KeyError, match="the variants are"):
        lesson.compare(hp, {"a": lambda: None}, per_second={"images": {"b": 1}})


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
        for rule in item.rules:
            unknown = set(rule.get("frameworks", ())) - {fw.name for fw in scripts}
            assert not unknown, f"{item.name}: rule {rule['claim']!r} names frameworks without a script: {unknown}"
        assert item.profiles["smoke"].get("data", "real") != "real", f"{item.name}: smoke reads no real data"


def test_the_verdict_printer_refuses_unknown_names_in_one_line(capsys):
    assert lessons.main(["relu_after_poll"]) == 2
    assert lessons.main(["--profile", "fast"]) == 2
    err = capsys.readouterr().err
    assert "unknown lesson 'relu_after_poll'. Did you mean 'relu_after_pool'?" in err
    assert "unknown profile 'fast'" in err and "Traceback" not in err


BOX = {"cpu": "Test CPU", "cores": 2, "gpus": []}


def table_rows(text: str, header: str) -> list[list[str]]:
    """The rows of the markdown table that starts with `header` (cells split on unescaped bars)."""
    import re
    lines = text[text.index(header):].splitlines()[2:]
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]])
    return rows


def pages_without_results(project, tmp_path, machine_info):
    from rosetta.project import Project
    from rosetta.site import gather, lesson_pages, markup
    # No results anywhere: an empty results folder, and no reference results beside it.
    empty = Project(root=project.root, results=tmp_path / "results", extra_results=(tmp_path / "nowhere",))
    found, _ = lessons.all_lessons(project)
    writer = markup.Writer(tmp_path / "gen")
    site = gather.common.SiteInput(empty, [], project.frameworks(), {}, {}, "cpu", "test-box", machine_info,
                            lessons=gather.common.LessonsInput(found, {}, []))
    for view in gather.lessons.lesson_views(site):
        lesson_pages.render_lesson(view, writer)
    for view in gather.lessons.lesson_index_views(site):
        lesson_pages.render_index(view, writer)
    return found, tmp_path / "gen"


def test_a_page_built_with_no_lesson_results_says_why_in_every_verdict_cell(project, tmp_path):
    from rosetta.build import results
    published = {**BOX, "results_folder": str(tmp_path / "reference")}
    found, gen = pages_without_results(project, tmp_path, published)
    label = results.machine_label(BOX)
    for item in found:
        page = (gen / "lessons" / f"{item.name}.md").read_text()
        rows = table_rows(page, "| claim | framework | verdict |")
        assert rows, item.name
        for _claim, framework, badge, why in rows:
            assert badge and why, f"{item.name}/{framework}: a blank verdict cell"
            assert badge in ("{bdg-dark}`needs a GPU`", "{bdg-dark}`not run here`"), (item.name, badge)
            if badge.endswith("`not run here`"):
                assert f"nothing was run here: this site was published from the results of {label}" in why
                assert "not measured on any machine on record" in why
        build = page[page.index("{admonition} This build"):].split("```")[0]
        assert "which has no GPU" not in build or item.requires == "gpu", f"{item.name}: {build}"
        rows_said = page[page.index("**Rows.**"):].split("\n\n## ")[0]
        for fw in project.frameworks():
            said = escape(fw.label) in rows_said
            assert said, f"{item.name}: the page names {fw.label} as run or left out"
        for why in item.left_out.values():
            assert escape(why) in rows_said, (item.name, why)
    layouts = (gen / "lessons" / "native_layouts.md").read_text()
    rows = table_rows(layouts, "| claim | framework | verdict |")
    assert {row[2] for row in rows if row[0].startswith("on a GPU")} == {"{bdg-dark}`needs a GPU`"}
    assert {row[2] for row in rows if row[0].startswith("on a CPU")} == {"{bdg-dark}`not run here`"}
    index = (gen / "lessons.md").read_text()
    for _lesson, claim, verdicts, machine in table_rows(index, "| lesson | claim |"):
        assert verdicts and "not run" != verdicts and machine == label, claim
        assert "`needs a GPU`" in verdicts or "nothing was run here" in verdicts, claim


def test_a_result_held_from_another_machine_is_shown_with_its_machine_never_not_run_here(project, tmp_path):
    """A site published from a results folder without lessons, beside the reference: every row that a machine on
    record has measured shows that machine's verdict, labelled with it, on the lesson's page, the lessons' index
    and the front matrix; "not run here" is left for a row that no machine on record has."""
    from rosetta.project import Project
    from rosetta.site import front_page, gather, lesson_pages, markup
    reference = project.root / "benchmarks" / "reference"
    here = Project(root=project.root, results=tmp_path / "results", extra_results=(reference,))
    found, _ = lessons.all_lessons(project)
    writer = markup.Writer(tmp_path / "gen")
    published = {**BOX, "results_folder": str(tmp_path / "results")}
    site = gather.common.SiteInput(here, [], project.frameworks(), {}, {}, "cpu", "test-box", published,
                            lessons=gather.common.LessonsInput(found, {}, []))
    for view in gather.lessons.lesson_views(site):
        lesson_pages.render_lesson(view, writer)
    for view in gather.lessons.lesson_index_views(site):
        lesson_pages.render_index(view, writer)
    page = (tmp_path / "gen" / "lessons" / "softmax_twice.md").read_text()
    rows = table_rows(page, "| claim | framework | verdict |")
    assert rows and all("not run here" not in row[2] for row in rows), rows
    assert all(" · on " in row[3] and "profile cpu" in row[3] for row in rows), rows
    index = (tmp_path / "gen" / "lessons.md").read_text()
    softmax = [row for row in table_rows(index, "| lesson | claim |") if "softmax_twice" in row[0]]
    assert softmax and "nothing was run here" not in softmax[0][2] and " · on " in softmax[0][2], softmax
    matrix = front_page.matrix_table(gather.front.front_views(site)[0])
    pytorch = next(line for line in matrix.splitlines() if "frameworks/pytorch" in line)
    assert "holds: " in pytorch, "the front matrix counts the verdicts of the machines on record"


def test_a_measuring_build_without_a_result_says_it_was_not_measured(project, tmp_path):
    from rosetta.build import results
    found, gen = pages_without_results(project, tmp_path, BOX)
    page = (gen / "lessons" / "relu_after_pool.md").read_text()
    for row in table_rows(page, "| claim | framework | verdict |"):
        assert row[2] == "{bdg-dark}`not measured`"
        assert f"not measured on {results.machine_label(BOX)} at profile cpu" in row[3]
    assert "Not measured on" in page and "No machine on record has measured it." in page


def test_a_benchmark_pages_lesson_list_shows_verdicts_and_the_machine_that_judged(project, tmp_path):
    from rosetta.build import results
    from rosetta.project import Project
    from rosetta.site import gather, verdicts
    from rosetta.site.gather.common import LessonsInput
    empty = Project(root=project.root, results=tmp_path / "results", extra_results=(tmp_path / "nowhere",))
    found, _ = lessons.all_lessons(project)
    measured = {"native_layouts": {"pytorch": {
        "framework": "pytorch", "status": "ok", "machine_label": "2-core Judge CPU", "provenance": {"machine": BOX},
        "variants": {"channels_first": {"seconds": [2.0, 2.1, 2.2]}, "channels_last": {"seconds": [1.0, 1.05, 1.1]}}}}}
    evidence = gather.common.lesson_evidence(empty, LessonsInput(found, measured, []), project.frameworks(),
                                             "test-box", "cpu")
    listed = "\n".join(verdicts.related_lessons(evidence, "cnn_cifar10", BOX, "cpu"))
    layouts = next(line for line in listed.splitlines() if "native_layouts>" in line)
    assert "(verdicts judged on 2-core Judge CPU, profile cpu)" in layouts
    claims = [line for line in listed.splitlines() if line.startswith("  - claim: on a")]
    gpu_claim = next(line for line in claims if line.startswith("  - claim: on a GPU (cuDNN), channels-first"))
    cpu_claim = next(line for line in claims if line.startswith("  - claim: on a CPU (oneDNN), channels-last"))
    assert "Verdict: PyTorch: {bdg-dark}`needs a GPU`" in gpu_claim and "holds" not in gpu_claim
    assert "PyTorch: {bdg-success}`holds` 2.00×" in cpu_claim and "`not measured`" in cpu_claim
    # A lesson with no result says why there is no verdict, once, and calls its claims unjudged.
    dropout = next(line for line in listed.splitlines() if "dropout_at_test>" in line)
    rows = len(found[[item.name for item in found].index("dropout_at_test")].frameworks(project.frameworks()))
    assert f"no verdict: all {rows} frameworks: {{bdg-dark}}`not measured` not measured on " \
        f"{results.machine_label(BOX)} at profile cpu; not measured on any machine on record" in dropout
    assert "unjudged here" in dropout
