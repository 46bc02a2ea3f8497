"""A small fake of Discord's HTTP API and gateway, on 127.0.0.1, for driving discord.py in tests.

It answers the calls the bot makes (login, command sync, interaction callbacks, follow-ups,
channel messages, DMs, attachment downloads, the channels, roles and own member of a guild added
with `add_guild`, as a bot checking its permissions reads them) with payloads shaped as Discord documents them,
records every call, checks every message and modal against Discord's size limits (answering 400
like Discord when one is broken), and can be told to fail a call (429, 401, 500...).

The gateway (`fake_gateway.py`) is shard-aware as Discord's is; the limits are in `discord_limits.py`.
"""

from __future__ import annotations

import itertools
import json
import re
import urllib.parse
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from tests.discord.discord_limits import check_message, check_modal
from tests.discord.fake_gateway import APP_ID, BOT_USER, FakeGateway, shard_for

BOT_TOKEN = "MTAxMjM0NTY3ODkwMTIzNDU2Nzg5.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789AB"


@dataclass
class Call:
    method: str
    path: str  # without the /api/v10 prefix
    query: dict[str, str]
    body: Any
    files: list[tuple[str, bytes]] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    message_id: str | None = None  # the message this call created or edited


@dataclass
class Failure:
    method: str
    pattern: re.Pattern[str]
    status: int
    body: Any
    headers: dict[str, str]
    times: int


class FakeDiscord(FakeGateway):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[Call] = []
        self.violations: list[str] = []
        self.messages: dict[str, dict[str, Any]] = {}
        self.files: dict[str, bytes] = {}
        self.interactions: dict[str, dict[str, Any]] = {}  # id -> the payload the test sent
        self.reactions: list[tuple[str, str, str]] = []  # (channel id, message id, emoji) the bot added
        self.originals: dict[str, str] = {}  # interaction token -> id of its original response message
        self.hidden_channels: set[str] = set()  # channels the bot cannot see: 403 Missing Access, as Discord answers
        self._failures: list[Failure] = []
        self._ids = itertools.count(1_300_000_000_000_000_000)
        self._runner: web.AppRunner | None = None

    # ------------------------------------------------------------------ life

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}"

    async def close(self) -> None:
        for ws in self.sockets:
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_url(self) -> str:
        return f"{self.url}/api/v10"

    # ------------------------------------------------------------------ test controls

    def new_id(self) -> str:
        return str(next(self._ids))

    def fail(
        self,
        method: str,
        pattern: str,
        status: int,
        body: Any = None,
        *,
        headers: dict[str, str] | None = None,
        times: int = 1,
    ) -> None:
        """Answer the next `times` calls matching `method` and the path regex with an error."""
        self._failures.append(Failure(method, re.compile(pattern), status, body, headers or {}, times))

    def add_file(self, name: str, data: bytes) -> str:
        key = f"{self.new_id()}/{name}"
        self.files[key] = data
        return f"{self.url}/attachments/{key}"

    def find(self, method: str, pattern: str) -> list[Call]:
        regex = re.compile(pattern)
        return [c for c in self.calls if c.method == method and regex.search(c.path)]

    def callbacks(self, interaction_id: str) -> list[Call]:
        return self.find("POST", rf"^/interactions/{interaction_id}/[^/]+/callback$")

    # ------------------------------------------------------------------ HTTP

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        if path.startswith("/attachments/"):
            data = self.files.get(path.removeprefix("/attachments/"))
            return web.Response(body=data) if data is not None else web.Response(status=404)
        if not path.startswith("/api/v10/"):
            return _json({"message": "404: Not Found", "code": 0}, status=404)
        path = path.removeprefix("/api/v10")
        body, files = await _read_body(request)
        call = Call(request.method, path, dict(request.query), body, files, dict(request.headers))
        self.calls.append(call)
        for failure in self._failures:
            if failure.times > 0 and failure.method == request.method and failure.pattern.search(path):
                failure.times -= 1
                return _json(failure.body, status=failure.status, headers=failure.headers)
        for method, pattern, handler in self._routes():
            match = re.fullmatch(pattern, path)
            if method == request.method and match:
                response: web.StreamResponse = await handler(call, **match.groupdict())
                return response
        return _json({"message": "404: Not Found", "code": 0}, status=404)

    def _routes(self) -> list[tuple[str, str, Any]]:
        return [
            ("GET", r"/users/@me", self._me),
            ("GET", r"/oauth2/applications/@me", self._application),
            ("GET", r"/gateway/bot", self._gateway_bot),
            ("PUT", r"/applications/(?P<app>\d+)/commands", self._commands),
            ("PUT", r"/applications/(?P<app>\d+)/guilds/(?P<guild>\d+)/commands", self._commands),
            ("POST", r"/interactions/(?P<iid>\d+)/(?P<token>[^/]+)/callback", self._callback),
            ("POST", r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)", self._followup),
            ("PATCH", r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)/messages/(?P<mid>[^/]+)", self._edit_webhook),
            ("POST", r"/channels/(?P<cid>\d+)/messages", self._channel_message),
            ("PATCH", r"/channels/(?P<cid>\d+)/messages/(?P<mid>\d+)", self._edit_channel_message),
            ("POST", r"/channels/(?P<cid>\d+)/typing", self._typing),
            ("PUT", r"/channels/(?P<cid>\d+)/messages/(?P<mid>\d+)/reactions/(?P<emoji>[^/]+)/@me", self._react),
            ("POST", r"/users/@me/channels", self._dm_channel),
            ("GET", r"/channels/(?P<cid>\d+)", self._get_channel),
            ("GET", r"/guilds/(?P<gid>\d+)", self._get_guild),
            ("GET", r"/guilds/(?P<gid>\d+)/channels", self._guild_channels),
            ("GET", r"/guilds/(?P<gid>\d+)/members/(?P<uid>\d+)", self._guild_member),
        ]

    async def _me(self, call: Call) -> web.Response:
        if call.headers.get("Authorization") != f"Bot {BOT_TOKEN}":
            return _json({"message": "401: Unauthorized", "code": 0}, status=401)
        return _json(BOT_USER)

    async def _application(self, call: Call) -> web.Response:
        return _json(
            {
                "id": str(APP_ID),
                "name": "QuizBot",
                "description": "",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": {**BOT_USER, "id": "1", "username": "owner", "bot": False},
                "verify_key": "0" * 64,
                "flags": 0,
                "bot": BOT_USER,
            }
        )

    async def _gateway_bot(self, call: Call) -> web.Response:
        return _json(
            {
                "url": f"{self.url.replace('http', 'ws')}/gateway",
                "shards": 1,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            }
        )

    async def _commands(self, call: Call, app: str, guild: str | None = None) -> web.Response:
        out = []
        for command in call.body:
            out.append(
                {**command, "id": self.new_id(), "application_id": app, "version": "1", "guild_id": guild}
            )
        return _json(out)

    async def _callback(self, call: Call, iid: str, token: str) -> web.Response:
        kind = call.body.get("type")
        data = call.body.get("data") or {}
        interaction = self.interactions.get(iid, {})
        channel_id = (interaction.get("channel") or {}).get("id") or interaction.get("channel_id") or "1"
        problems = check_modal(data) if kind == 9 else check_message(data) if kind in (4, 7) else []
        if problems:
            return self._invalid(call, problems)
        message: dict[str, Any] | None = None
        if kind == 4:
            message = self._store(channel_id, data, webhook=True)
            call.message_id = message["id"]
            self.originals[token] = message["id"]
        elif kind == 5:
            message = self._store(
                channel_id, {"content": "", "flags": (data.get("flags") or 0) | 128}, webhook=True
            )
            self.originals[token] = message["id"]
            call.message_id = message["id"]
        elif kind in (6, 7):
            original = (interaction.get("message") or {}).get("id")
            if original is not None:
                self.originals[token] = original
                if kind == 7 and original in self.messages:
                    message = self._update(original, data)
                    call.message_id = original
        if call.query.get("with_response") not in ("1", "true"):
            return web.Response(status=204)  # as Discord: the callback's resource only when asked for
        response: dict[str, Any] = {
            "interaction": {
                "id": iid,
                "type": interaction.get("type", 2),
                "response_message_id": message["id"] if message else None,
                "response_message_loading": kind == 5,
                "response_message_ephemeral": bool((data.get("flags") or 0) & 64),
            },
            "resource": {"type": kind, **({"message": message} if message and kind in (4, 5) else {})},
        }
        return _json(response)

    async def _followup(self, call: Call, app: str, token: str) -> web.Response:
        problems = check_message(call.body)
        if problems:
            return self._invalid(call, problems)
        interaction = next((i for i in self.interactions.values() if i.get("token") == token), {})
        channel_id = (interaction.get("channel") or {}).get("id") or "1"
        message = self._store(channel_id, call.body, webhook=True)
        call.message_id = message["id"]
        return _json(message)

    async def _edit_webhook(self, call: Call, app: str, token: str, mid: str) -> web.Response:
        problems = check_message(call.body)
        if problems:
            return self._invalid(call, problems)
        if mid == "@original":
            mid = self.originals.get(token, "")
        if mid not in self.messages:
            return _json({"message": "Unknown Message", "code": 10008}, status=404)
        call.message_id = mid
        return _json(self._update(mid, call.body))

    async def _channel_message(self, call: Call, cid: str) -> web.Response:
        problems = check_message(call.body)
        if problems:
            return self._invalid(call, problems)
        message = self._store(cid, call.body, webhook=False)
        call.message_id = message["id"]
        return _json(message)

    async def _edit_channel_message(self, call: Call, cid: str, mid: str) -> web.Response:
        problems = check_message(call.body)
        if problems:
            return self._invalid(call, problems)
        if mid not in self.messages:
            return _json({"message": "Unknown Message", "code": 10008}, status=404)
        call.message_id = mid
        return _json(self._update(mid, call.body))

    async def _typing(self, call: Call, cid: str) -> web.Response:
        return web.Response(status=204)

    async def _react(self, call: Call, cid: str, mid: str, emoji: str) -> web.Response:
        self.reactions.append((cid, mid, urllib.parse.unquote(emoji)))
        return web.Response(status=204)

    async def _dm_channel(self, call: Call) -> web.Response:
        recipient = call.body["recipient_id"]
        user = {"id": str(recipient), "username": f"user{recipient}", "discriminator": "0", "avatar": None}
        return _json(
            {"id": f"7{str(recipient)[-17:]}", "type": 1, "recipients": [user], "last_message_id": None}
        )

    async def _get_channel(self, call: Call, cid: str) -> web.Response:
        for gid, guild in self.guilds.items():
            for channel in (*guild["channels"], *guild["threads"]):
                if channel["id"] == cid:
                    if cid in self.hidden_channels:
                        return _json({"message": "Missing Access", "code": 50001}, status=403)
                    return _json({**channel, "guild_id": gid})
        return _json({"message": "Unknown Channel", "code": 10003}, status=404)

    async def _get_guild(self, call: Call, gid: str) -> web.Response:
        guild = self.guilds.get(gid)
        if guild is None:
            return _json({"message": "Unknown Guild", "code": 10004}, status=404)
        # The REST guild object: no channels, threads or members (those are GUILD_CREATE's).
        return _json({k: v for k, v in guild.items() if k not in ("channels", "threads", "members")})

    async def _guild_channels(self, call: Call, gid: str) -> web.Response:
        guild = self.guilds.get(gid)
        if guild is None:
            return _json({"message": "Unknown Guild", "code": 10004}, status=404)
        return _json([{**c, "guild_id": gid} for c in guild["channels"]])  # threads are not listed here

    async def _guild_member(self, call: Call, gid: str, uid: str) -> web.Response:
        members = (self.guilds.get(gid) or {}).get("members") or []
        member = next((m for m in members if m["user"]["id"] == uid), None)
        if member is None:
            return _json({"message": "Unknown Member", "code": 10007}, status=404)
        return _json(member)

    # ------------------------------------------------------------------ helpers

    def _invalid(self, call: Call, problems: list[str]) -> web.Response:
        self.violations.extend(f"{call.method} {call.path}: {p}" for p in problems)
        return _json({"message": "Invalid Form Body", "code": 50035, "errors": problems}, status=400)

    def _store(self, channel_id: str, body: dict[str, Any], *, webhook: bool) -> dict[str, Any]:
        message_id = self.new_id()
        message: dict[str, Any] = {
            "id": message_id,
            "channel_id": str(channel_id),
            "type": 0,
            "content": body.get("content") or "",
            "author": BOT_USER,
            "embeds": body.get("embeds") or [],
            "components": body.get("components") or [],
            "attachments": [],
            "mentions": [],
            "mention_roles": [],
            "mention_everyone": False,
            "pinned": False,
            "tts": False,
            "timestamp": datetime.now(UTC).isoformat(),
            "edited_timestamp": None,
            "flags": body.get("flags") or 0,
        }
        if webhook:
            message["webhook_id"] = str(APP_ID)
            message["application_id"] = str(APP_ID)
        self.messages[message_id] = message
        return message

    def _update(self, message_id: str, body: dict[str, Any]) -> dict[str, Any]:
        message = self.messages[message_id]
        for key in ("content", "embeds", "components"):
            if key in body and body[key] is not None:
                message[key] = body[key]
        message["edited_timestamp"] = datetime.now(UTC).isoformat()
        return message


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """Answer JSON as Discord does: exactly `application/json`, which discord.py checks for."""
    return web.Response(
        body=json.dumps(data).encode(),
        status=status,
        headers={**(headers or {}), "Content-Type": "application/json"},
    )


async def _read_body(request: web.Request) -> tuple[Any, list[tuple[str, bytes]]]:
    if request.content_type.startswith("multipart/"):
        form = await request.post()
        files = [(f.filename, f.file.read()) for k, f in form.items() if k.startswith("files[")]  # type: ignore[union-attr]
        payload = form.get("payload_json")
        return (json.loads(payload) if isinstance(payload, str) else {}), files
    text = await request.text()
    return (json.loads(text) if text else None), []


__all__ = ["APP_ID", "BOT_TOKEN", "BOT_USER", "Call", "FakeDiscord", "check_message", "shard_for"]
