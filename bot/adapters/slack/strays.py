"""Requests that do not fit. Clicks and forms no listener takes: a stale button of an older version, or an id someone made up.

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
from bot.core.replies import Tone, cmd, notice

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
    if kind == "event_callback" and not isinstance(body.get("event"), dict):
        return "an event that is not an object"
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
