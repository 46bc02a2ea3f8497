"""Where a quiz's item was posted (its anchor), stored with the quiz's next save or a moment later.

PostgreSQL. On Slack every click posts the next item and then remembers its message: a statement of its own,
0.3 ms of the 2.2 ms of bot CPU per answer (`bench/platform_bench.py` with that save taken out;
docs/reference/measured.md). Here the anchor waits instead:

- this process sees it at once: a session it reads or guesses at the version the anchor was
  remembered at carries it;
- the quiz's next save from this process carries it (the learner's next click, when it comes
  first), so it costs no statement at all;
- what still waits after `WAIT` is written in one statement for every such quiz, each on condition
  that its version did not move, and raises the version as any save does. A click of this process
  decided on the version before is brought up to the one written (`before_save`), so the write
  never refuses it. A quiz another process saved meanwhile is read again, and its anchor kept only
  while it is still at the item (as `QuizDesk.remember` did: the saves of answers go first).

What this changes: another process sees the anchor up to `WAIT` (and a round trip) later, and a
process killed in that moment loses it. A code answer or a `/quiz` command handled elsewhere in that
moment finds the item before, and shows its reply as a new message (a person's next message comes
seconds after the item, not milliseconds). A graceful stop writes what waits (`SessionStore.close`).

SQLite (one process) keeps the anchor in its session cache, which is what the process reads, and
writes it with the next save or `WAIT` later (`write_kept`), the version unchanged. Both time
their writes with `Soon`.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ARRAY, Integer, String, Text, bindparam, text

from bot.core.model import Anchor, Session
from bot.core.ports import Conflict

from . import pg_link
from .base import Database
from .codec import Snapshot, dumps
from .prepared import Prepared

log = logging.getLogger("quizbot.storage")

WAIT = 0.05  # seconds an anchor waits for its quiz's next save before it is written with the others
DOING = "storing where items were posted"  # in the log's line of a failed write (`Database.faults`)
MAX_WAITING = 5_000  # anchors waiting at once; more are written at once (a database that stopped answering)


@dataclass(frozen=True, slots=True)
class Waiting:
    anchor: Anchor
    version: int  # the stored version the anchor was remembered at
    position: int  # the item it is for


class Soon:
    """Run `job` `WAIT` seconds after it is first asked for (once for every ask meanwhile), one run at a time.

    `close` stops the timer and runs the job a last time (the process is stopping): no timer is
    left to run it on an engine that is gone.
    """

    def __init__(self, job: Callable[[], Awaitable[None]]) -> None:
        self._job = job
        self._timer: asyncio.Task[None] | None = None  # only while it sleeps
        self._running = asyncio.Lock()
        self._closed = False

    def ask(self, *, now: bool = False) -> None:
        if self._closed or (self._timer is not None and not now):
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().create_task(self._later(0 if now else WAIT))

    async def run(self) -> None:
        async with self._running:
            await self._job()

    async def close(self) -> None:
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        await self.run()

    async def _later(self, delay: float) -> None:
        await asyncio.sleep(delay)
        self._timer = None
        await self.run()


class WaitingAnchors:
    """The anchors remembered and not yet written, by session id; `write` stores them in one statement."""

    def __init__(
        self,
        db: Database,
        *,
        get: Callable[[str], Awaitable[Session | None]],
        save: Callable[[Session], Awaitable[Any]],
        recent: MutableMapping[str, Snapshot],
    ) -> None:
        self._db = db
        self._get, self._save = get, save  # the store's: one whose quiz moved on meanwhile is read again
        self._recent = recent  # the store's guesses, which move on with what is written here
        self._waiting: dict[str, Waiting] = {}
        self._soon = Soon(self._write)
        self._flying: dict[str, Waiting] = {}  # being written now; `_landed` is set once they are
        self._landed = asyncio.Event()
        self._wrote: OrderedDict[str, Waiting] = OrderedDict()  # written by this process, the newest last

    def add(self, session: Session) -> None:
        """Remember the session's anchor, for the stored version the session has (`session.version`)."""
        self._waiting[session.id] = Waiting(session.anchor, session.version, session.position)
        self._soon.ask(now=len(self._waiting) >= MAX_WAITING)

    def apply(self, session: Session) -> Waiting | None:
        """Give the session, as stored at its version, the anchor this process remembered for that version.

        Returns the one given if it still waits. One on its way, or written a moment ago, is given
        too: the session may have been read from the row as it was just before that write.
        """
        sid, version = session.id, session.version
        for known in (self._waiting, self._flying, self._wrote):
            found = known.get(sid)
            if found is not None and found.version == version:
                session.anchor = found.anchor
                return found if known is self._waiting else None
        return None

    async def before_save(self, session: Session) -> Waiting | None:
        """Ready a session for its save: the anchor waiting for its version rides with it (taken, and returned).

        A session decided on the version this process's `write` raised (a click read before it) is
        brought up to the version written, with its anchor: the row at that version is the row it
        was read from with that anchor, so the save is not refused for it (it would be made again
        on a fresh read). A write on its way is waited for first.
        """
        waiting = self.apply(session)
        if waiting is not None:
            del self._waiting[session.id]  # taken now: written by the timer meanwhile, it would refuse this save
            return waiting
        # on its way or written: the save starts from the version written
        flying = self._flying.get(session.id)
        if flying is not None and flying.version == session.version:
            await self._landed.wait()
        wrote = self._wrote.get(session.id)
        if wrote is not None and wrote.version == session.version:
            session.anchor, session.version = wrote.anchor, wrote.version + 1
        return None

    def put_back(self, session_id: str, waiting: Waiting) -> None:
        """A save that carried the anchor failed: it waits again, unless a newer one does."""
        if session_id not in self._waiting:
            self._waiting[session_id] = waiting
            self._soon.ask()

    async def close(self) -> None:
        """Write what waits, and stop the timer (the process is stopping)."""
        await self._soon.close()

    async def write(self) -> None:
        """Store every anchor remembered until now (one on its way is waited for); those whose quiz was saved meanwhile are read again."""
        await self._soon.run()

    async def _write(self) -> None:
        waiting, self._waiting = self._waiting, {}
        if not waiting:
            return
        self._flying, self._landed = waiting, asyncio.Event()
        try:
            async with pg_link.direct(self._db.engine) as d:
                rows = await d.rows(_WRITE, {
                    "ids": list(waiting),
                    "anchors": [_json(w.anchor) for w in waiting.values()],
                    "versions": [w.version for w in waiting.values()],
                })  # fmt: skip
        except Exception as exc:  # the quizzes go on
            self._db.faults.failure(exc, DOING)
            rows = None
        finally:
            done = {row["id"] for row in rows or ()}
            for session_id in done:
                self._wrote[session_id] = w = waiting[session_id]
                self._wrote.move_to_end(session_id)
                written(self._recent, session_id, w)
            while len(self._wrote) > MAX_WAITING:
                self._wrote.popitem(last=False)
        try:
            for session_id, w in waiting.items():
                if rows is not None and session_id not in done:
                    try:
                        await store_again(self._get, self._save, session_id, w)
                    except Exception as exc:  # as above: one quiz's anchor is not worth the others'
                        self._db.faults.failure(exc, DOING)
        finally:
            self._flying = {}
            self._landed.set()


async def store_again(get: Callable[[str], Awaitable[Session | None]], save: Callable[[Session], Awaitable[Any]], session_id: str, w: Waiting) -> None:
    """Store an anchor whose quiz was saved meanwhile: on the quiz as read, while it is still at the item."""
    session = await get(session_id)
    if session is None or session.position != w.position:
        return  # moved past the item: whoever posted the newer one remembers that one
    session.anchor = w.anchor
    try:
        await save(session)
    except Conflict:
        log.info("quiz %s changed while its anchor was stored (another process wrote it); the anchor is left as it was", session_id)


def written(recent: MutableMapping[str, Snapshot], session_id: str, w: Waiting) -> None:
    """The anchor was written with the version after `w.version`: this process's guess at the quiz moves on with it."""
    snapshot = recent.get(session_id)
    if snapshot is None:
        return
    d = dict(snapshot)
    if d["version"] == w.version:
        d["version"], d["anchor"] = w.version + 1, w.anchor
        recent[session_id] = tuple(d.items())
    else:
        del recent[session_id]


async def write_kept(db: Database, anchors: Mapping[str, tuple[int, Anchor]]) -> None:
    """SQLite: write anchors the session cache kept into their quizzes' rows still at those versions.

    The version stays: on SQLite this process is the only one, and its cache (what it reads) has
    the anchor at that version already; a save on its way from it must not be refused.
    """
    try:
        async with db.write() as c:
            await c.execute(_SET_KEPT, [{"id": i, "version": v, "anchor": _json(a)} for i, (v, a) in anchors.items()])
    except Exception as exc:  # the quizzes go on
        db.faults.failure(exc, DOING)


_SET_KEPT = text("UPDATE sessions SET data = json_set(data, '$.anchor', json(:anchor)) WHERE id = :id AND version = :version")


def _json(anchor: Anchor) -> str:
    return dumps(anchor.to_json())


# Each row changes only the anchor in its `data` (`jsonb ||` replaces the one key; the stored text is
# then PostgreSQL's own spelling of the same JSON, which `session_from_row` reads) and raises the
# version, on condition the row is at the version the anchor was remembered at.
_WRITE = Prepared(
    text(
        """
UPDATE sessions AS s
SET data = (s.data::jsonb || jsonb_build_object('anchor', v.anchor::jsonb))::text, version = s.version + 1
FROM unnest(CAST(:ids AS VARCHAR[]), CAST(:anchors AS TEXT[]), CAST(:versions AS INTEGER[])) AS v(id, anchor, version)
WHERE s.id = v.id AND s.version = v.version
RETURNING s.id"""
    )
    .bindparams(
        bindparam("ids", type_=ARRAY(String())),
        bindparam("anchors", type_=ARRAY(Text())),
        bindparam("versions", type_=ARRAY(Integer())),
    )
    .columns(id=String())
)
