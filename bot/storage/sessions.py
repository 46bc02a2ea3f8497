"""Quiz sessions in the database, with a cache and group commit on SQLite."""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, bindparam, insert, select, tuple_, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.core.model import Attempt, ItemState, Owner, Session
from bot.core.ports import Conflict
from bot.core.review import Review

from . import tables as t
from .base import Base
from .writer import GroupWriter, SaveOp

SESSION_CACHE = 20_000


@dataclass
class Row:
    id: str
    platform: str
    scope: str
    owner_kind: str
    owner_id: str
    status: str
    position: int
    data: str
    created_at: datetime
    updated_at: datetime
    version: int

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def to_row(session: Session, version: int) -> Row:
    o = session.owner
    data = json.dumps(
        {
            "items": [i.to_json() for i in session.items],
            "filters": session.filters,
            "anchor": session.anchor,
            "by": session.started_by,
            "by_name": session.started_by_name,
        },
        separators=(",", ":"),
    )
    return Row(
        session.id, o.platform, o.scope, o.kind, o.id, session.status, session.position,
        data, session.created_at, session.updated_at, version,
    )


def from_row(row: Any) -> Session:
    data = json.loads(row.data)
    return Session(
        id=row.id,
        owner=Owner(row.platform, row.scope, row.owner_kind, row.owner_id),
        started_by=data["by"],
        started_by_name=data.get("by_name", data["by"]),
        items=[ItemState.from_json(i) for i in data["items"]],
        position=row.position,
        status=row.status,
        created_at=row.created_at,
        updated_at=row.updated_at,
        filters=data.get("filters", {}),
        anchor=data.get("anchor", {}),
        version=row.version,
    )


def attempt_values(attempt: Attempt) -> dict[str, Any]:
    return {
        "platform": attempt.platform,
        "scope": attempt.scope,
        "user_id": attempt.user_id,
        "pack_id": attempt.pack,
        "question_id": attempt.question,
        "topic": attempt.topic,
        "answer": attempt.answer,
        "correct": attempt.correct,
        "points": attempt.points,
        "at": attempt.at,
        "session_id": attempt.session_id,
    }


def review_values(review: Review) -> dict[str, Any]:
    return {
        "platform": review.platform,
        "user_id": review.user_id,
        "pack_id": review.pack,
        "question_id": review.question,
        "card": review.card,
        "due": review.due,
        "correct": review.correct,
        "answers": 1,
    }


class SessionStore(Base):
    """Sessions, and the attempt and review card saved with each answer.

    On SQLite (one bot process) sessions are cached in memory and concurrent saves are grouped
    into one transaction; the version check in every save still refuses a stale write.
    On PostgreSQL every call reads and writes the database, so several processes can share it.
    """

    def _setup_sessions(self) -> None:
        self._writer = GroupWriter(self._engine, self._write_lock, self._apply_saves) if self._sqlite else None
        self._cache: OrderedDict[str, Session] = OrderedDict()
        self._active: dict[tuple[str, str, str, str], str] = {}
        self._none_active: set[tuple[str, str, str, str]] = set()  # owners known to have no active quiz

    def _remember(self, session: Session) -> None:
        """Keep the session as stored (SQLite only).

        get_session hands out this very object: the service changes it only under the session's
        lock and calls `forget` when a change fails half-way.
        """
        if not self._sqlite:
            return
        self._cache[session.id] = session
        self._cache.move_to_end(session.id)
        o = session.owner
        owner = (o.platform, o.scope, o.kind, o.id)
        self._none_active.discard(owner)
        if session.status == "active":
            self._active[owner] = session.id
        elif self._active.get(owner) == session.id:
            del self._active[owner]
            self._none_active.add(owner)
        while len(self._cache) > SESSION_CACHE:
            old_id, old = self._cache.popitem(last=False)
            old_owner = (old.owner.platform, old.owner.scope, old.owner.kind, old.owner.id)
            if self._active.get(old_owner) == old_id:
                del self._active[old_owner]

    def forget(self, session_id: str) -> None:
        self._cache.pop(session_id, None)

    async def create_session(self, session: Session) -> None:
        row = to_row(session, session.version)
        if self._writer is not None:
            future = asyncio.get_running_loop().create_future()
            await self._writer.save(SaveOp(row.as_dict(), -1, None, None, future, insert=True))
        else:
            try:
                async with self._write() as c:
                    await c.execute(insert(t.sessions).values(**row.as_dict()))
            except IntegrityError as exc:
                raise Conflict("another quiz is already active for this owner") from exc
        self._remember(session)

    async def get_session(self, session_id: str) -> Session | None:
        cached = self._cache.get(session_id)
        if cached is not None:
            return cached
        async with self._engine.connect() as c:
            row = (await c.execute(select(t.sessions).where(t.sessions.c.id == session_id))).first()
        if row is None:
            return None
        session = from_row(row)
        self._remember(session)
        return session

    async def active_session(self, owner: Owner) -> Session | None:
        key = (owner.platform, owner.scope, owner.kind, owner.id)
        known = self._active.get(key)
        if known is not None and known in self._cache:
            return self._cache[known]
        if key in self._none_active:
            return None
        s = t.sessions.c
        async with self._engine.connect() as c:
            row = (
                await c.execute(
                    select(t.sessions).where(
                        and_(
                            s.platform == owner.platform,
                            s.scope == owner.scope,
                            s.owner_kind == owner.kind,
                            s.owner_id == owner.id,
                            s.status == "active",
                        )
                    )
                )
            ).first()
        if row is None:
            if self._sqlite:
                if len(self._none_active) > 100_000:
                    self._none_active.clear()
                self._none_active.add(key)
            return None
        session = from_row(row)
        self._remember(session)
        return session

    async def active_sessions_of(self, platform: str, user_id: str) -> list[Session]:
        """Every active quiz a learner owns, in any server or workspace (and DMs)."""
        s = t.sessions.c
        async with self._engine.connect() as c:
            rows = (
                await c.execute(
                    select(t.sessions).where(
                        and_(
                            s.platform == platform,
                            s.owner_kind == "user",
                            s.owner_id == user_id,
                            s.status == "active",
                        )
                    )
                )
            ).all()
        return [self._cache.get(row.id) or from_row(row) for row in rows]

    async def save_session(self, session: Session, attempt: Attempt | None = None, review: Review | None = None) -> None:
        row = to_row(session, session.version + 1)
        op = SaveOp(
            session_update=row.as_dict(),
            expected_version=session.version,
            attempt=attempt_values(attempt) if attempt else None,
            review=review_values(review) if review else None,
            future=asyncio.get_running_loop().create_future(),
        )
        try:
            if self._writer is not None:
                await self._writer.save(op)
            else:
                async with self._write() as c:
                    outcome = (await self._apply_saves(c, [op]))[0]
                if outcome is not None:
                    raise outcome
        except Conflict:
            self.forget(session.id)  # another process wrote it: read it afresh next time
            raise
        session.version += 1
        self._remember(session)

    async def _apply_saves(self, c: AsyncConnection, ops: list[SaveOp]) -> list[BaseException | None]:
        """Apply saves and new sessions in the open transaction: one statement per table and kind."""
        updates = [op for op in ops if not op.insert]
        outcome: dict[int, BaseException | None] = {}
        if updates:
            outcome.update(zip(map(id, updates), await self._apply_updates(c, updates), strict=True))
        inserts = [op for op in ops if op.insert]
        if inserts:
            outcome.update(zip(map(id, inserts), await self._apply_inserts(c, inserts), strict=True))
        return [outcome[id(op)] for op in ops]

    async def _apply_inserts(self, c: AsyncConnection, ops: list[SaveOp]) -> list[BaseException | None]:
        s = t.sessions.c
        owners = [tuple(op.session_update[k] for k in ("platform", "scope", "owner_kind", "owner_id")) for op in ops]
        taken = {
            tuple(r)
            for r in await c.execute(
                select(s.platform, s.scope, s.owner_kind, s.owner_id).where(
                    and_(s.status == "active", tuple_(s.platform, s.scope, s.owner_kind, s.owner_id).in_(owners))
                )
            )
        }
        outcomes: list[BaseException | None] = []
        rows = []
        for op, owner in zip(ops, owners, strict=True):
            if op.session_update["status"] == "active" and owner in taken:
                outcomes.append(Conflict("another quiz is already active for this owner"))
                continue
            if op.session_update["status"] == "active":
                taken.add(owner)
            rows.append(op.session_update)
            outcomes.append(None)
        if rows:
            await c.execute(insert(t.sessions), rows)
        return outcomes

    async def _apply_updates(self, c: AsyncConnection, ops: list[SaveOp]) -> list[BaseException | None]:
        s = t.sessions.c
        ids = [op.session_update["id"] for op in ops]
        current = {r.id: r.version for r in await c.execute(select(s.id, s.version).where(s.id.in_(ids)))}
        outcomes: list[BaseException | None] = []
        good: list[SaveOp] = []
        seen: set[str] = set()
        for op in ops:
            sid = op.session_update["id"]
            if current.get(sid) != op.expected_version or sid in seen:
                outcomes.append(Conflict(sid))
            else:
                seen.add(sid)
                good.append(op)
                outcomes.append(None)
        if not good:
            return outcomes
        fields = ("status", "position", "data", "updated_at", "version")
        await c.execute(
            update(t.sessions)
            .where(and_(s.id == bindparam("b_id"), s.version == bindparam("b_expected")))
            .values({name: bindparam(name) for name in fields}),
            [
                {**{k: op.session_update[k] for k in fields}, "b_id": op.session_update["id"], "b_expected": op.expected_version}
                for op in good
            ],
        )
        attempts = [op.attempt for op in good if op.attempt is not None]
        if attempts:
            await c.execute(insert(t.attempts), attempts)
        reviews = {(r["platform"], r["user_id"], r["pack_id"], r["question_id"]): r for op in good if (r := op.review)}
        if reviews:
            await self._upsert_reviews(c, list(reviews.values()))
        return outcomes

    async def _upsert_reviews(self, c: AsyncConnection, rows: list[dict[str, Any]]) -> None:
        """Store review cards, replacing the learner's card for each question."""
        statement = (sqlite_insert if self._sqlite else pg_insert)(t.reviews)
        statement = statement.on_conflict_do_update(
            index_elements=["platform", "user_id", "pack_id", "question_id"],
            set_={
                "card": statement.excluded.card,
                "due": statement.excluded.due,
                "correct": statement.excluded.correct,
                "answers": t.reviews.c.answers + 1,
            },
        )
        await c.execute(statement, rows)

    async def record_answer(self, attempt: Attempt, review: Review) -> None:
        """Store an answer given outside a quiz session: the attempt and the review card, in one transaction.

        The channel's daily question uses it, so a member's answer counts like a quiz answer.
        """
        async with self._write() as c:
            await c.execute(insert(t.attempts), [attempt_values(attempt)])
            await self._upsert_reviews(c, [review_values(review)])

    async def _close_sessions(self) -> None:
        if self._writer is not None:
            await self._writer.close()
