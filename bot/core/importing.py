"""Keep a pack converted from another tool's file until its admin loads or cancels it.

A file that is not already a QuizBot pack (Moodle XML, GIFT, ...) is converted, shown to the admin
as a preview, and kept here, server-side, under a random key that the Load and Cancel buttons name.
Nothing the client sends back can change what gets loaded: the button only names the key, and the
key belongs to the admin who uploaded the file. Entries live in the settings table and expire.
"""

from __future__ import annotations

import base64
import binascii
import json
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from .errors import QuizError
from .model import Actor
from .ports import Clock, Repository

KEY_PREFIX = "convert:"
INDEX_KEY = "convert-index"  # the keys waiting, with their expiry: expired ones are emptied at the next upload
MAX_INDEXED = 200
TTL = timedelta(hours=1)
TOKEN_BYTES = 12  # 16 URL-safe characters: the action id stays far below Discord's 100
MAX_ZIP_BYTES = 8 * 1024 * 1024  # what a stored converted pack may take (the loader caps a pack at 8 MiB too)

# The files an admin may hand to `pack load`: packs as they are, and the formats `convert` reads.
NATIVE_SUFFIXES = (".yaml", ".yml", ".zip")
CONVERT_SUFFIXES = (".xml", ".gift", ".txt", ".json", ".csv", ".tsv", ".apkg", ".colpkg")
UPLOAD_SUFFIXES = NATIVE_SUFFIXES + CONVERT_SUFFIXES


class PreviewGone(QuizError):
    def __init__(self) -> None:
        super().__init__("This preview has expired or was already used. Load the file again to see a new one.")


@dataclass(frozen=True)
class Pending:
    """A converted pack waiting for its admin's answer."""

    key: str
    owner: str  # the actor key of the admin who uploaded the file
    filename: str  # the name to load the pack under (a .zip)
    data: bytes
    force: bool
    expires: datetime


class PendingPacks:
    """Converted packs by key, in the repository's settings, each for one admin and one hour."""

    def __init__(self, repository: Repository, clock: Clock, *, ttl: timedelta = TTL) -> None:
        self._repo = repository
        self._clock = clock
        self._ttl = ttl

    async def put(self, actor: Actor, filename: str, data: bytes, *, force: bool) -> str:
        """Keep the pack and return the key its buttons carry."""
        if len(data) > MAX_ZIP_BYTES:
            raise QuizError(f"The converted pack is {len(data) / 1048576:.1f} MiB; a pack may be at most 8 MiB.")
        token = secrets.token_urlsafe(TOKEN_BYTES)
        expires = (self._clock.now() + self._ttl).isoformat()
        record = {
            "owner": actor.key,
            "filename": filename,
            "force": force,
            "expires": expires,
            "data": base64.b64encode(data).decode("ascii"),
        }
        await self._repo.set_setting(KEY_PREFIX + token, json.dumps(record))
        await self._index(token, expires)
        return token

    async def _index(self, token: str, expires: str) -> None:
        """Remember the new key; empty the entries whose hour is over (their packs can no longer load)."""
        try:
            waiting = [(str(k), str(e)) for k, e in json.loads(await self._repo.get_setting(INDEX_KEY) or "[]")]
        except (ValueError, TypeError):
            waiting = []
        now = self._clock.now()
        kept: list[tuple[str, str]] = []
        for key, when in waiting:
            try:
                over = datetime.fromisoformat(when) <= now
            except ValueError:
                over = True
            if over:
                await self.drop(key)
            else:
                kept.append((key, when))
        kept.append((token, expires))
        for key, _ in kept[:-MAX_INDEXED]:
            await self.drop(key)
        await self._repo.set_setting(INDEX_KEY, json.dumps(kept[-MAX_INDEXED:]))

    async def get(self, actor: Actor, token: str) -> Pending:
        """Return the pending pack; refuse an unknown, used or expired key, or someone else's."""
        if not token or len(token) > 40:
            raise PreviewGone()
        raw = await self._repo.get_setting(KEY_PREFIX + token)
        if not raw:
            raise PreviewGone()
        try:
            record = json.loads(raw)
            expires = datetime.fromisoformat(str(record["expires"]))
            data = base64.b64decode(str(record["data"]), validate=True)
            pending = Pending(token, str(record["owner"]), str(record["filename"]), data, bool(record["force"]), expires)
        except (ValueError, KeyError, TypeError, binascii.Error) as exc:
            raise PreviewGone() from exc
        if pending.expires <= self._clock.now():
            await self.drop(token)
            raise PreviewGone()
        if pending.owner != actor.key:
            raise QuizError("This preview belongs to the admin who uploaded the file; load it yourself to see your own.")
        return pending

    async def drop(self, token: str) -> None:
        """Forget the pack (loaded, cancelled or expired): its row keeps only an empty value."""
        await self._repo.set_setting(KEY_PREFIX + token, "")
