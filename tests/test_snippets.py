"""The step-alignment check: the same ordered steps in every framework, tags well written."""
import textwrap
from pathlib import Path

import pytest

from rosetta.build.snippets import SnippetError, check_alignment, parse
from rosetta.project import load_example

HEADER = textwrap.dedent("""\
    # ---
    # jupyter:
    #   kernelspec:
    #     display_name: x
    #     language: python
    #     name: rosetta-{fw}
    # ---
    """)


def test_real_snippets_are_aligned(project):
    frameworks = project.frameworks()
    for example in project.examples():
        snippets = [parse(example.snippet_path(fw), example) for fw in frameworks
                    if example.snippet_path(fw).exists()]
        assert len(snippets) >= 2, example.name
        assert check_alignment(example, snippets, frameworks) == []
        for snippet in snippets:
            assert snippet.step_names == list(example.steps)


def test_real_snippets_hand_over_metrics_with_one_call(project):
    for example in project.examples():
        for fw in project.frameworks():
            path = example.snippet_path(fw)
            if path.exists():
                text = path.read_text()
                assert text.count("report(") == 1, f"{path}: exactly one report(...) call"
                assert "time.time" not in text and "perf_counter" not in text, f"{path}: no timing code"


@pytest.fixture
def example(tmp_path):
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "example.toml").write_text(
        'title = "Demo"\nsteps = ["setup", "model", "train"]\ntimed_step = "train"\n')
    return load_example(folder)


def write(example, fw, body):
    path = example.folder / f"{fw}.py"
    path.write_text(HEADER.format(fw=fw) + textwrap.dedent(body))
    return path


def test_badly_encoded_tags_are_rejected(example):
    # Without quotes jupytext cannot parse the metadata and silently keeps it aside.
    path = write(example, "alpha", '''
        # %% tags=[setup]
        x = 1
        ''')
    with pytest.raises(SnippetError, match="unparsable metadata"):
        parse(path, example)


def test_untagged_or_doubly_tagged_cells_are_rejected(example):
    path = write(example, "alpha", '''
        # %%
        x = 1
        ''')
    with pytest.raises(SnippetError, match="exactly one step tag"):
        parse(path, example)
    path = write(example, "alpha", '''
        # %% tags=["setup", "model"]
        x = 1
        ''')
    with pytest.raises(SnippetError, match="exactly one step tag"):
        parse(path, example)


def test_consecutive_cells_of_one_step_merge_and_split_steps_fail(example):
    path = write(example, "alpha", '''
        # %% tags=["setup"]
        a = 1

        # %% tags=["setup"]
        b = 2

        # %% tags=["model"]
        m = 3

        # %% tags=["train"]
        t = 4
        ''')
    snippet = parse(path, example)
    assert snippet.step_names == ["setup", "model", "train"]
    assert "a = 1" in snippet.steps[0].code and "b = 2" in snippet.steps[0].code
    path = write(example, "beta", '''
        # %% tags=["setup"]
        a = 1

        # %% tags=["model"]
        m = 3

        # %% tags=["setup"]
        b = 2
        ''')
    with pytest.raises(SnippetError, match="appears twice"):
        parse(path, example)


def test_misaligned_steps_kernel_and_unknown_files_are_reported(example, project):
    good = parse(write(example, "alpha", '''
        # %% tags=["setup"]
        a = 1

        # %% tags=["model"]
        m = 2

        # %% tags=["train"]
        t = 3
        '''), example)
    swapped = parse(write(example, "beta", '''
        # %% tags=["setup"]
        a = 1

        # %% tags=["train"]
        t = 3

        # %% tags=["model"]
        m = 2
        '''), example)
    from rosetta.project import Framework
    frameworks = [Framework(n, n, "", i, example.folder / f"{n}.txt") for i, n in enumerate(["alpha", "beta"])]
    assert check_alignment(example, [good], frameworks) == []
    problems = check_alignment(example, [good, swapped], frameworks)
    assert len(problems) == 1 and "beta.py" in problems[0] and "same order" in problems[0]
    (example.folder / "gamma.py").write_text(HEADER.format(fw="wrong"))
    problems = check_alignment(example, [good], frameworks)
    assert any("no framework 'gamma'" in p for p in problems)
    good.notebook.metadata["kernelspec"]["name"] = "python3"
    assert any("kernelspec name is 'python3'" in p for p in check_alignment(example, [good], frameworks))
    # A program that two rows run opens in the kernel of either; a third kernel is wrong.
    shared = [Framework("one", "One", "", 1, example.folder / "x.txt", program="duo", environment="alpha"),
              Framework("two", "Two", "", 2, example.folder / "x.txt", program="duo", environment="beta")]
    duo = parse(write(example, "duo", "# %% tags=[\"setup\"]\na = 1\n# %% tags=[\"model\"]\nm = 2\n"
                                      "# %% tags=[\"train\"]\nt = 3\n"), example)
    for kernel, ok in (("rosetta-alpha", True), ("rosetta-beta", True), ("rosetta-duo", False)):
        duo.notebook.metadata["kernelspec"]["name"] = kernel
        problems = [p for p in check_alignment(example, [duo], frameworks + shared) if "duo.py" in p]
        assert (problems == []) == ok, (kernel, problems)
    assert "expected 'rosetta-alpha' or 'rosetta-beta'" in problems[0]


def test_jupytext_pairs_each_snippet_with_a_notebook(project):
    """Opened in Jupyter, a snippet is paired with a notebook (jupytext.toml at the root)."""
    from jupytext.config import find_jupytext_configuration_file, load_jupytext_configuration_file
    snippet = project.example("cnn_cifar10").snippet_path("pytorch")
    found = find_jupytext_configuration_file(str(snippet.parent))
    assert found and Path(found).name == "jupytext.toml"
    config = load_jupytext_configuration_file(found)
    assert config.default_formats(str(snippet)) == "ipynb,py:percent"


def test_the_timed_resnet_step_follows_a_warm_up_of_the_same_shape_only(project):
    """No probe in the timed path or the literature: one warm-up batch, then the timed ones."""
    example = project.example("resnet50_features")
    written = [fw for fw in project.frameworks() if example.snippet_path(fw).exists()]
    assert len(written) >= 8
    for fw in written:
        text = example.snippet_path(fw).read_text()
        assert "[:1]" not in text and "batch_independence" not in text, fw.name


# --- part markers: `# [part] ...` lines that cut a step into bands the side-by-side view pairs ---------

def test_the_marker_regex_is_the_one_the_pages_mirror():
    """The pages' JavaScript copies this regex: a change here must be made there too."""
    from rosetta.build.snippets import MARKER, marker_regex
    assert MARKER == r"^\s*(#|//) \[([a-z][a-z0-9-]*(?:, [a-z][a-z0-9-]*)*)\](?: (.*))?$"
    python, javascript = marker_regex("python"), marker_regex("javascript")
    found = python.match("        # [batches, training-step] fit() does both")
    assert found.group(2) == "batches, training-step" and found.group(3) == "fit() does both"
    assert python.match("# [loss]").group(3) is None
    assert javascript.match("  // [loss] the softmax layer") and not javascript.match("# [loss]")
    assert not python.match("// [loss]"), "// is no comment in Python"
    for slip in ("#[loss]", "# [Loss]", "# [loss,optimizer]", "# [loss]text", "#  [loss]"):
        assert not python.match(slip), slip


def test_every_real_program_marks_the_parts_its_example_declares(project):
    """Each example declares parts; every program's steps are bands that start at the step's first line,
    follow each other without a gap and end at its last line, and name every declared part."""
    from rosetta.build.snippets import language_of, step_parts
    for example in project.examples():
        assert example.parts.get("model"), f"{example.name}: the model step has parts"
        for path in sorted({example.snippet_path(fw) for fw in project.frameworks()}):
            if not path.exists():
                continue
            for step in parse(path, example).steps:
                declared = example.parts.get(step.name, ())
                parts = step_parts(step, language_of(path), declared)
                if not declared:
                    assert parts == [], (path, step.name)
                    continue
                lines = step.code.splitlines()
                assert parts[0].first_line == next(n for n, line in enumerate(lines) if line.strip())
                assert [p.first_line for p in parts[1:]] == [p.last_line + 1 for p in parts[:-1]]
                assert parts[-1].last_line == len(lines) - 1
                assert {i for p in parts for i in p.ids} == set(declared), (path, step.name)


def test_step_parts_gives_each_band_its_lines_and_text(project):
    from rosetta.build.snippets import step_parts
    example = project.example("cnn_cifar10")
    steps = {s.name: s for s in parse(example.snippet_path("keras"), example).steps}
    train = step_parts(steps["train"], "python", example.parts["train"])
    assert [p.ids for p in train] == [("batches", "training-step"), ("progress",)]
    lines = steps["train"].code.splitlines()
    assert lines[train[0].first_line] == "# [batches, training-step]"
    assert lines[train[0].last_line].startswith("history = model.fit(")
    assert lines[train[1].first_line:train[1].last_line + 1] == [
        "# [progress]", 'for epoch, loss in enumerate(history.history["loss"], 1):',
        '    print(f"epoch {epoch}: mean loss {loss:.3f}")']
    infer = step_parts(steps["infer"], "python", example.parts["infer"])
    assert infer[0].text.startswith("predict() runs the layers in inference mode")
    assert step_parts(steps["data"], "python", ()) == [], "a step without parts is one piece"
    js = example.snippet_path(project.framework("convnetjs"))
    model = next(s for s in parse(js, example).steps if s.name == "model")
    assert [p.ids for p in step_parts(model, "javascript", example.parts["model"])] == [
        ("network",), ("loss",), ("network",), ("optimizer",)], "ConvNetJS's loss is a layer of its network"


@pytest.fixture
def cnn_copy(project, tmp_path):
    """The CNN example's example.toml and its PyTorch and ConvNetJS programs, copied to be broken."""
    real = project.example("cnn_cifar10")
    folder = tmp_path / "cnn_cifar10"
    folder.mkdir()
    for name in ("example.toml", "pytorch.py", "convnetjs.js"):
        (folder / name).write_text((real.folder / name).read_text())
    return load_example(folder)


def marker_problems(example, frameworks, name, old, new):
    """check_alignment's answer for one real program with `old` replaced by `new` (once)."""
    path = example.folder / name
    text = path.read_text()
    assert text.count(old) >= 1, old
    path.write_text(text.replace(old, new, 1))
    return check_alignment(example, [parse(path, example)], frameworks)


def test_the_copied_programs_pass_before_they_are_broken(cnn_copy, project):
    frameworks = project.frameworks()
    snippets = [parse(cnn_copy.folder / n, cnn_copy) for n in ("pytorch.py", "convnetjs.js")]
    assert check_alignment(cnn_copy, snippets, frameworks) == []


def test_a_step_must_start_with_a_marker(cnn_copy, project):
    problems = marker_problems(cnn_copy, project.frameworks(), "pytorch.py", "# [network]\n", "")
    assert len(problems) == 2, problems
    assert "pytorch.py: step 'model': 'class VGGish(nn.Module):' comes before the first marker" in problems[0]
    assert "part 'network' has no marker" in problems[1]
    # A step with parts and no marker at all: one line, naming its parts.
    path = cnn_copy.folder / "pytorch.py"
    for marker in ("# [imports]\n", "# [seeds]\n", "# [device]\n"):
        path.write_text(path.read_text().replace(marker, "", 1))
    problems = [p for p in check_alignment(cnn_copy, [parse(path, cnn_copy)], project.frameworks())
                if "'setup'" in p]
    assert len(problems) == 1 and "no part markers; this step's parts are imports, seeds, device" in problems[0]


def test_an_unknown_part_is_named_with_a_hint(cnn_copy, project):
    frameworks = project.frameworks()
    problems = marker_problems(cnn_copy, frameworks, "pytorch.py", "# [loss]\n", "# [los]\n")
    assert any("step 'model': unknown part 'los' in marker '# [los]'; did you mean 'loss'?" in p for p in problems)
    assert any("part 'loss' has no marker" in p for p in problems)
    # A part of another step: the message says whose it is.
    problems = marker_problems(cnn_copy, frameworks, "pytorch.py", "# [los]\n", "# [progress]\n")
    assert any("unknown part 'progress'" in p and "it is a part of step 'train'" in p for p in problems)
    # A marker in a step that declares no parts.
    problems = marker_problems(cnn_copy, frameworks, "convnetjs.js", "const imageSize", "// [load]\nconst imageSize")
    assert problems == [f"{cnn_copy.folder / 'convnetjs.js'}: step 'data': marker '// [load]', but this step "
                        "declares no parts ([parts] in example.toml)"]


def test_every_declared_part_needs_a_marker(cnn_copy, project):
    problems = marker_problems(cnn_copy, project.frameworks(), "pytorch.py", "        # [training-step]\n", "")
    assert problems == [f"{cnn_copy.folder / 'pytorch.py'}: step 'train': part 'training-step' has no marker: "
                        "mark the line where it begins with '# [training-step] ...' (a band may name two parts: "
                        "'# [a, b]')"]
    # One band may do several parts (as fit() does): then it names them all.
    assert marker_problems(cnn_copy, project.frameworks(), "pytorch.py", "    # [progress]\n", "") != []
    problems = marker_problems(cnn_copy, project.frameworks(), "pytorch.py", "# [batches]",
                               "# [batches, training-step, progress]")
    assert problems == []


@pytest.mark.parametrize("slip, fixed", [
    ("#[loss]", "# [loss]"),
    ("# [Loss]", "# [loss]"),
    ("# [loss,optimizer]", "# [loss, optimizer]"),
    ("# [loss]softmax inside", "# [loss] softmax inside"),
    ("# [ loss ] softmax inside", "# [loss] softmax inside"),
])
def test_a_malformed_marker_is_a_problem_not_prose(cnn_copy, project, slip, fixed):
    problems = marker_problems(cnn_copy, project.frameworks(), "pytorch.py", "# [loss]\n", slip + "\n")
    assert any(f"step 'model': {slip!r} looks like a part marker but is malformed; write {fixed!r}" in p
               for p in problems), problems
    assert any("part 'loss' has no marker" in p for p in problems), "a malformed marker starts no band"


def test_a_malformed_javascript_marker_is_reported(cnn_copy, project):
    problems = marker_problems(cnn_copy, project.frameworks(), "convnetjs.js", "  // [progress]", "  //[progress]")
    assert any("convnetjs.js: step 'train': '//[progress]' looks like a part marker but is malformed; "
               "write '// [progress]'" in p for p in problems), problems


def test_step_parts_raises_on_a_broken_rule(cnn_copy):
    from rosetta.build.snippets import step_parts
    path = cnn_copy.folder / "pytorch.py"
    path.write_text(path.read_text().replace("# [optimizer] ", "# "))
    model = next(s for s in parse(path, cnn_copy).steps if s.name == "model")
    with pytest.raises(SnippetError, match="step 'model': part 'optimizer' has no marker"):
        step_parts(model, "python", cnn_copy.parts["model"])
