"""The fake Discord's gateway: shard-aware as Discord's is (see `tests.discord.fake_discord`).

IDENTIFY carries `shard: [id, count]` (none: [0, 1]); a guild belongs to shard `(guild_id >> 22) %
count`; each connection's READY and GUILD_CREATE events carry its own guilds only (those added with
`add_guild`), and `dispatch` sends an event about a guild to the connections of that guild's shard
only (DMs to shard 0).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import WSMsgType, web

APP_ID = 900000000000000001
BOT_USER = {
    "id": str(APP_ID),
    "username": "quizbot",
    "global_name": "QuizBot",
    "discriminator": "0",
    "avatar": None,
    "bot": True,
    "flags": 0,
}


class FakeGateway:
    """The gateway's connections and guilds; `FakeDiscord` adds the HTTP API and serves both."""

    def __init__(self) -> None:
        self.identify: list[dict[str, Any]] = []
        self.sockets: list[web.WebSocketResponse] = []
        self.url = ""
        self.ready = asyncio.Event()
        self.allowed_intents: int | None = None  # None: any; else IDENTIFY with others is closed with 4014
        self.guilds: dict[str, dict[str, Any]] = {}  # guild id -> its GUILD_CREATE payload (add_guild)
        self.shard_of: dict[int, tuple[int, int]] = {}  # id(socket) -> (shard id, shard count) it identified with
        self.delivered: list[tuple[int, str, str]] = []  # (shard id, event, payload id) of every dispatch sent
        self.announced: list[tuple[int, str]] = []  # (shard id, guild id) of every GUILD_CREATE sent

    async def dispatch(self, event: str, data: dict[str, Any]) -> int:
        """Send a gateway DISPATCH event to the connections of its shard; return how many got it.

        An event about a guild goes to the shard the guild belongs to, one without a guild (a DM) to
        shard 0, as Discord routes them; an unsharded connection gets everything.
        """
        sent = 0
        guild_id = data.get("guild_id")
        for ws in self.sockets:
            shard, count = self.shard_of.get(id(ws), (0, 1))
            if ws.closed or shard != (shard_for(guild_id, count) if guild_id else 0):
                continue
            await ws.send_str(json.dumps({"op": 0, "t": event, "s": 2, "d": data}))
            self.delivered.append((shard, event, str(data.get("id", ""))))
            sent += 1
        return sent

    def add_guild(self, guild_id: str, name: str = "Study server") -> dict[str, Any]:
        """A guild the bot is in: announced (READY, GUILD_CREATE) to the connection of its shard."""
        guild: dict[str, Any] = {
            "id": guild_id,
            "name": name,
            "icon": None,
            "owner_id": "1",
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "preferred_locale": "en-US",
            "features": [],
            "roles": [],
            "emojis": [],
            "stickers": [],
            "channels": [],
            "threads": [],
            "members": [],
            "voice_states": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "member_count": 2,
            "large": False,
            "unavailable": False,
            "joined_at": "2026-01-01T00:00:00+00:00",
            "system_channel_flags": 0,
        }
        self.guilds[guild_id] = guild
        return guild

    def guilds_of(self, shard: int, count: int) -> list[dict[str, Any]]:
        return [g for gid, g in self.guilds.items() if shard_for(gid, count) == shard]

    # ------------------------------------------------------------------ gateway

    gateway_max_msg_size = 4 * 1024 * 1024  # aiohttp's default; 0: no limit

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=self.gateway_max_msg_size)
        await ws.prepare(request)
        self.sockets.append(ws)
        await ws.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 45000}}))
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                continue
            payload = json.loads(msg.data)
            if payload["op"] == 1:
                await ws.send_str(json.dumps({"op": 11}))
            elif payload["op"] == 2:
                self.identify.append(payload["d"])
                if self.allowed_intents is not None and payload["d"]["intents"] & ~self.allowed_intents:
                    await ws.close(code=4014, message=b"Disallowed intent(s).")
                    break
                shard, count = payload["d"].get("shard") or (0, 1)
                self._identified(ws, shard, count)
                own = self.guilds_of(shard, count)
                ready = self._ready(payload["d"], shard, count, own)
                await ws.send_str(json.dumps({"op": 0, "t": "READY", "s": 1, "d": ready}))
                for guild in own:  # the guilds come after READY, as Discord sends them
                    await ws.send_str(json.dumps({"op": 0, "t": "GUILD_CREATE", "s": 1, "d": guild}))
                    self.announced.append((shard, guild["id"]))
                self.ready.set()
        return ws

    def _identified(self, ws: web.WebSocketResponse, shard: int, count: int) -> None:
        """Note the shard a connection identified as (a subclass may note more)."""
        self.shard_of[id(ws)] = (shard, count)

    def _ready(
        self, identify: dict[str, Any], shard: int, count: int, own: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """The READY a connection gets after its IDENTIFY: its own guilds, and its shard when sharded."""
        ready = {
            "v": 10,
            "user": BOT_USER,
            "guilds": [{"id": g["id"], "unavailable": True} for g in own],
            "session_id": "fake-session",
            "resume_gateway_url": f"{self.url.replace('http', 'ws')}/gateway",
            "application": {"id": str(APP_ID), "flags": 0},
            "private_channels": [],
            "relationships": [],
        }
        if count > 1:
            ready["shard"] = [shard, count]
        return ready


def shard_for(guild_id: str | int, count: int) -> int:
    """The shard a guild belongs to, by Discord's formula."""
    return (int(guild_id) >> 22) % count
