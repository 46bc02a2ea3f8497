"""The core's Repository port on SQLAlchemy Core: SQLite (aiosqlite) or PostgreSQL (asyncpg)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import Integer, and_, cast, delete, func, insert, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.core.errors import PackRefused
from bot.core.model import History, ImportReport, PackInfo, TopicStats, UserStats
from bot.core.packs import Pack

from . import tables as t
from .sessions import SessionStore


class SqlRepository(SessionStore):
    """Implements `bot.core.ports.Repository`."""

    def __init__(self, engine: AsyncEngine) -> None:
        super().__init__(engine)
        self._setup_sessions()
        self._packs: dict[tuple[str, int], Pack] = {}  # parsed packs by id and version

    async def close(self) -> None:
        await self._close_sessions()
        await self._engine.dispose()

    # ----------------------------------------------------------------- packs

    async def _parsed(self, c: AsyncConnection, pack_id: str, version: int) -> Pack:
        key = (pack_id, version)
        pack = self._packs.get(key)
        if pack is None:
            data = (await c.execute(select(t.packs.c.data).where(t.packs.c.id == pack_id))).scalar_one()
            pack = self._packs[key] = Pack.model_validate_json(data)
        return pack

    async def get_pack(self, pack_id: str) -> Pack | None:
        async with self._engine.connect() as c:
            version = (await c.execute(select(t.packs.c.version).where(t.packs.c.id == pack_id))).scalar()
            return None if version is None else await self._parsed(c, pack_id, version)

    async def list_packs(self, scope: str | None = None) -> list[PackInfo]:
        async with self._engine.connect() as c:
            rows = (await c.execute(select(t.packs.c.id, t.packs.c.version).order_by(t.packs.c.id))).all()
            parsed = [await self._parsed(c, row.id, row.version) for row in rows]
            flags: dict[str, bool] = {}
            if scope is not None:
                result = await c.execute(
                    select(t.pack_settings.c.pack_id, t.pack_settings.c.enabled).where(t.pack_settings.c.scope == scope)
                )
                flags = {r.pack_id: r.enabled for r in result}
        infos = []
        for pack in parsed:
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

    # ----------------------------------------------------------------- progress

    async def history(self, platform: str, user_id: str, packs: Sequence[str]) -> dict[tuple[str, str], History]:
        """Each graded question's last result and review card: one row per question, not per attempt."""
        r = t.reviews.c
        async with self._engine.connect() as c:
            rows = await c.execute(
                select(r.pack_id, r.question_id, r.due, r.card, r.correct, r.answers).where(
                    and_(r.platform == platform, r.user_id == user_id, r.pack_id.in_(list(packs)))
                )
            )
            return {
                (row.pack_id, row.question_id): History(
                    attempts=row.answers, last_correct=bool(row.correct), due=row.due, card=row.card
                )
                for row in rows
            }

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
    return cast(column, Integer)


def _as_date(value: Any) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return date.fromisoformat(str(value)[:10])
