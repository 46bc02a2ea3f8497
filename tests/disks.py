"""Real disk faults for storage tests: a small tmpfs to fill, and a read-only bind mount of a folder.

The tests run as root, whom file modes do not stop from writing: a read-only mount does. Each
helper unmounts on exit, lazily, so a test that fails with a file still open leaves no mount behind.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _run(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True, timeout=30)


@contextmanager
def small_disk(folder: Path, *, size: str = "4m") -> Iterator[Path]:
    """Mount a tmpfs of `size` at `folder` for the block."""
    folder.mkdir(parents=True, exist_ok=True)
    _run("mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder))
    try:
        yield folder
    finally:
        _run("umount", "-l", str(folder))


def fill(disk: Path) -> Path:
    """Fill the disk with one file until the kernel says no space is left; return that file (delete it to free the disk)."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"\0" * 65536)
    except OSError as exc:
        if exc.errno != 28:  # ENOSPC
            raise
    try:
        while True:  # the last partial block
            os.write(fd, b"\0" * 512)
    except OSError:
        pass
    finally:
        os.close(fd)
    return filler


def empty_wal(db: Path) -> None:
    """Move every committed page into the database file and cut the WAL to 0 bytes: the next commit must grow it."""
    with sqlite3.connect(db) as connection:
        busy, _, _ = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    connection.close()
    assert busy == 0 and (db.parent / f"{db.name}-wal").stat().st_size == 0


@contextmanager
def read_only_view(folder: Path, at: Path) -> Iterator[Path]:
    """Show `folder` read-only at `at` (a bind mount): what a disk gone read-only looks like to a new connection."""
    at.mkdir(parents=True, exist_ok=True)
    _run("mount", "--bind", str(folder), str(at))
    try:
        _run("mount", "-o", "remount,bind,ro", str(at))
        yield at
    finally:
        _run("umount", "-l", str(at))
