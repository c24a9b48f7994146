"""Finding, downloading and verifying data archives.

Where data is looked for (the one documented setting):
  ROSETTA_DATA   folders (separated by ':') that hold data archives or extracted folders,
                 searched first, e.g. ROSETTA_DATA=/data/sets
  ROSETTA_CACHE  where downloads and decoded arrays are kept (default ~/.cache/rosetta-stone)
"""
from __future__ import annotations

import hashlib
import os
import shutil
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path


class DataError(Exception):
    """Data missing, corrupt or of the wrong shape: the message says what to provide and where."""


def cache_dir() -> Path:
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "rosetta-stone"
    path = Path(os.environ.get("ROSETTA_CACHE", default))
    path.mkdir(parents=True, exist_ok=True)
    return path


def data_dirs() -> list[Path]:
    """The folders searched for data, in order: ROSETTA_DATA entries, then the cache."""
    given = [Path(p).expanduser() for p in os.environ.get("ROSETTA_DATA", "").split(os.pathsep) if p]
    return given + [cache_dir()]


def usable_in(folder: Path, patterns) -> bool:
    """Whether a data folder holds anything a data module looks for (its LOOKED_FOR names and globs)."""
    return any(next(folder.glob(pattern), None) is not None for pattern in patterns)


def file_digest(path: Path, algorithm: str) -> str:
    digest = hashlib.new(algorithm)
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify(path: Path, algorithm: str, expected: str, what: str) -> None:
    actual = file_digest(path, algorithm)
    if actual != expected:
        raise DataError(
            f"{what}: checksum mismatch for {path} ({algorithm} {actual}, expected {expected}). "
            "The file is corrupt or not the official release: delete it and provide the official file."
        )


def download(url: str, dest: Path, algorithm: str, expected: str, what: str, timeout: float = 60) -> Path:
    """Download url to dest (via a .part file), verify its checksum, return dest."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".part")
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response, open(partial, "wb") as out:
            shutil.copyfileobj(response, out, length=1 << 20)
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        partial.unlink(missing_ok=True)
        raise DataError(f"{what}: download from {url} failed ({exc})") from None
    try:
        verify(partial, algorithm, expected, what)
    except DataError:
        partial.unlink(missing_ok=True)
        raise
    partial.replace(dest)
    return dest


def tree_fingerprint(folder: Path) -> str:
    """A cheap identity for an extracted folder: names, sizes and times of its files."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            stat = path.stat()
            digest.update(f"{path.relative_to(folder)}:{stat.st_size}:{int(stat.st_mtime)}\n".encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class Source:
    """Where a data set was found: an archive or an extracted folder, and of which kind."""
    kind: str
    path: Path

    def identity(self) -> str:
        """Cheap key for the decoded cache: path, size and time of the source."""
        if self.path.is_dir():
            return tree_fingerprint(self.path)[:16]
        stat = self.path.stat()
        return hashlib.sha256(f"{self.path.resolve()}:{stat.st_size}:{int(stat.st_mtime)}".encode()).hexdigest()[:16]

    def checksum(self) -> str:
        """The full checksum, recorded in every result's provenance."""
        if self.path.is_dir():
            return "tree:" + tree_fingerprint(self.path)
        return "sha256:" + file_digest(self.path, "sha256")


def found_or_downloaded(found: Source | None, url: str, archive: str, algorithm: str, expected: str,
                        what: str, what_to_provide: str) -> Source:
    """The source found locally, else the official archive downloaded into the cache."""
    if found is not None:
        return found
    searched = ", ".join(str(d) for d in data_dirs())
    try:
        path = download(url, cache_dir() / archive, algorithm, expected, what)
    except DataError as exc:
        raise DataError(f"{what} not found (looked in: {searched}) and {exc}. {what_to_provide}.") from None
    return Source("official archive", path)
