"""Files a fault cannot spoil: writes that are whole or absent, and the checkout's build lock.

A build can be interrupted, killed (SIGKILL, a CI runner's time-out) or run twice at once. Every file
that a later build reads is written beside its place and renamed into it (a rename is atomic on one
file system), so a reader sees the old file or the new one, never half of one. The lock is a kernel
lock (flock) on a file: the kernel drops it when its process dies, however it dies, so it never
outlives a killed build.
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import sys
import time
from pathlib import Path


class BuildBusy(Exception):
    """Another build holds this checkout's lock."""


class UnwritableError(Exception):
    """A file could not be written (disk full, read-only folder): the message names the path."""


def write_atomically(path: Path, content: str | bytes) -> Path:
    """Written to `<name>.part` beside it, then renamed into place. On failure (a full disk) the
    part is removed and the file already there is left as it was."""
    data = content.encode() if isinstance(content, str) else content
    part = path.with_name(path.name + ".part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(part, "wb") as handle:
            handle.write(data)
        part.replace(path)
    except OSError as exc:
        try:
            part.unlink(missing_ok=True)
        except OSError:
            pass                    # (a read-only folder made no part to remove)
        why = {errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk quota is used up",
               errno.EROFS: "the file system is read-only", errno.EACCES: "permission denied",
               errno.EPERM: "permission denied"}.get(exc.errno, exc.strerror or str(exc))
        raise UnwritableError(f"cannot write {path}: {why}; what was stored there before is unchanged") from None
    return path


class BuildLock:
    """One build per checkout: two builds would time each other's snippets. `acquire(wait)` waits up
    to `wait` seconds for a running build to finish, then raises BuildBusy naming it."""

    def __init__(self, path: Path):
        self.path = path
        self.handle = None

    def holder(self) -> dict:
        try:
            return json.loads(self.path.read_text() or "{}")
        except (OSError, json.JSONDecodeError):
            return {}

    def acquire(self, wait: float = 0.0, on_wait=lambda holder: None) -> BuildLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+")
        deadline, told = time.monotonic() + wait, False
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    handle.close()
                    raise BuildBusy(self.describe(self.holder())) from None
                if not told:
                    on_wait(self.holder())
                    told = True
                time.sleep(0.5)
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps({"pid": os.getpid(), "started": time.strftime("%Y-%m-%d %H:%M:%S"),
                                 "command": " ".join(sys.argv)}))
        handle.flush()
        self.handle = handle
        return self

    def describe(self, holder: dict) -> str:
        who = f"process {holder['pid']}, started {holder.get('started', '?')}" if holder.get("pid") \
            else "another process"
        return (f"another build is running in this checkout ({who}; lock {self.path}): wait for it to finish, "
                "or stop it; two builds at once would time each other's snippets")

    def release(self) -> None:
        if self.handle is not None:
            fcntl.flock(self.handle, fcntl.LOCK_UN)
            self.handle.close()
            self.handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()
