"""Who acted and where, and whether a request is genuine and new.

The first half reads the payloads Slack sends (commands, actions, views, events) into an `Origin`.

Check Slack's requests before Bolt reads them, and let each one through once.

Over HTTP the signature is verified on the raw bytes before anything parses the body: a forged or
stale request is answered 401 and a signed but malformed one 400, both in one log line without a
traceback. Then, in HTTP and Socket Mode alike, a Bolt middleware drops a request already seen:
an event with the same `event_id` (Slack retries events it thinks were not acknowledged, with
`X-Slack-Retry-Num`), a slash command or interaction with the same `trigger_id`, or an action with
the same `action_ts`. A duplicate is acknowledged with an empty 200 and nothing else happens.

The claims live in this process, bounded in number and age. Several bot processes behind one
Slack app each keep their own: a retry that reaches another process is processed there too.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from aiohttp import web
from slack_bolt.async_app import AsyncApp
from slack_bolt.response import BoltResponse

from bot.core.model import Actor


@dataclass(frozen=True)
class Origin:
    """One person's action: the workspace, the user, and the ways to answer them."""

    team: str
    user: str
    channel: str | None = None
    thread_ts: str | None = None
    message_ts: str | None = None  # the message a click came from
    response_url: str | None = None
    trigger_id: str | None = None
    via_command: bool = False
    ephemeral: bool = False  # a click on a message only its reader sees (edited through its response_url)

    def actor(self, *, is_admin: bool = False) -> Actor:
        return Actor(
            platform="slack",
            scope=self.team,
            user_id=self.user,
            name=f"<@{self.user}>",
            is_admin=is_admin,
            channel_id=self.channel,
        )

    @property
    def in_dm(self) -> bool:
        return bool(self.channel and self.channel.startswith("D"))


def _team(body: dict[str, Any]) -> str:
    team = body.get("team")
    user = body.get("user")
    return str(
        body.get("team_id")
        or (team.get("id") if isinstance(team, dict) else None)
        or (user.get("team_id") if isinstance(user, dict) else None)
        or body.get("enterprise_id")
        or "slack"
    )


def from_command(body: dict[str, Any]) -> Origin:
    return Origin(
        team=_team(body),
        user=str(body.get("user_id", "")),
        channel=body.get("channel_id") or None,
        response_url=body.get("response_url") or None,
        trigger_id=body.get("trigger_id") or None,
        via_command=True,
    )


def from_action(body: dict[str, Any]) -> Origin:
    container = body.get("container") or {}
    message = body.get("message") or {}
    channel = (body.get("channel") or {}).get("id") or container.get("channel_id")
    return Origin(
        team=_team(body),
        user=str((body.get("user") or {}).get("id", "")),
        channel=channel or None,
        thread_ts=message.get("thread_ts") or container.get("thread_ts") or None,
        message_ts=container.get("message_ts") or message.get("ts") or None,
        response_url=body.get("response_url") or None,
        trigger_id=body.get("trigger_id") or None,
        ephemeral=bool(container.get("is_ephemeral")),
    )


def from_view(body: dict[str, Any], meta: dict[str, str]) -> Origin:
    return Origin(
        team=_team(body),
        user=str((body.get("user") or {}).get("id", "")),
        channel=meta.get("c"),
        thread_ts=meta.get("t"),
        message_ts=meta.get("m"),
        response_url=meta.get("r"),
        trigger_id=body.get("trigger_id") or None,
        via_command=bool(meta.get("r")),
    )


def from_event(body: dict[str, Any]) -> Origin:
    event = body.get("event") or {}
    user = event.get("user")
    team = str(body.get("team_id") or event.get("team") or "slack")
    return Origin(
        team=team,
        user=str(user.get("id", "") if isinstance(user, dict) else user or ""),
        channel=event.get("channel") if isinstance(event.get("channel"), str) else None,
        thread_ts=event.get("thread_ts") or None,
        message_ts=event.get("ts") or None,
    )


log = logging.getLogger("quizbot.slack")

# Slack refuses nothing older than five minutes, and retries an event after about 1 s, 1 min and
# 5 min: remembering ten minutes covers both a replayed request and the last retry.
REPLAY_WINDOW = 600.0
REPLAY_CAPACITY = 50_000  # claims kept at most; the oldest go first
REPEAT_WAIT_S = 35.0  # a repeat waits this long at most for the first delivery's answer (a code message's waits 30 s)
SIGNATURE_AGE = 300  # seconds: Slack's own limit for a request's timestamp

Clock = Callable[[], float]


class ReplayGuard:
    """Remember request keys for at least a window; `claim` is true only the first time a key is seen.

    Two generations of keys: claims go into the current one, which becomes the previous one when it
    is `window` seconds old or holds half the capacity; the previous one is then forgotten. A key is
    remembered for at least `window` seconds (unless half the capacity of newer claims came first)
    and at most twice that. A key is kept as its 64-bit hash (the string's own, seeded afresh in
    each process, of requests whose signature was checked): two sets of numbers held 50,000 claims
    in 6.0 MB, where an `OrderedDict` of the keys with a deadline each held 11.3, and a busy bot
    makes that many claims in minutes. Two keys with one hash would be taken for a repeat; among
    50,000 the odds are about one in 10^14 a claim.
    """

    def __init__(self, *, window: float = REPLAY_WINDOW, capacity: int = REPLAY_CAPACITY, clock: Clock = time.monotonic) -> None:
        self._window, self._half, self._clock = window, max(1, capacity // 2), clock
        self._current: set[int] = set()
        self._previous: set[int] = set()
        self._since = clock()  # when the current generation began
        # Claims made in `answering` whose request has no response yet; the event is made when a repeat waits.
        self._unanswered: dict[int, asyncio.Event | None] = {}

    def __len__(self) -> int:
        return len(self._current) + len(self._previous)

    def claim(self, key: str) -> bool:
        now = self._clock()
        if now - self._since >= self._window or len(self._current) >= self._half:
            self._previous = self._current if now - self._since < 2 * self._window else set()
            self._current, self._since = set(), now
        seen = hash(key)
        if seen in self._current or seen in self._previous:
            return False
        self._current.add(seen)
        claims = _claims.get()
        if claims is not None:
            claims.append(seen)
            self._unanswered[seen] = None
        return True

    @asynccontextmanager
    async def answering(self) -> AsyncIterator[None]:
        """Around one request until its response is ready: a repeat of what it claimed waits for that (`settled`).

        Slack resends an event it got no 200 for within 3 s while the first delivery may still wait
        to be safe (`Inbound.message_then_ack`); a 200 for the repeat would tell Slack all is done
        before anything was recorded.
        """
        claims: list[int] = []
        token = _claims.set(claims)
        try:
            yield
        finally:
            _claims.reset(token)
            for seen in claims:
                done = self._unanswered.pop(seen, None)
                if done is not None:
                    done.set()

    async def settled(self, key: str, within: float = REPEAT_WAIT_S) -> None:
        """Return once the first delivery of `key` has its response (at once if it has), or after `within` seconds."""
        seen = hash(key)
        if seen not in self._unanswered:
            return
        done = self._unanswered[seen]
        if done is None:
            done = self._unanswered[seen] = asyncio.Event()
        with suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), within)


_claims: ContextVar[list[int] | None] = ContextVar("quizbot_slack_claims", default=None)


def replay_key(body: dict[str, Any]) -> str | None:
    """Name what makes a request unique, or None when it may be repeated (URL checks)."""
    kind = body.get("type")
    if kind in ("url_verification", "ssl_check"):
        return None
    event_id = body.get("event_id")
    if isinstance(event_id, str) and event_id:
        return f"event:{event_id}"
    trigger = body.get("trigger_id")
    if isinstance(trigger, str) and trigger:
        return f"trigger:{trigger}"
    actions = body.get("actions")
    if isinstance(actions, list) and actions and isinstance(actions[0], dict) and actions[0].get("action_ts"):
        user = body.get("user")
        user_id = user.get("id") if isinstance(user, dict) else user
        return f"action:{user_id}:{actions[0].get('action_id')}:{actions[0]['action_ts']}"
    return None


def dedupe_middleware(guard: ReplayGuard) -> Callable[..., Awaitable[BoltResponse | None]]:
    """A Bolt global middleware that acknowledges a request seen before and stops it there."""

    async def once(body: dict[str, Any], next: Callable[[], Awaitable[None]]) -> BoltResponse | None:
        key = replay_key(body) if isinstance(body, dict) else None
        if key is not None and not guard.claim(key):
            await guard.settled(key)  # no 200 before the first delivery's own
            log.info("Slack sent a request again (%s); acknowledged, not processed twice", key.split(":", 1)[0])
            return BoltResponse(status=200, body="")
        await next()
        return None

    return once


# ------------------------------------------------------------------ HTTP: verify, then parse

class Verifier:
    """Slack's v0 request signature, checked on the raw bytes (any bytes, any header value)."""

    def __init__(self, signing_secret: str, *, clock: Clock = time.time) -> None:
        self._key = signing_secret.encode()
        self._clock = clock

    def valid(self, raw: bytes, timestamp: str, signature: str) -> bool:
        if not (timestamp.isascii() and timestamp.isdigit() and len(timestamp) <= 12 and signature.isascii()):
            return False
        if abs(self._clock() - int(timestamp)) > SIGNATURE_AGE:
            return False
        digest = hmac.new(self._key, b"v0:" + timestamp.encode() + b":" + raw, hashlib.sha256).hexdigest()
        return hmac.compare_digest(f"v0={digest}".encode(), signature.encode())


_verifiers: WeakKeyDictionary[AsyncApp, Verifier] = WeakKeyDictionary()
_guards: WeakKeyDictionary[AsyncApp, ReplayGuard] = WeakKeyDictionary()


def guard_of(bolt: AsyncApp) -> ReplayGuard:
    """The replay guard `protect` installed (a fresh one, which claims nothing, if none was)."""
    guard = _guards.get(bolt)
    return guard if guard is not None else ReplayGuard()


def protect(bolt: AsyncApp, signing_secret: str | None, guard: ReplayGuard | None = None) -> ReplayGuard:
    """Install the dedupe middleware, and remember the secret for `checked_request` (HTTP mode)."""
    replays = guard or ReplayGuard()
    bolt.use(dedupe_middleware(replays))
    _guards[bolt] = replays
    if signing_secret:
        _verifiers[bolt] = Verifier(signing_secret)
    return replays


async def checked_request(
    bolt: AsyncApp, request: web.Request, parse: Callable[[str, str | None], Any]
) -> tuple[str, dict[str, Any]] | web.Response:
    """Return the body as text and as `parse` reads it, or the response that refuses it (401 unsigned, 400 malformed)."""
    raw = await request.read()  # bounded by the application's client_max_size
    verifier = _verifiers.get(bolt)
    if verifier is not None:
        timestamp = request.headers.get("X-Slack-Request-Timestamp", "")
        signature = request.headers.get("X-Slack-Signature", "")
        if not verifier.valid(raw, timestamp, signature):
            log.warning("refused a Slack request: missing, wrong or stale signature")
            return web.Response(status=401, text="")
    try:
        text = raw.decode("utf-8")
        body = parse(text, request.content_type)
    except (ValueError, RecursionError, TypeError, AttributeError, KeyError) as exc:
        log.warning("refused a signed Slack request whose body cannot be read (%s)", type(exc).__name__)
        return web.Response(status=400, text="")
    if not isinstance(body, dict):
        log.warning("refused a signed Slack request whose body is not an object")
        return web.Response(status=400, text="")
    return text, body


_LANGUAGE = re.compile(r"[^A-Za-z0-9_+#-]")


def preformatted_code(event: dict[str, Any]) -> str | None:
    """Return the message's rich-text code blocks as one fenced block, as typed (no HTML escaping), or None.

    Slack's composer sends a code block twice: as text with ``` (escaped, fences glued to the code)
    and as `rich_text_preformatted` elements; the latter is exactly what was typed. A block's
    `language` field becomes the fence's language, so the core reads it as it reads ```python.
    """
    found: list[str] = []
    language = ""
    for block in event.get("blocks") or []:
        if not isinstance(block, dict) or block.get("type") != "rich_text":
            continue
        for element in block.get("elements") or []:
            if isinstance(element, dict) and element.get("type") == "rich_text_preformatted":
                found.append("".join(_inline_text(part) for part in element.get("elements") or []))
                if not language and isinstance(element.get("language"), str):
                    language = _LANGUAGE.sub("", element["language"])[:20]
    return valid_text(f"```{language}\n" + "\n".join(found) + "\n```") if found else None


def _inline_text(part: Any) -> str:
    if not isinstance(part, dict):
        return ""
    if part.get("type") == "link":
        return str(part.get("text") or part.get("url") or "")
    if part.get("type") == "user":
        return f"@{part.get('user_id', '')}"
    if part.get("type") == "emoji":
        return f":{part.get('name', '')}:"
    return str(part.get("text") or "")


def action_values(action: dict[str, Any]) -> list[str]:
    """The chosen values of a menu; a button has none (its action id says everything)."""
    if isinstance(action.get("selected_option"), dict):
        return [str(action["selected_option"].get("value", ""))]
    if isinstance(action.get("selected_options"), list):
        return [str(o.get("value", "")) for o in action["selected_options"]]
    return []


def _state(view: dict[str, Any], block: str, element: str) -> dict[str, Any]:
    """One input's state; empty when the form's state is not shaped as Slack sends it."""
    found: Any = view.get("state")
    for key in ("values", block, element):
        found = found.get(key) if isinstance(found, dict) else None
    return found if isinstance(found, dict) else {}


def input_value(view: dict[str, Any], block: str, element: str) -> str:
    """The text typed in a form's input."""
    return valid_text(str(_state(view, block, element).get("value") or ""))


def valid_text(text: str) -> str:
    """`text` with each lone surrogate (a JSON escape such as `\\ud800`, which no UTF-8 holds) made U+FFFD, as a decoder does.

    The database and the sandbox's bridge refuse such text: an answer carrying one would fail when stored.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def selected(view: dict[str, Any], block: str, element: str) -> list[str]:
    """The values ticked in a form's checkboxes."""
    chosen = _state(view, block, element).get("selected_options")
    return [str(o.get("value")) for o in chosen if isinstance(o, dict)] if isinstance(chosen, list) else []


def view_files(view: dict[str, Any], block: str, element: str) -> list[dict[str, Any]]:
    """The files chosen in a form's file input."""
    files = _state(view, block, element).get("files")
    return [f for f in files if isinstance(f, dict)] if isinstance(files, list) else []
