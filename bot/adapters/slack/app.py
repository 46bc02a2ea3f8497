"""Start the Slack front end: HTTP mode (POST /slack/events on aiohttp) or Socket Mode."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

import aiohttp
import orjson
from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_bolt.authorization import AuthorizeResult
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.socket_mode.aiohttp import SocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.web.async_client import AsyncWebClient
from yarl import URL

from bot.core import queries as q
from bot.core.race import Outbox
from bot.core.service import QuizService
from bot.metrics import Metrics, Platforms, acked, receiving

from .api import SlackApi, SlackCallFailed, make_client
from .inbound import QUIZ_ACTIONS, Inbound
from .origin import ReplayGuard, checked_request, guard_of, protect, replay_key
from .posts import SlackPoster
from .strays import Edits, ShortRecords, Strays, malformed

if TYPE_CHECKING:
    from bot.app import App
    from bot.settings import Settings

log = logging.getLogger("quizbot.slack")

EVENTS_PATH = "/slack/events"
DRAIN_SECONDS = 15.0


def build_bolt_app(front: Inbound, client: AsyncWebClient, *, signing_secret: str | None) -> AsyncApp:
    """A Bolt app whose listeners are the front end's; requests are verified when a secret is given.

    Bolt's request verification rejects a bad signature or a timestamp more than five minutes
    old with 401 before any listener runs. Socket Mode needs no signing secret.
    """
    logger = logging.getLogger("quizbot.slack.bolt")
    for kind in (_ClientTokenNotice, ShortRecords):
        if not any(isinstance(f, kind) for f in logger.filters):
            logger.addFilter(kind())
    bolt = AsyncApp(
        client=tokenless(client),  # the token through `authorize`: no "reinstall this app" when auth.test goes unanswered
        authorize=token_authorization(client),
        signing_secret=signing_secret or "",
        request_verification_enabled=bool(signing_secret),
        name="quizbot",
        logger=logger,
    )
    Edits(courier=front.courier, jobs=front.jobs).register(bolt)  # before the front end's catch-all for messages
    front.register(bolt)
    Strays(courier=front.courier, jobs=front.jobs).register(bolt)  # last: what no listener above takes
    guard = protect(bolt, signing_secret)  # signature before parsing (HTTP), each request once (both modes)
    route_clicks(bolt, QuizClicks(QUIZ_ACTIONS, front.answer_then_ack, guard))  # HTTP: quiz clicks without Bolt's dispatch
    return bolt


# Bolt's authorization for this bot's one workspace, without telling anyone to reinstall the app.
#
# Given a client holding the token, Bolt checks it with auth.test at the first request through it;
# should Slack not answer (503s or an error past slack_sdk's retries), Bolt answers the request itself
# with "your installation with this app is no longer available. Please reinstall this app": a command
# is not run and its person is told something false, and an event (a code answer) is acknowledged and
# dropped. The token is the bot's own, checked at start (`run_slack`), so a request whose auth.test
# Slack could not answer runs with the token all the same, and auth.test is asked again at the next
# request; its answer is kept once Slack gives one (the bot's ids, for Bolt's context).


def token_authorization(client: AsyncWebClient) -> Callable[..., Awaitable[AuthorizeResult]]:
    """A Bolt `authorize` function: the bot token, with auth.test's answer once Slack gives it.

    A plain function: Bolt passes it the arguments its parameters name.
    """
    found: list[AuthorizeResult] = []

    async def authorize(enterprise_id: str | None, team_id: str | None, user_id: str | None) -> AuthorizeResult:
        if found:
            return found[0]
        token = client.token
        try:
            answer = await client.auth_test()
        except (TimeoutError, SlackApiError, SlackClientError, aiohttp.ClientError) as exc:
            error = exc.response.get("error") if isinstance(exc, SlackApiError) and exc.response is not None else type(exc).__name__
            log.warning("Slack did not answer auth.test (%s); this request runs with the bot token, checked at start", error)
            return AuthorizeResult(enterprise_id=enterprise_id, team_id=team_id, user_id=user_id, bot_token=token)
        found.append(AuthorizeResult.from_auth_test_response(auth_test_response=answer, bot_token=token))
        return found[0]

    return authorize


def tokenless(client: AsyncWebClient) -> AsyncWebClient:
    """A copy of `client` without its token, for Bolt: with a token Bolt would do its own authorization."""
    return AsyncWebClient(
        token=None, base_url=client.base_url, timeout=client.timeout, session=client.session,
        retry_handlers=client.retry_handlers, logger=client.logger,
    )  # fmt: skip


class _ClientTokenNotice(logging.Filter):
    """Drop Bolt's start-up notice that SLACK_BOT_TOKEN from the environment is unused.

    Bolt reads the variable itself even when given a client, which already holds that token.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return "`token` will be unused" not in record.getMessage()


def request_kind(body: Any) -> str:
    """Name a Slack request for the metrics: command, action, form, message, or its own type."""
    if not isinstance(body, dict):
        return "other"
    if "command" in body:
        return "command"
    kind = str(body.get("type") or "other")
    if kind == "event_callback":
        return "message" if (body.get("event") or {}).get("type") == "message" else "event"
    return {"block_actions": "action", "view_submission": "form"}.get(kind, kind)


def web_app(bolt: AsyncApp, *, path: str = EVENTS_PATH, metrics: Metrics | None = None) -> web.Application:
    """The aiohttp application: Slack's requests on `path`, a health check on /healthz.

    With `metrics`, each signed request is timed from its arrival to the ack (this response) and
    to the last reply of the work it started (see bot.metrics.receiving).
    """

    clicks = clicks_of(bolt)
    guard = guard_of(bolt)

    async def events(request: web.Request) -> web.Response:
        with receiving(metrics, "slack", "other") as event:
            checked = await checked_request(bolt, request, parse_body)
            if isinstance(checked, web.Response):
                return checked
            text, body = checked
            if event is not None:
                event.request = request_kind(body)
            problem = malformed(body)
            if problem is not None:
                log.info("a signed request not shaped as Slack sends it (%s); acknowledged, nothing done", problem)
                return web.Response(status=200, text="")
            if body.get("type") == "app_rate_limited":  # Slack drops this app's events for the rest of that minute
                log.warning("Slack reports the events rate limit reached (minute %s): events are dropped until it ends", str(body.get("minute_rate_limited"))[:20])
                return web.Response(status=200, text="")
            async with guard.answering():  # a repeat of this request waits for this response
                if clicks is not None and clicks.matches(body):
                    response = await clicks.answer(body)  # a quiz click: straight to its listener
                else:
                    bolt_request = AsyncBoltRequest(body=text, query=request.query_string, headers=request.headers)  # type: ignore[arg-type]
                    response = await to_aiohttp_response(await bolt.async_dispatch(bolt_request))
            acked()
            return response

    async def health(request: web.Request) -> web.Response:
        return web.Response(text="ok")

    app = web.Application()
    app.router.add_post(path, events)
    app.router.add_get("/healthz", health)
    return app


@asynccontextmanager
async def slack_front_end(
    service: QuizService, *, token: str, api_url: str | None, signing_secret: str | None, outbox: Outbox | None = None
) -> AsyncIterator[tuple[Inbound, AsyncApp]]:
    """Open the HTTP session and Web API client, build the front end and its Bolt app; close them after.

    With `outbox`, races post their rounds in Slack channels through this front end.
    """
    async with aiohttp.ClientSession() as http:
        front = Inbound(service=service, api=SlackApi(make_client(token, api_url=api_url, session=http), http, token=token))
        await service.ask(q.PlatformLocales("slack", lambda actor: front.api.user_locale(actor.user_id)))
        if outbox is not None:
            outbox.attach("slack", front.publish_race)
        # Bolt's own client (its authorization's auth.test) has no shared aiohttp session; the front
        # end's own calls reuse the session.
        bolt = build_bolt_app(front, make_client(token, api_url=api_url), signing_secret=signing_secret)
        try:
            yield front, bolt
        finally:
            if outbox is not None:
                outbox.detach("slack", front.publish_race)
            try:
                await asyncio.wait_for(front.idle(), DRAIN_SECONDS)
            except TimeoutError:
                log.warning("Slack work still running after %.0f s at shutdown was abandoned", DRAIN_SECONDS)


async def run_slack(app: App, settings: Settings, port: int = 3000, *, host: str = "0.0.0.0") -> None:  # noqa: S104
    """Serve Slack until cancelled: Socket Mode when SLACK_APP_TOKEN is set, else HTTP on `port`."""
    if settings.slack_bot_token is None:
        raise RuntimeError("SLACK_BOT_TOKEN is not set")
    token = settings.slack_bot_token.get_secret_value()
    app_token = settings.slack_app_token.get_secret_value() if settings.slack_app_token else None
    secret = settings.slack_signing_secret.get_secret_value() if settings.slack_signing_secret else None
    if app_token is None and secret is None:
        raise RuntimeError("HTTP mode needs SLACK_SIGNING_SECRET (or set SLACK_APP_TOKEN for Socket Mode)")
    async with slack_front_end(
        app.service, token=token, api_url=settings.slack_api_url, signing_secret=secret, outbox=app.outbox
    ) as (front, bolt):
        await app.posters.add("slack", SlackPoster(front.api))  # the daily question's posts and DMs
        await _check_token(front.api)
        if app_token is not None:
            await _serve_socket_mode(bolt, app_token, app.metrics, app.platforms)
        else:
            await _serve_http(bolt, host, port, app.metrics, app.platforms)


async def _check_token(api: SlackApi) -> None:
    try:
        data = await api.call("auth.test")
    except SlackCallFailed as exc:
        raise RuntimeError(f"Slack refused SLACK_BOT_TOKEN ({exc.error}); check the token and SLACK_API_URL") from exc
    log.info("Slack: signed in as %s in workspace %s", data.get("user", "?"), data.get("team", "?"))


def _listening() -> bool:
    return True  # attached while the HTTP server listens


async def _serve_http(bolt: AsyncApp, host: str, port: int, metrics: Metrics | None = None, platforms: Platforms | None = None) -> None:
    runner = web.AppRunner(web_app(bolt, metrics=metrics))
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        log.info("Slack (HTTP mode) listening on http://%s:%d%s", host, port, EVENTS_PATH)
        if platforms is not None:
            platforms.attach("slack", _listening)
        await asyncio.Event().wait()
    finally:
        if platforms is not None:
            platforms.detach("slack", _listening)
        await runner.cleanup()


class _TimedSocketModeHandler(AsyncSocketModeHandler):
    """Bolt's Socket Mode handler, timing each envelope from its receipt to the ack sent back."""

    metrics: Metrics | None = None

    async def handle(self, client: SocketModeClient, req: SocketModeRequest) -> None:  # type: ignore[override]
        with receiving(self.metrics, "slack", request_kind(req.payload)):
            async with guard_of(self.app).answering():  # a repeat of this envelope's request waits for its ack
                await super().handle(client, req)
            acked()


async def _serve_socket_mode(bolt: AsyncApp, app_token: str, metrics: Metrics | None = None, platforms: Platforms | None = None) -> None:
    handler = _TimedSocketModeHandler(bolt, app_token, logger=logging.getLogger("quizbot.slack.socket"))
    handler.metrics = metrics
    connected = handler.client.is_connected
    try:
        await handler.connect_async()  # type: ignore[no-untyped-call]
        log.info("Slack (Socket Mode) connected")
        if platforms is not None:
            platforms.attach("slack", connected)
        await asyncio.Event().wait()
    finally:
        if platforms is not None:
            platforms.detach("slack", connected)
        await handler.close_async()  # type: ignore[no-untyped-call]


# -------------------- clicks --------------------
# Quiz clicks over HTTP, straight to their listener: Bolt's dispatch is for everything else.
#
# A click on a quiz message is most of what a Slack bot in use receives. Bolt's way through one
# (a request object with its context, every global middleware, each listener's matcher in turn, a
# listener runner with its own ack bookkeeping) cost more CPU than answering the click, and
# `urllib`'s form parsing of the payload as much again. Here a signed request whose body is
# `block_actions` on a quiz action id goes to the same listener Bolt would run
# (`Inbound.answer_then_ack`), after the same replay check (`ReplayGuard`, shared with Bolt's
# middleware); it is acknowledged with the same empty 200. Socket Mode and every other request still
# go through Bolt.
#
# The body is parsed as Bolt parses it (`slack_bolt.request.internals.parse_body`), with yarl's form
# decoding and orjson, which give the same values (tests/slack/test_clicks.py compares them; integers
# beyond 64 bits, which Slack never sends, are the one exception: see `loads`).

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
            await self._guard.settled(key)
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
