"""Drive the Slack front end as Slack does: signed HTTP requests with documented payloads.

The Bolt app is served over aiohttp on 127.0.0.1; its Web API calls go through SLACK_API_URL to
FakeSlack on 127.0.0.1. Request payloads follow the shapes in Slack's reference for slash
commands, block_actions, view_submission and the Events API.
"""

from __future__ import annotations

import itertools
import json
import random
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp
import pytest
from aiohttp.test_utils import TestServer
from slack_sdk.signature import SignatureVerifier

from bot.adapters.slack import Inbound, slack_front_end, web_app
from bot.adapters.slack.posts import SlackPoster
from bot.core import QuizService
from bot.core.packs import load_path
from bot.storage import open_repository
from tests.conftest import DEMO_PACK
from tests.daily.wired import Wired, wire
from tests.fakes import FakeClock, LocalRunner
from tests.slack.fake_slack import FakeSlack

BOT_TOKEN = "xoxb-1111-2222-QuizBotBotTokenSecret"
APP_TOKEN = "xapp-1-A0001-3333-QuizBotAppTokenSecret"
SIGNING_SECRET = "e3b9c6a0d4f1quizbotsigningsecret42"
TEAM = "T0001"
LEARNER = "U1LEARNER"
STRANGER = "U2STRANGER"
ADMIN = "U3ADMIN"  # a workspace admin according to users.info
ROOT = "U4ROOT"  # an admin through QUIZBOT_ADMINS only
CHANNEL = "C0QUIZ"


def dm(user: str) -> str:
    return "D" + user  # what FakeSlack's conversations.open answers


class Slack:
    """A Slack workspace pointed at one running front end: it signs and sends requests."""

    def __init__(self, http: aiohttp.ClientSession, url: str, fake: FakeSlack, front: Inbound | None) -> None:
        self.http = http
        self.url = url
        self.fake = fake
        self.front = front
        self._triggers = itertools.count(1)

    async def send(
        self, body: str, content_type: str, *, timestamp: int | None = None, secret: str = SIGNING_SECRET, settle: bool = True
    ) -> tuple[int, str]:
        stamp = str(int(time.time()) if timestamp is None else timestamp)
        signature = SignatureVerifier(secret).generate_signature(timestamp=stamp, body=body)
        headers = {"Content-Type": content_type, "X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": signature or ""}
        async with self.http.post(self.url, data=body.encode(), headers=headers) as response:
            status, text = response.status, await response.text()
        if settle and self.front is not None:
            await self.front.idle()
        return status, text

    async def settle(self) -> None:
        """Wait until the front end's lazy listeners are done."""
        if self.front is not None:
            await self.front.idle()

    # ----------------------------------------------------------------- payloads

    def command_body(self, text: str, *, user: str = LEARNER, channel: str | None = None) -> str:
        channel = channel or dm(user)
        return urlencode(
            {
                "token": "gIkuvaNzQIHg97ATvDxqgjtO",
                "team_id": TEAM,
                "team_domain": "quizbot-test",
                "channel_id": channel,
                "channel_name": "directmessage" if channel.startswith("D") else "general",
                "user_id": user,
                "user_name": user.lower(),
                "command": "/quiz",
                "text": text,
                "api_app_id": "A0001",
                "is_enterprise_install": "false",
                "response_url": self.fake.response_url(),
                "trigger_id": self.trigger(),
            }
        )

    async def command(self, text: str, *, user: str = LEARNER, channel: str | None = None, settle: bool = True) -> tuple[int, str]:
        return await self.send(self.command_body(text, user=user, channel=channel), "application/x-www-form-urlencoded", settle=settle)

    async def interact(self, payload: dict[str, Any], **kwargs: Any) -> tuple[int, str]:
        return await self.send(urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded", **kwargs)

    async def click(
        self, channel: str, ts: str, *, action_id: str | None = None, label: str | None = None, user: str = LEARNER, values: list[str] | None = None,
        action_ts: str | None = None,
    ) -> tuple[int, str]:
        """Press a button or choose in a menu of a message the bot posted, as Slack reports it."""
        message = self.fake.message(channel, ts)
        element, block_id = find_element(message["blocks"], action_id=action_id, label=label)
        action: dict[str, Any] = {"action_id": element["action_id"], "block_id": block_id, "type": element["type"], "action_ts": action_ts or self.action_ts()}
        if element["type"] == "button":
            action["text"] = element["text"]
            if "value" in element:
                action["value"] = element["value"]
        elif element["type"] == "static_select":
            action["selected_option"] = next(o for o in element["options"] if o["value"] == (values or [""])[0])
        else:
            action["selected_options"] = [o for o in element["options"] if o["value"] in (values or [])]
        return await self.interact(self.action_payload(channel, ts, action, user=user))

    def action_payload(self, channel: str, ts: str, action: dict[str, Any], *, user: str = LEARNER) -> dict[str, Any]:
        """The block_actions payload Slack sends for `action` on the bot's message `ts`."""
        message = self.fake.message(channel, ts)
        payload: dict[str, Any] = {
            "type": "block_actions",
            "user": {"id": user, "username": user.lower(), "name": user.lower(), "team_id": TEAM},
            "api_app_id": "A0001",
            "token": "gIkuvaNzQIHg97ATvDxqgjtO",
            "container": {"type": "message", "message_ts": ts, "channel_id": channel, "is_ephemeral": False},
            "trigger_id": self.trigger(),
            "team": {"id": TEAM, "domain": "quizbot-test"},
            "enterprise": None,
            "is_enterprise_install": False,
            "channel": {"id": channel, "name": "directmessage" if channel.startswith("D") else "general"},
            "message": message,
            "state": {"values": {}},
            "response_url": self.fake.response_url((channel, ts)),
            "actions": [action],
        }
        if "thread_ts" in message:
            payload["container"]["thread_ts"] = message["thread_ts"]
        return payload

    async def home_click(self, action_id: str, *, user: str = LEARNER) -> tuple[int, str]:
        view = self.fake.homes[user]
        element, block_id = find_element(view["blocks"], action_id=action_id)
        payload = {
            "type": "block_actions",
            "user": {"id": user, "username": user.lower(), "name": user.lower(), "team_id": TEAM},
            "api_app_id": "A0001",
            "token": "gIkuvaNzQIHg97ATvDxqgjtO",
            "container": {"type": "view", "view_id": "VHOME"},
            "trigger_id": self.trigger(),
            "team": {"id": TEAM, "domain": "quizbot-test"},
            "view": {**view, "id": "VHOME"},
            "actions": [{"action_id": element["action_id"], "block_id": block_id, "type": "button", "value": element.get("value", ""), "action_ts": "1"}],
        }
        return await self.interact(payload)

    async def submit(self, view: dict[str, Any], values: dict[str, Any], *, user: str = LEARNER, settle: bool = True) -> tuple[int, str]:
        """Submit a modal the bot opened; `values` maps block_id to the input's value (or file list)."""
        state: dict[str, dict[str, Any]] = {}
        for block in view["blocks"]:
            if block.get("type") != "input" or block["block_id"] not in values:
                continue
            element = block["element"]
            value = values[block["block_id"]]
            if element["type"] == "plain_text_input":
                entry = {"type": "plain_text_input", "value": value}
            elif element["type"] == "file_input":
                entry = {"type": "file_input", "files": value}
            else:
                entry = {"type": element["type"], "selected_options": [o for o in element["options"] if o["value"] in value]}
            state[block["block_id"]] = {element["action_id"]: entry}
        payload = {
            "type": "view_submission",
            "team": {"id": TEAM, "domain": "quizbot-test"},
            "user": {"id": user, "username": user.lower(), "name": user.lower(), "team_id": TEAM},
            "api_app_id": "A0001",
            "token": "gIkuvaNzQIHg97ATvDxqgjtO",
            "trigger_id": self.trigger(),
            "view": {**view, "state": {"values": state}},
            "response_urls": [],
            "is_enterprise_install": False,
            "enterprise": None,
        }
        return await self.interact(payload, settle=settle)

    async def event(self, event: dict[str, Any], **kwargs: Any) -> tuple[int, str]:
        body = {
            "token": "gIkuvaNzQIHg97ATvDxqgjtO",
            "team_id": TEAM,
            "api_app_id": "A0001",
            "event": event,
            "type": "event_callback",
            "event_id": f"Ev{next(self._triggers):08d}",
            "event_time": int(time.time()),
            "authorizations": [{"enterprise_id": None, "team_id": TEAM, "user_id": "UBOT", "is_bot": True, "is_enterprise_install": False}],
            "is_ext_shared_channel": False,
        }
        return await self.send(json.dumps(body), "application/json", **kwargs)

    async def message(
        self,
        text: str,
        *,
        user: str = LEARNER,
        channel: str | None = None,
        thread_ts: str | None = None,
        files: list[dict[str, Any]] | None = None,
        blocks: list[dict[str, Any]] | None = None,
    ) -> tuple[int, str]:
        channel = channel or dm(user)
        event: dict[str, Any] = {
            "type": "message",
            "channel": channel,
            "user": user,
            "text": text,
            "ts": f"1700000200.{next(self._triggers):06d}",
            "event_ts": "1700000200.000001",
            "channel_type": "im" if channel.startswith("D") else "channel",
            "team": TEAM,
        }
        if thread_ts:
            event["thread_ts"] = thread_ts
        if blocks is not None:
            event["blocks"] = blocks
        if files:
            event["subtype"] = "file_share"
            event["files"] = files
        return await self.event(event)

    def trigger(self) -> str:
        return f"{next(self._triggers)}.98765.abcdef"

    def action_ts(self) -> str:
        """Each click Slack reports carries its own action_ts (a retry of one carries the same)."""
        return f"1700000100.{next(self._triggers):06d}"

    # ----------------------------------------------------------------- reading what the bot did

    def last_view(self) -> dict[str, Any]:
        assert self.fake.views, "no modal was opened"
        return self.fake.views[-1]


def find_element(blocks: list[dict[str, Any]], *, action_id: str | None = None, label: str | None = None) -> tuple[dict[str, Any], str]:
    for n, block in enumerate(blocks):
        elements = block.get("elements", []) if block.get("type") == "actions" else [block["accessory"]] if "accessory" in block else []
        for element in elements:
            text = (element.get("text") or element.get("placeholder") or {}).get("text")
            if (action_id is not None and element.get("action_id") == action_id) or (label is not None and text == label):
                return element, block.get("block_id", f"b{n}")
    raise AssertionError(f"no element {action_id or label!r} in {[b.get('type') for b in blocks]}")


def block_text(blocks: list[dict[str, Any]]) -> str:
    """All the text a person would read in these blocks."""
    out: list[str] = []
    for block in blocks:
        if "text" in block and isinstance(block["text"], dict):
            out.append(block["text"]["text"])
        for field in block.get("fields", []):
            out.append(field["text"])
        for element in block.get("elements", []):
            if isinstance(element.get("text"), str):
                out.append(element["text"])
            elif isinstance(element.get("text"), dict):
                out.append(element["text"]["text"])
    return "\n".join(out)


def make_service(repository: Any, runner: LocalRunner, clock: FakeClock) -> QuizService:
    pending = getattr(repository, "pending", None)  # a SqlRepository's pending_packs table, as bot/app.py wires it
    return QuizService(
        repository=repository, runner=runner, clock=clock, rng=random.Random(7), admins=frozenset({f"slack:{ROOT}"}), pending=pending
    )


@pytest.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    server = FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN, team=TEAM, admins=(ADMIN,))
    await server.start()
    yield server
    await server.close()
    assert server.errors == [], f"the bot made calls Slack would refuse: {server.errors}"


@pytest.fixture
def open_slack(fake: FakeSlack) -> Callable[[QuizService], Any]:
    """Start a front end (Bolt app over HTTP on 127.0.0.1) for a service; stop it on exit."""

    @asynccontextmanager
    async def start(service: QuizService, metrics: Any = None) -> AsyncIterator[Slack]:
        async with slack_front_end(service, token=BOT_TOKEN, api_url=fake.api_url, signing_secret=SIGNING_SECRET) as (front, bolt):
            server = TestServer(web_app(bolt, metrics=metrics), host="127.0.0.1")
            await server.start_server()
            try:
                async with aiohttp.ClientSession() as http:
                    yield Slack(http, str(server.make_url("/slack/events")), fake, front)
                    await front.idle()
            finally:
                await server.close()

    return start


@pytest.fixture
async def quiz_service(repository: Any, runner: LocalRunner, clock: FakeClock) -> QuizService:
    svc = make_service(repository, runner, clock)
    await svc.import_pack(load_path(DEMO_PACK).pack)
    return svc


@pytest.fixture
async def slack(open_slack: Callable[[QuizService], Any], quiz_service: QuizService) -> AsyncIterator[Slack]:
    async with open_slack(quiz_service) as workspace:
        yield workspace


async def reopen(db_url: str, runner: LocalRunner, clock: FakeClock) -> tuple[Any, QuizService]:
    """A restarted process: a new repository and service on the same database."""
    repository = await open_repository(db_url)
    return repository, make_service(repository, runner, clock)



@pytest.fixture
async def daily_slack(
    open_slack: Callable[..., Any], repository: Any, runner: LocalRunner, clock: FakeClock, tmp_path: Path
) -> AsyncIterator[tuple[Slack, Wired]]:
    """The daily-practice wiring (service, scheduler, posters) behind a Slack front end."""
    wired = await wire(repository, clock, runner, tmp_path)
    async with open_slack(wired.service) as workspace:
        assert workspace.front is not None
        await wired.posters.add("slack", SlackPoster(workspace.front.api))
        yield workspace, wired
