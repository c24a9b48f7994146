"""A result is stale only when what it ran changed: the identities of snippets and definitions."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

from rosetta.build import identity, results
from rosetta.project import REPO_ROOT

CNN = REPO_ROOT / "snippets" / "cnn_cifar10"
LESSON = REPO_ROOT / "lessons" / "momentum"


def copy(source: Path, folder: Path) -> Path:
    target = folder / source.name
    shutil.copy(source, target)
    return target


def edited(path: Path, old: str, new: str, count: int = 1) -> str:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    return text.replace(old, new, count)


def test_python_identity_ignores_comments_and_docstrings_only():
    same = identity.python_identity
    base = 'def f(x):\n    """Doc."""\n    return x + 1  # one\n'
    assert same(base) == same('def f(x):\n    """Other doc."""\n    return x + 1\n')
    assert same(base) == same('def f(x):\n    return x + 1\n')
    assert same(base) != same('def f(x):\n    """Doc."""\n    return x + 2\n')


def test_a_comment_part_mark_or_layout_edit_keeps_a_python_snippet_current(tmp_path):
    script = copy(CNN / "pytorch.py", tmp_path)
    before = identity.snippet_identity(script)
    text = script.read_text()
    text = text.replace("# [loss]", "# [loss] the mean cross-entropy, reworded")          # a part mark's prose
    text = re.sub(r"^# %% \[markdown\]\n", "# %% [markdown]\n# A new sentence of prose.\n", text, count=1,
                  flags=re.M)                                                            # markdown
    text = text.replace("\n\n", "\n\n\n", 3)                                             # layout
    text = text.replace("momentum=hp.momentum)", "momentum=hp.momentum)  # a new comment")         # a comment
    script.write_text(text)
    assert identity.snippet_identity(script) == before


def test_a_changed_statement_or_a_moved_cell_boundary_makes_a_python_snippet_stale(tmp_path):
    script = copy(CNN / "pytorch.py", tmp_path)
    before = identity.snippet_identity(script)
    script.write_text(edited(script, "lr=hp.learning_rate", "lr=2 * hp.learning_rate"))
    assert identity.snippet_identity(script) != before
    script.write_text((CNN / "pytorch.py").read_text().replace('tags=["model"]', 'tags=["data"]', 1))
    assert identity.snippet_identity(script) != before           # its time now counts in another step


def test_javascript_identity_is_its_tokens_without_comments(tmp_path):
    script = copy(CNN / "convnetjs.js", tmp_path)
    before = identity.snippet_identity(script)
    script.write_text(edited(script, "// [seeds]", "// [seeds] with a reworded note\n// and a second line"))
    assert identity.snippet_identity(script) == before
    script.write_text(edited(script, "0x6d2b79f5", "0x6d2b79f6"))
    assert identity.snippet_identity(script) != before
    # `//` inside a string is not a comment: the string's change is a change
    one, two = 'const url = "http://a/b";', 'const url = "http://a/c";'
    assert identity.javascript_identity(one) != identity.javascript_identity(two)
    assert identity.javascript_identity("let a = 1; /* note */ // more\nlet b=2") == \
        identity.javascript_identity("let a = 1;\n  let b = 2")


def test_a_javascript_plain_twin_s_identity_is_its_tokens_too(tmp_path):
    twin = copy(REPO_ROOT / "benchmarks" / "plain" / "cnn_cifar10" / "tensorflowjs.js", tmp_path)
    before = identity.script_identity(twin)
    twin.write_text(edited(twin, "// full batches only", "// whole batches only, as the tab"))
    assert identity.script_identity(twin) == before, "a comment edit keeps its fairness ratio current"
    twin.write_text(edited(twin, "poolSize: 2 }),\n    tf.layers.activation",
                           "poolSize: 3 }),\n    tf.layers.activation"))
    assert identity.script_identity(twin) != before


def test_page_only_keys_of_example_toml_keep_a_result_current(tmp_path):
    toml = copy(CNN / "example.toml", tmp_path)
    before = identity.definition_identity(toml)
    toml.write_text(edited(toml, 'train = ["batches", "training-step", "progress"]',
                           'train = ["batches", "training-step"]'))
    toml.write_text(edited(toml, 'title = "', 'title = "Renamed: '))
    toml.write_text(edited(toml, "pytorch = [169, 51]", "pytorch = [170, 51]"))
    toml.write_text(edited(toml, "momentum = 0.9", "momentum = 0.9  # a comment"))
    assert identity.definition_identity(toml) == before


def test_a_left_out_row_or_its_reason_keeps_an_examples_results_current(tmp_path):
    """[[left_out]] only says on the page why a row has no tab: rewording it, or leaving out one more row, stales
    no row that runs (the data-parallel example's workers are 2 here: its launch values do count)."""
    toml = copy(REPO_ROOT / "snippets" / "cnn_cifar10_data_parallel" / "example.toml", tmp_path)
    before = identity.definition_identity(toml)
    toml.write_text(edited(toml, 'why = "Theano has no', 'why = "Theano, reworded, has no'))
    toml.write_text(toml.read_text() + '[[left_out]]\nrows = ["mxnet-module"]\nwhy = "a made-up reason"\n')
    assert identity.definition_identity(toml) == before
    toml.write_text(edited(toml, "workers = 2", "workers = 3"))
    assert identity.definition_identity(toml) != before


def test_a_run_value_of_example_toml_makes_a_result_stale(tmp_path):
    toml = copy(CNN / "example.toml", tmp_path)
    before = identity.definition_identity(toml)
    for old, new in (("learning_rate = 0.01", "learning_rate = 0.02"), ("train_images = 3200", "train_images = 3264"),
                     ("seed = 0", "seed = 1")):
        toml.write_text((CNN / "example.toml").read_text().replace(old, new, 1))
        assert identity.definition_identity(toml) != before, old


def test_a_lesson_toml_claim_or_rule_edit_keeps_its_results_current_a_setting_does_not(tmp_path):
    toml = copy(LESSON / "lesson.toml", tmp_path)
    before = identity.definition_identity(toml)
    text = toml.read_text().replace('claim = "', 'claim = "Reworded: ')
    text = text.replace("[[rules]]", '[[rules]]\n# a rule judged at page time\n', 1)
    toml.write_text(text)
    assert identity.definition_identity(toml) == before
    settings = re.search(r"^learning_rate = (\S+)", toml.read_text(), re.M)
    toml.write_text(toml.read_text().replace(settings.group(0), "learning_rate = 0.5", 1))
    assert identity.definition_identity(toml) != before


def test_code_changed_compares_substance_and_refuses_older_records(tmp_path):
    script, toml = copy(CNN / "pytorch.py", tmp_path), copy(CNN / "example.toml", tmp_path)
    recorded = {"provenance": {"code": results.code_record(script, toml, "helper")}}
    script.write_text(script.read_text().replace("# [loss]", "# [loss] reworded"))
    assert not results.code_changed(recorded, results.code_record(script, toml, "helper"))
    assert results.code_changed(recorded, results.code_record(script, toml, "other helper"))
    older = {"provenance": {"code": {"snippet_sha256": "x", "definition_sha256": "y", "helper_sha256": "z"}}}
    assert results.code_changed(older, results.code_record(script, toml, "helper"))


def test_a_row_s_own_sizes_reach_only_that_row(tmp_path):
    """[row_sizes.<row>] reach that row's run alone: a new row with sizes of its own stales no other row."""
    toml = copy(CNN / "example.toml", tmp_path)
    before = {row: identity.definition_identity(toml, row) for row in ("pytorch", "convnetjs", None)}
    toml.write_text(toml.read_text() + '\n[row_sizes.newrow]\ncpu = {train_images = 8}\n')
    assert {row: identity.definition_identity(toml, row) for row in before} == before
    assert identity.definition_identity(toml, "newrow") != before["pytorch"]
    toml.write_text(edited(toml, "cpu = {train_images = 192, test_images = 128}",
                           "cpu = {train_images = 256, test_images = 128}"))
    assert identity.definition_identity(toml, "convnetjs") != before["convnetjs"]
    assert identity.definition_identity(toml, "pytorch") == before["pytorch"]
