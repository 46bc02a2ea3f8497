"""Frames between the bot, the template and the supervisors: a 4-byte length, then JSON."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import select
import struct
import time
from collections.abc import Mapping
from typing import Any

MAX_FRAME = 64 * 1024 * 1024
_HEADER = struct.Struct("!I")


class WireError(Exception):
    """A malformed or oversized frame."""


class OverBudget(WireError):
    """A frame over its size or container budget, refused before it is parsed."""


def encode(message: Mapping[str, Any]) -> bytes:
    """Return one frame."""
    body = json.dumps(message, separators=(",", ":")).encode()
    if len(body) > MAX_FRAME:
        raise WireError("frame too large")
    return _HEADER.pack(len(body)) + body


def decode_body(body: bytes) -> dict[str, Any]:
    """Parse a frame's body."""
    try:
        value = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise WireError("frame is not JSON") from exc
    if not isinstance(value, dict):
        raise WireError("frame is not an object")
    return value


def b64(data: bytes) -> str:
    """Return bytes as base64 text."""
    return base64.b64encode(data).decode()


def unb64(text: str) -> bytes:
    """Return the bytes of base64 text."""
    return base64.b64decode(text.encode())


def write_all(fd: int, data: bytes | memoryview) -> None:
    """Write every byte to a blocking descriptor."""
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def send(fd: int, message: Mapping[str, Any]) -> None:
    """Write one frame to a blocking descriptor."""
    write_all(fd, encode(message))


class Overdue(Exception):
    """Nothing (or only part of a frame) arrived by the reader's deadline."""


def _wait_readable(fd: int, deadline: float) -> None:
    remaining = deadline - time.monotonic()
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    if remaining <= 0 or not poller.poll(remaining * 1000):
        raise Overdue


def _read_exact(fd: int, n: int, deadline: float | None = None) -> bytes:
    chunks = []
    while n:
        if deadline is not None:
            _wait_readable(fd, deadline)
        chunk = os.read(fd, n)
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def recv(fd: int, limit: int = MAX_FRAME) -> dict[str, Any]:
    """Read one frame from a blocking descriptor (EOFError at end of stream)."""
    (size,) = _HEADER.unpack(_read_exact(fd, _HEADER.size))
    if size > limit:
        raise WireError("frame too large")
    return decode_body(_read_exact(fd, size))


def recv_counted(fd: int, limit: int, containers: int, deadline: float | None = None) -> dict[str, Any]:
    """Read one frame, refusing it unparsed when over ``limit`` bytes or ``containers`` arrays/objects.

    The count is one linear pass in C over the raw bytes (brackets inside strings count too, which
    only errs on the side of refusing), so a frame is never parsed whole beyond its budget. With a
    ``deadline`` (``time.monotonic()``), a frame not whole by then raises :class:`Overdue`.
    """
    (size,) = _HEADER.unpack(_read_exact(fd, _HEADER.size, deadline))
    if size > limit:
        raise OverBudget("frame too large")
    body = _read_exact(fd, size, deadline)
    if body.count(b"[") + body.count(b"{") > containers:
        raise OverBudget("too many values")
    return decode_body(body)


class FrameBuffer:
    """Split a byte stream read in pieces (non-blocking descriptors) into frames."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """Add bytes; return the frames completed."""
        self._buf += data
        out = []
        while len(self._buf) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self._buf)
            if size > MAX_FRAME:
                raise WireError("frame too large")
            if len(self._buf) < _HEADER.size + size:
                break
            body = bytes(self._buf[_HEADER.size : _HEADER.size + size])
            del self._buf[: _HEADER.size + size]
            out.append(decode_body(body))
        return out


async def read_frame(reader: asyncio.StreamReader) -> dict[str, Any]:
    """Read one frame from an asyncio stream (asyncio.IncompleteReadError at end)."""
    (size,) = _HEADER.unpack(await reader.readexactly(_HEADER.size))
    if size > MAX_FRAME:
        raise WireError("frame too large")
    return decode_body(await reader.readexactly(size))
