"""IMDB movie reviews for every tab: found or downloaded once, tokenised once, cached as arrays.

Sources, looked for in each folder of ``ROSETTA_DATA`` and then in the cache folder:
  1. the official ``aclImdb_v1.tar.gz`` (sha256 verified), or
  2. any ``aclImdb*.tar.gz`` archive, or an ``aclImdb/`` folder, in the official layout
     ``aclImdb/{train,test}/{pos,neg}/<id>_<rating>.txt`` (the unlabelled ``train/unsup``,
     the ``*.feat`` and URL files are not needed).
When none is found, the official archive is downloaded into the cache.

Processing follows Keras' ``imdb.py`` (which the original study used, pre-tokenised):
  - tokenizer: lower-case, ``<br />`` becomes a space, tokens are runs of letters and digits
    with an optional apostrophe part (``don't``, ``film's``); everything else separates;
  - words ranked by frequency over the TRAINING reviews only (ties: alphabetical);
    index 0 = padding, 1 = start of review, 2 = out of vocabulary, words from 3 on;
  - vocabulary = the ``vocabulary_size`` lowest indices (rarer words become 2);
  - each review = [1] + its word indices, cut to its LAST ``max_length`` tokens and
    zero-padded at the end.
"""
from __future__ import annotations

import re
import tarfile
import zlib
from collections import Counter
from pathlib import Path

import numpy as np

from .. import neutral
from ..report import note
from .fetch import DataError, Source, cache_dir, data_dirs, found_or_downloaded, verify

OFFICIAL_URL = "https://ai.stanford.edu/~amaas/data/sentiment/aclImdb_v1.tar.gz"
OFFICIAL_ARCHIVE = "aclImdb_v1.tar.gz"
OFFICIAL_SHA256 = "c40f74a18d3b61f90feba1e17730e0d38e8b97c05fde7008942e91923d1658fe"
# What locate() accepts in a data folder (the build names a ROSETTA_DATA folder that holds none of it).
LOOKED_FOR = (OFFICIAL_ARCHIVE, "aclImdb*.tar.gz", "aclImdb")
PAD, START, OOV, FIRST_WORD = 0, 1, 2, 3
SPLITS, LABELS = ("train", "test"), ("neg", "pos")      # label 0 = negative, 1 = positive
CACHE_VERSION = 1
TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

WHAT_TO_PROVIDE = (
    f"Provide the official {OFFICIAL_ARCHIVE} (sha256 {OFFICIAL_SHA256}, from {OFFICIAL_URL}) or an "
    "archive/folder in its layout aclImdb/{train,test}/{pos,neg}/<id>_<rating>.txt in a folder named "
    "by ROSETTA_DATA, e.g. ROSETTA_DATA=/path/to/data make html"
)


def tokenize(text: str) -> list[str]:
    return TOKEN.findall(text.lower().replace("<br />", " "))


def locate() -> Source | None:
    for folder in data_dirs():
        if not folder.is_dir():
            continue
        if (folder / OFFICIAL_ARCHIVE).is_file():
            return Source("official archive", folder / OFFICIAL_ARCHIVE)
        for candidate in sorted(folder.glob("aclImdb*.tar.gz")):
            return Source("archive", candidate)
        if (folder / "aclImdb").is_dir():
            return Source("folder", folder / "aclImdb")
    return None


def locate_or_download() -> Source:
    return found_or_downloaded(locate(), OFFICIAL_URL, OFFICIAL_ARCHIVE, "sha256", OFFICIAL_SHA256, "IMDB",
                               WHAT_TO_PROVIDE)


def _labelled_path(parts: tuple[str, ...]):
    """(split, label) for .../{train,test}/{pos,neg}/<file>.txt, else None."""
    if len(parts) >= 3 and parts[-3] in SPLITS and parts[-2] in LABELS and parts[-1].endswith(".txt"):
        return parts[-3], LABELS.index(parts[-2])
    return None


def read_reviews(source: Source) -> dict[str, list[tuple[str, str, int]]]:
    """split -> [(file name, text, label)], sorted by file name within each split."""
    reviews = {split: [] for split in SPLITS}
    if source.kind == "official archive":
        verify(source.path, "sha256", OFFICIAL_SHA256, "IMDB")
    try:
        if source.path.is_dir():
            for path in sorted(source.path.glob("*/*/*.txt")):
                where = _labelled_path(path.parts)
                if where:
                    reviews[where[0]].append((str(path), path.read_text(encoding="utf-8"), where[1]))
        else:
            with tarfile.open(source.path, "r:*") as tar:
                for member in tar:
                    where = _labelled_path(Path(member.name).parts) if member.isfile() else None
                    if where:
                        text = tar.extractfile(member).read().decode("utf-8")
                        reviews[where[0]].append((member.name, text, where[1]))
    except (tarfile.TarError, EOFError, OSError, zlib.error, UnicodeDecodeError) as exc:
        raise DataError(f"IMDB source {source.path} is corrupt or truncated ({exc}). {WHAT_TO_PROVIDE}.") from None
    for split in SPLITS:
        found = reviews[split]
        for label, name in enumerate(LABELS):
            if not any(lab == label for _, _, lab in found):
                raise DataError(f"IMDB source {source.path} has no {split}/{name} reviews. {WHAT_TO_PROVIDE}.")
        empty = [name for name, text, _ in found if not text.strip()]
        if empty:
            raise DataError(f"IMDB source {source.path} has {len(empty)} empty review file(s), e.g. {empty[0]}. "
                            f"{WHAT_TO_PROVIDE}.")
        found.sort(key=lambda item: item[0])
    return reviews


def rank_words(train_texts: list[list[str]]) -> dict[str, int]:
    """word -> index (from 3), most frequent first; built from the training reviews only."""
    counts = Counter(word for words in train_texts for word in words)
    ranked = sorted(counts, key=lambda word: (-counts[word], word))
    return {word: FIRST_WORD + rank for rank, word in enumerate(ranked)}


def encode(words: list[str], index: dict[str, int], vocabulary_size: int, max_length: int) -> np.ndarray:
    ids = [START] + [i if (i := index.get(word, OOV)) < vocabulary_size else OOV for word in words]
    ids = ids[-max_length:]                                # keep the LAST tokens
    row = np.zeros(max_length, dtype=np.int32)             # padding (0) at the end
    row[:len(ids)] = ids
    return row


def prepare(hp) -> dict:
    """Find (or download), tokenise and encode IMDB once; return the cache path and provenance."""
    vocabulary_size, max_length = hp.vocabulary_size, hp.max_length
    source = locate_or_download()
    cached = cache_dir() / f"imdb-v{CACHE_VERSION}-{source.identity()}-{vocabulary_size}-{max_length}.npz"
    if not cached.exists():
        reviews = read_reviews(source)
        words = {split: [tokenize(text) for _, text, _ in reviews[split]] for split in SPLITS}
        index = rank_words(words["train"])
        arrays = {}
        for split in SPLITS:
            arrays[f"x_{split}"] = np.stack([encode(w, index, vocabulary_size, max_length) for w in words[split]])
            arrays[f"y_{split}"] = np.array([label for _, _, label in reviews[split]], dtype=np.int32)
        tmp = cached.with_name(cached.name + ".part.npz")
        np.savez(tmp, **arrays, source=f"{source.kind}: {source.path.name}", checksum=source.checksum(),
                 distinct_words=len(index))
        tmp.replace(cached)
    return {"cache": str(cached), "source": f"{source.kind}: {source.path}"}


def _subset(n_wanted: int, n_have: int, seed: int) -> np.ndarray:
    if n_wanted >= n_have:
        return np.random.default_rng(seed).permutation(n_have)
    return np.random.default_rng(seed).permutation(n_have)[:n_wanted]


def _synthetic(hp):
    rng = np.random.default_rng(hp.seed)

    def reviews(n):
        lengths = rng.integers(20, hp.max_length * 2, size=n)
        x = np.zeros((n, hp.max_length), dtype=np.int32)
        for row, length in enumerate(lengths):
            ids = np.concatenate([[START], rng.integers(OOV, hp.vocabulary_size, size=length)])[-hp.max_length:]
            x[row, :len(ids)] = ids
        return x, rng.integers(0, 2, size=n, dtype=np.int32)

    x_train, y_train = reviews(hp.train_reviews)
    x_test, y_test = reviews(hp.test_reviews)
    return x_train, y_train, x_test, y_test


def load(hp):
    """IMDB sized by the profile: int32 token ids (N, max_length) and int32 labels (1 = positive).

    Training reviews are shuffled once (the files are sorted, so the labels would be too).
    """
    if hp.data == "neutral":      # the equivalence checks' batches
        note(data_source="the equivalence checks' neutral batches")
        return neutral.data_step_arrays()
    if hp.data == "synthetic":
        note(data_source="synthetic (seeded random token ids, smoke profile)")
        return _synthetic(hp)
    with np.load(prepare(hp)["cache"]) as cached:
        train_rows = _subset(hp.train_reviews, len(cached["y_train"]), hp.seed)
        test_rows = _subset(hp.test_reviews, len(cached["y_test"]), hp.seed + 1)
        note(data_source=f"IMDB, {cached['source']} ({cached['checksum']}); tokenised from raw text, "
                         f"{int(cached['distinct_words']):,} distinct training words")
        return (cached["x_train"][train_rows], cached["y_train"][train_rows],
                cached["x_test"][test_rows], cached["y_test"][test_rows])
