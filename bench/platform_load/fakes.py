"""The tests' fake Slack and fake Discord, instrumented: acks timed, each learner woken by its messages."""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

import orjson
from aiohttp import web

from tests.discord.fake_discord import Call, FakeDiscord, check_message
from tests.discord.fake_discord import _json as discord_json
from tests.slack.conftest import BOT_TOKEN as SLACK_TOKEN
from tests.slack.conftest import TEAM
from tests.slack.fake_slack import FakeSlack

BUSY = re.compile(r"busy[;,] try again")  # the bot's answer to code it could not grade now (older code: "⏳ busy, try again in 1 s")


def busy_note(text: str) -> bool:
    return BUSY.search(text) is not None


FAILED = "went wrong"  # the bot's apology for an error it logged ("Something went wrong on my side ...")


def orjson_text(value: Any) -> str:
    return orjson.dumps(value).decode()


class BenchSlack(FakeSlack):
    """The fake Slack, waking the learner whose DM the bot posted to; its JSON through orjson (this
    process's CPU is taken from the bots'; with the learners' orjson and form encoding it costs about
    a tenth less CPU an answer: 1.30-1.37 ms against 1.39-1.56, 2026-12-06)."""

    loads = staticmethod(orjson.loads)
    dumps = staticmethod(orjson_text)

    def __init__(self) -> None:
        super().__init__(bot_token=SLACK_TOKEN, team=TEAM)
        self.posted: dict[str, asyncio.Event] = {}
        self.latest: dict[str, dict[str, Any]] = {}
        self.refusals: dict[str, int] = {}  # channel -> notes "already answered" (privately or by response_url)
        self.busy: dict[str, int] = {}  # channel -> notes "the sandbox is busy" (anywhere)
        self.failed: dict[str, int] = {}  # channel -> the bot's apologies for an error (anywhere)
        self.respond_to: dict[str, str] = {}  # response_url number -> the learner's channel
        self.api_calls = 0

    def answer_url(self, channel: str) -> str:
        url = self.response_url()
        self.respond_to[url.rsplit("/", 1)[1]] = channel
        return url

    def _refused(self, channel: str | None, text: str) -> None:
        if channel is not None and "already answered" in text:
            self.refusals[channel] = self.refusals.get(channel, 0) + 1
            self.posted.setdefault(channel, asyncio.Event()).set()
        if channel is not None and busy_note(text):
            self.busy[channel] = self.busy.get(channel, 0) + 1
            self.posted.setdefault(channel, asyncio.Event()).set()
        if channel is not None and FAILED in text:
            self.failed[channel] = self.failed.get(channel, 0) + 1
            self.posted.setdefault(channel, asyncio.Event()).set()

    def _record(self) -> None:
        self.api_calls += 1
        if len(self.calls) > 1000:  # the tests' call log, not needed here: keep memory flat
            del self.calls[:500]
        if len(self.ephemerals) > 1000:
            del self.ephemerals[:500]
        if len(self.responses) > 1000:
            del self.responses[:500]

    def _m_chat_postMessage(self, args: dict[str, Any]) -> web.Response:
        self._record()
        response = super()._m_chat_postMessage(args)
        channel = str(args.get("channel"))
        body = orjson.loads(response.body or b"{}")  # type: ignore[arg-type]
        if body.get("ok"):
            self.latest[channel] = body["message"]
            self.posted.setdefault(channel, asyncio.Event()).set()
            self._refused(channel, str(args.get("text") or ""))
        return response

    def _m_chat_update(self, args: dict[str, Any]) -> web.Response:
        self._record()
        return super()._m_chat_update(args)

    def _m_chat_postEphemeral(self, args: dict[str, Any]) -> web.Response:
        self._record()
        self._refused(str(args.get("channel")), str(args.get("text") or ""))
        return super()._m_chat_postEphemeral(args)

    async def _respond(self, request: web.Request) -> web.Response:
        response = await super()._respond(request)  # no await between its append and this line
        self._refused(self.respond_to.pop(request.match_info["n"], None), str(self.responses[-1].get("text") or ""))
        return response


class BenchDiscord(FakeDiscord):
    """The fake Discord: one gateway socket per shard, acks timed, each learner woken by its new messages."""

    def __init__(self) -> None:
        super().__init__()
        self.shard_sockets: dict[int, web.WebSocketResponse] = {}
        self.acked: dict[str, asyncio.Future[tuple[float, Call]]] = {}
        self.by_token: dict[str, dict[str, Any]] = {}  # interaction token -> payload
        self.inbox: dict[str, asyncio.Queue[dict[str, Any]]] = {}  # user id -> messages posted for them
        self.api_errors = 0
        self.api_calls = 0
        self._seq = 1

    def user_of(self, payload: dict[str, Any]) -> str:
        return str((payload.get("member") or {}).get("user", payload.get("user", {})).get("id"))

    def expect(self, payload: dict[str, Any]) -> asyncio.Future[tuple[float, Call]]:
        """Note a payload about to be sent; the future resolves when its callback arrives."""
        self.interactions[payload["id"]] = payload
        self.by_token[payload["token"]] = payload
        future: asyncio.Future[tuple[float, Call]] = asyncio.get_running_loop().create_future()
        self.acked[payload["id"]] = future
        return future

    def forget(self, payload: dict[str, Any]) -> None:
        self.interactions.pop(payload["id"], None)
        self.acked.pop(payload["id"], None)

    async def send_to(self, shard: int, event: str, data: dict[str, Any]) -> None:
        self._seq += 1
        await self.shard_sockets[shard].send_str(json.dumps({"op": 0, "t": event, "s": self._seq, "d": data}))

    gateway_max_msg_size = 0  # no limit on what the bot sends

    def _identified(self, ws: web.WebSocketResponse, shard: int, count: int) -> None:
        super()._identified(ws, shard, count)
        self.shard_sockets[shard] = ws

    def _ready(
        self, identify: dict[str, Any], shard: int, count: int, own: list[dict[str, Any]]
    ) -> dict[str, Any]:
        # a session per shard, and the shard said back whenever the bot named one
        ready = {**super()._ready(identify, shard, count, own), "session_id": f"fake-session-{shard}"}
        if "shard" in identify:
            ready["shard"] = identify["shard"]
        return ready

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self.api_calls += 1
        response = await super()._handle(request)
        if response.status >= 400:
            self.api_errors += 1
        if len(self.calls) > 1000:  # the tests' call log, not needed here: keep memory flat
            del self.calls[:500]
        return response

    def _deliver(self, payload: dict[str, Any] | None, message_id: str | None) -> None:
        if payload is not None and message_id is not None and message_id in self.messages:
            self.inbox.setdefault(self.user_of(payload), asyncio.Queue()).put_nowait(self.messages[message_id])

    async def _callback(self, call: Call, iid: str, token: str) -> web.Response:
        response = await super()._callback(call, iid, token)
        future = self.acked.get(iid)
        if future is not None and not future.done():
            future.set_result((time.perf_counter(), call))
        if call.body.get("type") in (4, 5):
            self._deliver(self.interactions.get(iid), call.message_id)
        return response

    async def _followup(self, call: Call, app: str, token: str) -> web.Response:
        # as FakeDiscord's, with the interaction found by its token at once (not by a scan of them all)
        problems = check_message(call.body)
        if problems:
            return self._invalid(call, problems)
        interaction = self.by_token.get(token, {})
        channel_id = (interaction.get("channel") or {}).get("id") or "1"
        message = self._store(channel_id, call.body, webhook=True)
        call.message_id = message["id"]
        self._deliver(interaction, message["id"])
        return discord_json(message)

    async def _edit_webhook(self, call: Call, app: str, token: str, mid: str) -> web.Response:
        response = await super()._edit_webhook(call, app, token, mid)
        if response.status == 200:  # e.g. "Running your code..." becomes the next item
            self._deliver(self.by_token.get(token), call.message_id)
        return response
