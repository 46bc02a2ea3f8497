"""Keep a pack converted from another tool's file until its admin loads or cancels it.

A file that is not already a QuizBot pack (Moodle XML, GIFT, ...) is converted, shown to the admin
as a preview, and kept here, server-side, under a random key that the Load and Cancel buttons name.
Nothing the client sends back can change what gets loaded: the button only names the key, and the
key belongs to the admin who uploaded the file. Entries live in their own table (`PendingStore`,
one row per upload) and expire after an hour: an expired row is removed when read and at the next upload.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from bot.core.i18n import N_, _, number

from .errors import PackRefused, QuizError
from .model import Actor
from .ports import Clock
from .replies import cmd

TTL = timedelta(hours=1)
TOKEN_BYTES = 12  # 16 URL-safe characters: the action id stays far below Discord's 100
MAX_ZIP_BYTES = 8 * 1024 * 1024  # what a stored converted pack may take (the loader caps a pack at 8 MiB too)

# The files an admin may hand to `pack load`: packs as they are, and the formats `convert` reads.
NATIVE_SUFFIXES = (".yaml", ".yml", ".zip")
CONVERT_SUFFIXES = (".xml", ".gift", ".txt", ".json", ".csv", ".tsv", ".apkg", ".colpkg")
UPLOAD_SUFFIXES = NATIVE_SUFFIXES + CONVERT_SUFFIXES


def pack_owner(actor: Actor) -> str | None:
    """Who a pack the actor loads belongs to: their server or workspace (`platform:scope`).

    None is the operator, who may change any pack: the terminal (`quizbot console`) is the operator's,
    and so is a DM, which is no server (only the operator, `QUIZBOT_ADMINS`, may load packs there).
    """
    in_dm = actor.scope == "dm" or actor.scope.startswith("dm:")
    return None if actor.platform == "console" or in_dm else f"{actor.platform}:{actor.scope}"


# A pack is changed and removed only from the server or workspace whose admin loaded it first.
_NOT_THEIRS_LOAD = {
    "discord": N_(
        "The pack `{pack}` is not this server's: it was loaded by the operator or another server. "
        "Give your pack another id (the `pack:` line) to load it here."
    ),
    "slack": N_(
        "The pack `{pack}` is not this workspace's: it was loaded by the operator or another workspace. "
        "Give your pack another id (the `pack:` line) to load it here."
    ),
    "": N_(
        "The pack `{pack}` was loaded by the operator or by another server or workspace, not here. "
        "Give your pack another id (the `pack:` line) to load it here."
    ),
}
_NOT_THEIRS_REMOVE = {
    "discord": N_(
        "The pack `{pack}` is not this server's: it was loaded by the operator or another server, and only they "
        "may remove it. Nothing was changed; {disable} `{pack}` hides it here."
    ),
    "slack": N_(
        "The pack `{pack}` is not this workspace's: it was loaded by the operator or another workspace, and only "
        "they may remove it. Nothing was changed; {disable} `{pack}` hides it here."
    ),
    "": N_(
        "The pack `{pack}` was loaded by the operator or by another server or workspace, and only they may remove "
        "it. Nothing was changed; {disable} `{pack}` hides it here."
    ),
}


class PackNotTheirs(PackRefused):
    """A server's or workspace's admin changing or removing a pack another one, or the operator, loaded."""

    def __init__(self, pack_id: str, by: str, *, removing: bool = False, owner: str | None = None) -> None:
        """`by`: the server or workspace that tried (`pack_owner`), whose platform names the place; `owner`
        (None: the operator): a pack of another platform's server or workspace is named as such."""
        self.pack_id, self.by, self.removing = pack_id, by, removing
        platform = by.split(":", 1)[0]
        if owner is not None and owner.split(":", 1)[0] != platform:
            platform = ""  # not "another workspace" for a Discord server's pack, nor the reverse
        texts = _NOT_THEIRS_REMOVE if removing else _NOT_THEIRS_LOAD
        super().__init__(_(texts.get(platform, texts[""])).format(pack=pack_id, disable=cmd("pack disable")))


class PreviewGone(QuizError):
    def __init__(self) -> None:
        super().__init__(_("This preview has expired or was already used. Load the file again to see a new one."))


@dataclass(frozen=True)
class Pending:
    """A converted pack waiting for its admin's answer."""

    key: str
    owner: str  # the actor key of the admin who uploaded the file
    filename: str  # the name to load the pack under (a .zip)
    data: bytes
    force: bool
    expires: datetime


class PendingStore(Protocol):
    """Where converted packs wait (storage implements it: the `pending_packs` table), one row per key."""

    async def put(self, pending: Pending) -> None: ...

    async def get(self, key: str) -> Pending | None: ...

    async def drop(self, key: str) -> None: ...

    async def drop_expired(self, now: datetime) -> int:
        """Remove every row whose expiry is `now` or earlier; return how many."""
        ...


class PendingPacks:
    """Converted packs by key, each for one admin and one hour."""

    def __init__(self, store: PendingStore, clock: Clock, *, ttl: timedelta = TTL) -> None:
        self._store = store
        self._clock = clock
        self._ttl = ttl

    async def put(self, actor: Actor, filename: str, data: bytes, *, force: bool) -> str:
        """Keep the pack and return the key its buttons carry; remove the previews whose hour is over."""
        if len(data) > MAX_ZIP_BYTES:
            raise QuizError(
                _("The converted pack is {size} MiB; a pack may be at most 8 MiB.").format(size=number(len(data) / 1048576, 1))
            )
        now = self._clock.now()
        await self._store.drop_expired(now)
        token = secrets.token_urlsafe(TOKEN_BYTES)
        await self._store.put(Pending(token, actor.key, filename, data, force, now + self._ttl))
        return token

    async def get(self, actor: Actor, token: str) -> Pending:
        """Return the pending pack; refuse an unknown, used or expired key, or someone else's."""
        if not token or len(token) > 40:
            raise PreviewGone()
        pending = await self._store.get(token)
        if pending is None:
            raise PreviewGone()
        if pending.expires <= self._clock.now():
            await self._store.drop(token)
            raise PreviewGone()
        if pending.owner != actor.key:
            raise QuizError(_("This preview belongs to the admin who uploaded the file; load it yourself to see your own."))
        return pending

    async def drop(self, token: str) -> None:
        """Forget the pack (loaded, cancelled or expired)."""
        await self._store.drop(token)
