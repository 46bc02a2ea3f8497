"""The supervisor's reader of a running job: its stdout, stderr and results channel, within budget and time.

``Watch`` reads the three pipes of a job without blocking, caps stdout and stderr together at the
job's output budget and the results channel at ``RESULT_BUDGET`` (killing the job past either),
kills it at the wall-time deadline, and notices the results' ``done`` line (with a pid namespace
the supervisor ends the job there). ``parse_result_line`` checks each line of the results channel,
which the job writes, so any input may arrive.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import time
from typing import cast

from ._messages import JobLimits, ResultMessage

RESULT_BUDGET = 1024 * 1024
_KINDS = frozenset({"plan", "test", "error", "memory", "exit", "done", "tamper"})
_LINE_BUDGET = 256 * 1024
_MAX_NESTING = 4


def parse_result_line(raw: bytes, nonce: str) -> tuple[ResultMessage | None, str | None]:
    """Parse one line of the results channel; return the message, or None and what was wrong.

    The channel is written by the job, so any input may arrive: an overlong line, nesting deep
    enough to exhaust the parser, values of any type. Nothing here raises. A message keeps only
    the fields of :class:`ResultMessage`, each of its type.
    """
    if len(raw) > _LINE_BUDGET:
        return None, "an overlong line on the results channel"
    try:
        msg = json.loads(raw)
    except (ValueError, RecursionError, MemoryError):
        return None, "unexpected data on the results channel"
    if not isinstance(msg, dict) or msg.get("n") != nonce or msg.get("op") not in _KINDS:
        return None, "a message on the results channel was forged"
    if not all(_flat(value, 0) for value in msg.values()):
        return None, "unexpected data on the results channel"
    typed = _typed(msg)
    if typed is None:
        return None, "unexpected data on the results channel"
    return typed, None


# Each field of a results message and the JSON types it may have (bool is no int here).
_FIELDS: dict[str, tuple[type, ...]] = {
    "n": (str,), "op": (str,), "i": (int,), "name": (str,), "passed": (bool,), "message": (str,),
    "type": (str,), "line": (int, type(None)), "col": (int, type(None)), "source": (str, type(None)),
    "where": (str,), "exit": (int,), "code": (int,), "text": (str,), "what": (str,),
}  # fmt: skip


def _typed(msg: dict[str, object]) -> ResultMessage | None:
    """Return the message as a :class:`ResultMessage`, or None when a field has another type."""
    out: dict[str, object] = {}
    for key, value in msg.items():
        if key == "tests":
            if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
                return None
        elif key in _FIELDS:
            kinds = _FIELDS[key]
            if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
                return None
        else:
            continue  # a field no reader looks at
        out[key] = value
    return cast(ResultMessage, out)


def _flat(value: object, depth: int) -> bool:
    """Return True for the plain values the harness sends (scalars, short lists of them, a dict)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return True
    if depth >= _MAX_NESTING:
        return False
    if isinstance(value, list):
        return all(_flat(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _flat(v, depth + 1) for k, v in value.items())
    return False


class Watch:
    """Read the job's output and results, within budget and time."""

    def __init__(self, pid: int, pidfd: int, fds: dict[str, int], limits: JobLimits, nonce: str) -> None:
        self.pid = pid
        self.pidfd = pidfd
        self.fds = fds
        self.budget = limits.output_bytes
        self.nonce = nonce
        self.out = bytearray()
        self.err = bytearray()
        self.results = bytearray()
        self.exceeded = False
        self.timed_out = False
        self.results_overflow = False
        self.done = False
        self.exited = False
        self._scanned = 0
        self.sel = selectors.DefaultSelector()
        for name, fd in fds.items():
            os.set_blocking(fd, False)
            self.sel.register(fd, selectors.EVENT_READ, name)
        self.sel.register(pidfd, selectors.EVENT_READ, "exit")

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)

    def _drop(self, name: str) -> None:
        fd = self.fds.pop(name, None)
        if fd is not None:
            self.sel.unregister(fd)
            os.close(fd)

    def _read(self, name: str) -> None:
        fd = self.fds.get(name)
        if fd is None:
            return
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return
        if not chunk:
            self._drop(name)
            return
        if name == "res":
            self.results += chunk
            if b"\n" in chunk and not self.done:
                self._scan_done()
            if len(self.results) > RESULT_BUDGET:
                self.results_overflow = True
                self.kill()
                self._drop("res")
            return
        used = len(self.out) + len(self.err)
        room = self.budget - used
        (self.out if name == "out" else self.err).extend(chunk[: max(room, 0)])
        if len(chunk) > room:
            self.exceeded = True
            self.kill()
            self._drop("out")
            self._drop("err")

    def _scan_done(self) -> None:
        end = self.results.rfind(b"\n")
        for raw in bytes(self.results[self._scanned : end]).split(b"\n"):
            if b'"done"' in raw:
                msg, _ = parse_result_line(raw, self.nonce)
                if msg is not None and msg.get("op") == "done":
                    self.done = True
        self._scanned = end + 1

    def run(self, wall_s: float, stop_at_done: bool) -> float:
        """Wait until the job exits or reports done (killing it at the deadline); return the wall time."""
        start = time.monotonic()
        deadline = start + wall_s
        exited = False
        while not exited and not (stop_at_done and self.done):
            remaining = deadline - time.monotonic()
            if remaining <= 0 and not self.timed_out:
                self.timed_out = True
                self.kill()
            for key, _ in self.sel.select(max(remaining, 0.0) if not self.timed_out else 1.0):
                if key.data == "exit":
                    exited = True
                else:
                    self._read(str(key.data))
        elapsed = time.monotonic() - start
        self.exited = exited
        return elapsed

    def drain(self) -> None:
        """Read what the job wrote before it ended (the writers may live on, so never block)."""
        for name in list(self.fds):
            for _ in range(64):
                if name not in self.fds:
                    break
                before = len(self.out) + len(self.err) + len(self.results)
                self._read(name)
                if len(self.out) + len(self.err) + len(self.results) == before:
                    break

    def messages(self) -> tuple[list[ResultMessage], str | None]:
        """Return the valid results messages and a description of anything else on the channel."""
        out: list[ResultMessage] = []
        problem = "the results channel overflowed" if self.results_overflow else None
        lines = bytes(self.results).split(b"\n")
        for raw in lines[:-1]:  # the last piece is empty or an unfinished line
            if not raw.strip():
                continue
            msg, trouble = parse_result_line(raw, self.nonce)
            if msg is None:
                problem = trouble
                continue
            out.append(msg)
        return out, problem
