"""Work a learner waits for (their code being graded or run), kept so that none is dropped silently.

A request whose reply comes after the acknowledgement writes a row when it starts and removes it
when it ends with any reply; a graded answer removes it in the transaction that stores the attempt
(`Attempt.work`), so the attempt is kept only if the row was still there. A row that outlives its
request is unfinished work: the process stopped (its shutdown marks its rows abandoned) or was
killed (on SQLite the next start marks them, `adopt`; on PostgreSQL, where each process beats every
few seconds, `keep_alive`, another process marks them once their process has been silent for
`SILENT_BEATS` beats, and at the latest the row's deadline passes). The learner's next request takes
such a row with a delete that only one caller can win, and its reply starts with "the bot restarted,
please send it again".
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal, Protocol

from bot.core.i18n import _

from .faults import FaultLog
from .model import Actor
from .ports import Clock
from .replies import Message, Text, Tone

log = logging.getLogger(__name__)

Kind = Literal["grade", "run"]
GRADE: Kind = "grade"
RUN: Kind = "run"
# Past the job's own time limit, how long a row may stand before it counts as abandoned: a killed
# process never marks its rows, and a job may wait in the sandbox's queue before it runs.
MARGIN = timedelta(minutes=2)
JOB_LIMIT_S = 60.0  # a job's time limit when the question names none (the highest a pack may set)
BEAT_S = 10.0  # PostgreSQL: how often a process records that it is alive (QUIZBOT_HEARTBEAT_S)
SILENT_BEATS = 3  # beats missed before another process counts a process's rows as abandoned


@dataclass(frozen=True)
class Work:
    """One request in progress: whose, about what, by which process, and until when it may run."""

    id: str
    platform: str
    user_id: str
    item: str  # "<session id>:<position>" for a graded answer, "run:<id>" for /quiz run
    kind: Kind
    title: str | None  # the question's title (grading)
    process: str
    started_at: datetime
    deadline: datetime


class WorkLog(Protocol):
    """Where the rows of work in progress are kept (storage implements it)."""

    async def begin(self, work: Work) -> bool:
        """Store the row, replacing the learner's row for the same item if this process wrote it or it is overdue.

        Return False, storing nothing, when another process holds a live row for the item (it is
        grading the same delivery: its answer settles that row, and this one must not replace it).
        """
        ...

    async def end(self, work_id: str) -> None:
        """Remove the row, if it is still there."""
        ...

    async def overdue(self, platform: str, user_id: str, now: datetime) -> list[Work]:
        """The learner's rows whose deadline is `now` or earlier."""
        ...

    async def take(self, work_id: str, now: datetime) -> bool:
        """Delete the row if it is still overdue; True only for the one caller whose delete removed it."""
        ...

    async def abandon(self, process: str, now: datetime, *, others: bool = False) -> int:
        """Set the deadline of the process's remaining rows (`others`: every other process's) to `now`; return how many."""
        ...

    async def beat(self, process: str, now: datetime) -> None:
        """Record that the process is alive at `now`."""
        ...

    async def abandon_silent(self, process: str, now: datetime, since: datetime) -> int:
        """Set to `now` the deadline of other processes' rows begun before `since` whose process has not beaten since."""
        ...


def restarted_note(work: Work) -> Message:
    """The notice for work the bot never finished."""
    if work.kind == GRADE and work.title:
        text = _(
            "The bot restarted before it finished grading your answer to **{title}**; please send it again. "
            "It did not count as an attempt."
        ).format(title=work.title)
    elif work.kind == GRADE:
        text = _("The bot restarted before it finished grading your answer; please send it again. It did not count as an attempt.")
    else:
        text = _("The bot restarted before it finished running your code; please send it again.")
    return Message(kind="notice", parts=(Text(f"🔄 {text}"),), tone=Tone.WARNING)


class Unfinished:
    """Record this process's work in progress and tell learners about work that was never finished."""

    def __init__(self, store: WorkLog, clock: Clock, *, margin: timedelta = MARGIN, faults: FaultLog | None = None) -> None:
        self.faults = faults or FaultLog()  # a failure to record or find work: one line per kind per interval
        self._log = store
        self._clock = clock
        self._margin = margin
        self.process = uuid.uuid4().hex  # this process's start id
        self._live: set[str] = set()  # ids of rows whose request still runs here

    @asynccontextmanager
    async def running(
        self, actor: Actor, *, item: str, kind: Kind, title: str | None = None, limit_s: float | None = None
    ) -> AsyncIterator[str | None]:
        """Hold a row for the block; yield its id (for `Attempt.work`), or None if it could not be written.

        The row is removed when the block ends, normally or with an error (the learner gets a reply
        either way); when the block is cancelled (a shutdown gave up on it) the row stays. Recording
        never stops the work itself: if the row cannot be written, the work runs untracked.
        """
        now = self._clock.now()
        work = Work(
            id=uuid.uuid4().hex,
            platform=actor.platform,
            user_id=actor.user_id,
            item=item,
            kind=kind,
            title=title[:200] if title else None,
            process=self.process,
            started_at=now,
            deadline=now + timedelta(seconds=limit_s or JOB_LIMIT_S) + self._margin,
        )
        try:
            tracked = await self._log.begin(work)
        except Exception as exc:
            self.faults.failure(exc, "recording a request in progress (it runs untracked)")
            tracked = False
        if not tracked:
            yield None
            return
        self._live.add(work.id)
        try:
            yield work.id
        except asyncio.CancelledError:
            raise  # abandoned: the row tells the learner next time
        except BaseException:
            await self._end(work.id)
            raise
        else:
            await self._end(work.id)
        finally:
            self._live.discard(work.id)

    async def _end(self, work_id: str) -> None:
        try:
            await self._log.end(work_id)
        except Exception as exc:  # the reply matters more; the row then only causes a needless note later
            self.faults.failure(exc, "removing a finished request's row")

    async def notices(self, actor: Actor) -> tuple[Message, ...]:
        """Take the learner's abandoned work, each row once across processes, and return its notices."""
        now = self._clock.now()
        found = await self._log.overdue(actor.platform, actor.user_id, now)
        notes = []
        for work in sorted(found, key=lambda w: w.started_at):
            if work.id in self._live:  # still running here (a long queue): not abandoned
                continue
            if await self._log.take(work.id, now):
                notes.append(restarted_note(work))
        return tuple(notes)

    async def abandon(self) -> int:
        """Mark what this process still has in progress as abandoned (at shutdown, once the grace is over)."""
        count = await self._log.abandon(self.process, self._clock.now())
        if count:
            log.warning("%d request(s) in progress were abandoned; the learners are told on their next request", count)
        return count

    async def keep_alive(self, every_s: float = BEAT_S) -> None:
        """PostgreSQL: record every `every_s` that this process is alive, and mark abandoned the rows of
        processes silent for `SILENT_BEATS` beats (killed: they never marked them), so their learners
        hear of it within about half a minute instead of at the rows' deadlines. Runs until cancelled."""
        while True:
            now = self._clock.now()
            try:
                await self._log.beat(self.process, now)
                count = await self._log.abandon_silent(self.process, now, now - timedelta(seconds=every_s * SILENT_BEATS))
            except Exception as exc:  # the next beat tries again; the rows' deadlines still hold
                self.faults.failure(exc, "recording that this process is alive")
            else:
                if count:
                    log.warning("%d request(s) of a process that stopped answering are abandoned; the learners are told on their next request", count)
            await asyncio.sleep(every_s)

    async def adopt(self) -> int:
        """At the start of the database's only process (SQLite): what earlier processes left is abandoned now.

        A process that was killed never marked its rows; their deadlines (the job's limit and
        `MARGIN`) would keep the learner from hearing of them for minutes after the restart, and a
        code answer sent again meanwhile would be graded beside a row that later says it was lost.
        """
        count = await self._log.abandon(self.process, self._clock.now(), others=True)
        if count:
            log.warning("%d request(s) left unfinished by a process that stopped are abandoned; the learners are told on their next request", count)
        return count
