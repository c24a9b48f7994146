"""rosetta.bridge: what a JavaScript tab (rosetta/js/rosetta.ts) gets from the Python side. No kernel, no Deno."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import numpy as np
import pytest

from rosetta import bridge
from rosetta.build import environments
from rosetta.data import cifar10, random_images
from rosetta.project import UsageError
from rosetta.settings import settings

REPO = Path(__file__).resolve().parent.parent


def read_back(outdir, index) -> dict[str, np.ndarray]:
    """What rosetta.ts does: each file as raw little-endian values of the index's dtype and shape."""
    return {name: np.fromfile(outdir / entry["file"], dtype=np.dtype(entry["dtype"]).newbyteorder("<"))
            .reshape(entry["shape"]) for name, entry in index["arrays"].items()}


@pytest.fixture(autouse=True)
def smoke(monkeypatch):
    monkeypatch.setenv("ROSETTA_PROFILE", "smoke")
    monkeypatch.delenv("ROSETTA_OVERRIDES", raising=False)


def test_settings_are_the_python_tabs_settings(monkeypatch):
    monkeypatch.setenv("ROSETTA_OVERRIDES", '{"train_images": 128}')
    payload = bridge.settings_payload("cnn_cifar10")
    assert payload["settings"] == settings("cnn_cifar10").as_dict()
    assert payload["settings"]["profile"] == "smoke" and payload["settings"]["train_images"] == 128
    monkeypatch.delenv("ROSETTA_OVERRIDES")
    monkeypatch.setenv("ROSETTA_WEIGHTS", "random")
    assert "random weights" in bridge.settings_payload("resnet50_features")["context"]["weights"]


@pytest.mark.parametrize("layout", ["NHWC", "NCHW"])
def test_cifar10_arrays_round_trip_in_order(tmp_path, layout):
    index = bridge.load("cnn_cifar10", "cifar10", tmp_path, layout)
    assert json.loads((tmp_path / bridge.INDEX).read_text()) == index
    got = read_back(tmp_path, index)
    expected = cifar10.load(settings("cnn_cifar10"), layout=layout)
    assert list(got) == ["x_train", "y_train", "x_test", "y_test"]
    for name, array in zip(got, expected):
        assert got[name].dtype == array.dtype and np.array_equal(got[name], array), name
    n = settings("cnn_cifar10").train_images               # the smoke profile's (the tests run at smoke)
    assert index["arrays"]["x_train"]["shape"] == ([n, 32, 32, 3] if layout == "NHWC" else [n, 3, 32, 32])
    assert index["context"]["data_source"].startswith("synthetic")


def test_a_loader_of_one_array(tmp_path):
    index = bridge.load("resnet50_features", "random_images", tmp_path, "NHWC")
    images = read_back(tmp_path, index)["images"]
    assert np.array_equal(images, random_images.load(settings("resnet50_features"), layout="NHWC"))


def test_unknown_loader_is_named(tmp_path):
    with pytest.raises(UsageError, match="unknown loader 'cifar'. Did you mean 'cifar10'"):
        bridge.load("cnn_cifar10", "cifar", tmp_path)


def test_command_line_prints_json():
    done = subprocess.run([sys.executable, "-m", "rosetta.bridge", "settings", "cnn_cifar10"], cwd=REPO,
                          capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(done.stdout)["settings"]["batch_size"] == 64


@pytest.mark.envs
@pytest.mark.parametrize("row", ["convnetjs", "tensorflowjs"])
def test_a_javascript_row_s_own_environment_decodes_the_cifar10_archive(project, row, tmp_path):
    """A JavaScript row run alone (no Python row decoded the archive into the cache first) reads CIFAR-10's
    JPEG archive through its own environment's Python: it needs Pillow there (a fairness run of the JavaScript
    rows on the shared archive failed in its data step without it)."""
    from test_cifar10 import image_tree
    fw = project.framework(row)
    python = environments.venv_python(project, fw)
    if not environments.is_current(project, fw):
        pytest.skip(f"{row}'s environment is not set up here (make envs; CI sets it up)")
    data, out = tmp_path / "data", tmp_path / "out"
    image_tree(tmp_path / "tree" / "cifar10-jpeg")
    data.mkdir()
    with tarfile.open(data / "cifar10-jpeg.tar.gz", "w:gz") as tar:
        tar.add(tmp_path / "tree" / "cifar10-jpeg", arcname="cifar10-jpeg")
    env = {**os.environ, **environments.child_variables(project, fw, "cpu"), "ROSETTA_DATA": str(data),
           "ROSETTA_CACHE": str(tmp_path / "cache"), "ROSETTA_OVERRIDES": '{"train_images": 20, "test_images": 20}'}
    done = subprocess.run([str(python), "-m", "rosetta.bridge", "load", "cnn_cifar10", "cifar10", str(out),
                           "--layout", "NHWC"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    index = json.loads((out / bridge.INDEX).read_text())
    assert index["arrays"]["x_train"]["shape"] == [20, 32, 32, 3]
    assert "image-folder archive" in index["context"]["data_source"], index["context"]
