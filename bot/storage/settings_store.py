"""Small named values the bot keeps (a command tree's digest, a learner's latest quiz, ...)."""

from __future__ import annotations

from sqlalchemy import bindparam, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from . import tables as t
from .base import Database
from .prepared import Prepared

# Built once: the locale middleware reads the learner's and the server's language through here.
_GET = Prepared(select(t.settings.c.value).where(t.settings.c.key == bindparam("key")))


class SettingsStore:
    """Get and set a string by key.

    A value about one learner has a key of the form `PLATFORM:...:USER_ID` (for example
    `discord:quiz:1234`), so that exporting or deleting the learner's data finds it.
    """

    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, key: str) -> str | None:
        rows = await self._db.rows(_GET, {"key": key})
        return rows[0]["value"] if rows else None

    async def set(self, key: str, value: str) -> None:
        # One statement, insert or update: two processes setting a new key at once (both syncing the
        # command tree at start-up) must not collide on the key as a delete-then-insert would.
        statement = (sqlite_insert if self._db.sqlite else pg_insert)(t.settings).values(key=key, value=value)
        async with self._db.write() as c:
            await c.execute(statement.on_conflict_do_update(index_elements=["key"], set_={"value": statement.excluded.value}))
