"""Claim a range of host uids for one pool, so pools on one host never share a uid.

RLIMIT_NPROC counts the processes of a host uid across every namespace: two pools whose workers
ran as the same uids would take each other's process budget. Each pool takes the first free range
``base + k * RANGE_SIZE`` by holding an exclusive ``flock`` on a lock file named after it; the
kernel drops the lock when the holder ends, however it ends, so a crashed bot frees its range.
"""

from __future__ import annotations

import contextlib
import fcntl
import os

RANGE_SIZE = 1024  # uids per pool: enough for 256 workers, two prepared job processes each
MAX_RANGES = 256
UID_CEILING = 2**31 - 1


class UidRangeUnavailable(OSError):
    """Every range is held by another pool (or the lock folder cannot be used)."""


class UidRange:
    """A claimed range of host uids; release it with :meth:`release` (or by ending the process)."""

    def __init__(self, start: int, fd: int, path: str) -> None:
        self.start = start
        self.fd = fd
        self.path = path

    def release(self) -> None:
        """Give the range back."""
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.fd)  # closing the only descriptor drops the flock
            self.fd = -1

    def __repr__(self) -> str:
        return f"<UidRange {self.start}..{self.start + RANGE_SIZE - 1}>"


def claim(base: int, lock_dir: str, needed: int) -> UidRange:
    """Return the first free range of ``needed`` (at most RANGE_SIZE) uids from ``base`` on."""
    if needed > RANGE_SIZE:
        raise UidRangeUnavailable(f"a pool needs {needed} uids, more than a range holds ({RANGE_SIZE})")
    try:
        os.makedirs(lock_dir, mode=0o700, exist_ok=True)
    except OSError as exc:
        raise UidRangeUnavailable(f"cannot use {lock_dir} for uid locks: {exc}") from exc
    for k in range(MAX_RANGES):
        start = base + k * RANGE_SIZE
        if start + RANGE_SIZE > UID_CEILING:
            break
        path = os.path.join(lock_dir, f"uids-{start}.lock")
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise UidRangeUnavailable(f"cannot open {path}: {exc}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        except OSError as exc:
            os.close(fd)
            raise UidRangeUnavailable(f"cannot lock {path}: {exc}") from exc
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        return UidRange(start, fd, path)
    raise UidRangeUnavailable(f"every uid range from {base} on is held by another pool")
