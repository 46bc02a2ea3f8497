"""Pack administration from the chat, and who may do it."""

from __future__ import annotations

import asyncio

from . import actions as ax
from .catalogue import Catalogue
from .errors import NotAllowed, UnknownName
from .model import Actor, ImportReport
from .packs import load_bytes
from .replies import Button, Message, Reply, Text, Tone, notice


class Admins:
    """An admin is whoever the platform says (Manage Server, workspace admin) or the operator named."""

    def __init__(self, extra: frozenset[str] = frozenset()) -> None:
        self._extra = extra

    def allows(self, actor: Actor) -> bool:
        return actor.is_admin or actor.key in self._extra

    def require(self, actor: Actor, what: str) -> None:
        if not self.allows(actor):
            raise NotAllowed(what, in_dm=actor.scope.startswith("dm:") or actor.scope == "dm")


class PackAdmin:
    def __init__(self, *, catalogue: Catalogue, admins: Admins) -> None:
        self._catalogue = catalogue
        self._admins = admins

    async def load(self, actor: Actor, filename: str, data: bytes, *, force: bool = False) -> Reply:
        self._admins.require(actor, "load packs")
        loaded = await asyncio.to_thread(load_bytes, filename, data)
        report = await self._catalogue.import_pack(loaded.pack, force=force)
        parts = (Text(report_text(report)),)
        return Reply(messages=(Message(kind="admin", title="Pack loaded", parts=parts, tone=Tone.SUCCESS),))

    async def set_enabled(self, actor: Actor, pack_id: str, enabled: bool) -> Reply:
        self._admins.require(actor, "enable or disable packs")
        await self._known(pack_id)
        await self._catalogue.set_enabled(actor.scope, pack_id, enabled)
        word = "enabled" if enabled else "disabled"
        return notice(f"Pack `{pack_id}` is {word} here.", tone=Tone.SUCCESS)

    async def remove(self, actor: Actor, pack_id: str, *, confirmed: bool) -> Reply:
        """Remove a pack everywhere, after a confirmation; learners' history stays."""
        self._admins.require(actor, "remove packs")
        await self._known(pack_id)
        if not confirmed:
            yes = Button(ax.admin(ax.REMOVE_PACK, pack_id), f"Remove {pack_id}", "danger", role="confirm")
            no = Button(ax.admin(ax.CANCEL, pack_id), "Keep it", role="cancel")
            text = (
                f"Remove the pack `{pack_id}` from every server? Its questions leave every quiz; "
                "what learners answered stays in their history and stats."
            )
            message = Message(kind="admin", title="Remove a pack?", parts=(Text(text),), rows=((yes, no),), tone=Tone.WARNING)
            return Reply(messages=(message,))
        await self._catalogue.remove(pack_id)
        return notice(f"Pack `{pack_id}` was removed. Learners' history of it is kept.", tone=Tone.SUCCESS)

    async def _known(self, pack_id: str) -> None:
        names = [p.id for p in await self._catalogue.listing()]
        if pack_id not in names:
            raise UnknownName("pack", pack_id, names)


def report_text(report: ImportReport) -> str:
    text = report.summary()
    if report.removed:
        text += "\nRemoved: " + ", ".join(f"`{r}`" for r in report.removed[:20])
    return text
