"""A learner's data rights: `my-data export` sends them everything kept, `my-data delete` removes it.

An admin may do the same for someone else (a learner who left). The deletion is logged with who
asked, whose data and how many rows, never with the content.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any, Protocol

from bot.core.i18n import _, ngettext, number, pgettext

from . import actions as ax
from . import requests as rq
from .admin import Admins
from .dispatch import Dispatcher, Unclaimed
from .errors import QuizError
from .model import Actor
from .ports import Clock, Conflict, Repository
from .replies import Attachment, Button, Message, Reply, Text, Tone, cmd, notice, outcome

log = logging.getLogger("quizbot.privacy")

MAX_EXPORT_BYTES = 8 * 1024 * 1024  # what one chat attachment may carry; more: the operator's CLI


class PersonalData(Protocol):
    """What storage offers for one learner's rows, in every table that has a user column."""

    async def export_user(self, platform: str, user_id: str) -> dict[str, list[dict[str, Any]]]: ...

    async def delete_user(self, platform: str, user_id: str) -> dict[str, int]: ...


def export_document(platform: str, user_id: str, tables: dict[str, list[dict[str, Any]]], now: str) -> bytes:
    """Return the export as indented JSON: who, when, and the rows by table."""
    document = {
        "platform": platform,
        "user_id": user_id,
        "exported_at": now,
        "about": "Everything QuizBot keeps about this learner, by table. Tables without rows are left out.",
        "tables": tables,
    }
    return json.dumps(document, indent=2, ensure_ascii=False, default=str).encode("utf-8")


def export_filename(platform: str, user_id: str) -> str:
    safe = "".join(ch for ch in user_id if ch.isalnum() or ch in "-_")[:40] or "user"
    return f"quizbot-data-{platform}-{safe}.json"


class MyData:
    """Export and delete one learner's data, for themselves or, by an admin, for someone else."""

    def __init__(
        self, *, repository: Repository, clock: Clock, admins: Admins, store: PersonalData | None = None
    ) -> None:
        self._repo = repository
        self._clock = clock
        self._admins = admins
        self.store = store  # set by whoever opens the database (bot/app.py)
        # Told (platform, user id) once a learner's data is deleted: what a feature keeps in memory goes too.
        self.forgetting: list[Callable[[str, str], None]] = []

    def register(self, dispatcher: Dispatcher) -> None:
        """`my-data export|delete`, and the delete confirmation's buttons (`md:`; before, `qz:-:`)."""
        dispatcher.request(rq.MyDataExport, self.on_export)
        dispatcher.request(rq.MyDataDelete, self.on_delete)
        dispatcher.action(ax.DATA_PREFIX, self.on_confirm)
        dispatcher.also(ax.PREFIX, self.on_confirm)

    async def on_export(self, actor: Actor, request: rq.MyDataExport) -> Reply:
        return await self.export(actor, request.user_id, request.name)

    async def on_delete(self, actor: Actor, request: rq.MyDataDelete) -> Reply:
        return await self.delete(actor, request.user_id, request.name)

    async def on_confirm(self, actor: Actor, request: rq.Act) -> Reply:
        action = ax.parse(request.action, prefix=None)
        if action is None or action.session_id != ax.NO_SESSION or action.verb not in (ax.DELETE_DATA, ax.KEEP_DATA):
            raise Unclaimed()
        # The prompt is edited into what was done, its buttons gone (`outcome`).
        if action.verb == ax.DELETE_DATA:
            return outcome(await self.delete(actor, action.argument, confirmed=True))
        return outcome(await self.keep(actor, action.argument))

    def _target(self, actor: Actor, user_id: str | None) -> str:
        if self.store is None:
            raise QuizError(_("Data export and deletion are not available here; ask the operator."))
        if user_id is None or user_id == actor.user_id:
            return actor.user_id
        self._admins.require(actor, _("export or delete another person's data"))
        return user_id

    async def export(self, actor: Actor, user_id: str | None = None, name: str | None = None) -> Reply:
        target = self._target(actor, user_id)
        assert self.store is not None
        tables = await self.store.export_user(actor.platform, target)
        data = export_document(actor.platform, target, tables, self._clock.now().isoformat())
        if len(data) > MAX_EXPORT_BYTES:
            raise QuizError(_("The export is larger than a chat file may be; the operator can run `quizbot user export`."))
        rows = sum(len(r) for r in tables.values())
        own = target == actor.user_id
        in_tables = ngettext("in {n} table", "in {n} tables", len(tables)).format(n=number(len(tables)))
        if own:
            text = ngettext("Everything kept about you: {n} row {tables}.", "Everything kept about you: {n} rows {tables}.", rows)
        else:
            text = ngettext("Everything kept about {who}: {n} row {tables}.", "Everything kept about {who}: {n} rows {tables}.", rows)
        text = text.format(who=name or target, n=number(rows), tables=in_tables)
        log.info("%s exported the data of %s:%s (%d rows)", actor.key, actor.platform, target, rows)
        part = Attachment(data, export_filename(actor.platform, target), "application/json")
        message = Message(kind="notice", title=_("Your data") if own else _("Data export"), parts=(Text(text), part))
        return Reply(messages=(message,))

    async def delete(self, actor: Actor, user_id: str | None = None, name: str | None = None, *, confirmed: bool = False) -> Reply:
        target = self._target(actor, user_id)
        assert self.store is not None
        own = target == actor.user_id
        if not confirmed:
            if own:
                text = _(
                    "Delete all of your QuizBot data here: quizzes, answers, review cards, daily settings, streaks, "
                    "language and leaderboard entries? This cannot be undone; {export} first if you want a copy."
                )
            else:
                text = _(
                    "Delete all of {who}'s QuizBot data here: quizzes, answers, review cards, daily settings, streaks, "
                    "language and leaderboard entries? This cannot be undone; {export} first if you want a copy."
                )
            text = text.format(who=name or target, export=cmd("my-data export"))
            yes = Button(ax.admin(ax.DELETE_DATA, target, prefix=ax.DATA_PREFIX), pgettext("button", "Delete everything"), "danger", role="confirm")
            no = Button(ax.admin(ax.KEEP_DATA, target, prefix=ax.DATA_PREFIX), pgettext("button", "Keep it"), role="cancel")
            message = Message(kind="notice", title=_("Delete data?"), parts=(Text(text),), rows=((yes, no),), tone=Tone.WARNING)
            return Reply(messages=(message,))
        # Stop running quizzes through the repository first, so no cached copy outlives the delete.
        for session in await self._repo.active_sessions_of(actor.platform, target):
            session.status = "stopped"
            with contextlib.suppress(Conflict):  # changed meanwhile: the delete below removes it all the same
                await self._repo.save_session(session)
        counts = await self.store.delete_user(actor.platform, target)
        for forget in self.forgetting:
            forget(actor.platform, target)
        rows = sum(counts.values())
        log.info("%s deleted the data of %s:%s (%d rows)", actor.key, actor.platform, target, rows)
        if rows == 0:  # a second press of Delete (a stale copy of the prompt), or nothing ever kept
            if own:
                return notice(_("Nothing to delete: no QuizBot data about you is kept here (it was deleted already, or there was none)."))
            return notice(
                _("Nothing to delete: no QuizBot data about {who} is kept here (it was deleted already, or there was none).").format(
                    who=name or _("this learner")
                )
            )
        if own:
            text = ngettext("Your data was deleted ({n} row).", "Your data was deleted ({n} rows).", rows)
        elif name:
            text = ngettext("{who}'s data was deleted ({n} row).", "{who}'s data was deleted ({n} rows).", rows)
        else:
            text = ngettext("The learner's data was deleted ({n} row).", "The learner's data was deleted ({n} rows).", rows)
        return notice(text.format(who=name, n=number(rows)), tone=Tone.SUCCESS)

    async def keep(self, actor: Actor, user_id: str) -> Reply:
        return notice(_("Nothing was deleted."))
