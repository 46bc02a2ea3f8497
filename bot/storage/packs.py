"""Packs in the database: the validated pack as JSON, its questions' digests, and per-scope switches."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

from sqlalchemy import and_, bindparam, delete, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.core.errors import PackRefused
from bot.core.model import ImportReport, PackInfo
from bot.core.packs import Pack

from . import tables as t
from .base import Database
from .prepared import Prepared

_VERSION = Prepared(select(t.packs.c.version).where(t.packs.c.id == bindparam("id")))


class PackStore:
    """Store, list and remove packs, and enable or disable them per scope.

    A pack is parsed once per stored version and the parsed value is shared: a `Pack` is not
    changed after validation, and a new import has a new version (or replaces the row, which the
    next read notices by its version).
    """

    def __init__(self, db: Database) -> None:
        self._db = db
        self._parsed: dict[tuple[str, int], Pack] = {}

    async def get(self, pack_id: str) -> Pack | None:
        """The stored pack: its version read (every daily post's click reads it), parsed once per version."""
        rows = await self._db.rows(_VERSION, {"id": pack_id})
        if not rows:
            return None
        parsed = self._parsed.get((pack_id, rows[0]["version"]))
        if parsed is not None:
            return parsed
        async with self._db.read() as c:
            return await self._parse(c, pack_id, rows[0]["version"])

    async def list(self, scope: str | None = None) -> list[PackInfo]:
        """Every stored pack; `enabled` reflects the scope's settings when a scope is given."""
        async with self._db.read() as c:
            rows = (await c.execute(select(t.packs.c.id, t.packs.c.version).order_by(t.packs.c.id))).all()
            parsed = [await self._parse(c, row.id, row.version) for row in rows]
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
                PackInfo(pack.pack, pack.title, pack.version, len(pack.questions), flags.get(pack.pack, True), topics, pack.language or "")
            )
        return infos

    async def put(self, pack: Pack, *, force: bool = False) -> ImportReport:
        """Store the pack, refusing a version not above the stored one unless forced."""
        now = datetime.now(UTC)
        digests = {q.id: hashlib.sha256(q.model_dump_json().encode()).hexdigest() for q in pack.questions}
        try:
            previous, old = await self._put(pack, digests, now, force=force)
        except IntegrityError as exc:  # no row to lock yet: another process inserted the same new pack first
            raise PackRefused(
                f"Pack `{pack.pack}` was stored by another process at the same moment; that copy is kept."
            ) from exc
        self._parsed.pop((pack.pack, pack.version), None)  # a forced import may keep the version number
        return ImportReport(
            pack=pack.pack,
            version=pack.version,
            previous_version=previous,
            added=tuple(q for q in digests if q not in old),
            updated=tuple(q for q in digests if q in old and old[q] != digests[q]),
            removed=tuple(q for q in old if q not in digests),
        )

    async def _put(
        self, pack: Pack, digests: dict[str, str], now: datetime, *, force: bool
    ) -> tuple[int | None, dict[str, str]]:
        async with self._db.write() as c:
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
        return previous, old

    async def remove(self, pack_id: str) -> bool:
        async with self._db.write() as c:
            await c.execute(delete(t.questions).where(t.questions.c.pack_id == pack_id))
            result = await c.execute(delete(t.packs).where(t.packs.c.id == pack_id))
        return bool(result.rowcount)

    async def set_enabled(self, scope: str, pack_id: str, enabled: bool) -> None:
        async with self._db.write() as c:
            await c.execute(
                delete(t.pack_settings).where(and_(t.pack_settings.c.scope == scope, t.pack_settings.c.pack_id == pack_id))
            )
            await c.execute(insert(t.pack_settings).values(scope=scope, pack_id=pack_id, enabled=enabled))

    async def _parse(self, c: AsyncConnection, pack_id: str, version: int) -> Pack:
        key = (pack_id, version)
        pack = self._parsed.get(key)
        if pack is None:
            data = (await c.execute(select(t.packs.c.data).where(t.packs.c.id == pack_id))).scalar_one()
            pack = self._parsed[key] = Pack.model_validate_json(data)
        return pack
