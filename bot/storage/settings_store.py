"""Small named values the bot keeps (a command tree's digest, a learner's latest quiz, ...)."""

from __future__ import annotations

from sqlalchemy import delete, insert, select

from . import tables as t
from .base import Database


class SettingsStore:
    """Get and set a string by key.

    A value about one learner has a key of the form `PLATFORM:...:USER_ID` (for example
    `discord:quiz:1234`), so that exporting or deleting the learner's data finds it.
    """

    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, key: str) -> str | None:
        async with self._db.read() as c:
            return (await c.execute(select(t.settings.c.value).where(t.settings.c.key == key))).scalar()

    async def set(self, key: str, value: str) -> None:
        async with self._db.write() as c:
            await c.execute(delete(t.settings).where(t.settings.c.key == key))
            await c.execute(insert(t.settings).values(key=key, value=value))
