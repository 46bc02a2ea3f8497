"""Packs in the database: the validated pack as JSON, its owner, its questions' digests, and per-scope switches.

A pack's owner (`packs.owner`) is the server or workspace whose admin loaded it first, NULL for the
operator. A write by a server or workspace (`by`) changes only a pack it owns: the replacing UPDATE
and the DELETE carry the owner in their WHERE, in the transaction that checked it, and when they
change no row the transaction is rolled back and `PackNotTheirs` raised.

A pack that a scope's switches do not name is on there when the operator loaded it, or when it is
that scope's own (`shown_by_default`): a server's pack reaches another server's quizzes only once an
admin there enables it.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

from sqlalchemy import ColumnElement, and_, bindparam, delete, insert, select, true, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.core.errors import PackRefused
from bot.core.importing import PackNotTheirs
from bot.core.model import ImportReport, PackInfo
from bot.core.packs import Pack
from bot.core.packs.models import STORED

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
        """Every stored pack; with a scope, `enabled` is the scope's switch, and another scope's pack
        that no switch here names is left out (`shown_by_default`)."""
        async with self._db.read() as c:
            rows = (await c.execute(select(t.packs.c.id, t.packs.c.version, t.packs.c.owner).order_by(t.packs.c.id))).all()
            parsed = [await self._parse(c, row.id, row.version) for row in rows]
            flags: dict[str, bool] = {}
            if scope is not None:
                result = await c.execute(
                    select(t.pack_settings.c.pack_id, t.pack_settings.c.enabled).where(t.pack_settings.c.scope == scope)
                )
                flags = {r.pack_id: r.enabled for r in result}
        owners = {row.id: row.owner for row in rows}
        infos = []
        for pack in parsed:
            on = scope is None or flags.get(pack.pack, shown_by_default(owners[pack.pack], scope))
            if not on and scope is not None and pack.pack not in flags:
                continue  # another server's or workspace's pack, never switched on here: not listed here
            topics = tuple((tp.id, tp.title) for tp in pack.topics) or tuple(
                (q, q) for q in dict.fromkeys(q.topic for q in pack.questions if q.topic)
            )
            infos.append(
                PackInfo(pack.pack, pack.title, pack.version, len(pack.questions), on, topics, pack.language or "")
            )
        return infos

    async def put(self, pack: Pack, *, force: bool = False, by: str | None = None) -> ImportReport:
        """Store the pack, refusing a version not above the stored one unless forced.

        `by`: the server or workspace loading it (None: the operator). A new pack becomes its own; a
        stored pack that another one (or the operator) owns is refused with `PackNotTheirs`.
        """
        now = datetime.now(UTC)
        digests = {q.id: hashlib.sha256(q.model_dump_json().encode()).hexdigest() for q in pack.questions}
        try:
            previous, old = await self._put(pack, digests, now, force=force, by=by)
        except IntegrityError as exc:  # no row to lock yet: another process inserted the same new pack first
            raise _raced(pack.pack) from exc
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
        self, pack: Pack, digests: dict[str, str], now: datetime, *, force: bool, by: str | None
    ) -> tuple[int | None, dict[str, str]]:
        async with self._db.write() as c:
            stored = (
                await c.execute(
                    select(t.packs.c.version, t.packs.c.owner).where(t.packs.c.id == pack.pack).with_for_update()
                )
            ).first()
            previous = stored.version if stored is not None else None
            if stored is not None and by is not None and stored.owner != by:
                raise PackNotTheirs(pack.pack, by, owner=stored.owner)
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
            values = {"version": pack.version, "title": pack.title, "data": pack.model_dump_json(), "updated_at": now}
            if previous is None:
                await c.execute(insert(t.packs).values(id=pack.pack, owner=by, **values))
            else:  # the row read above, still at its version and (for a scope) still its own; or nothing changes
                same = and_(t.packs.c.id == pack.pack, t.packs.c.version == previous, _owned_by(by))
                if (await c.execute(update(t.packs).where(same).values(**values))).rowcount != 1:
                    raise _raced(pack.pack)
            await c.execute(delete(t.questions).where(t.questions.c.pack_id == pack.pack))
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

    async def remove(self, pack_id: str, *, by: str | None = None) -> bool:
        """Remove the pack and its questions' digests (False: none stored); `by` as in `put`."""
        async with self._db.write() as c:
            result = await c.execute(delete(t.packs).where(and_(t.packs.c.id == pack_id, _owned_by(by))))
            if not result.rowcount:
                kept = (await c.execute(select(t.packs.c.owner).where(t.packs.c.id == pack_id))).first()
                if by is not None and kept is not None:
                    raise PackNotTheirs(pack_id, by, removing=True, owner=kept.owner)
                return False
            await c.execute(delete(t.questions).where(t.questions.c.pack_id == pack_id))
            # Every scope's switch goes with it: the id is free, and another server's pack loaded under
            # it later must not appear where an admin had enabled this one.
            await c.execute(delete(t.pack_settings).where(t.pack_settings.c.pack_id == pack_id))
        return True

    async def owners(self) -> dict[str, str | None]:
        """Each stored pack's owner: `platform:scope`, or None for the operator."""
        async with self._db.read() as c:
            return {r.id: r.owner for r in await c.execute(select(t.packs.c.id, t.packs.c.owner))}

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
            pack = self._parsed[key] = Pack.model_validate_json(data, context={STORED: True})
        return pack


def shown_by_default(owner: str | None, scope: str) -> bool:
    """Whether a pack is on in `scope` while no switch there names it: the operator's everywhere, a
    server's or workspace's (`platform:scope`) only in that scope."""
    return owner is None or owner.partition(":")[2] == scope


def _owned_by(by: str | None) -> ColumnElement[bool]:
    """The rows `by` may change: its own (a server or workspace), or every one (the operator, None)."""
    return t.packs.c.owner == by if by is not None else true()


def _raced(pack_id: str) -> PackRefused:
    return PackRefused(f"Pack `{pack_id}` was stored by another process at the same moment; that copy is kept.")
