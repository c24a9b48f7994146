"""The IMDB loader, on small archives made here: tokenising, index rules, bad input, download."""
from __future__ import annotations

import hashlib
import io
import tarfile

import numpy as np
import pytest
from test_cifar10 import ArchiveServer

from rosetta.data import imdb
from rosetta.data.fetch import DataError
from rosetta.settings import Settings

TRAIN = {
    ("pos", "0_9.txt"): "A great film.<br />Great acting, great story!",
    ("pos", "1_8.txt"): "Great fun; I don't regret it.",
    ("neg", "0_2.txt"): "A dull film. Dull, dull, dull.",
    ("neg", "1_1.txt"): "Terrible. The film's plot is dull.",
}
TEST = {
    ("pos", "0_10.txt"): "Great great film with a zebra",
    ("neg", "0_3.txt"): "dull",
}


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path, monkeypatch):
    data, cache = tmp_path / "data", tmp_path / "cache"
    data.mkdir()
    monkeypatch.setenv("ROSETTA_DATA", str(data))
    monkeypatch.setenv("ROSETTA_CACHE", str(cache))
    monkeypatch.setattr(imdb, "OFFICIAL_URL", "http://127.0.0.1:9/aclImdb_v1.tar.gz")
    return data


def hp(**values):
    base = {"seed": 0, "data": "real", "vocabulary_size": 30000, "max_length": 150,
            "train_reviews": 4, "test_reviews": 2}
    return Settings("gru_imdb", "cpu", {**base, **values})


def make_archive(path, train=TRAIN, test=TEST, extra=()):
    with tarfile.open(path, "w:gz") as tar:
        for split, reviews in (("train", train), ("test", test)):
            for (label, name), text in reviews.items():
                raw = text.encode()
                info = tarfile.TarInfo(f"aclImdb/{split}/{label}/{name}")
                info.size = len(raw)
                tar.addfile(info, io.BytesIO(raw))
        for name in extra:       # files the loader must not need, e.g. train/unsup or *.feat
            info = tarfile.TarInfo(name)
            tar.addfile(info, io.BytesIO(b""))
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_tokenizer_lowercases_drops_br_and_keeps_apostrophes():
    assert imdb.tokenize("Great acting.<br />I DON'T care: the film's end!") == \
        ["great", "acting", "i", "don't", "care", "the", "film's", "end"]


def test_ranking_uses_training_words_only_with_index_rules(isolated_dirs):
    make_archive(isolated_dirs / "aclImdb-labelled.tar.gz")
    reviews = imdb.read_reviews(imdb.locate())
    index = imdb.rank_words([imdb.tokenize(text) for _, text, _ in reviews["train"]])
    # "dull" 5 times, "great" 4, then "a" and "film" twice each (tie: alphabetical)
    assert (index["dull"], index["great"], index["a"], index["film"]) == (3, 4, 5, 6)
    assert min(index.values()) == imdb.FIRST_WORD
    assert "zebra" not in index, "test words never enter the vocabulary"


def test_encoding_start_marker_oov_truncation_and_padding():
    index = {"great": 3, "film": 4, "rare": 5}
    row = imdb.encode(["great", "film", "rare", "unknown"], index, vocabulary_size=5, max_length=8)
    assert row.tolist() == [1, 3, 4, 2, 2, 0, 0, 0]      # start, words, 'rare' >= vocab -> 2, unknown -> 2, pad at end
    long = imdb.encode(["great"] * 10 + ["film"], index, vocabulary_size=30000, max_length=4)
    assert long.tolist() == [3, 3, 3, 4], "the LAST tokens are kept"


def test_load_from_a_labelled_archive(isolated_dirs):
    make_archive(isolated_dirs / "aclImdb-labelled.tar.gz", extra=["aclImdb/train/unsup/0_0.txt"])
    x_train, y_train, x_test, y_test = imdb.load(hp())
    assert x_train.shape == (4, 150) and x_test.shape == (2, 150) and x_train.dtype == np.int32
    assert sorted(y_train.tolist()) == [0, 0, 1, 1] and sorted(y_test.tolist()) == [0, 1]
    assert (x_train[:, 0] == imdb.START).all()
    test_pos = x_test[y_test.tolist().index(1)]
    assert imdb.OOV in test_pos.tolist(), "'zebra' appears only in the test set: out of vocabulary"


def test_official_archive_checksum_is_verified(isolated_dirs):
    make_archive(isolated_dirs / imdb.OFFICIAL_ARCHIVE)       # right name, wrong content
    with pytest.raises(DataError, match="checksum mismatch"):
        imdb.prepare(hp())


def test_missing_split_and_empty_reviews_are_reported(isolated_dirs, tmp_path):
    make_archive(isolated_dirs / "aclImdb-labelled.tar.gz", test={("pos", "0_9.txt"): "fine"})
    with pytest.raises(DataError, match="no test/neg reviews"):
        imdb.prepare(hp())
    (isolated_dirs / "aclImdb-labelled.tar.gz").unlink()
    make_archive(isolated_dirs / "aclImdb-labelled.tar.gz", train={**TRAIN, ("pos", "2_7.txt"): "  "})
    with pytest.raises(DataError, match="1 empty review file"):
        imdb.prepare(hp())


def test_corrupt_archive_is_reported(isolated_dirs):
    path = isolated_dirs / "aclImdb-labelled.tar.gz"
    make_archive(path)
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(DataError, match="corrupt or truncated"):
        imdb.prepare(hp())


def test_missing_offline_says_what_to_provide(isolated_dirs):
    with pytest.raises(DataError, match=r"IMDB not found .* ROSETTA_DATA"):
        imdb.prepare(hp())


def test_download_from_local_server(tmp_path, monkeypatch):
    sha = make_archive(tmp_path / "served.tar.gz")
    server = ArchiveServer((tmp_path / "served.tar.gz").read_bytes())
    try:
        monkeypatch.setattr(imdb, "OFFICIAL_URL", server.url)
        monkeypatch.setattr(imdb, "OFFICIAL_SHA256", sha)
        x_train, *_ = imdb.load(hp())
        imdb.load(hp())
        assert x_train.shape == (4, 150) and server.hits == 1
    finally:
        server.close()


def test_synthetic_only_for_the_smoke_profile():
    x_train, y_train, x_test, _ = imdb.load(hp(data="synthetic", train_reviews=8, test_reviews=3))
    assert x_train.shape == (8, 150) and x_test.shape == (3, 150)
    assert x_train.max() < 30000 and (x_train[:, 0] == imdb.START).sum() > 0
