"""Job payloads the template relays without reading: memory no later fork can see.

The template forks every supervisor, and through it every learner process. Whatever a job's frame
left in the template's heap (a hidden test, another learner's code) would be copied into each
process forked after it, where a learner's code could find it by scanning its own memory. So the
bot sends a job as a small JSON header (id, slot, limits, the payload's length) followed by the
supervisor's frame, already encoded; the template reads that payload straight from the socket into
an anonymous mapping marked ``MADV_WIPEONFORK`` (a child sees zeros there), copies it into a
mapping of its own of the same kind while no worker is free, writes it to the supervisor's pipe,
and unmaps it. The job's report comes back the same way: the supervisor says ``{"op": "ending",
"early"}`` first, and the template relays the report after it unread, with what it adds itself
(its counters, its clock) beside it. No Python object of the template ever holds a payload byte.
"""

from __future__ import annotations

import mmap
import os
import struct
from typing import Any

from . import _wire

MADV_WIPEONFORK = 18  # linux/mman.h; Python's mmap module does not name it
PAGE = mmap.PAGESIZE
_HEADER = struct.Struct("!I")
MAX_HEADER = 64 * 1024  # a job's header: ids and limits, never the payload


def _private(size: int) -> mmap.mmap:
    """An anonymous private mapping that forks do not inherit (zeros in the child, or no mapping at all)."""
    area = mmap.mmap(-1, max(size, 1), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    try:
        area.madvise(MADV_WIPEONFORK)
    except OSError:  # a kernel before 4.14: the child gets no mapping at all (the template never hands it one to use)
        area.madvise(mmap.MADV_DONTFORK)
    return area


class Sealed:
    """One job's payload (the supervisor's frame), held in a mapping of its own until it is written."""

    def __init__(self, source: memoryview) -> None:
        self.size = len(source)
        self._area = _private(self.size)
        with memoryview(self._area) as view:
            view[: self.size] = source  # a memcpy between mappings: no bytes object in between

    def write_to(self, fd: int) -> None:
        """Write the whole payload to a blocking descriptor, then drop it."""
        with memoryview(self._area) as view:
            _wire.write_all(fd, view[: self.size])
        self.close()

    def close(self) -> None:
        if not self._area.closed:
            self._area.close()


class SealedInbox:
    """The template's reader of the bot's socket: header frames parsed, job payloads kept sealed."""

    def __init__(self, capacity: int = _wire.MAX_FRAME + MAX_HEADER + _HEADER.size) -> None:
        self._area = _private(-(-capacity // PAGE) * PAGE)  # untouched pages cost nothing; used ones are given back
        self._filled = 0

    def read(self, fd: int) -> bool:
        """Read what the socket has into the inbox; False at the end of the stream."""
        with memoryview(self._area) as view:
            if self._filled == len(view):
                raise _wire.WireError("frame too large")
            n = os.readv(fd, [view[self._filled :]])
        self._filled += n
        return n > 0

    def frames(self) -> list[tuple[dict[str, Any], Sealed | None]]:
        """Return the frames completed so far: each header, with its sealed payload when it has one."""
        out: list[tuple[dict[str, Any], Sealed | None]] = []
        while self._filled >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self._area, 0)
            if size > MAX_HEADER:
                raise _wire.OverBudget("header too large")
            end = _HEADER.size + size
            if self._filled < end:
                break
            header = _wire.decode_body(self._area[_HEADER.size : end])
            sealed_size = header.get("sealed", 0)
            if not isinstance(sealed_size, int) or not 0 <= sealed_size <= _wire.MAX_FRAME:
                raise _wire.OverBudget("payload size out of range")
            if self._filled < end + sealed_size:
                break
            payload = None
            if sealed_size:
                with memoryview(self._area) as view:
                    payload = Sealed(view[end : end + sealed_size])
            self._consume(end + sealed_size)
            out.append((header, payload))
        return out

    def _consume(self, n: int) -> None:
        """Drop the first ``n`` bytes: the rest moves down, and what it leaves behind is zeroed and given back."""
        old = self._filled
        self._area.move(0, n, old - n)
        self._filled = old - n
        start = self._filled
        first_page = -(-start // PAGE) * PAGE
        with memoryview(self._area) as view:
            view[start : min(first_page, old)] = bytes(min(first_page, old) - start)
        if first_page < old:
            self._area.madvise(mmap.MADV_DONTNEED, first_page, -(-old // PAGE) * PAGE - first_page)


class FrameReader(SealedInbox):
    """A supervisor's frames read into sealed memory: each one handed out whole, parsed only by choice."""

    def __init__(self) -> None:
        super().__init__(_wire.MAX_FRAME + _HEADER.size)

    def bodies(self) -> list[Sealed]:
        """Return the frames completed so far, each body sealed."""
        out: list[Sealed] = []
        while self._filled >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self._area, 0)
            if size > _wire.MAX_FRAME:
                raise _wire.WireError("frame too large")
            if self._filled < _HEADER.size + size:
                break
            with memoryview(self._area) as view:
                out.append(Sealed(view[_HEADER.size : _HEADER.size + size]))
            self._consume(_HEADER.size + size)
        return out

    def close(self) -> None:
        self._area.close()


def opened(body: Sealed) -> dict[str, Any]:
    """Parse a frame known to carry nothing of a job (a worker's ready, ending or set-up error), and drop it."""
    with memoryview(body._area) as view:
        data = bytes(view[: body.size])
    body.close()
    return _wire.decode_body(data)


def framed(body: Sealed) -> bytes:
    """The length prefix that makes a sealed body a frame again."""
    return _HEADER.pack(body.size)
