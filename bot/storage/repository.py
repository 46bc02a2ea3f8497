"""The core's Repository port on SQLAlchemy Core: SQLite (aiosqlite) or PostgreSQL (asyncpg)."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import and_, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.core.errors import PackRefused
from bot.core.model import (
    Attempt,
    History,
    ImportReport,
    ItemState,
    Owner,
    PackInfo,
    Session,
    TopicStats,
    UserStats,
)
from bot.core.packs import Pack
from bot.core.ports import Conflict
from bot.core.review import Review

from . import tables as t


class SqlRepository:
    """Implements `bot.core.ports.Repository`."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._sqlite = engine.dialect.name == "sqlite"
        # SQLite has one writer at a time; queueing writers here avoids busy-waiting in the driver.
        self._write_lock = asyncio.Lock()

    @property
    def engine(self) -> AsyncEngine:
        return self._engine

    async def close(self) -> None:
        await self._engine.dispose()

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncConnection]:
        if self._sqlite:
            async with self._write_lock, self._engine.begin() as connection:
                yield connection
        else:
            async with self._engine.begin() as connection:
                yield connection

    # ----------------------------------------------------------------- packs

    async def get_pack(self, pack_id: str) -> Pack | None:
        async with self._engine.connect() as c:
            data = (await c.execute(select(t.packs.c.data).where(t.packs.c.id == pack_id))).scalar()
        return Pack.model_validate_json(data) if data else None

    async def list_packs(self, scope: str | None = None) -> list[PackInfo]:
        async with self._engine.connect() as c:
            rows = (await c.execute(select(t.packs.c.id, t.packs.c.data).order_by(t.packs.c.id))).all()
            flags: dict[str, bool] = {}
            if scope is not None:
                result = await c.execute(
                    select(t.pack_settings.c.pack_id, t.pack_settings.c.enabled).where(t.pack_settings.c.scope == scope)
                )
                flags = {r.pack_id: r.enabled for r in result}
        infos = []
        for row in rows:
            pack = Pack.model_validate_json(row.data)
            topics = tuple((tp.id, tp.title) for tp in pack.topics) or tuple(
                (q, q) for q in dict.fromkeys(q.topic for q in pack.questions if q.topic)
            )
            infos.append(
                PackInfo(pack.pack, pack.title, pack.version, len(pack.questions), flags.get(pack.pack, True), topics)
            )
        return infos

    async def import_pack(self, pack: Pack, *, force: bool = False) -> ImportReport:
        now = datetime.now(UTC)
        digests = {q.id: hashlib.sha256(q.model_dump_json().encode()).hexdigest() for q in pack.questions}
        async with self._write() as c:
            previous = (
                await c.execute(select(t.packs.c.version).where(t.packs.c.id == pack.pack).with_for_update())
            ).scalar()
            if previous is not None and pack.version <= previous and not force:
                raise PackRefused(
                    f"Pack `{pack.pack}` is already at version {previous}; raise `version` above {previous} to update it "
                    "(or force the import)."
                )
            old = {
                r.question_id: r.digest
                for r in await c.execute(
                    select(t.questions.c.question_id, t.questions.c.digest).where(t.questions.c.pack_id == pack.pack)
                )
            }
            await c.execute(delete(t.questions).where(t.questions.c.pack_id == pack.pack))
            await c.execute(delete(t.packs).where(t.packs.c.id == pack.pack))
            await c.execute(
                insert(t.packs).values(
                    id=pack.pack, version=pack.version, title=pack.title, data=pack.model_dump_json(), updated_at=now
                )
            )
            await c.execute(
                insert(t.questions),
                [
                    {
                        "pack_id": pack.pack,
                        "question_id": q.id,
                        "type": q.type,
                        "topic": q.topic,
                        "difficulty": q.difficulty,
                        "digest": digests[q.id],
                    }
                    for q in pack.questions
                ],
            )
        return ImportReport(
            pack=pack.pack,
            version=pack.version,
            previous_version=previous,
            added=tuple(q for q in digests if q not in old),
            updated=tuple(q for q in digests if q in old and old[q] != digests[q]),
            removed=tuple(q for q in old if q not in digests),
        )

    async def delete_pack(self, pack_id: str) -> bool:
        async with self._write() as c:
            await c.execute(delete(t.questions).where(t.questions.c.pack_id == pack_id))
            result = await c.execute(delete(t.packs).where(t.packs.c.id == pack_id))
        return bool(result.rowcount)

    async def set_pack_enabled(self, scope: str, pack_id: str, enabled: bool) -> None:
        async with self._write() as c:
            await c.execute(
                delete(t.pack_settings).where(and_(t.pack_settings.c.scope == scope, t.pack_settings.c.pack_id == pack_id))
            )
            await c.execute(insert(t.pack_settings).values(scope=scope, pack_id=pack_id, enabled=enabled))

    # ----------------------------------------------------------------- sessions

    @staticmethod
    def _session_data(session: Session) -> str:
        return json.dumps(
            {
                "items": [i.to_json() for i in session.items],
                "filters": session.filters,
                "anchor": session.anchor,
                "by": session.started_by,
                "by_name": session.started_by_name,
            },
            separators=(",", ":"),
        )

    @staticmethod
    def _session_from(row: Any) -> Session:
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

    async def create_session(self, session: Session) -> None:
        o = session.owner
        try:
            async with self._write() as c:
                await c.execute(
                    insert(t.sessions).values(
                        id=session.id,
                        platform=o.platform,
                        scope=o.scope,
                        owner_kind=o.kind,
                        owner_id=o.id,
                        status=session.status,
                        position=session.position,
                        data=self._session_data(session),
                        created_at=session.created_at,
                        updated_at=session.updated_at,
                        version=session.version,
                    )
                )
        except IntegrityError as exc:
            raise Conflict("another quiz is already active for this owner") from exc

    async def get_session(self, session_id: str) -> Session | None:
        async with self._engine.connect() as c:
            row = (await c.execute(select(t.sessions).where(t.sessions.c.id == session_id))).first()
        return self._session_from(row) if row else None

    async def active_session(self, owner: Owner) -> Session | None:
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
        return self._session_from(row) if row else None

    async def save_session(self, session: Session, attempt: Attempt | None = None, review: Review | None = None) -> None:
        async with self._write() as c:
            result = await c.execute(
                update(t.sessions)
                .where(and_(t.sessions.c.id == session.id, t.sessions.c.version == session.version))
                .values(
                    status=session.status,
                    position=session.position,
                    data=self._session_data(session),
                    updated_at=session.updated_at,
                    version=session.version + 1,
                )
            )
            if result.rowcount != 1:
                raise Conflict(session.id)
            if attempt is not None:
                await c.execute(
                    insert(t.attempts).values(
                        platform=attempt.platform,
                        scope=attempt.scope,
                        user_id=attempt.user_id,
                        pack_id=attempt.pack,
                        question_id=attempt.question,
                        topic=attempt.topic,
                        answer=attempt.answer,
                        correct=attempt.correct,
                        points=attempt.points,
                        at=attempt.at,
                        session_id=attempt.session_id,
                    )
                )
            if review is not None:
                r = t.reviews.c
                key = and_(
                    r.platform == review.platform,
                    r.user_id == review.user_id,
                    r.pack_id == review.pack,
                    r.question_id == review.question,
                )
                await c.execute(delete(t.reviews).where(key))
                await c.execute(
                    insert(t.reviews).values(
                        platform=review.platform,
                        user_id=review.user_id,
                        pack_id=review.pack,
                        question_id=review.question,
                        card=review.card,
                        due=review.due,
                    )
                )
        session.version += 1

    async def get_review(self, platform: str, user_id: str, pack: str, question: str) -> str | None:
        r = t.reviews.c
        async with self._engine.connect() as c:
            return (
                await c.execute(
                    select(r.card).where(
                        and_(r.platform == platform, r.user_id == user_id, r.pack_id == pack, r.question_id == question)
                    )
                )
            ).scalar()

    # ----------------------------------------------------------------- progress

    async def history(self, platform: str, user_id: str, packs: Sequence[str]) -> dict[tuple[str, str], History]:
        a = t.attempts.c
        r = t.reviews.c
        out: dict[tuple[str, str], History] = {}
        async with self._engine.connect() as c:
            rows = await c.execute(
                select(a.pack_id, a.question_id, a.correct)
                .where(and_(a.platform == platform, a.user_id == user_id, a.pack_id.in_(list(packs))))
                .order_by(a.id)
            )
            counts: dict[tuple[str, str], int] = {}
            last: dict[tuple[str, str], bool] = {}
            for row in rows:
                key = (row.pack_id, row.question_id)
                counts[key] = counts.get(key, 0) + 1
                last[key] = bool(row.correct)
            dues = {
                (row.pack_id, row.question_id): row.due
                for row in await c.execute(
                    select(r.pack_id, r.question_id, r.due).where(and_(r.platform == platform, r.user_id == user_id))
                )
            }
        for key, n in counts.items():
            out[key] = History(attempts=n, last_correct=last[key], due=dues.get(key))
        return out

    async def user_stats(self, platform: str, user_id: str, now: datetime) -> UserStats:
        a = t.attempts.c
        mine = and_(a.platform == platform, a.user_id == user_id)
        async with self._engine.connect() as c:
            total, right, latest = (
                await c.execute(select(func.count(), func.coalesce(func.sum(_as_int(a.correct)), 0), func.max(a.at)).where(mine))
            ).one()
            topics = [
                TopicStats(row.pack_id, row.topic, row.n, int(row.right or 0))
                for row in await c.execute(
                    select(a.pack_id, a.topic, func.count().label("n"), func.sum(_as_int(a.correct)).label("right"))
                    .where(mine)
                    .group_by(a.pack_id, a.topic)
                )
            ]
            since = now - timedelta(days=400)
            day_rows = await c.execute(
                select(func.date(a.at).label("day")).where(and_(mine, a.at >= since)).distinct()
            )
            days = sorted({_as_date(row.day) for row in day_rows}, reverse=True)
            r = t.reviews.c
            due = (
                await c.execute(
                    select(func.count()).where(and_(r.platform == platform, r.user_id == user_id, r.due <= now))
                )
            ).scalar() or 0
        if isinstance(latest, datetime) and latest.tzinfo is None:
            latest = latest.replace(tzinfo=UTC)
        elif isinstance(latest, str):
            latest = datetime.fromisoformat(latest).replace(tzinfo=UTC)
        return UserStats(
            attempts=int(total), correct=int(right), topics=tuple(topics), days=tuple(days), due=int(due), last_practice=latest
        )

    # ----------------------------------------------------------------- settings

    async def get_setting(self, key: str) -> str | None:
        async with self._engine.connect() as c:
            return (await c.execute(select(t.settings.c.value).where(t.settings.c.key == key))).scalar()

    async def set_setting(self, key: str, value: str) -> None:
        async with self._write() as c:
            await c.execute(delete(t.settings).where(t.settings.c.key == key))
            await c.execute(insert(t.settings).values(key=key, value=value))


def _as_int(column: Any) -> Any:
    from sqlalchemy import Integer, cast

    return cast(column, Integer)


def _as_date(value: Any) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return date.fromisoformat(str(value)[:10])
