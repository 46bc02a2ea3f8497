"""A small fake of the Slack Web API on 127.0.0.1, in the manner of bolt-python's mock_web_api_server.

It records every call, keeps the messages it was asked to post so tests can click on them, checks
Block Kit limits the way Slack does (answering `invalid_blocks` like the real API), serves
uploaded files only to the bot token, takes response_url posts, and speaks the Socket Mode
WebSocket protocol. Failures (429 with Retry-After, error codes) can be scripted per method.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web
from aiohttp.test_utils import TestServer

from tests.slack.fake_slack_files import SlackFiles, _decoded
from tests.slack.limits import blocks_problems, view_problems
from tests.slack.oversize import padded


@dataclass
class Call:
    method: str
    args: dict[str, Any]
    token: str | None


@dataclass
class Scripted:
    status: int = 200
    error: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    padding: int = 0  # an answer that says ok, padded with this many bytes
    chunked: bool = False  # ...sent in chunks, with no Content-Length


class FakeSlack(SlackFiles):
    # The Web API's JSON in and out: the standard library's here; the benchmark's subclass, whose
    # learners share the bots' cores, swaps in faster ones.
    loads: Callable[[str | bytes], Any] = staticmethod(json.loads)
    dumps: Callable[[Any], str] = staticmethod(json.dumps)

    def __init__(self, *, bot_token: str, app_token: str | None = None, team: str = "T0001", admins: tuple[str, ...] = ()) -> None:
        self.bot_token = bot_token
        self.app_token = app_token
        self.team = team
        self.admins = set(admins)
        self.display_names: dict[str, str] = {}  # users.info's profile.display_name (empty when unset)
        self.locales: dict[str, str] = {}  # users.info's locale (with include_locale), by user; "en-US" when unset
        self.calls: list[Call] = []
        self.errors: list[tuple[Any, ...]] = []  # unscripted ok:false answers: a test failure
        self.messages: dict[tuple[str, str], dict[str, Any]] = {}
        self.ephemerals: list[dict[str, Any]] = []
        self.responses: list[dict[str, Any]] = []
        self._response_for: dict[str, tuple[str, str]] = {}  # a click's response_url -> the posted message clicked
        self.views: list[dict[str, Any]] = []
        self.homes: dict[str, dict[str, Any]] = {}
        self.files: dict[str, tuple[dict[str, Any], bytes]] = {}
        self.downloads: list[tuple[str, bool]] = []  # (file id, bot token sent)
        self.pending_uploads: dict[str, dict[str, Any]] = {}  # files upload v2: URL issued, not completed
        self.uploads: dict[str, bytes] = {}  # bytes POSTed to an upload URL, by file id
        self.shared: list[dict[str, Any]] = []  # files shared by files.completeUploadExternal, in order
        self.closed_channels: set[str] = set()  # the bot is not a member: posts get not_in_channel
        self.archived_channels: set[str] = set()  # posts get is_archived
        self.missing_channels: set[str] = set()  # deleted, or private without the bot: channel_not_found
        self.socket_received: list[dict[str, Any]] = []
        self._script: dict[str, list[Scripted]] = {}
        self._ts = itertools.count(1)
        self._ids = itertools.count(1)
        self._socket: web.WebSocketResponse | None = None
        self._socket_ready = asyncio.Event()
        self._changed = asyncio.Event()
        app = web.Application()
        app.router.add_route("*", "/api/{method}", self._api)
        app.router.add_get("/files-pri/{id}/download/{name}", self._file)
        app.router.add_post("/respond/{n}", self._respond)
        app.router.add_post("/upload/v1/{id}", self._upload)
        app.router.add_get("/socket-mode", self._socket_mode)
        self.server = TestServer(app, host="127.0.0.1")

    # ----------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        await self.server.start_server()

    async def close(self) -> None:
        if self._socket is not None and not self._socket.closed:
            await self._socket.close()
        await self.server.close()

    @property
    def base(self) -> str:
        return str(self.server.make_url("")).rstrip("/")

    @property
    def api_url(self) -> str:
        return f"{self.base}/api/"

    def response_url(self, message: tuple[str, str] | None = None) -> str:
        """A new response_url; for a click on a posted `message` (channel, ts), replace_original edits it."""
        n = str(next(self._ids))
        if message is not None:
            self._response_for[n] = message
        return f"{self.base}/respond/{n}"

    # ----------------------------------------------------------------- scripting and queries

    def fail(self, method: str, *, times: int = 1, status: int = 200, error: str | None = None, headers: dict[str, str] | None = None) -> None:
        self._script.setdefault(method, []).extend(Scripted(status, error, headers or {}) for _ in range(times))

    def oversize(self, method: str, padding: int, *, chunked: bool = False) -> None:
        """The method's next answer says ok but carries `padding` more bytes (in chunks, with no length, if `chunked`)."""
        self._script.setdefault(method, []).append(Scripted(padding=padding, chunked=chunked))

    def calls_to(self, method: str) -> list[Call]:
        return [c for c in self.calls if c.method == method]

    def posts(self, channel: str | None = None) -> list[dict[str, Any]]:
        """Every message posted, in order, as it stands now (after updates)."""
        return [m for (ch, _), m in self.messages.items() if channel is None or ch == channel]

    def message(self, channel: str, ts: str) -> dict[str, Any]:
        return self.messages[(channel, ts)]

    async def wait_for(self, check: Callable[[], Any], timeout: float = 10.0) -> Any:
        async def loop() -> Any:
            while not (result := check()):
                self._changed.clear()
                await self._changed.wait()
            return result

        return await asyncio.wait_for(loop(), timeout)

    # ----------------------------------------------------------------- Web API

    async def _api(self, request: web.Request) -> web.StreamResponse:
        method = request.match_info["method"]
        args: dict[str, Any] = dict(request.query)
        if request.content_type == "application/json":
            args.update(await request.json(loads=self.loads))
        elif request.can_read_body:
            args.update(await request.post())
        auth = request.headers.get("Authorization", "")
        token = auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else None
        self.calls.append(Call(method, args, token))
        self._changed.set()
        scripted = self._script.get(method)
        if scripted:
            step = scripted.pop(0)
            if step.padding:
                return await padded(request, step.padding, chunked=step.chunked)
            body = {"ok": False, "error": step.error or ("ratelimited" if step.status == 429 else "internal_error")}
            return web.json_response(body, status=step.status, headers=step.headers)
        expected = self.app_token if method == "apps.connections.open" else self.bot_token
        if token != expected:
            return self._error(method, "invalid_auth")
        handler = getattr(self, "_m_" + method.replace(".", "_"), None)
        if handler is None:
            return self._error(method, "unknown_method")
        result: web.Response = handler(args)
        return result

    def _ok(self, **data: Any) -> web.Response:
        return web.json_response({"ok": True, **data}, dumps=self.dumps)

    def _error(self, method: str, error: str, **data: Any) -> web.Response:
        self.errors.append((method, error, data) if data else (method, error))
        return web.json_response({"ok": False, "error": error, **data}, dumps=self.dumps)

    def _m_auth_test(self, args: dict[str, Any]) -> web.Response:
        return self._ok(url="https://quizbot-test.slack.com/", team="Test", user="quizbot", team_id=self.team, user_id="UBOT", bot_id="BBOT")

    def _check_message(self, method: str, args: dict[str, Any]) -> web.Response | None:
        blocks = _decoded(args.get("blocks"))
        problems = blocks_problems(blocks or [], max_blocks=50) if blocks is not None else []
        text = str(args.get("text") or "")
        if len(text) > 40000:
            problems.append("text longer than 40,000 characters")
        if not blocks and not text:
            return self._error(method, "no_text")
        problems += self._image_problems(blocks or [])
        if problems:
            return self._error(method, "invalid_blocks", errors=problems)
        # Set by the test: not a mistake of the bot's.
        if args.get("channel") in self.missing_channels:
            return web.json_response({"ok": False, "error": "channel_not_found"})
        if args.get("channel") in self.archived_channels:
            return web.json_response({"ok": False, "error": "is_archived"})
        if args.get("channel") in self.closed_channels:
            return web.json_response({"ok": False, "error": "not_in_channel"})
        return None

    def _m_chat_postMessage(self, args: dict[str, Any]) -> web.Response:
        if (refused := self._check_message("chat.postMessage", args)) is not None:
            return refused
        channel = str(args["channel"])
        ts = f"1700000000.{next(self._ts):06d}"
        message = {"type": "message", "user": "UBOT", "bot_id": "BBOT", "text": args.get("text", ""), "blocks": _decoded(args.get("blocks")) or [], "ts": ts}
        if args.get("thread_ts"):
            message["thread_ts"] = args["thread_ts"]
        self.messages[(channel, ts)] = message
        return self._ok(channel=channel, ts=ts, message=message)

    def _m_chat_update(self, args: dict[str, Any]) -> web.Response:
        if (refused := self._check_message("chat.update", args)) is not None:
            return refused
        key = (str(args["channel"]), str(args["ts"]))
        if key not in self.messages:
            return self._error("chat.update", "message_not_found")
        self.messages[key] = {**self.messages[key], "text": args.get("text", ""), "blocks": _decoded(args.get("blocks")) or []}
        return self._ok(channel=key[0], ts=key[1], text=args.get("text", ""))

    def _m_chat_postEphemeral(self, args: dict[str, Any]) -> web.Response:
        if (refused := self._check_message("chat.postEphemeral", args)) is not None:
            return refused
        self.ephemerals.append({**args, "blocks": _decoded(args.get("blocks")) or []})
        return self._ok(message_ts=f"1700000000.{next(self._ts):06d}")

    def _m_conversations_open(self, args: dict[str, Any]) -> web.Response:
        users = str(args.get("users", ""))
        return self._ok(channel={"id": "D" + users.split(",")[0]})

    def _m_conversations_info(self, args: dict[str, Any]) -> web.Response:
        channel = str(args.get("channel", ""))
        if channel in self.missing_channels:  # set by the test: not a mistake of the bot's
            return web.json_response({"ok": False, "error": "channel_not_found"})
        if channel.startswith("D"):
            return self._ok(channel={"id": channel, "is_im": True, "user": "U" + channel[1:]})
        return self._ok(channel={
            "id": channel, "name": "study", "is_channel": True, "is_private": channel.startswith("G"),
            "is_archived": channel in self.archived_channels, "is_member": channel not in self.closed_channels,
        })  # fmt: skip

    def _m_views_open(self, args: dict[str, Any]) -> web.Response:
        view = _decoded(args.get("view"))
        if not args.get("trigger_id"):
            return self._error("views.open", "invalid_trigger_id")
        problems = view_problems(view)
        if problems:
            return self._error("views.open", "invalid_arguments", errors=problems)
        opened = {**view, "id": f"V{next(self._ids):05d}", "team_id": self.team, "state": {"values": {}}, "hash": "h"}
        self.views.append(opened)
        return self._ok(view=opened)

    def _m_views_publish(self, args: dict[str, Any]) -> web.Response:
        view = _decoded(args.get("view"))
        problems = view_problems(view)
        if problems:
            return self._error("views.publish", "invalid_arguments", errors=problems)
        self.homes[str(args["user_id"])] = view
        return self._ok(view={**view, "id": "VHOME"})

    def _m_users_info(self, args: dict[str, Any]) -> web.Response:
        user = str(args.get("user"))
        profile = {"display_name": self.display_names.get(user, ""), "real_name": ""}
        found = {"id": user, "name": user.lower(), "team_id": self.team, "is_admin": user in self.admins, "is_owner": False, "profile": profile}
        if str(args.get("include_locale", "")).lower() in ("true", "1"):
            found["locale"] = self.locales.get(user, "en-US")
        return self._ok(user=found)

    def _m_apps_connections_open(self, args: dict[str, Any]) -> web.Response:
        return self._ok(url=self.base.replace("http://", "ws://") + "/socket-mode")

    # ----------------------------------------------------------------- response_url, Socket Mode

    async def _respond(self, request: web.Request) -> web.Response:
        """A response_url post; `replace_original` replaces the message clicked (Slack keeps no copy of an ephemeral one)."""
        body = await request.json(loads=self.loads)
        self.responses.append(body)
        self._changed.set()
        problems = blocks_problems(body.get("blocks") or [], max_blocks=50)
        if problems:
            self.errors.append(("response_url", problems))
            return web.Response(status=400, text="invalid_blocks")
        target = self._response_for.get(request.match_info["n"])
        if body.get("replace_original") and target in self.messages:
            self.messages[target] = {**self.messages[target], "text": body.get("text", ""), "blocks": body.get("blocks") or []}
        return web.Response(text="ok")

    async def _socket_mode(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self._socket = ws
        await ws.send_json({"type": "hello", "num_connections": 1, "connection_info": {"app_id": "A0001"}, "debug_info": {"host": "fake"}})
        self._socket_ready.set()
        async for message in ws:
            if message.type == WSMsgType.TEXT:
                self.socket_received.append(json.loads(message.data))
                self._changed.set()
        return ws

    async def socket_send(self, envelope: dict[str, Any]) -> None:
        await asyncio.wait_for(self._socket_ready.wait(), 10)
        assert self._socket is not None
        await self._socket.send_json(envelope)
