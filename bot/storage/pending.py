"""Converted packs waiting for their admin: `bot.core.importing.PendingStore` on the `pending_packs` table.

One row per preview, under its random key, with its expiry; two uploads at once keep two rows.
Expired rows are deleted by `drop_expired`, which the core calls at each new upload (and a read
of an expired row deletes it too), so nothing outlives its hour for long.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Column, LargeBinary, String, Table, delete, insert, select

from bot.core.importing import Pending

from .base import Database
from .tables import UTCDateTime, metadata

pending_packs = Table(
    "pending_packs",
    metadata,
    Column("key", String(40), primary_key=True),
    Column("owner", String(130), nullable=False),  # the actor key of the admin who uploaded the file
    Column("filename", String(255), nullable=False),
    Column("data", LargeBinary, nullable=False),
    Column("force", Boolean, nullable=False),
    Column("expires", UTCDateTime, nullable=False, index=True),
)


class PendingPackStore:
    """Keep, read and remove converted packs by key."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def put(self, pending: Pending) -> None:
        row = {
            "key": pending.key,
            "owner": pending.owner,
            "filename": pending.filename,
            "data": pending.data,
            "force": pending.force,
            "expires": pending.expires,
        }
        async with self._db.write() as c:
            await c.execute(insert(pending_packs), [row])

    async def get(self, key: str) -> Pending | None:
        async with self._db.read() as c:
            row = (await c.execute(select(pending_packs).where(pending_packs.c.key == key))).mappings().first()
        if row is None:
            return None
        return Pending(row["key"], row["owner"], row["filename"], bytes(row["data"]), bool(row["force"]), row["expires"])

    async def drop(self, key: str) -> None:
        async with self._db.write() as c:
            await c.execute(delete(pending_packs).where(pending_packs.c.key == key))

    async def drop_expired(self, now: datetime) -> int:
        async with self._db.write() as c:
            result = await c.execute(delete(pending_packs).where(pending_packs.c.expires <= now))
        return int(result.rowcount or 0)
