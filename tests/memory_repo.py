"""An in-memory Repository: the core's storage port without a database, for the core's own tests.

It keeps the port's promises that the core relies on: a save whose version is stale raises
Conflict and changes nothing (attempt and card included), an attempt's key is recorded once, and an
attempt that settles a row of unfinished work removes it or, the row being gone, is refused.
`MemoryWorkLog` is the unfinished-work port over the same repository's rows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from zoneinfo import ZoneInfo

from bot.core.answer import AnswerWrite
from bot.core.errors import PackRefused
from bot.core.importing import PackNotTheirs
from bot.core.model import (
    Anchor,
    Attempt,
    History,
    ImportReport,
    Owner,
    PackInfo,
    Session,
    TopicStats,
    UserStats,
)
from bot.core.packs import Pack
from bot.core.ports import Conflict, WorkTaken
from bot.core.review import Review, in_learning
from bot.core.work import Work
from bot.storage.packs import shown_by_default


class MemoryRepository:
    def __init__(self) -> None:
        self.packs: dict[str, Pack] = {}
        self.owners: dict[str, str | None] = {}  # pack id -> the scope that loaded it first (None: the operator)
        self.switches: dict[tuple[str, str], bool] = {}  # (scope, pack id) -> on; unnamed: shown_by_default's rule
        self.sessions: dict[str, Session] = {}
        self.attempts: list[Attempt] = []
        self.cards: dict[tuple[str, str, str, str], Review] = {}
        self.settings: dict[str, str] = {}
        self.work: dict[str, Work] = {}  # rows of unfinished work, by id
        self.beats: dict[str, datetime] = {}  # each process's last heartbeat

    # ----------------------------------------------------------------- packs

    async def get_pack(self, pack_id: str) -> Pack | None:
        return self.packs.get(pack_id)

    async def list_packs(self, scope: str | None = None) -> list[PackInfo]:
        infos = []
        for pack in sorted(self.packs.values(), key=lambda p: p.pack):
            topics = tuple((t.id, t.title) for t in pack.topics)
            enabled = scope is None or self.switches.get((scope, pack.pack), shown_by_default(self.owners.get(pack.pack), scope))
            if not enabled and scope is not None and (scope, pack.pack) not in self.switches:
                continue  # another scope's pack, never switched on here (as bot.storage.packs lists it)
            infos.append(PackInfo(pack.pack, pack.title, pack.version, len(pack.questions), enabled, topics, pack.language or ""))
        return infos

    async def import_pack(self, pack: Pack, *, force: bool = False, by: str | None = None) -> ImportReport:
        old = self.packs.get(pack.pack)
        if old is not None and by is not None and self.owners.get(pack.pack) != by:
            raise PackNotTheirs(pack.pack, by, owner=self.owners.get(pack.pack))
        if old is not None and pack.version <= old.version and not force:
            raise PackRefused(f"Pack `{pack.pack}` is already at version {old.version}.")
        self.packs[pack.pack] = pack
        self.owners.setdefault(pack.pack, by)
        before = {q.id for q in old.questions} if old else set()
        after = {q.id for q in pack.questions}
        return ImportReport(
            pack.pack,
            pack.version,
            old.version if old else None,
            tuple(sorted(after - before)),
            tuple(sorted(after & before)),
            tuple(sorted(before - after)),
        )

    async def delete_pack(self, pack_id: str, *, by: str | None = None) -> bool:
        if pack_id in self.packs and by is not None and self.owners.get(pack_id) != by:
            raise PackNotTheirs(pack_id, by, removing=True, owner=self.owners.get(pack_id))
        self.owners.pop(pack_id, None)
        if pack_id not in self.packs:
            return False
        self.switches = {key: on for key, on in self.switches.items() if key[1] != pack_id}  # as storage's remove
        return self.packs.pop(pack_id) is not None

    async def pack_owners(self) -> dict[str, str | None]:
        return {pack_id: self.owners.get(pack_id) for pack_id in self.packs}

    async def set_pack_enabled(self, scope: str, pack_id: str, enabled: bool) -> None:
        self.switches[(scope, pack_id)] = enabled

    # ----------------------------------------------------------------- sessions

    async def create_session(self, session: Session) -> None:
        self.sessions[session.id] = session.copy()

    async def get_session(self, session_id: str) -> Session | None:
        stored = self.sessions.get(session_id)
        return stored.copy() if stored is not None else None

    async def recent_session(self, session_id: str, position: int | None = None) -> Session | None:
        return await self.get_session(session_id)

    def forget(self, session_id: str) -> None:
        return None

    async def active_session(self, owner: Owner) -> Session | None:
        for session in self.sessions.values():
            if session.owner == owner and session.status == "active":
                return session.copy()
        return None

    async def active_sessions_of(self, platform: str, user_id: str) -> list[Session]:
        return [
            s.copy()
            for s in self.sessions.values()
            if s.owner.platform == platform and s.owner.kind == "user" and s.owner.id == user_id and s.status == "active"
        ]

    async def save_anchor(self, session: Session) -> None:
        await self.save_session(session)

    async def save_anchor_at(self, session_id: str, position: int | None, anchor: Anchor) -> bool:
        return False  # the caller reads the quiz and saves it

    async def save_session(self, session: Session, attempt: Attempt | None = None, review: Review | None = None) -> None:
        stored = self.sessions.get(session.id)
        if stored is None or stored.version != session.version:
            raise Conflict(session.id)
        if attempt is not None and attempt.key is not None and any(a.key == attempt.key for a in self.attempts):
            raise Conflict(session.id)
        if attempt is not None and attempt.work is not None:
            if attempt.work not in self.work:
                raise WorkTaken(session.id)
            del self.work[attempt.work]
        session.version += 1
        self.sessions[session.id] = session.copy()
        if attempt is not None:
            self.attempts.append(attempt)
        if review is not None:
            self.cards[(review.platform, review.user_id, review.pack, review.question)] = review

    async def write_answer(self, unit: AnswerWrite) -> None:
        """The unit of work in memory: the session's save with its attempt and card (days are not kept)."""
        if unit.session is not None:
            await self.save_session(unit.session, unit.attempt, unit.card)
            self._settle(unit)
            return
        if unit.attempt is not None:
            if unit.attempt.key is not None and any(a.key == unit.attempt.key for a in self.attempts):
                raise Conflict(unit.attempt.key)
            self.attempts.append(unit.attempt)
            self._settle(unit)
        if unit.card is not None:
            c = unit.card
            self.cards[(c.platform, c.user_id, c.pack, c.question)] = c

    def _settle(self, unit: AnswerWrite) -> None:
        """Every process's row for the item the stored answer ends goes with it (`AnswerWrite.settles`)."""
        if unit.settles is None or unit.attempt is None:
            return
        a = unit.attempt
        for work_id in [k for k, w in self.work.items() if (w.platform, w.user_id, w.item) == (a.platform, a.user_id, unit.settles)]:
            del self.work[work_id]

    # ----------------------------------------------------------------- progress

    async def history(self, platform: str, user_id: str, packs: Sequence[str]) -> dict[tuple[str, str], History]:
        found: dict[tuple[str, str], History] = {}
        for a in self.attempts:
            if a.platform == platform and a.user_id == user_id and a.pack in packs:
                seen = found.get((a.pack, a.question))
                card = self.cards.get((platform, user_id, a.pack, a.question))
                found[(a.pack, a.question)] = History(
                    (seen.attempts if seen else 0) + 1, a.correct, card.due if card else None, card.card if card else None
                )
        return found

    async def learner_zone(self, platform: str, user_id: str) -> str:
        return "UTC"  # no daily settings here: every zone is UTC

    async def user_stats(
        self, platform: str, user_id: str, now: datetime, *, due_by: Callable[[ZoneInfo], datetime] | None = None
    ) -> UserStats:
        mine = [a for a in self.attempts if a.platform == platform and a.user_id == user_id]
        topics: dict[tuple[str, str | None], list[Attempt]] = {}
        for a in mine:
            topics.setdefault((a.pack, a.topic), []).append(a)
        before = due_by(ZoneInfo("UTC")) if due_by is not None else None  # no daily settings here: every zone is UTC
        due = sum(
            1
            for c in self.cards.values()
            if c.platform == platform and c.user_id == user_id
            and (c.due <= now or (before is not None and c.due < before and not in_learning(c.card)))
        )
        return UserStats(
            attempts=len(mine),
            correct=sum(a.correct for a in mine),
            topics=tuple(TopicStats(p, t, len(v), sum(a.correct for a in v)) for (p, t), v in topics.items()),
            due=due,
            last_practice=max((a.at for a in mine), default=None),
        )

    async def get_setting(self, key: str) -> str | None:
        return self.settings.get(key)

    async def set_setting(self, key: str, value: str) -> None:
        self.settings[key] = value


class MemoryWorkLog:
    """The core's WorkLog over a MemoryRepository's rows (one process: no real race to lose)."""

    def __init__(self, repo: MemoryRepository) -> None:
        self.repo = repo

    async def begin(self, work: Work) -> bool:
        rows = self.repo.work
        same = [w for w in rows.values() if (w.platform, w.user_id, w.item) == (work.platform, work.user_id, work.item)]
        if any(w.process != work.process and w.deadline > work.started_at for w in same):
            return False  # another process grades this item: its row stays
        for old in same:
            del rows[old.id]
        rows[work.id] = work
        return True

    async def end(self, work_id: str) -> None:
        self.repo.work.pop(work_id, None)

    async def overdue(self, platform: str, user_id: str, now: datetime) -> list[Work]:
        return [w for w in self.repo.work.values() if (w.platform, w.user_id) == (platform, user_id) and w.deadline <= now]

    async def take(self, work_id: str, now: datetime) -> bool:
        work = self.repo.work.get(work_id)
        if work is None or work.deadline > now:
            return False
        del self.repo.work[work_id]
        return True

    async def abandon(self, process: str, now: datetime, *, others: bool = False) -> int:
        mine = [w for w in self.repo.work.values() if (w.process != process if others else w.process == process) and w.deadline > now]
        for w in mine:
            self.repo.work[w.id] = replace(w, deadline=now)
        return len(mine)

    async def beat(self, process: str, now: datetime) -> None:
        self.repo.beats[process] = now

    async def abandon_silent(self, process: str, now: datetime, since: datetime) -> int:
        beats = self.repo.beats
        silent = [
            w for w in self.repo.work.values()
            if w.process != process and w.started_at < since and w.deadline > now and beats.get(w.process, since - since.resolution) < since
        ]
        for w in silent:
            self.repo.work[w.id] = replace(w, deadline=now)
        return len(silent)
