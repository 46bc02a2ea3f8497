"""One slot's cgroup files: their paths, sent to the template, and the template's handles on them.

The bot side makes the slot cgroups (``sandbox._cgroup``) and sends each slot's paths
(:class:`SlotFiles`); the template opens the files of each slot once (:class:`SlotCounters`) and
sets the limit, resets and reads the counters around every job.
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass
from typing import Any

from ._messages import CgroupCounters


@dataclass(frozen=True)
class SlotFiles:
    """Paths of one slot's cgroup files (absolute, on the host)."""

    version: int
    dirs: tuple[str, ...]
    procs: tuple[str, ...]
    memory_limit: str
    memsw_limit: str | None
    memory_peak: str | None
    memory_events: str
    cpu_usage: str | None
    kill: str | None

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON form sent to the template."""
        return {
            "version": self.version,
            "dirs": list(self.dirs),
            "procs": list(self.procs),
            "memory_limit": self.memory_limit,
            "memsw_limit": self.memsw_limit,
            "memory_peak": self.memory_peak,
            "memory_events": self.memory_events,
            "cpu_usage": self.cpu_usage,
            "kill": self.kill,
        }

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> SlotFiles:
        """Rebuild from :meth:`to_wire`."""
        return cls(
            version=int(data["version"]),
            dirs=tuple(data["dirs"]),
            procs=tuple(data["procs"]),
            memory_limit=data["memory_limit"],
            memsw_limit=data["memsw_limit"],
            memory_peak=data["memory_peak"],
            memory_events=data["memory_events"],
            cpu_usage=data["cpu_usage"],
            kill=data["kill"],
        )


class SlotCounters:
    """The template's open handles on one slot's files: set the limit, reset and read the counters."""

    def __init__(self, files: SlotFiles) -> None:
        self.files = files
        self.procs_fds = [os.open(p, os.O_WRONLY | os.O_CLOEXEC) for p in files.procs]
        self._limit_fd = os.open(files.memory_limit, os.O_RDWR | os.O_CLOEXEC)
        self._memsw_fd = os.open(files.memsw_limit, os.O_RDWR | os.O_CLOEXEC) if files.memsw_limit else None
        self._peak_fd = os.open(files.memory_peak, os.O_RDWR | os.O_CLOEXEC) if files.memory_peak else None
        self._events_fd = os.open(files.memory_events, os.O_RDONLY | os.O_CLOEXEC)
        self._cpu_fd = os.open(files.cpu_usage, os.O_RDWR | os.O_CLOEXEC) if files.cpu_usage else None
        self._list_fd = os.open(files.procs[0], os.O_RDONLY | os.O_CLOEXEC)
        self._limit = -1
        self._oom0 = 0
        self._cpu0 = 0

    def close(self) -> None:
        """Close every handle."""
        for fd in (*self.procs_fds, self._limit_fd, self._memsw_fd, self._peak_fd, self._events_fd,
                   self._cpu_fd, self._list_fd):  # fmt: skip
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)

    @staticmethod
    def _pread(fd: int) -> str:
        return os.pread(fd, 65536, 0).decode()

    @staticmethod
    def _pwrite(fd: int, value: str) -> None:
        os.pwrite(fd, value.encode(), 0)

    def before_job(self, memory_bytes: int) -> None:
        """Set the job's memory limit and reset the peak, CPU and OOM counters."""
        if memory_bytes != self._limit:
            if self.files.version == 1:
                # v1 keeps memsw >= limit at every step: raise memsw first, lower it last.
                order: list[int | None] = (
                    [self._memsw_fd, self._limit_fd]
                    if memory_bytes > self._limit
                    else [self._limit_fd, self._memsw_fd]
                )
            else:
                order = [self._limit_fd]
            for fd in order:
                if fd is not None:
                    self._pwrite(fd, str(memory_bytes))
            self._limit = memory_bytes
        if self._peak_fd is not None:
            with contextlib.suppress(OSError):
                self._pwrite(self._peak_fd, "0" if self.files.version == 1 else "reset")
        self._oom0 = self._oom_kills()
        self._cpu0 = 0
        if self._cpu_fd is not None:
            if self.files.version == 1:
                with contextlib.suppress(OSError):
                    self._pwrite(self._cpu_fd, "0")
            else:
                self._cpu0 = self._cpu_ns()

    def _oom_kills(self) -> int:
        m = re.search(r"^oom_kill (\d+)", self._pread(self._events_fd), re.M)
        return int(m.group(1)) if m else 0

    def _cpu_ns(self) -> int:
        if self._cpu_fd is None:
            return 0
        text = self._pread(self._cpu_fd)
        if self.files.version == 1:
            return int(text.strip() or 0)
        m = re.search(r"^usage_usec (\d+)", text, re.M)
        return int(m.group(1)) * 1000 if m else 0

    def after_job(self) -> CgroupCounters:
        """Return the job's peak memory (bytes), CPU (ns) and OOM kills since :meth:`before_job`."""
        peak: int | None = None
        if self._peak_fd is not None:
            with contextlib.suppress(OSError, ValueError):
                peak = int(self._pread(self._peak_fd).strip())
        cpu = self._cpu_ns() - self._cpu0 if self._cpu_fd is not None else None
        return {"peak_bytes": peak, "cpu_ns": cpu, "oom_kills": self._oom_kills() - self._oom0}

    def members(self) -> list[int]:
        """Return the pids still in the slot (host pid namespace)."""
        return [int(x) for x in self._pread(self._list_fd).split()]
