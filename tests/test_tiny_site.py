"""A tiny real project: two small test frameworks, one raising snippet, one that times out.

Real venvs, real kernels, real nbclient runs, a real `sphinx-build -W`. Its environments are
kept under .envs/tiny-project so that a second test run reuses them.
"""
from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from rosetta import build
from rosetta.project import REPO_ROOT

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
    [hyperparameters]
    n = 1000
    [profiles.smoke]
    data = "synthetic"
    [profiles.cpu]
    [profiles.full]
    """)


def make_project(root: Path) -> Path:
    (root / "envs").mkdir(parents=True)
    for order, (fw, label) in enumerate([("alpha", "Alpha"), ("beta", "Beta")], 1):
        (root / "envs" / f"{fw}.toml").write_text(TOML.format(label=label, order=order))
        (root / "envs" / f"{fw}.txt").write_text("ipykernel==7.4.0\n")
    tiny = root / "snippets" / "tiny"
    tiny.mkdir(parents=True)
    (tiny / "example.toml").write_text(EXAMPLE.format(title="Tiny sums"))
    (tiny / "alpha.py").write_text(SNIPPET.format(fw="alpha", compute="total = sum(range(hp.n))\nprint(total)"))
    (tiny / "beta.py").write_text(SNIPPET.format(fw="beta", compute="total = 1 / 0"))
    slow = root / "snippets" / "slow"
    slow.mkdir(parents=True)
    (slow / "example.toml").write_text(EXAMPLE.format(title="A slow one").replace('"tiny"', '"slow"'))
    (slow / "alpha.py").write_text(SNIPPET.format(fw="alpha", compute="import time\ntime.sleep(60)")
                                   .replace('settings("tiny")', 'settings("slow")'))
    (root / "docs").mkdir()
    for page in ("index.md", "methodology.md"):
        shutil.copy(REPO_ROOT / "docs" / page, root / "docs" / page)
    return root


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, monkeypatch_module):
    root = make_project(tmp_path_factory.mktemp("tiny"))
    monkeypatch_module.setenv("ROSETTA_VENVS", str(REPO_ROOT / ".envs" / "tiny-project"))
    return root


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def run(root: Path, *args: str, capsys=None) -> tuple[int, str]:
    code = build.main(["--root", str(root), "--profile", "smoke", "--timeout", "5", *args])
    out = capsys.readouterr().out if capsys else ""
    return code, out


def result(root: Path, example: str, fw: str) -> dict:
    return json.loads(next((root / "results").glob(f"*/smoke/{example}/{fw}.json")).read_text())


def test_build_completes_with_a_failing_and_a_timed_out_snippet(tiny, capsys):
    code, out = run(tiny, "--force", capsys=capsys)
    assert code == 0, out
    assert "site:" in out
    alpha, beta = result(tiny, "tiny", "alpha"), result(tiny, "tiny", "beta")
    assert alpha["status"] == "ok" and alpha["metrics"]["accuracy"] == 1.0
    assert set(alpha["steps"]) == {"setup", "compute", "check"}
    assert alpha["metrics"]["throughput"] == pytest.approx(1000 / alpha["steps"]["compute"]["median"])
    assert beta["status"] == "failed" and beta["error"]["step"] == "compute"
    assert beta["error"]["ename"] == "ZeroDivisionError" and "1 / 0" in beta["error"]["traceback"]
    slow = result(tiny, "slow", "alpha")
    assert slow["status"] == "timeout" and slow["error"]["step"] == "compute"
    for r in (alpha, beta):
        prov = r["provenance"]
        assert prov["profile"] == "smoke" and prov["machine"]["cores"] and prov["date"]
        assert prov["framework_versions"]["ipykernel"] == "7.4.0"

    html = tiny / "_build" / "html"
    page = (html / "_gen" / "benchmarks" / "tiny.html").read_text()
    assert "This step failed: ZeroDivisionError" in page
    assert "traceback-tiny-beta" in page, "the table and the tab link to the traceback"
    assert "Not run: an earlier step failed." in page
    assert "Step time:" in page and "499500" in page
    notebook_page = (html / "_gen" / "notebooks" / "tiny" / "beta.html").read_text()
    assert "ZeroDivisionError" in notebook_page and 'id="traceback-tiny-beta"' in notebook_page
    assert (html / "_downloads").exists() and list((html / "_downloads").rglob("beta.ipynb"))
    slow_page = (html / "_gen" / "benchmarks" / "slow.html").read_text()
    assert "timed out" in slow_page


def test_strict_mode_fails_on_failures(tiny, capsys):
    code, out = run(tiny, "--strict", capsys=capsys)
    assert code == 1
    assert "tiny/beta: failed: ZeroDivisionError" in out and "slow/alpha: timeout" in out


def test_nothing_changed_means_nothing_executes(tiny, capsys):
    before = result(tiny, "tiny", "alpha")["provenance"]["date"], result(tiny, "tiny", "beta")["cache_key"]
    code, out = run(tiny, capsys=capsys)
    assert code == 0
    assert "run 1/1" not in out and out.count("up to date") == 3
    assert (result(tiny, "tiny", "alpha")["provenance"]["date"], result(tiny, "tiny", "beta")["cache_key"]) == before


def test_editing_one_snippet_reexecutes_only_it(tiny, capsys):
    path = tiny / "snippets" / "tiny" / "beta.py"
    path.write_text(path.read_text().replace("total = 1 / 0", "total = 2 * 21\nprint(total)"))
    code, out = run(tiny, "--examples", "tiny", capsys=capsys)
    assert code == 0
    assert "run 1/1 of tiny/beta" in out and "run 1/1 of tiny/alpha" not in out
    assert result(tiny, "tiny", "beta")["status"] == "ok"
    page = (tiny / "_build" / "html" / "_gen" / "benchmarks" / "tiny.html").read_text()
    assert "This step failed" not in page and "42" in page


def test_an_unselected_changed_snippet_is_shown_as_stale(tiny, capsys):
    path = tiny / "snippets" / "tiny" / "beta.py"
    original = path.read_text()
    path.write_text(original.replace("total = 2 * 21", "total = 2 * 22"))
    try:
        code, out = run(tiny, "--examples", "tiny", "--frameworks", "alpha", capsys=capsys)
        assert code == 0 and "run 1/1" not in out
        assert "tiny/beta: stale (not selected)" in out
        page = (tiny / "_build" / "html" / "_gen" / "benchmarks" / "tiny.html").read_text()
        assert "Stale: the snippet or its environment changed" in page and "(stale)" in page
    finally:
        path.write_text(original)


def test_a_framework_that_cannot_install_is_reported_and_the_rest_builds(tiny, capsys):
    (tiny / "envs" / "gamma.toml").write_text(TOML.format(label="Gamma", order=3))
    (tiny / "envs" / "gamma.txt").write_text("rosetta-no-such-package-anywhere==0.0.1\n")
    (tiny / "snippets" / "tiny" / "gamma.py").write_text(
        SNIPPET.format(fw="gamma", compute="total = 0"))
    try:
        code, out = run(tiny, "--examples", "tiny", capsys=capsys)
        assert code == 0, out
        assert "gamma: NOT INSTALLED" in out
        page = (tiny / "_build" / "html" / "_gen" / "benchmarks" / "tiny.html").read_text()
        assert "not installed: " in page and "rosetta-no-such-package-anywhere" in page
        assert result(tiny, "tiny", "alpha")["status"] == "ok"
        assert not (Path(REPO_ROOT / ".envs" / "tiny-project" / "gamma")).exists(), "no half-made venv left"
    finally:
        for path in (tiny / "envs" / "gamma.toml", tiny / "envs" / "gamma.txt", tiny / "snippets" / "tiny" / "gamma.py"):
            path.unlink()


def test_unknown_names_are_one_clear_message(tiny, capsys):
    assert build.main(["--root", str(tiny), "--frameworks", "alpah"]) == 2
    assert "unknown framework 'alpah'. Did you mean 'alpha'?" in capsys.readouterr().err
    assert build.main(["--root", str(tiny), "--profile", "fast"]) == 2
    assert build.main(["--root", str(tiny), "--examples", "nope"]) == 2
