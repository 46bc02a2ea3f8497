"""Slack's requests are verified before they are parsed, and each is processed once, however often it arrives."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import time
from typing import Any

import pytest
from pydantic import SecretStr
from sqlalchemy import func, select

from bot.adapters.slack import run_slack
from bot.adapters.slack.origin import ReplayGuard, replay_key
from bot.app import App
from bot.core import Actor, QuizService
from bot.settings import Settings
from bot.storage import SqlRepository
from bot.storage import tables as t
from tests.fakes import LocalRunner
from tests.slack.conftest import APP_TOKEN, BOT_TOKEN, LEARNER, SIGNING_SECRET, Slack, dm
from tests.slack.fake_slack import FakeSlack
from tests.slack.helpers import items, posted_after


async def post_raw(slack: Slack, raw: bytes, content_type: str, *, sign: bool = True, headers: dict[str, str] | None = None) -> tuple[int, str]:
    """Send bytes as Slack would, signed with Slack's documented v0 scheme over the exact bytes."""
    stamp = str(int(time.time()))
    sent = {"Content-Type": content_type, "X-Slack-Request-Timestamp": stamp, **(headers or {})}
    if sign:
        digest = hmac.new(SIGNING_SECRET.encode(), b"v0:" + stamp.encode() + b":" + raw, hashlib.sha256).hexdigest()
        sent["X-Slack-Signature"] = f"v0={digest}"
    async with slack.http.post(slack.url, data=raw, headers=sent) as response:
        status, text = response.status, await response.text()
    await slack.settle()
    return status, text


def no_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    assert [r.getMessage() for r in caplog.records if r.exc_info] == []
    assert "Traceback" not in caplog.text


MALFORMED = [
    ("application/json", b"{not json"),
    ("application/json", b"[1, 2, 3]"),
    ("application/json", b'"just a string"'),
    ("application/json", b"\xff\xfe not UTF-8"),
    ("application/json", b"[" * 100_000),
    ("application/x-www-form-urlencoded", b"payload=%7Bnot+json"),
    ("application/x-www-form-urlencoded", b"payload=%5B%5D"),
]


@pytest.mark.parametrize(("content_type", "raw"), MALFORMED, ids=["bad JSON", "array", "string", "not UTF-8", "deep", "bad payload", "payload array"])
async def test_a_malformed_signed_body_gets_400_without_a_traceback(
    slack: Slack, quiz_service: QuizService, caplog: pytest.LogCaptureFixture, content_type: str, raw: bytes
) -> None:
    caplog.set_level(logging.DEBUG)
    status, _ = await post_raw(slack, raw, content_type)
    assert status == 400
    no_tracebacks(caplog)
    assert any("refused a signed Slack request" in r.getMessage() for r in caplog.records)
    assert slack.fake.calls == []
    assert await quiz_service.active_session(Actor("slack", "T0001", LEARNER)) is None


@pytest.mark.parametrize(("content_type", "raw"), MALFORMED[:1] + MALFORMED[3:5], ids=["bad JSON", "not UTF-8", "deep"])
async def test_an_unsigned_malformed_body_is_refused_before_it_is_read(
    slack: Slack, caplog: pytest.LogCaptureFixture, content_type: str, raw: bytes
) -> None:
    caplog.set_level(logging.DEBUG)
    assert (await post_raw(slack, raw, content_type, sign=False))[0] == 401
    assert (await post_raw(slack, raw, content_type, sign=False, headers={"X-Slack-Signature": "v0=00"}))[0] == 401
    no_tracebacks(caplog)
    assert slack.fake.calls == []


async def test_a_nonsense_timestamp_header_is_refused_not_a_crash(slack: Slack, caplog: pytest.LogCaptureFixture) -> None:
    body = slack.command_body("help").encode()
    headers = {"Content-Type": "application/x-www-form-urlencoded", "X-Slack-Request-Timestamp": "soon", "X-Slack-Signature": "v0=1"}
    async with slack.http.post(slack.url, data=body, headers=headers) as response:
        assert response.status == 401
    no_tracebacks(caplog)


async def test_an_event_slack_retries_is_processed_once(slack: Slack) -> None:
    home_opened = {"type": "app_home_opened", "user": LEARNER, "channel": dm(LEARNER), "tab": "home", "event_ts": "1700000300.000001"}
    body = {
        "token": "gIkuvaNzQIHg97ATvDxqgjtO",
        "team_id": "T0001",
        "api_app_id": "A0001",
        "event": home_opened,
        "type": "event_callback",
        "event_id": "Ev0RETRIED1",
        "event_time": int(time.time()),
    }
    raw = json.dumps(body).encode()
    assert (await post_raw(slack, raw, "application/json"))[0] == 200
    assert len(slack.fake.calls_to("views.publish")) == 1
    for attempt in (1, 2):  # Slack's retries: a new timestamp and signature, the same event_id
        status, _ = await post_raw(slack, raw, "application/json", headers={"X-Slack-Retry-Num": str(attempt), "X-Slack-Retry-Reason": "http_timeout"})
        assert status == 200
    assert len(slack.fake.calls_to("views.publish")) == 1
    other = json.dumps({**body, "event_id": "Ev0ANOTHER2"}).encode()
    assert (await post_raw(slack, other, "application/json"))[0] == 200
    assert len(slack.fake.calls_to("views.publish")) == 2  # a new event is still served


class Recorder:
    """Keep every body the test workspace sends, so one can be sent again verbatim."""

    def __init__(self, slack: Slack, monkeypatch: pytest.MonkeyPatch) -> None:
        self.sent: list[tuple[str, str]] = []
        self.send = slack.send

        async def send(body: str, content_type: str, **kwargs: Any) -> tuple[int, str]:
            self.sent.append((body, content_type))
            return await self.send(body, content_type, **kwargs)

        monkeypatch.setattr(slack, "send", send)

    async def replay_last(self) -> tuple[int, str]:
        body, content_type = self.sent[-1]
        return await self.send(body, content_type)  # a fresh timestamp and signature, the same body


async def attempts(repository: SqlRepository) -> int:
    async with repository.engine.connect() as c:
        return int((await c.execute(select(func.count()).select_from(t.attempts))).scalar_one())


async def test_a_replayed_command_starts_one_quiz(slack: Slack, monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = Recorder(slack, monkeypatch)
    await slack.command("start demo difficulty:easy count:2")
    channel = dm(LEARNER)
    assert len(items(slack, channel)) == 1
    status, body = await recorder.replay_last()
    assert (status, body) == (200, "")
    assert len(items(slack, channel)) == 1
    assert len(slack.fake.calls_to("conversations.open")) == 1


async def test_a_replayed_click_is_counted_once(slack: Slack, repository: SqlRepository, monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = Recorder(slack, monkeypatch)
    await slack.command("start demo difficulty:easy count:2")
    channel = dm(LEARNER)
    item = items(slack, channel)[-1]
    await slack.click(channel, item["ts"], label="Skip")
    seen = (len(slack.fake.calls), len(slack.fake.responses))
    status, _ = await recorder.replay_last()
    assert status == 200
    assert (len(slack.fake.calls), len(slack.fake.responses)) == seen  # not even an "already answered" note
    assert len(items(slack, channel)) == 2  # moved on once, not twice
    first = items(slack, channel)[-1]
    await slack.click(channel, first["ts"], label="Answer")
    await slack.submit(slack.last_view(), {"answer": "6"})
    assert await attempts(repository) == 1
    feedback = posted_after(slack, channel, first["ts"])
    seen = (len(slack.fake.calls), len(slack.fake.responses))
    await recorder.replay_last()  # the modal's submission again
    assert await attempts(repository) == 1
    assert posted_after(slack, channel, first["ts"]) == feedback
    assert (len(slack.fake.calls), len(slack.fake.responses)) == seen


def test_the_replay_guard_remembers_a_window_to_twice_that_and_stays_bounded() -> None:
    now = [1000.0]
    guard = ReplayGuard(window=300, capacity=10, clock=lambda: now[0])
    assert guard.claim("a") and not guard.claim("a")
    now[0] += 299
    assert not guard.claim("a")
    now[0] += 2  # the window is over: "a" moves to the previous generation, still remembered
    assert not guard.claim("a") and guard.claim("b")
    now[0] += 298
    assert not guard.claim("a")  # 599 s after its claim
    now[0] += 2
    assert guard.claim("a")  # a new delivery once its generation was forgotten (601 s)
    assert not guard.claim("b")  # 300 s after its claim: remembered
    now[0] += 601
    assert guard.claim("b")  # nothing is remembered after twice the window

    guard = ReplayGuard(window=300, capacity=4, clock=lambda: now[0])
    for key in "cdefg":
        assert guard.claim(key)
    assert len(guard) == 3  # two full generations of two at most: the oldest claims made room
    assert guard.claim("c")  # forgotten, so it counts as new
    assert not guard.claim("g")


def test_what_makes_a_request_unique() -> None:
    assert replay_key({"type": "event_callback", "event_id": "Ev1", "event": {}}) == "event:Ev1"
    assert replay_key({"command": "/quiz", "trigger_id": "13.5.ab"}) == "trigger:13.5.ab"
    assert replay_key({"type": "block_actions", "user": {"id": "U1"}, "actions": [{"action_id": "qz:x", "action_ts": "17.1"}]}) == "action:U1:qz:x:17.1"
    assert replay_key({"type": "url_verification", "challenge": "c"}) is None


async def test_a_command_redelivered_over_socket_mode_is_processed_once(
    fake: FakeSlack, quiz_service: QuizService, repository: SqlRepository, runner: LocalRunner
) -> None:
    settings = Settings(slack_bot_token=SecretStr(BOT_TOKEN), slack_api_url=fake.api_url, slack_app_token=SecretStr(APP_TOKEN))
    app = App(settings=settings, repository=repository, service=quiz_service, runner=runner)
    task = asyncio.create_task(run_slack(app, settings))
    payload = {
        "team_id": "T0001", "channel_id": dm(LEARNER), "user_id": LEARNER, "user_name": "learner", "command": "/quiz",
        "text": "start demo count:1", "api_app_id": "A0001", "response_url": fake.response_url(), "trigger_id": "7.7.7",
    }
    try:
        for n, retry in enumerate(({}, {"retry_attempt": 1, "retry_reason": "timeout"})):
            envelope = {"envelope_id": f"env-{n}", "type": "slash_commands", "accepts_response_payload": True, "payload": payload, **retry}
            await fake.socket_send(envelope)
            await fake.wait_for(lambda n=n: [m for m in fake.socket_received if m.get("envelope_id") == f"env-{n}"])
        await fake.wait_for(lambda: fake.posts(dm(LEARNER)))
        await asyncio.sleep(0.2)  # room for a second item, were the redelivery processed
        assert len(fake.posts(dm(LEARNER))) == 1
        assert len(fake.calls_to("conversations.open")) == 1
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
