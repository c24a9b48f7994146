"""A tiny real project: two small test frameworks, one raising snippet, one that times out, a
JavaScript tab (Deno's kernel) that throws, one
example whose data is missing until a test provides it, and one program (`duo`) that two rows run in
alpha's environment with different environment variables, as Keras runs on three backends.

Real venvs, real kernels, real nbclient runs, a real `sphinx-build -W`. Its environments are
kept under .envs/tiny-project so that a second test run reuses them. Every test starts from the
state the module fixture built and leaves it so (edits are undone), so they pass in any order.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import textwrap
from pathlib import Path

import pytest

from rosetta.build import cli as build
from rosetta.project import REPO_ROOT

pytestmark = pytest.mark.site
# The tiny frameworks' only package: the build's own ipykernel pin, so that the two never drift apart.
IPYKERNEL = next(line for line in (REPO_ROOT / "envs" / "docs.txt").read_text().splitlines()
                 if line.startswith("ipykernel=="))
TOML = 'label = "{label}"\napi = "plain Python"\norder = {order}\npackages = ["ipykernel"]\n'
SNIPPET = textwrap.dedent("""\
    # ---
    # jupyter:
    #   kernelspec:
    #     display_name: {fw}
    #     language: python
    #     name: rosetta-{fw}
    # ---

    # %% [markdown]
    # # Tiny sum with {fw}

    # %% tags=["setup"]
    from rosetta import report, settings
    hp = settings("tiny")
    print("{fw} ready, profile", hp.profile)

    # %% tags=["compute"]
    {compute}

    # %% tags=["check"]
    report(accuracy=1.0, train_samples=hp.n)
    """)
EXAMPLE = textwrap.dedent("""\
    title = "{title}"
    steps = ["setup", "compute", "check"]
    timed_step = "compute"
    throughput_unit = "items/s"
    weights = "none"
    data_module = "{data_module}"
    [hyperparameters]
    n = 1000
    [profiles.smoke]
    data = "{smoke_data}"
    [profiles.cpu]
    [profiles.full]
    """)


TINY_DATA = textwrap.dedent('''\
    """The tiny project's data module: its "data set" is the file that TINY_DATA names."""
    import os
    from pathlib import Path

    from rosetta.data.fetch import DataError, Source


    def locate():
        path = Path(os.environ.get("TINY_DATA", "/nonexistent"))
        return Source("tiny file", path) if path.is_file() else None


    def prepare(hp=None):
        source = locate()
        if source is None:
            raise DataError("tiny data not found: provide <split>/<class>/<image> files named by TINY_DATA")
        return {"source": f"{source.kind}: {source.path.name}"}
    ''')


LESSON = textwrap.dedent("""\
    title = "Sleeping less"
    claim = "A shorter sleep is faster."
    source = "the tiny project's tests"
    concerns = ["tiny"]
    [variants]
    long = "sleep 50 ms"
    short = "sleep 10 ms"
    [[rules]]
    claim = "short at least 2x faster"
    metric = "seconds"
    variant = "short"
    baseline = "long"
    at_least = 2.0
    [[rules]]
    claim = "short at least 100x faster"
    metric = "seconds"
    variant = "short"
    baseline = "long"
    at_least = 100.0
    [profiles.smoke]
    data = "synthetic"
    repeats = 3
    """)
LESSON_SCRIPT = textwrap.dedent("""\
    # ---
    # jupyter:
    #   kernelspec:
    #     display_name: {fw}
    #     language: python
    #     name: rosetta-{fw}
    # ---

    # %% tags=["setup"]
    import time
    from rosetta import lesson
    hp = lesson.settings("sleepy")

    # %% tags=["variants"]
    def long():
        time.sleep(0.05)
    def short():
        {short}

    # %% tags=["measure"]
    lesson.compare(hp, {{"long": long, "short": short}})
    """)


DUO_ROW = textwrap.dedent("""\
    label = "Duo · {voice}"
    api = "one program, two rows"
    order = {order}
    packages = ["ipykernel"]
    program = "duo"
    program_label = "Duo"
    backend = "{voice}"
    environment = "alpha"
    [variables]
    TINY_VOICE = "{voice}"
    """)


# A row in another language: JavaScript in Deno's own Jupyter kernel (as ConvNetJS runs), from the
# same pins as the real row; its settings come through the Python bridge, and its compute step throws.
JS_REQUIREMENTS = (REPO_ROOT / "envs" / "convnetjs.txt").read_text()
JS_ROW = textwrap.dedent("""\
    label = "Delta"
    api = "plain JavaScript"
    order = 5
    language = "javascript"
    packages = ["deno"]
    kernel_argv = ["{venv}/bin/deno", "jupyter", "--kernel", "--conn", "{connection_file}", "--quiet"]
    kernel_transport = "tcp"
    working_files = {"deno.json" = '{"imports": {"rosetta": "{repo}/rosetta/js/rosetta.ts"}}'}
    [variables]
    DENO_DIR = "{venv}/deno"
    NO_COLOR = "1"
    ROSETTA_PYTHON_BRIDGE = "{venv}/bin/python"
    """)
JS_SNIPPET = textwrap.dedent("""\
    // ---
    // jupyter:
    //   kernelspec:
    //     display_name: delta
    //     language: javascript
    //     name: rosetta-delta
    // ---

    // %% [markdown]
    // # Tiny sum with delta

    // %% tags=["setup"]
    import { report, settings } from "rosetta";
    const hp = settings("tiny");
    console.log("delta ready, profile", hp.profile, "n", hp.n);

    // %% tags=["compute"]
    const total = hp.n / 2;
    throw new Error(`delta gives up at ${total}`);

    // %% tags=["check"]
    await report({ accuracy: 1.0, train_samples: hp.n });
    """)


def make_project(root: Path) -> Path:
    (root / "envs").mkdir(parents=True)
    for order, (fw, label) in enumerate([("alpha", "Alpha"), ("beta", "Beta")], 1):
        (root / "envs" / f"{fw}.toml").write_text(TOML.format(label=label, order=order))
        (root / "envs" / f"{fw}.txt").write_text(IPYKERNEL + "\n")
    for order, voice in enumerate(["whisper", "shout"], 3):     # no requirements of their own: alpha's venv
        (root / "envs" / f"duo-{voice}.toml").write_text(DUO_ROW.format(voice=voice, order=order))
    (root / "envs" / "delta.toml").write_text(JS_ROW)
    (root / "envs" / "delta.txt").write_text(JS_REQUIREMENTS)
    examples = {"tiny": ("Tiny sums", "synthetic"), "slow": ("A slow one", "synthetic"),
                "withdata": ("Tiny data", "real")}
    for name, (title, smoke_data) in examples.items():
        (root / "snippets" / name).mkdir(parents=True)
        (root / "snippets" / name / "example.toml").write_text(EXAMPLE.format(
            title=title, smoke_data=smoke_data, data_module="tinydata" if smoke_data == "real" else ""))
    snippet = SNIPPET.replace('settings("tiny")', 'settings("{example}")')
    (root / "snippets" / "tiny" / "alpha.py").write_text(snippet.format(
        fw="alpha", example="tiny", compute="total = sum(range(hp.n))\nprint(total)"))
    (root / "snippets" / "tiny" / "beta.py").write_text(snippet.format(fw="beta", example="tiny",
                                                                       compute="total = 1 / 0"))
    (root / "snippets" / "tiny" / "duo.py").write_text(snippet.format(
        fw="alpha", example="tiny", compute="import os\nprint('voice:', os.environ['TINY_VOICE'])"))
    (root / "snippets" / "tiny" / "delta.js").write_text(JS_SNIPPET)
    (root / "snippets" / "slow" / "alpha.py").write_text(snippet.format(fw="alpha", example="slow",
                                                                        compute="import time\ntime.sleep(60)"))
    (root / "snippets" / "withdata" / "alpha.py").write_text(snippet.format(fw="alpha", example="withdata",
                                                                            compute="total = 1"))
    (root / "tinydata.py").write_text(TINY_DATA)
    (root / "lessons" / "sleepy").mkdir(parents=True)
    (root / "lessons" / "sleepy" / "lesson.toml").write_text(LESSON)
    (root / "lessons" / "sleepy" / "README.md").write_text("# Sleeping less\n\nA tiny lesson for tests.\n")
    (root / "lessons" / "sleepy" / "alpha.py").write_text(LESSON_SCRIPT.format(fw="alpha", short="time.sleep(0.01)"))
    (root / "lessons" / "sleepy" / "beta.py").write_text(LESSON_SCRIPT.format(fw="beta", short="1 / 0"))
    (root / "lessons" / "unreadable").mkdir()
    (root / "lessons" / "unreadable" / "lesson.toml").write_text(LESSON.replace("[[rules]]", "[[nothing]]"))
    (root / "docs").mkdir()
    for page in (REPO_ROOT / "docs").glob("*.md"):        # the hand-written pages (methodology's toctree names them)
        shutil.copy(page, root / "docs" / page.name)
    return root


def run(root: Path, *args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = build.main(["--root", str(root), "--profile", "smoke", "--timeout", "5", *args])
    return code, out.getvalue()


def converged(root: Path) -> None:
    """Whatever an earlier test left stale is measured again: the next build has nothing to do."""
    code, out = run(root)
    assert code == 0, out


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, monkeypatch_module):
    """The tiny project after its first build (forced), and what that build returned and printed."""
    root = make_project(tmp_path_factory.mktemp("tiny"))
    monkeypatch_module.setenv("ROSETTA_VENVS", str(REPO_ROOT / ".envs" / "tiny-project"))
    monkeypatch_module.delenv("TINY_DATA", raising=False)
    monkeypatch_module.syspath_prepend(str(root))          # the build imports the data module `tinydata`
    code, out = run(root, "--force")
    return {"root": root, "code": code, "out": out}


def result(root: Path, example: str, fw: str) -> dict:
    return json.loads(next((root / "results").glob(f"*/smoke/{example}/{fw}.json")).read_text())


def page(root: Path, example: str) -> str:
    return (root / "_build" / "html" / "_gen" / "benchmarks" / f"{example}.html").read_text()


def test_build_completes_with_a_failing_and_a_timed_out_snippet(tiny):
    root, out = tiny["root"], tiny["out"]
    assert tiny["code"] == 0, out
    assert "site:" in out
    alpha, beta = result(root, "tiny", "alpha"), result(root, "tiny", "beta")
    assert alpha["status"] == "ok" and alpha["metrics"]["accuracy"] == 1.0
    assert set(alpha["steps"]) == {"setup", "compute", "check"}
    assert alpha["metrics"]["throughput"] == pytest.approx(1000 / alpha["steps"]["compute"]["median"])
    assert beta["status"] == "failed" and beta["error"]["step"] == "compute"
    assert beta["error"]["ename"] == "ZeroDivisionError" and "1 / 0" in beta["error"]["traceback"]
    slow = result(root, "slow", "alpha")
    assert slow["status"] == "timeout" and slow["error"]["step"] == "compute"
    for r in (alpha, beta):
        prov = r["provenance"]
        assert prov["profile"] == "smoke" and prov["machine"]["cores"] and prov["date"]
        assert prov["framework_versions"]["ipykernel"] == IPYKERNEL.split("==")[1]

    html = root / "_build" / "html"
    tiny_page = page(root, "tiny")
    assert "This step failed: ZeroDivisionError" in tiny_page
    assert "traceback-tiny-beta" in tiny_page, "the table and the tab link to the traceback"
    assert "Not run: an earlier step failed." in tiny_page
    assert "Step time:" in tiny_page and "499500" in tiny_page
    notebook_page = (html / "_gen" / "notebooks" / "tiny" / "beta.html").read_text()
    assert "ZeroDivisionError" in notebook_page and 'id="traceback-tiny-beta"' in notebook_page
    assert (html / "_downloads").exists() and list((html / "_downloads").rglob("beta.ipynb"))
    assert "timed out" in page(root, "slow")


def test_missing_data_is_one_message_shown_as_written(tiny):
    assert "withdata/alpha: data-error: tiny data not found" in tiny["out"]
    code, out = run(tiny["root"], "--examples", "withdata")
    assert code == 0 and "withdata/alpha: data-error: tiny data not found" in out
    html = page(tiny["root"], "withdata")
    # Angle brackets and the rest are escaped, not swallowed as HTML tags.
    assert "provide &lt;split&gt;/&lt;class&gt;/&lt;image&gt; files named by TINY_DATA" in html
    assert "data missing" in html


def test_strict_mode_fails_on_failures(tiny):
    code, out = run(tiny["root"], "--strict")
    assert code == 1
    assert "tiny/beta: failed: ZeroDivisionError" in out and "slow/alpha: timeout" in out
    assert "withdata/alpha: data-error: tiny data not found" in out


def test_nothing_changed_means_only_what_failed_executes_again(tiny):
    """What succeeded stays cached; what failed or timed out may not fail again (a download cut off, a busy
    machine), so the next build tries it again and says so."""
    root = tiny["root"]
    converged(root)
    before = result(root, "tiny", "alpha")["provenance"]["date"], result(root, "tiny", "beta")["cache_key"]
    code, out = run(root)
    assert code == 0
    assert out.count("up to date") == 3 + 1          # alpha and duo's two rows; the lesson's alpha script
    for row in ("tiny/alpha", "tiny/duo-whisper", "tiny/duo-shout", "sleepy/alpha"):
        assert f"{row}: up to date" in out and f"of {row} " not in out and f"{row}: ok" not in out
    assert "tiny/beta: failed last time (ZeroDivisionError: division by zero): trying again" in out
    assert "tiny/delta: failed last time (Error: delta gives up at 500): trying again" in out
    assert "slow/alpha: timeout last time (Timeout: a cell ran longer than 5 s): trying again" in out
    # (a lesson's retry line says why, as a benchmark's does: one loop runs both)
    assert "sleepy/beta: failed last time (ZeroDivisionError: division by zero): trying again" in out
    assert out.count("run 1/1") == 3 and "run 1/1 of tiny/beta" in out
    assert (result(root, "tiny", "alpha")["provenance"]["date"], result(root, "tiny", "beta")["cache_key"]) == before


def test_editing_one_snippet_reexecutes_only_it(tiny):
    root = tiny["root"]
    converged(root)
    path = root / "snippets" / "tiny" / "beta.py"
    original = path.read_text()
    path.write_text(original.replace("total = 1 / 0", "total = 2 * 21\nprint(total)"))
    try:
        code, out = run(root, "--examples", "tiny")
        assert code == 0
        assert "run 1/1 of tiny/beta" in out and "run 1/1 of tiny/alpha" not in out
        assert result(root, "tiny", "beta")["status"] == "ok"
        html = page(root, "tiny")
        assert "This step failed: ZeroDivisionError" not in html and "42" in html
    finally:
        path.write_text(original)


def test_an_unselected_changed_snippet_is_shown_as_stale(tiny):
    root = tiny["root"]
    converged(root)
    path = root / "snippets" / "tiny" / "beta.py"
    original = path.read_text()
    path.write_text(original.replace("total = 1 / 0", "total = 2 * 22"))
    try:
        code, out = run(root, "--examples", "tiny", "--frameworks", "alpha")
        assert code == 0 and "run 1/1" not in out
        assert "tiny/beta: stale (not selected)" in out
        html = page(root, "tiny")
        # The tab shows the current code, and says that its output and time come from older code.
        assert "Older code: the output and time below come from a run" in html and "(stale)" in html
        assert "2</span> <span class=\"o\">*</span> <span class=\"mi\">22" in html or "2 * 22" in html
    finally:
        path.write_text(original)


def test_a_comment_edit_keeps_a_result_current_and_its_tab_shows_the_new_comment(tiny):
    root = tiny["root"]
    converged(root)
    path = root / "snippets" / "tiny" / "alpha.py"
    original = path.read_text()
    path.write_text(original.replace("# %% tags=[\"setup\"]\n",
                                     "# %% tags=[\"setup\"]\n# A comment added after the run.\n", 1))
    assert path.read_text() != original
    try:
        code, out = run(root, "--examples", "tiny")
        assert code == 0 and "tiny/alpha: up to date" in out and "of tiny/alpha" not in out
        html = page(root, "tiny")
        assert "A comment added after the run." in html and "Older code" not in html
    finally:
        path.write_text(original)


def test_repeats_are_aggregated_as_median_min_and_max(tiny):
    root = tiny["root"]
    code, out = run(root, "--examples", "tiny", "--frameworks", "alpha", "--repeats", "3")
    assert code == 0 and out.count("of tiny/alpha") == 3, out
    record = result(root, "tiny", "alpha")
    compute = record["steps"]["compute"]
    assert len(compute["runs"]) == 3 and len(record["runs"]) == 3
    assert compute["min"] <= compute["median"] <= compute["max"]
    assert compute["median"] == sorted(compute["runs"])[1]
    assert record["provenance"]["repeats"] == 3
    assert "(median of 3;" in page(root, "tiny") and "3 per snippet" in page(root, "tiny")


def test_a_changed_data_source_is_measured_again(tiny, tmp_path, monkeypatch):
    root = tiny["root"]
    first, second = tmp_path / "copy-a.tar", tmp_path / "copy-b.tar"
    first.write_text("a")
    second.write_text("bb")
    monkeypatch.setenv("TINY_DATA", str(first))
    code, out = run(root, "--examples", "withdata")
    assert code == 0 and "run 1/1 of withdata/alpha" in out, out
    assert "copy-a.tar" in result(root, "withdata", "alpha")["provenance"]["data_source"]
    code, out = run(root, "--examples", "withdata")
    assert "run 1/1" not in out and "withdata/alpha: up to date" in out
    monkeypatch.setenv("TINY_DATA", str(second))
    code, out = run(root, "--examples", "withdata")
    assert "run 1/1 of withdata/alpha" in out, "another copy of the data is another measurement"
    assert "copy-b.tar" in result(root, "withdata", "alpha")["provenance"]["data_source"]
    monkeypatch.delenv("TINY_DATA")
    code, out = run(root, "--examples", "withdata")
    assert "tiny data not found" in out and "withdata/alpha: data-error" in out
    assert "copy-b.tar" in result(root, "withdata", "alpha")["provenance"]["data_source"], \
        "missing data loses nothing already measured"
    monkeypatch.setenv("TINY_DATA", str(second))
    code, out = run(root, "--examples", "withdata")
    assert "run 1/1" not in out and "withdata/alpha: up to date" in out, "its data back: current again"


def test_a_framework_that_cannot_install_is_reported_and_the_rest_builds(tiny):
    root = tiny["root"]
    added = (root / "envs" / "gamma.toml", root / "envs" / "gamma.txt", root / "snippets" / "tiny" / "gamma.py")
    added[0].write_text(TOML.format(label="Gamma", order=3))
    added[1].write_text("rosetta-no-such-package-anywhere==0.0.1\n")
    added[2].write_text(SNIPPET.format(fw="gamma", compute="total = 0"))
    try:
        code, out = run(root, "--examples", "tiny")
        assert code == 0, out
        assert "gamma: NOT INSTALLED" in out
        html = page(root, "tiny")
        assert "not installed: " in html and "rosetta-no-such-package-anywhere" in html
        assert result(root, "tiny", "alpha")["status"] == "ok"
        assert not (Path(REPO_ROOT / ".envs" / "tiny-project" / "gamma")).exists(), "no half-made venv left"
    finally:
        for path in added:
            path.unlink()


def test_unknown_names_are_one_clear_message(tiny, capsys):
    root = tiny["root"]
    assert build.main(["--root", str(root), "--frameworks", "alpah"]) == 2
    assert "unknown framework 'alpah'. Did you mean 'alpha'?" in capsys.readouterr().err
    assert build.main(["--root", str(root), "--profile", "fast"]) == 2
    assert build.main(["--root", str(root), "--examples", "nope"]) == 2


def lesson_result(root: Path, fw: str) -> dict:
    return json.loads(next((root / "results").glob(f"*/smoke/_lessons/sleepy/{fw}.json")).read_text())


def test_a_lesson_runs_its_variants_and_its_verdicts_are_computed(tiny):
    root = tiny["root"]
    alpha = lesson_result(root, "alpha")
    assert alpha["status"] == "ok", alpha
    seconds = alpha["variants"]
    assert len(seconds["long"]["seconds"]) == 3 and max(seconds["short"]["seconds"]) < min(seconds["long"]["seconds"])
    assert alpha["provenance"]["repeats"] == 3 and alpha["provenance"]["framework_versions"]["ipykernel"]
    html = (root / "_build" / "html" / "_gen" / "lessons" / "sleepy.html").read_text()
    assert "holds" in html and "smaller than claimed" in html
    assert "A tiny lesson for tests." in html
    assert 'data-sync-id="alpha"' in html and 'data-sync-group="framework"' in html, "synced tabs"
    assert "sleepy-seconds.png" in html
    if len(os.sched_getaffinity(0)) >= 2:        # smoke, no GPU: the scripts ran two at a time, and it says so
        assert alpha["provenance"]["side_by_side"] == 2 and "these times are not measurements" in html
        assert result(root, "tiny", "alpha")["provenance"]["side_by_side"] == 2
        benchmark_page = page(root, "tiny")
        assert "2 snippets ran at a time" in benchmark_page and "these times are not measurements" in benchmark_page
    index = (root / "_build" / "html" / "_gen" / "lessons.html").read_text()
    assert "short at least 2x faster" in index and "Sleeping less" in index
    assert "Sleeping less" in page(root, "tiny"), "the benchmark page links to the lessons that concern it"


def test_a_failing_lesson_script_gives_no_verdict_and_the_page_says_why(tiny):
    root = tiny["root"]
    beta = lesson_result(root, "beta")
    assert beta["status"] == "failed" and beta["error"]["ename"] == "ZeroDivisionError"
    assert beta["error"]["step"] == "measure"
    html = (root / "_build" / "html" / "_gen" / "lessons" / "sleepy.html").read_text()
    assert "no verdict" in html and 'id="lesson-traceback-sleepy-beta"' in html and "1 / 0" in html
    code, strict = run(root, "--strict", "--examples", "none")
    assert code == 1 and "lesson sleepy/beta: failed: ZeroDivisionError" in strict


def test_an_unreadable_lesson_is_named_and_the_rest_builds(tiny):
    assert "unreadable/lesson.toml: unknown key 'nothing'." in tiny["out"]    # (rosetta/model.py)
    index = (tiny["root"] / "_build" / "html" / "_gen" / "lessons.html").read_text()
    assert "A lesson could not be read" in index and "unreadable" in index


def test_unknown_lesson_names_are_one_clear_message(tiny, capsys):
    assert build.main(["--root", str(tiny["root"]), "--lessons", "sleepyy"]) == 2
    assert "unknown lesson 'sleepyy'. Did you mean 'sleepy'?" in capsys.readouterr().err


def test_one_program_run_by_two_rows_is_shown_once_with_each_rows_outcome(tiny):
    """The duo program runs in alpha's venv twice, once per row, each with its own variables; the
    page shows its code once and, under it, each row's output and time in a tab of its own."""
    import nbformat
    root = tiny["root"]
    folder = next((root / "results").glob("*/smoke/tiny"))
    for voice in ("whisper", "shout"):
        record = result(root, "tiny", f"duo-{voice}")
        assert record["status"] == "ok", record
        assert record["label"] == f"Duo · {voice}"
        notebook = nbformat.read(folder / f"duo-{voice}.ipynb", as_version=4)
        printed = "".join(o.get("text", "") for c in notebook.cells for o in c.get("outputs", []))
        assert f"voice: {voice}" in printed, "the row's own variables reached its kernel"
    assert result(root, "tiny", "duo-whisper")["cache_key"] != result(root, "tiny", "duo-shout")["cache_key"]
    html = page(root, "tiny")
    assert html.count("TINY_VOICE") == 1, "the program's code is shown once"
    assert "voice: whisper" in html and "voice: shout" in html
    assert "This one program ran 2 times: whisper, shout." in html
    assert 'data-sync-id="duo"' in html and 'data-sync-group="duo-row"' in html
    assert 'data-sync-id="duo-shout"' in html
    assert "Duo · whisper" in html and "Duo · shout" in html, "the results table has a row per run"
    notebook_page = (root / "_build" / "html" / "_gen" / "notebooks" / "tiny" / "duo-shout.html").read_text()
    assert "TINY_VOICE=shout" in notebook_page


def test_a_javascript_tab_runs_in_its_own_kernel_and_fails_like_any_other(tiny):
    """Deno's Jupyter kernel ran the setup step (its settings came through the Python bridge) and the
    compute step threw: the result, the table and the tab say "failed" and link the traceback, and
    the code is shown as JavaScript."""
    import nbformat
    root = tiny["root"]
    delta = result(root, "tiny", "delta")
    assert delta["status"] == "failed" and delta["error"]["step"] == "compute", delta
    assert "delta gives up at 500" in delta["error"]["evalue"]
    assert "setup" in delta["steps"] and "check" not in delta["steps"]
    notebook = nbformat.read(next((root / "results").glob("*/smoke/tiny")) / "delta.ipynb", as_version=4)
    printed = "".join(o.get("text", "") for c in notebook.cells for o in c.get("outputs", []))
    assert "delta ready, profile smoke n 1000" in printed, "settings() reached the kernel through the bridge"
    html = page(root, "tiny")
    assert "This step failed: Error" in html and "traceback-tiny-delta" in html
    assert "highlight-javascript" in html, "the tab shows JavaScript as JavaScript"
    assert list((root / "_build" / "html" / "_downloads").rglob("delta.js")), "the script is downloadable"


def test_measured_on_two_machines_then_published_from_their_results_without_executing(tiny, tmp_path, monkeypatch):
    """Measure here, publish there: two machines' results folders (--measure-only), then one build
    from both (--from-results) that runs nothing and has no environment at all, beside a malformed
    folder that is named and skipped."""
    root = tiny["root"]
    folders = {}
    for machine in ("machine-one", "machine-two"):
        monkeypatch.setenv("ROSETTA_MACHINE", machine)
        folders[machine] = tmp_path / machine
        code, out = run(root, "--measure-only", "--results", str(folders[machine]), "--examples", "tiny",
                        "--lessons", "none")
        assert code == 0, out
        assert f"results: {folders[machine] / machine / 'smoke'}" in out and "sphinx" not in out
        for name in ("machine.json", "environments.json"):
            assert (folders[machine] / machine / name).exists()
        assert json.loads((folders[machine] / machine / "smoke" / "tiny" / "alpha.json").read_text())["status"] == "ok"
    assert not (root / "_build" / "published").exists()
    broken = tmp_path / "broken"
    (broken / "machine-three" / "smoke").mkdir(parents=True)        # no machine.json: not a measured folder
    monkeypatch.setenv("ROSETTA_VENVS", str(tmp_path / "no-environments-here"))
    monkeypatch.delenv("ROSETTA_MACHINE")
    site = root / "_build" / "published"
    code, out = run(root, "--from-results", str(folders["machine-one"]), "--from-results", str(folders["machine-two"]),
                    "--from-results", str(broken), "--output", str(site))
    assert code == 0, out
    assert "run 1/1" not in out and "environments (" not in out, "nothing is set up or executed"
    assert f"results: {broken / 'machine-three' / 'machine.json'}: missing" in out
    assert "pages' own: machine-one, smoke" in out
    assert not (tmp_path / "no-environments-here").exists()
    html = (site / "_gen" / "benchmarks" / "tiny.html").read_text()
    assert "machine-two" in html and "results folder" in html
    assert html.count("· smoke") >= 4, "Alpha and Beta each on two machines"
    assert "499500" in html, "the step outputs are machine-one's executed notebooks"
    converged(root)


def test_an_existing_python_is_used_instead_of_a_venv_and_a_bad_one_is_named(tiny, tmp_path, monkeypatch):
    """ROSETTA_PYTHON_BETA names an interpreter (alpha's venv Python, which has ipykernel): beta's own
    venv is not used, its kernel runs that Python, its fingerprint and the environments record say so.
    A path that does not exist, and a Python without ipykernel, are each one message; the rest builds."""
    root = tiny["root"]
    existing = REPO_ROOT / ".envs" / "tiny-project" / "alpha" / "bin" / "python"
    monkeypatch.setenv("ROSETTA_MACHINE", "existing")
    monkeypatch.setenv("ROSETTA_PYTHON_BETA", str(existing))
    folder = tmp_path / "results"
    args = ("--measure-only", "--results", str(folder), "--examples", "tiny", "--lessons", "none")
    code, out = run(root, *args)
    assert code == 0, out
    assert f"beta: existing Python {existing}" in out
    record = json.loads((folder / "existing" / "environments.json").read_text())["beta"]
    assert record["ok"] and record["fingerprint"]["existing_python"] == str(existing)
    assert record["fingerprint"]["requirements_sha256"] is None and "ipykernel" in record["fingerprint"]["packages"]
    beta = json.loads((folder / "existing" / "smoke" / "tiny" / "beta.json").read_text())
    assert beta["status"] == "failed" and beta["error"]["ename"] == "ZeroDivisionError", "it ran, in that Python"

    monkeypatch.setenv("ROSETTA_PYTHON_BETA", str(tmp_path / "nowhere" / "python"))
    code, out = run(root, *args)
    assert code == 0, out
    assert f"beta: NOT INSTALLED: ROSETTA_PYTHON_BETA={tmp_path / 'nowhere' / 'python'}: no such interpreter" in out
    assert json.loads((folder / "existing" / "smoke" / "tiny" / "alpha.json").read_text())["status"] == "ok"

    bare = tmp_path / "bare"
    import subprocess
    import sys
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", str(bare)],
                   check=True)
    monkeypatch.setenv("ROSETTA_PYTHON_BETA", str(bare / "bin" / "python"))
    code, out = run(root, *args)
    assert "it has no ipykernel" in out, out
    monkeypatch.delenv("ROSETTA_PYTHON_BETA")
    converged(root)


def test_kernels_listen_on_local_socket_files_not_tcp_ports(tiny, tmp_path):
    """Jupyter's IPC transport: the kernel's connection names socket files in a private folder."""
    from rosetta.build.execute import execute
    from rosetta.build.snippets import parse
    from rosetta.project import Project
    project = Project(root=tiny["root"])
    example = project.example("tiny")
    script = tmp_path / "alpha.py"
    script.write_text((example.folder / "alpha.py").read_text().replace(
        "total = sum(range(hp.n))",
        "from ipykernel.connect import get_connection_info\n"
        "info = get_connection_info(unpack=True)\n"
        "print('transport', info['transport'], 'at', info['ip'])\ntotal = 0"))
    execution = execute(parse(script, example), "rosetta-alpha",
                        {"ROSETTA_PROFILE": "smoke", "ROSETTA_SNIPPETS": str(project.snippets)}, tmp_path, 60)
    assert execution.status == "ok", execution.error
    printed = "".join(output.get("text", "") for cell in execution.notebook.cells for output in cell.get("outputs", []))
    transport, where = printed.split("transport ", 1)[1].split()[0], printed.split(" at ", 1)[1].split()[0]
    assert transport == "ipc" and where.startswith("/") and "rosetta-kernel-" in where
    assert not Path(where).parent.exists(), "the socket folder is removed with the kernel"
