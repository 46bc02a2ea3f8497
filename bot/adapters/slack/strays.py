"""Requests that do not fit. Clicks, forms and events no listener takes: a stale button of an older version, or an id someone made up.

Bolt runs the first listener that matches a request, so these catch-alls are attached after every
other listener (`build_bolt_app`): they take only what nothing before them took. Without them Bolt
answers 404, the person sees Slack's error mark, and Bolt's warning quotes the whole action id
(which a signed sender can make a megabyte long) into the log. Here the click or form is
acknowledged, the person is told privately that it no longer works and where their question is,
and the log gets one line with the id cut short. `ShortRecords` bounds Bolt's own records too, for
the requests that still reach its unhandled-request warning. A signed request not shaped as Slack
sends it (`malformed`) is acknowledged before Bolt reads it, and nothing is done.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp

from bot.core.i18n import N_, _
from bot.core.replies import Tone, cmd, edit_not_graded, notice

from . import render as bk
from .deliver import Courier, Jobs
from .origin import Origin, from_action, from_view

log = logging.getLogger("quizbot.slack")

ANY_ID = re.compile("")  # matches every action id and callback id: registered last, it takes only what nothing else took
ID_SHOWN = 60  # characters of an unknown id written to the log
RECORD_MAX = 800  # characters of one record of Bolt's logger
BUTTON_GONE = N_("That button no longer works here; {current} shows your question.")
FORM_GONE = N_("That form no longer works here; {current} shows your question.")


def short_id(value: Any) -> str:
    """An id as the log shows it: at most ID_SHOWN characters, and its length when cut."""
    text = value if isinstance(value, str) else type(value).__name__
    return text if len(text) <= ID_SHOWN else f"{text[:ID_SHOWN]}… ({len(text):,} characters)"


class Strays:
    """The catch-all listeners for block actions and view submissions."""

    def __init__(self, *, courier: Courier, jobs: Jobs) -> None:
        self._courier = courier
        self._jobs = jobs

    def register(self, bolt: AsyncApp) -> None:
        """Attach the catch-alls: call this after every other listener is attached."""
        then = self._jobs.acked_then
        bolt.block_action(ANY_ID)(then(_ack, self.on_button))
        bolt.view_submission(ANY_ID)(then(_ack, self.on_form, with_view=True))
        bolt.event(ANY_ID)(_ack)  # an event nothing acts on (the bot removed from a channel, a mention): a 404 would be resent

    async def on_button(self, body: dict[str, Any]) -> None:
        origin = from_action(body)
        actions = body.get("actions")
        action = actions[0] if isinstance(actions, list) and actions and isinstance(actions[0], dict) else {}
        log.info("a click on a control no listener takes (%s) from %s; told it no longer works", short_id(action.get("action_id")), origin.user)
        await self._tell(origin, BUTTON_GONE)

    async def on_form(self, body: dict[str, Any], view: dict[str, Any]) -> None:
        origin = from_view(body, bk.read_metadata(view.get("private_metadata")))
        log.info("a form no listener takes (%s) from %s; told it no longer works", short_id(view.get("callback_id")), origin.user)
        await self._tell(origin, FORM_GONE)

    async def _tell(self, origin: Origin, text: str) -> None:
        async with self._jobs.run(origin):  # in the person's language; a failure is logged, not raised
            await self._courier.tell(origin, notice(_(text).format(current=cmd("current")), tone=Tone.WARNING))


# ------------------------------------------------------------------ edits
#
# An edited message that holds code: not graded, and the learner is told so.
#
# Slack reports an edit as a `message` event with subtype `message_changed` (the new message in
# `event.message`, the old one in `event.previous_message`). An edit is not graded (why:
# `replies.edit_not_graded`), and a learner who edits code in the bot's DM is told privately to send the code again as a new
# message, rather than waiting for a grade that never comes. An edit that leaves the text as it was
# (Slack sends one when it adds a link preview), one without code, one by a bot, and one in a channel
# (where code may be anyone's conversation) stay silent.


class Edits:
    """The listener for edited messages; attach it before any catch-all `message` listener."""

    def __init__(self, *, courier: Courier, jobs: Jobs) -> None:
        self._courier = courier
        self._jobs = jobs

    def register(self, bolt: AsyncApp) -> None:
        bolt.event({"type": "message", "subtype": "message_changed"})(self._jobs.acked_then(_ack, self.on_edit))

    async def on_edit(self, body: dict[str, Any]) -> None:
        event = body.get("event") or {}
        origin = edited_code(body, event)
        if origin is None:
            return
        log.info("an edited code message from %s; told edits are not graded", origin.user)
        async with self._jobs.run(origin):
            await self._courier.tell(origin, edit_not_graded())


def edited_code(body: dict[str, Any], event: dict[str, Any]) -> Origin | None:
    """Who edited code in the bot's DM (where to tell them), or None when the edit needs no word."""
    new, old = event.get("message"), event.get("previous_message")
    if not isinstance(new, dict) or event.get("channel_type") != "im" or not isinstance(event.get("channel"), str):
        return None
    user, text = new.get("user"), new.get("text")
    if new.get("bot_id") or new.get("bot_profile") or not isinstance(user, str) or not user or user in _bots(body):
        return None  # the bot's own message updated (an item answered), or another app's
    if not isinstance(text, str) or "```" not in text:
        return None
    if isinstance(old, dict) and old.get("text") == text:
        return None  # the same text: a link preview or an attachment changed, not the code
    team = str(body.get("team_id") or new.get("team") or "slack")
    return Origin(team=team, user=user, channel=event["channel"])


def _bots(body: dict[str, Any]) -> set[str]:
    """The bot users this event was delivered for (Slack's `authorizations`)."""
    found = body.get("authorizations")
    return {str(a.get("user_id")) for a in found if isinstance(a, dict) and a.get("is_bot")} if isinstance(found, list) else set()


async def _ack(ack: Callable[..., Awaitable[Any]], *_args: Any) -> None:
    await ack()  # a click: the empty 200; a form: closes it


_INTERACTIONS = ("block_actions", "block_suggestion", "view_submission", "view_closed", "shortcut", "message_action")
_OBJECTS = ("user", "team", "channel", "container", "view", "message", "state")


def malformed(body: dict[str, Any]) -> str | None:
    """Why a signed request is not shaped as Slack sends it (None when it is), checked before Bolt reads it.

    Bolt's listener matchers and the front end read these fields as Slack's documentation gives
    them; a request that a signing-secret holder made up otherwise (an action id that is a number,
    no actions at all) would raise inside Bolt: a 500 and an error in the log. It gets an empty 200.
    """
    kind = body.get("type")
    if kind == "event_callback":
        event = body.get("event")
        if not isinstance(event, dict):
            return "an event that is not an object"
        for key in ("user", "channel", "item", "message", "previous_message"):  # what Bolt reads an id from
            if event.get(key) is not None and not isinstance(event[key], str | dict):
                return f"an event whose {key} is neither text nor an object"
    if kind not in _INTERACTIONS:
        return None
    for key in _OBJECTS:
        if key in body and body[key] is not None and not isinstance(body[key], dict):
            return f"a {key} that is not an object"
    if kind == "block_actions":
        actions = body.get("actions")
        if not isinstance(actions, list) or not actions:
            return "no list of actions"
        for action in actions:
            if not isinstance(action, dict) or not isinstance(action.get("action_id"), str):
                return "an action without a text action id"
            if not isinstance(action.get("block_id", ""), str):
                return "an action whose block id is not text"
            if not isinstance(action.get("selected_option") or {}, dict) or not _objects(action.get("selected_options", [])):
                return "a menu choice that is not an object"
    if kind in ("view_submission", "view_closed"):
        view = body.get("view")
        if not isinstance(view, dict) or not isinstance(view.get("callback_id", ""), str):
            return "a form without a text callback id"
        if not isinstance(view.get("type"), str):
            return "a form without a type"
    return None


def _objects(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, dict) for item in value)


class ShortRecords(logging.Filter):
    """Cut each record of Bolt's logger to RECORD_MAX characters.

    Bolt's warning for a request no listener takes quotes the request's ids whole, with a code sample.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if len(message) > RECORD_MAX:
            record.msg = f"{message[:RECORD_MAX]}… ({len(message):,} characters in all)"
            record.args = None
        return True
