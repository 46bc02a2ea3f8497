"""Quiz clicks over HTTP, straight to their listener: Bolt's dispatch is for everything else.

A click on a quiz message is most of what a Slack bot in use receives. Bolt's way through one
(a request object with its context, every global middleware, each listener's matcher in turn, a
listener runner with its own ack bookkeeping) cost more CPU than answering the click, and
`urllib`'s form parsing of the payload as much again. Here a signed request whose body is
`block_actions` on a quiz action id goes to the same listener Bolt would run
(`Inbound.answer_then_ack`), after the same replay check (`ReplayGuard`, shared with Bolt's
middleware); it is acknowledged with the same empty 200. Socket Mode and every other request still
go through Bolt.

The body is parsed as Bolt parses it (`slack_bolt.request.internals.parse_body`), with yarl's form
decoding and orjson, which give the same values (tests/slack/test_clicks.py compares them; integers
beyond 64 bits, which Slack never sends, are the one exception: see `loads`).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any
from weakref import WeakKeyDictionary

import orjson
from aiohttp import web
from slack_bolt.async_app import AsyncApp
from yarl import URL

from .origin import ReplayGuard, replay_key

log = logging.getLogger("quizbot.slack")

Ack = Callable[..., Awaitable[None]]
Listener = Callable[[Ack, dict[str, Any]], Awaitable[None]]


def loads(text: str | bytes) -> Any:
    """JSON with orjson; what orjson refuses and json reads (NaN, Infinity) with json.

    One difference stays: orjson reads an integer beyond 64 bits as a float (Slack sends none).
    """
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def form(text: str) -> dict[str, str]:
    """An application/x-www-form-urlencoded body as `dict(parse_qsl(text, keep_blank_values=True))` gives it."""
    return dict(URL.build(query_string=text, encoded=True).query.items())


def parse_body(text: str, content_type: str | None) -> Any:
    """A request body as Bolt reads it: JSON, a form's `payload` field as JSON, or the form's fields."""
    if not text:
        return {}
    if content_type == "application/json" or text.startswith("{"):
        return loads(text)
    fields = form(text)
    if "payload" in text:
        payload = fields.get("payload")
        return loads(payload) if payload is not None else {}
    return fields


class QuizClicks:
    """Answer a quiz click without Bolt: the replay check, the listener, the acknowledgement."""

    def __init__(self, actions: re.Pattern[str], listener: Listener, guard: ReplayGuard) -> None:
        self._actions = actions
        self._listener = listener
        self._guard = guard

    def matches(self, body: dict[str, Any]) -> bool:
        """Whether Bolt would run the quiz listener: block_actions whose first action id is a quiz's."""
        if body.get("type") != "block_actions":
            return False
        actions = body.get("actions")
        if not (isinstance(actions, list) and actions and isinstance(actions[0], dict)):
            return False
        action_id = actions[0].get("action_id")
        return isinstance(action_id, str) and self._actions.search(action_id) is not None

    async def answer(self, body: dict[str, Any]) -> web.Response:
        key = replay_key(body)
        if key is not None and not self._guard.claim(key):
            log.info("Slack sent a request again (%s); acknowledged, not processed twice", key.split(":", 1)[0])
            return web.Response(status=200, text="")

        async def ack(*args: Any, **kwargs: Any) -> None:
            return None  # the click's acknowledgement is this request's empty 200

        try:
            await self._listener(ack, body)
        except Exception:
            log.exception("the Slack front end failed on a quiz click")
            return web.Response(status=500, text="")
        return web.Response(status=200, text="")


_routes: WeakKeyDictionary[AsyncApp, QuizClicks] = WeakKeyDictionary()


def route_clicks(bolt: AsyncApp, clicks: QuizClicks) -> None:
    """Have `web_app(bolt)` answer quiz clicks with `clicks` (HTTP mode)."""
    _routes[bolt] = clicks


def clicks_of(bolt: AsyncApp) -> QuizClicks | None:
    return _routes.get(bolt)
