"""The step-alignment check: the same ordered steps in every framework, tags well written."""
import textwrap
from pathlib import Path

import pytest

from rosetta.project import load_example
from rosetta.snippets import SnippetError, check_alignment, parse

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
