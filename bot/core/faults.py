"""Database faults at run time: one log line per kind per interval, a specific message per kind.

Storage raises `DatabaseFault` (kind: unavailable, full, read-only, busy) in place of the driver's
error. The `Faults` middleware turns it into `Unavailable`, a refusal every front end shows as it
shows any other, and logs it through a `FaultLog`: the first failure of a kind is one warning line,
the repeats within `interval` seconds are only counted, and the next line says how many there were.
A burst of 2,000 failing clicks is then a handful of lines, not 2,000 tracebacks.

`after_commit` runs what follows an answer's commit (counting it, waking the scheduler, showing the
next item, remembering where a message was posted): a failure there is logged and the answer stands.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from .errors import DatabaseFault, Unavailable
from .model import Actor
from .replies import Reply

log = logging.getLogger("quizbot.faults")

INTERVAL_S = 30.0  # one line per kind of failure per this many seconds


@dataclass
class _Seen:
    logged_at: float
    suppressed: int = 0


class FaultLog:
    """Log each kind of failure once per `interval` seconds, with the count of repeats left unlogged."""

    def __init__(self, *, interval: float = INTERVAL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self._interval = interval
        self._clock = clock
        self._seen: dict[str, _Seen] = {}
        self._counted: list[Callable[[DatabaseFault], None]] = []

    def count_with(self, counted: Callable[[DatabaseFault], None]) -> None:
        """Also call `counted` for every database fault, logged or not (the metrics' `database_errors_total`)."""
        self._counted.append(counted)

    def fault(self, fault: DatabaseFault, doing: str = "") -> None:
        """Log a database fault: its kind is the key, its line (no secrets) the message."""
        for counted in self._counted:
            counted(fault)
        self._note(f"database {fault.kind}", f"database {fault.kind}", str(fault), doing, exc_info=False)

    def failure(self, exc: BaseException, doing: str) -> None:
        """Log what failed `doing`: a database fault as its one line, anything else with its traceback once."""
        if isinstance(exc, DatabaseFault):
            self.fault(exc, doing)
        else:
            line = str(exc).splitlines()[0] if str(exc) else ""
            self._note(f"{doing}: {type(exc).__name__}", type(exc).__name__, line, doing, exc_info=exc)

    def _note(self, key: str, head: str, line: str, doing: str, *, exc_info: BaseException | bool) -> None:
        now = self._clock()
        seen = self._seen.get(key)
        if seen is not None and now - seen.logged_at < self._interval:
            seen.suppressed += 1
            return
        repeats = f" ({seen.suppressed} more like it in the last {now - seen.logged_at:.0f} s)" if seen and seen.suppressed else ""
        where = f" while {doing}" if doing else ""
        log.warning("%s%s: %s%s", head, where, line, repeats, exc_info=exc_info or None)
        self._seen[key] = _Seen(now)
        if len(self._seen) > 1000:  # kinds are few; a flood of distinct bugs must not grow this forever
            self._seen = {key: self._seen[key]}

    async def asked(self, query: Any, call: Callable[[], Awaitable[Any]]) -> Any:
        """Answer a front end's query with `call`: a fault is the person's `Unavailable`, or only logged after a reply.

        A query marked `after_reply` (where a message was posted) follows what the person did: it never fails.
        """
        doing = f"answering {type(query).__name__}"
        if getattr(query, "after_reply", False):
            with self.after_commit(doing):
                await call()
            return None
        try:
            return await call()
        except DatabaseFault as fault:
            self.fault(fault, doing)
            raise Unavailable(fault.kind) from None

    @contextmanager
    def after_commit(self, doing: str) -> Iterator[None]:
        """Run a step that follows a stored answer: any failure is logged (once per kind) and swallowed."""
        try:
            yield
        except Exception as exc:  # the answer is stored: what follows must not turn it into a failure
            self.failure(exc, doing)


class Faults:
    """Middleware: a database fault becomes the person's `Unavailable` message and one log line per kind."""

    def __init__(self, faults: FaultLog) -> None:
        self._faults = faults

    async def __call__(self, actor: Actor, request: Any, next_: Callable[[], Any]) -> Reply:
        try:
            reply: Reply = await next_()
            return reply
        except DatabaseFault as fault:
            self._faults.fault(fault, f"answering {type(request).__name__}")
            raise Unavailable(fault.kind) from None
