"""The real site at the smoke profile: every snippet executed in its own environment, `sphinx-build -W`."""
from __future__ import annotations

import json
import re

import pytest

from rosetta import results

FRAMEWORKS = ["pytorch", "tensorflow", "mxnet", "chainer"]


def test_site_builds_with_warnings_as_errors(smoke_site):
    assert smoke_site["returncode"] == 0, smoke_site["log"][-4000:]
    assert "sphinx-build -W" in smoke_site["log"] and "site:" in smoke_site["log"]
    assert (smoke_site["output"] / "index.html").exists()


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_every_snippet_ran_in_its_own_environment(smoke_site, project, framework):
    machine = results.machine_id(results.describe_machine())
    path = results.result_path(project, machine, "smoke", "cnn_cifar10", framework)
    record = json.loads(path.read_text())
    assert record["status"] == "ok", record.get("error")
    assert set(record["steps"]) == {"setup", "data", "model", "train", "infer"}
    assert 0.0 <= record["metrics"]["accuracy"] <= 1.0
    assert record["metrics"]["train_samples"] == 512
    prov = record["provenance"]
    assert prov["data_source"].startswith("synthetic") and prov["profile"] == "smoke"
    assert prov["sizes"]["train_images"] == 512
    assert set(prov["framework_versions"]) >= {"numpy", "python"}


def test_benchmark_page_has_synced_tabs_table_chart_and_downloads(smoke_site):
    html = smoke_site["output"]
    page = (html / "_gen" / "benchmarks" / "cnn_cifar10.html").read_text()
    assert page.count('data-sync-group="framework"') == 5 * 4, "5 steps x 4 frameworks"
    for label in ("PyTorch", "TensorFlow", "MXNet", "Chainer"):
        assert len(re.findall(rf">\s*{label}\s*</label>", page)) == 5, label
    assert page.count("Step time:") == 20
    assert "profile smoke" in page and "train images 512" in page
    assert "cnn_cifar10-times.png" in page and (html / "_images").glob("cnn_cifar10-times*.png")
    for fw in FRAMEWORKS:
        notebook = (html / "_gen" / "notebooks" / "cnn_cifar10" / f"{fw}.html").read_text()
        assert f"{fw}.py" in notebook and f"{fw}.ipynb" in notebook and "test accuracy" in notebook
        assert list((html / "_downloads").rglob(f"{fw}.ipynb")) and list((html / "_downloads").rglob(f"{fw}.py"))
    environments = (html / "_gen" / "environments.html").read_text()
    assert "torch==2.13.0" in environments and "mxnet==1.9.1" in environments
