"""CIFAR-10 for every tab: found or downloaded once, decoded once, cached as arrays.

Sources, looked for in each folder of ``ROSETTA_DATA`` and then in the cache folder:
  1. the official ``cifar-10-python.tar.gz`` (md5 verified), or its extracted
     ``cifar-10-batches-py/`` folder;
  2. an image folder ``<split>/<class>/<image>`` with splits ``train`` and ``test`` and ten
     class folders, as a folder or a ``.tar.gz``/``.tgz``/``.tar`` archive named
     ``cifar10*`` (e.g. ``cifar10-jpeg.tar.gz``). Classes are numbered in sorted order, which
     for the ten CIFAR-10 names is the official label order.
When none is found, the official archive is downloaded into the cache. Offline, that fails
with a message that says what to put where. Synthetic data is used only when the profile
asks for it (``smoke``), and is then named as the data source.
"""
from __future__ import annotations

import io
import pickle
import tarfile
import zlib
from pathlib import Path

import numpy as np

from .. import neutral
from ..report import note
from .fetch import DataError, Source, cache_dir, data_dirs, found_or_downloaded, verify

OFFICIAL_URL = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
OFFICIAL_ARCHIVE = "cifar-10-python.tar.gz"
OFFICIAL_MD5 = "c58f30108f718f92721af3b95e74349a"
OFFICIAL_FOLDER = "cifar-10-batches-py"
IMAGE_FOLDER_PATTERNS = ("cifar10*.tar.gz", "cifar10*.tgz", "cifar10*.tar", "cifar10*")
# What locate() accepts in a data folder (the build names a ROSETTA_DATA folder that holds none of it).
LOOKED_FOR = (OFFICIAL_ARCHIVE, OFFICIAL_FOLDER, *IMAGE_FOLDER_PATTERNS)
CLASSES = ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")
N_CLASSES = 10
SHAPE = (3, 32, 32)
# A cache written by an older decoder is refused: bump when the cached arrays change meaning.
CACHE_VERSION = 1

WHAT_TO_PROVIDE = (
    f"Provide the official {OFFICIAL_ARCHIVE} (md5 {OFFICIAL_MD5}, from {OFFICIAL_URL}) or an "
    "image folder cifar10-jpeg/{train,test}/<class>/<image> (folder or .tar.gz) in a folder "
    "named by ROSETTA_DATA, e.g. ROSETTA_DATA=/path/to/data make html"
)


def locate() -> Source | None:
    for folder in data_dirs():
        if not folder.is_dir():
            continue
        if (folder / OFFICIAL_ARCHIVE).is_file():
            return Source("official archive", folder / OFFICIAL_ARCHIVE)
        if (folder / OFFICIAL_FOLDER).is_dir():
            return Source("official folder", folder / OFFICIAL_FOLDER)
        for pattern in IMAGE_FOLDER_PATTERNS:
            for candidate in sorted(folder.glob(pattern)):
                if candidate.name.endswith(".part"):
                    continue
                if candidate.is_file() and candidate.name.endswith((".tar.gz", ".tgz", ".tar")):
                    return Source("image-folder archive", candidate)
                if candidate.is_dir() and _find_split_root(candidate) is not None:
                    return Source("image folder", candidate)
    return None


def locate_or_download() -> Source:
    return found_or_downloaded(locate(), OFFICIAL_URL, OFFICIAL_ARCHIVE, "md5", OFFICIAL_MD5, "CIFAR-10",
                               WHAT_TO_PROVIDE)


# --- decoding ---------------------------------------------------------------------------

def _read_official_batches(read_member) -> tuple[np.ndarray, ...]:
    """read_member(name) -> bytes of cifar-10-batches-py/<name>."""
    def batch(name):
        try:
            entry = pickle.loads(read_member(name), encoding="bytes")
            data = np.asarray(entry[b"data"], dtype=np.uint8).reshape(-1, *SHAPE)
            labels = np.asarray(entry[b"labels"], dtype=np.int32)
        except (KeyError, ValueError, pickle.UnpicklingError, EOFError) as exc:
            raise DataError(f"CIFAR-10 batch {name} is unreadable ({exc}). {WHAT_TO_PROVIDE}.") from None
        return data, labels

    meta = pickle.loads(read_member("batches.meta"), encoding="bytes")
    names = meta.get(b"label_names", [])
    if len(names) != N_CLASSES:
        raise DataError(f"CIFAR-10 metadata lists {len(names)} classes, expected {N_CLASSES}. {WHAT_TO_PROVIDE}.")
    train = [batch(f"data_batch_{i}") for i in range(1, 6)]
    x_test, y_test = batch("test_batch")
    return (np.concatenate([x for x, _ in train]), np.concatenate([y for _, y in train]), x_test, y_test)


def _decode_official(source: Source):
    if source.kind == "official folder":
        return _read_official_batches(lambda name: (source.path / name).read_bytes())
    verify(source.path, "md5", OFFICIAL_MD5, "CIFAR-10")
    with tarfile.open(source.path, "r:gz") as tar:
        def read_member(name):
            member = tar.extractfile(f"{OFFICIAL_FOLDER}/{name}")
            if member is None:
                raise KeyError(name)
            return member.read()
        try:
            return _read_official_batches(read_member)
        except KeyError as exc:
            raise DataError(f"CIFAR-10 archive {source.path} lacks {exc}. {WHAT_TO_PROVIDE}.") from None


def _find_split_root(folder: Path) -> Path | None:
    """The folder holding train/ and test/: the folder itself or one level down."""
    for candidate in [folder, *sorted(p for p in folder.iterdir() if p.is_dir())]:
        if (candidate / "train").is_dir() and (candidate / "test").is_dir():
            return candidate
    return None


def _image_to_array(raw: bytes, name: str) -> np.ndarray:
    from PIL import Image, UnidentifiedImageError
    try:
        with Image.open(io.BytesIO(raw)) as image:
            pixels = np.asarray(image.convert("RGB"), dtype=np.uint8)
    except (UnidentifiedImageError, OSError) as exc:
        raise DataError(f"CIFAR-10 image {name} cannot be decoded ({exc}). {WHAT_TO_PROVIDE}.") from None
    if pixels.shape != (32, 32, 3):
        raise DataError(f"CIFAR-10 image {name} is {pixels.shape[1]}x{pixels.shape[0]}, expected 32x32. "
                        f"{WHAT_TO_PROVIDE}.")
    return pixels.transpose(2, 0, 1)


def _iter_image_folder(source: Source):
    """Yield (split, class_name, name, raw bytes) for every image file of the tree."""
    if source.kind == "image folder":
        root = _find_split_root(source.path)
        for split in ("train", "test"):
            for path in sorted((root / split).glob("*/*")):
                if path.is_file():
                    yield split, path.parent.name, str(path), path.read_bytes()
        return
    try:
        with tarfile.open(source.path, "r:*") as tar:
            for member in tar:
                parts = Path(member.name).parts
                if not member.isfile() or len(parts) < 3 or parts[-3] not in ("train", "test"):
                    continue
                yield parts[-3], parts[-2], member.name, tar.extractfile(member).read()
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise DataError(f"CIFAR-10 archive {source.path} is corrupt or truncated ({exc}). {WHAT_TO_PROVIDE}.") from None


def _decode_image_folder(source: Source):
    images = {"train": [], "test": []}
    for split, class_name, name, raw in _iter_image_folder(source):
        images[split].append((class_name, name, raw))
    for split, found in images.items():
        if not found:
            raise DataError(f"CIFAR-10 image folder {source.path} has no {split}/<class>/<image> files. "
                            f"{WHAT_TO_PROVIDE}.")
    classes = {split: sorted({c for c, _, _ in found}) for split, found in images.items()}
    if len(classes["train"]) != N_CLASSES or classes["train"] != classes["test"]:
        raise DataError(
            f"CIFAR-10 image folder {source.path} has {len(classes['train'])} train classes "
            f"({', '.join(classes['train'])}) and {len(classes['test'])} test classes; expected the same "
            f"{N_CLASSES} in both. {WHAT_TO_PROVIDE}."
        )
    index = {name: i for i, name in enumerate(classes["train"])}
    arrays = []
    for split in ("train", "test"):
        found = sorted(images[split], key=lambda item: item[1])
        arrays.append(np.stack([_image_to_array(raw, name) for _, name, raw in found]))
        arrays.append(np.array([index[c] for c, _, _ in found], dtype=np.int32))
    return tuple(arrays)


def prepare(hp=None) -> dict:
    """Find (or download) and decode CIFAR-10 once; return the cache path and provenance."""
    source = locate_or_download()
    cached = cache_dir() / f"cifar10-v{CACHE_VERSION}-{source.identity()}.npz"
    if not cached.exists():
        decode = _decode_official if source.kind.startswith("official") else _decode_image_folder
        x_train, y_train, x_test, y_test = decode(source)
        tmp = cached.with_name(cached.name + ".part.npz")
        np.savez(tmp, x_train=x_train, y_train=y_train, x_test=x_test, y_test=y_test,
                 source=f"{source.kind}: {source.path.name}", checksum=source.checksum())
        tmp.replace(cached)
    return {"cache": str(cached), "source": f"{source.kind}: {source.path}"}


# --- what a snippet calls ----------------------------------------------------------------

def _subset(n_wanted: int, n_have: int, seed: int) -> np.ndarray:
    """All rows in order, or a seeded class-mixing sample when a profile asks for fewer."""
    if n_wanted >= n_have:
        return np.arange(n_have)
    return np.random.default_rng(seed).permutation(n_have)[:n_wanted]


def _synthetic(hp):
    rng = np.random.default_rng(hp.seed)
    x_train = rng.integers(0, 256, size=(hp.train_images, *SHAPE), dtype=np.uint8)
    x_test = rng.integers(0, 256, size=(hp.test_images, *SHAPE), dtype=np.uint8)
    y_train = rng.integers(0, N_CLASSES, size=hp.train_images, dtype=np.int32)
    y_test = rng.integers(0, N_CLASSES, size=hp.test_images, dtype=np.int32)
    return x_train, y_train, x_test, y_test


def load(hp, layout: str = "NCHW"):
    """CIFAR-10 sized by the profile: float32 images in [0, 1] and int32 labels.

    layout "NCHW" (channels first) or "NHWC" (channels last).
    """
    if layout not in ("NCHW", "NHWC"):
        raise ValueError(f"layout must be 'NCHW' or 'NHWC', not {layout!r}")
    if hp.data == "neutral":      # the equivalence checks' batches: already float, channels first
        x_train, y_train, x_test, y_test = neutral.data_step_arrays()
        note(data_source="the equivalence checks' neutral batches")
        if layout == "NHWC":
            x_train, x_test = x_train.transpose(0, 2, 3, 1), x_test.transpose(0, 2, 3, 1)
        return np.ascontiguousarray(x_train), y_train, np.ascontiguousarray(x_test), y_test
    if hp.data == "synthetic":
        x_train, y_train, x_test, y_test = _synthetic(hp)
        note(data_source="synthetic (seeded random images, smoke profile)")
    else:
        with np.load(prepare()["cache"]) as cached:
            train_rows = _subset(hp.train_images, len(cached["y_train"]), hp.seed)
            test_rows = _subset(hp.test_images, len(cached["y_test"]), hp.seed + 1)
            x_train, y_train = cached["x_train"][train_rows], cached["y_train"][train_rows]
            x_test, y_test = cached["x_test"][test_rows], cached["y_test"][test_rows]
            source = f"CIFAR-10, {cached['source']} ({cached['checksum']})"
            if "image-folder" in str(cached["source"]) or "image folder" in str(cached["source"]):
                source += ("; images re-encoded (e.g. JPEG), so accuracy is comparable to, not identical with, "
                           "the official release")
            note(data_source=source)
    if layout == "NHWC":
        x_train, x_test = x_train.transpose(0, 2, 3, 1), x_test.transpose(0, 2, 3, 1)
    return _to_unit_float(x_train), y_train, _to_unit_float(x_test), y_test


def _to_unit_float(pixels: np.ndarray) -> np.ndarray:
    scaled = np.ascontiguousarray(pixels, dtype=np.float32)
    scaled *= np.float32(1 / 255)
    return scaled
