"""The CIFAR-10 loader, on small archives made here: official format, image folder, bad input, download."""
from __future__ import annotations

import hashlib
import http.server
import io
import pickle
import tarfile
import threading

import numpy as np
import pytest
from PIL import Image

from rosetta.data import cifar10
from rosetta.data.fetch import DataError
from rosetta.settings import Settings

PER_BATCH = 20


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path, monkeypatch):
    data, cache = tmp_path / "data", tmp_path / "cache"
    data.mkdir()
    monkeypatch.setenv("ROSETTA_DATA", str(data))
    monkeypatch.setenv("ROSETTA_CACHE", str(cache))
    # Nothing here may reach the internet: an unexpected download goes to a closed local port.
    monkeypatch.setattr(cifar10, "OFFICIAL_URL", "http://127.0.0.1:9/cifar-10-python.tar.gz")
    return data


def hp(**sizes):
    values = {"seed": 0, "data": "real", "train_images": 5 * PER_BATCH, "test_images": PER_BATCH, **sizes}
    return Settings("cnn_cifar10", "cpu", values)


def official_archive(path, n_classes=10):
    """A tiny archive in the official layout; labels cycle through the classes."""
    rng = np.random.default_rng(1)

    def add(tar, name, obj):
        raw = pickle.dumps(obj)
        info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
        info.size = len(raw)
        tar.addfile(info, io.BytesIO(raw))

    with tarfile.open(path, "w:gz") as tar:
        add(tar, "batches.meta", {b"label_names": [f"c{i}".encode() for i in range(n_classes)]})
        for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
            add(tar, name, {b"data": rng.integers(0, 256, (PER_BATCH, 3072), dtype=np.uint8),
                            b"labels": [i % n_classes for i in range(PER_BATCH)]})
    return hashlib.md5(path.read_bytes()).hexdigest()


def image_tree(root, classes=cifar10.CLASSES, per_class=2, size=(32, 32)):
    for split in ("train", "test"):
        for index, name in enumerate(classes):
            folder = root / split / name
            folder.mkdir(parents=True)
            for k in range(per_class):
                # Each image is one flat colour that encodes its class: decoding can be checked.
                Image.new("RGB", size, (index * 20, k, 0)).save(folder / f"{k:04d}.png")


def test_official_archive_is_verified_decoded_and_cached(isolated_dirs, monkeypatch):
    md5 = official_archive(isolated_dirs / cifar10.OFFICIAL_ARCHIVE)
    monkeypatch.setattr(cifar10, "OFFICIAL_MD5", md5)
    x_train, y_train, x_test, y_test = cifar10.load(hp())
    assert x_train.shape == (100, 3, 32, 32) and x_test.shape == (20, 3, 32, 32)
    assert x_train.dtype == np.float32 and 0.0 <= x_train.min() and x_train.max() <= 1.0
    assert y_train.dtype == np.int32 and set(y_train) == set(range(10))
    info = cifar10.prepare()
    assert info["cache"].endswith(".npz") and "official archive" in info["source"]


def test_checksum_mismatch_is_one_clear_error(isolated_dirs):
    official_archive(isolated_dirs / cifar10.OFFICIAL_ARCHIVE)   # not the official md5
    with pytest.raises(DataError, match="checksum mismatch.*delete it and provide the official file"):
        cifar10.prepare()


def test_wrong_number_of_classes_in_official_layout(isolated_dirs, monkeypatch):
    md5 = official_archive(isolated_dirs / cifar10.OFFICIAL_ARCHIVE, n_classes=7)
    monkeypatch.setattr(cifar10, "OFFICIAL_MD5", md5)
    with pytest.raises(DataError, match="lists 7 classes, expected 10"):
        cifar10.prepare()


def test_image_folder_archive_with_nhwc_layout(isolated_dirs, tmp_path):
    tree = tmp_path / "tree" / "cifar10-jpeg"
    image_tree(tree)
    with tarfile.open(isolated_dirs / "cifar10-jpeg.tar.gz", "w:gz") as tar:
        tar.add(tree, arcname="cifar10-jpeg")
    x_train, y_train, x_test, y_test = cifar10.load(hp(train_images=20, test_images=20), layout="NHWC")
    assert x_train.shape == (20, 32, 32, 3) and x_test.shape == (20, 32, 32, 3)
    # sorted class folders = official label order; the red channel encodes the class
    red = np.rint(x_test[:, 0, 0, 0] * 255).astype(int)
    assert np.array_equal(red, y_test * 20)
    assert "image-folder archive" in cifar10.prepare()["source"]


def test_image_folder_directory_and_profile_subset_mixes_classes(isolated_dirs):
    image_tree(isolated_dirs / "cifar10", per_class=3)
    x_train, y_train, _, _ = cifar10.load(hp(train_images=12, test_images=30))
    assert x_train.shape == (12, 3, 32, 32)
    assert len(set(y_train)) > 3, "a reduced profile takes a seeded sample, not the first classes"


def test_wrong_number_of_classes_in_image_folder(isolated_dirs):
    image_tree(isolated_dirs / "cifar10", classes=("cat", "dog", "ship"))
    with pytest.raises(DataError, match="has 3 train classes"):
        cifar10.prepare()


def test_wrong_image_size_is_reported(isolated_dirs):
    image_tree(isolated_dirs / "cifar10", size=(28, 28))
    with pytest.raises(DataError, match="is 28x28, expected 32x32"):
        cifar10.prepare()


def test_corrupt_archive_is_reported(isolated_dirs, tmp_path):
    tree = tmp_path / "tree" / "cifar10-jpeg"
    image_tree(tree)
    archive = isolated_dirs / "cifar10-jpeg.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(tree, arcname="cifar10-jpeg")
    archive.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])   # truncated download
    with pytest.raises(DataError, match="corrupt or truncated"):
        cifar10.prepare()


def test_missing_data_offline_says_what_to_provide(isolated_dirs):
    with pytest.raises(DataError) as info:
        cifar10.prepare()
    message = str(info.value)
    assert "CIFAR-10 not found" in message and str(isolated_dirs) in message
    assert "download from http://127.0.0.1:9" in message and "ROSETTA_DATA" in message
    assert cifar10.OFFICIAL_ARCHIVE in message


class ArchiveServer:
    """Serves one file over HTTP on 127.0.0.1 and counts the requests."""

    def __init__(self, payload: bytes):
        self.hits = 0
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                outer.hits += 1
                self.send_response(200)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/cifar-10-python.tar.gz"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_download_from_local_server_is_verified_and_cached(tmp_path, monkeypatch):
    md5 = official_archive(tmp_path / "served.tar.gz")
    server = ArchiveServer((tmp_path / "served.tar.gz").read_bytes())
    try:
        monkeypatch.setattr(cifar10, "OFFICIAL_URL", server.url)
        monkeypatch.setattr(cifar10, "OFFICIAL_MD5", md5)
        x_train, *_ = cifar10.load(hp())
        assert x_train.shape == (100, 3, 32, 32)
        cifar10.load(hp())
        assert server.hits == 1, "the second load must use the cached archive"
        assert (tmp_path / "cache" / cifar10.OFFICIAL_ARCHIVE).exists()
    finally:
        server.close()


def test_download_with_wrong_checksum_keeps_nothing(tmp_path, monkeypatch):
    official_archive(tmp_path / "served.tar.gz")
    server = ArchiveServer((tmp_path / "served.tar.gz").read_bytes())
    try:
        monkeypatch.setattr(cifar10, "OFFICIAL_URL", server.url)
        with pytest.raises(DataError, match="checksum mismatch"):
            cifar10.prepare()
        assert not list((tmp_path / "cache").glob("cifar-10-python*"))
    finally:
        server.close()


def test_synthetic_data_only_when_the_profile_says_so(isolated_dirs):
    from rosetta.report import _context
    x_train, y_train, x_test, y_test = cifar10.load(hp(data="synthetic", train_images=8, test_images=4))
    assert x_train.shape == (8, 3, 32, 32) and y_test.shape == (4,)
    assert "synthetic" in _context["data_source"]
    with pytest.raises(DataError):
        cifar10.load(hp())   # real data asked for and none present: no fallback


def test_switching_the_data_source_changes_the_cache_key(isolated_dirs, tmp_path, monkeypatch, project):
    """A JPEG copy and the official archive are different measurements: the build must re-measure."""
    from rosetta.build import benchmark, results
    example = project.example("cnn_cifar10")

    def key():
        return results.cache_key(example, "pytorch", "env", "cpu", "m",
                                 results.RunInputs(1, {}, benchmark.data_identity(example, "cpu")))

    tree = tmp_path / "tree" / "cifar10-jpeg"
    image_tree(tree)
    with tarfile.open(isolated_dirs / "cifar10-jpeg.tar.gz", "w:gz") as tar:
        tar.add(tree, arcname="cifar10-jpeg")
    jpeg = key()
    assert benchmark.data_identity(example, "cpu").startswith("image-folder archive")
    assert key() == jpeg, "the same copy twice: the same key"
    official = tmp_path / "official"
    official.mkdir()
    official_archive(official / cifar10.OFFICIAL_ARCHIVE)
    monkeypatch.setenv("ROSETTA_DATA", str(official))
    assert benchmark.data_identity(example, "cpu").startswith("official archive")
    assert key() != jpeg
    monkeypatch.setenv("ROSETTA_DATA", str(tmp_path / "empty"))
    assert benchmark.data_identity(example, "cpu") == "not found yet"
    assert benchmark.data_identity(example, "smoke") == "synthetic", "synthetic data has no copy to name"


def test_neutral_data_is_the_equivalence_batches_in_order(tmp_path, monkeypatch, project):
    from rosetta import neutral
    from rosetta.build import equivalence
    spec = equivalence.load_spec(project, project.example("cnn_cifar10"), "cpu")
    batches = neutral.batches(spec, 0)
    neutral.save(tmp_path / "batches.npz", batches)
    monkeypatch.setenv(neutral.BATCHES_VARIABLE, str(tmp_path / "batches.npz"))
    x_train, y_train, x_test, _ = cifar10.load(hp(data="neutral"), layout="NHWC")
    assert x_train.shape == (spec.steps * spec.batch_size, 32, 32, 3)
    assert np.array_equal(x_train[:spec.batch_size], batches["train_x"][0].transpose(0, 2, 3, 1))
    assert np.array_equal(y_train[-spec.batch_size:], batches["train_y"][-1])
    assert np.array_equal(x_test, batches["forward_x"].transpose(0, 2, 3, 1))
    monkeypatch.delenv(neutral.BATCHES_VARIABLE)
    with pytest.raises(RuntimeError, match="is for the equivalence checks"):
        cifar10.load(hp(data="neutral"))
