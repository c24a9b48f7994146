"""rosetta.bridge: what a JavaScript tab (rosetta/js/rosetta.ts) gets from the Python side. No kernel, no Deno."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rosetta import bridge
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
