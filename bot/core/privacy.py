"""A learner's data rights: `my-data export` sends them everything kept, `my-data delete` removes it.

An admin may do the same for someone else (a learner who left). The deletion is logged with who
asked, whose data and how many rows, never with the content.
"""

from __future__ import annotations

import contextlib
import json
import logging
from typing import Any, Protocol

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
            raise QuizError("Data export and deletion are not available here; ask the operator.")
        if user_id is None or user_id == actor.user_id:
            return actor.user_id
        self._admins.require(actor, "export or delete another person's data")
        return user_id

    async def export(self, actor: Actor, user_id: str | None = None, name: str | None = None) -> Reply:
        target = self._target(actor, user_id)
        assert self.store is not None
        tables = await self.store.export_user(actor.platform, target)
        data = export_document(actor.platform, target, tables, self._clock.now().isoformat())
        if len(data) > MAX_EXPORT_BYTES:
            raise QuizError("The export is larger than a chat file may be; the operator can run `quizbot user export`.")
        rows = sum(len(r) for r in tables.values())
        who = "you" if target == actor.user_id else (name or target)
        text = f"Everything kept about {who}: {rows} row{'s' if rows != 1 else ''} in {len(tables)} table{'s' if len(tables) != 1 else ''}."
        log.info("%s exported the data of %s:%s (%d rows)", actor.key, actor.platform, target, rows)
        part = Attachment(data, export_filename(actor.platform, target), "application/json")
        message = Message(kind="notice", title="Your data" if who == "you" else "Data export", parts=(Text(text), part))
        return Reply(messages=(message,))

    async def delete(self, actor: Actor, user_id: str | None = None, name: str | None = None, *, confirmed: bool = False) -> Reply:
        target = self._target(actor, user_id)
        assert self.store is not None
        own = target == actor.user_id
        if not confirmed:
            whose = "your" if own else f"{name or target}'s"
            text = (
                f"Delete all of {whose} QuizBot data here: quizzes, answers, review cards, daily settings, streaks "
                f"and leaderboard entries? This cannot be undone; {cmd('my-data export')} first if you want a copy."
            )
            yes = Button(ax.admin(ax.DELETE_DATA, target, prefix=ax.DATA_PREFIX), "Delete everything", "danger", role="confirm")
            no = Button(ax.admin(ax.KEEP_DATA, target, prefix=ax.DATA_PREFIX), "Keep it", role="cancel")
            message = Message(kind="notice", title="Delete data?", parts=(Text(text),), rows=((yes, no),), tone=Tone.WARNING)
            return Reply(messages=(message,))
        # Stop running quizzes through the repository first, so no cached copy outlives the delete.
        for session in await self._repo.active_sessions_of(actor.platform, target):
            session.status = "stopped"
            with contextlib.suppress(Conflict):  # changed meanwhile: the delete below removes it all the same
                await self._repo.save_session(session)
        counts = await self.store.delete_user(actor.platform, target)
        rows = sum(counts.values())
        log.info("%s deleted the data of %s:%s (%d rows)", actor.key, actor.platform, target, rows)
        whose = "Your" if own else (f"{name}'s" if name else "The learner's")
        if rows == 0:  # a second press of Delete (a stale copy of the prompt), or nothing ever kept
            whom = "you" if own else (name or "this learner")
            return notice(f"Nothing to delete: no QuizBot data about {whom} is kept here (it was deleted already, or there was none).")
        return notice(f"{whose} data was deleted ({rows} row{'s' if rows != 1 else ''}).", tone=Tone.SUCCESS)

    async def keep(self, actor: Actor, user_id: str) -> Reply:
        return notice("Nothing was deleted.")
