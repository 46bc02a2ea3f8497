"""Slack API errors and rate limits are retried or reported; both ways of running the bot start."""

from __future__ import annotations

import asyncio
import logging
import socket
from typing import Any

import aiohttp
import pytest
from pydantic import SecretStr

from bot.adapters.slack import run_slack
from bot.app import App
from bot.core import QuizService
from bot.settings import Settings
from tests.fakes import LocalRunner
from tests.slack.conftest import (
    APP_TOKEN,
    BOT_TOKEN,
    CHANNEL,
    LEARNER,
    SIGNING_SECRET,
    TEAM,
    Slack,
    block_text,
    dm,
)
from tests.slack.fake_slack import FakeSlack
from tests.slack.helpers import is_item, items


async def test_a_rate_limited_call_is_retried_after_retry_after(slack: Slack) -> None:
    slack.fake.fail("chat.postMessage", status=429, headers={"Retry-After": "0"})
    await slack.command("start demo count:1")
    attempts = slack.fake.calls_to("chat.postMessage")
    assert len(attempts) == 2 and attempts[0].args == attempts[1].args
    assert is_item(slack.fake.posts(dm(LEARNER))[0])


async def test_a_server_error_is_retried(slack: Slack) -> None:
    slack.fake.fail("chat.update", status=503)
    await slack.command("start demo count:2")
    item = items(slack, dm(LEARNER))[-1]
    await slack.click(dm(LEARNER), item["ts"], label="Skip")
    assert len(slack.fake.calls_to("chat.update")) == 2  # refused once, then done
    assert "Skipped" in block_text(slack.fake.message(dm(LEARNER), item["ts"])["blocks"])


async def test_an_api_error_is_logged_and_told_to_the_person(slack: Slack, caplog: pytest.LogCaptureFixture) -> None:
    slack.fake.fail("chat.postMessage", error="msg_blocks_too_long")
    await slack.command("start demo count:1")
    assert "Slack refused my reply (msg_blocks_too_long)" in block_text(slack.fake.responses[-1]["blocks"])
    assert "Slack API chat.postMessage failed: msg_blocks_too_long" in caplog.text


@pytest.mark.parametrize("chunked", [False, True], ids=["with a length", "in chunks"])
async def test_an_oversized_answer_is_refused_unread(slack: Slack, chunked: bool, caplog: pytest.LogCaptureFixture) -> None:
    slack.fake.oversize("chat.postMessage", 3 * 1024 * 1024, chunked=chunked)
    await slack.command("start demo count:1")
    assert "Slack refused my reply (answer_too_large)" in block_text(slack.fake.responses[-1]["blocks"])
    assert "Slack API chat.postMessage failed: answer_too_large" in caplog.text
    await slack.command("start demo count:1")
    assert "You have a quiz running: question 1 of 1" in slack.fake.responses[-1]["text"]  # kept, as when Slack refuses
    await slack.command("stop")
    await slack.command("start demo count:1")  # the next call reads its answer as usual
    assert is_item(slack.fake.posts(dm(LEARNER))[-1])


async def test_a_channel_without_the_bot_moves_the_quiz_to_the_dm(slack: Slack) -> None:
    slack.fake.closed_channels.add(CHANNEL)
    await slack.command("start demo count:1", channel=CHANNEL)
    assert is_item(slack.fake.posts(dm(LEARNER))[0])
    note = block_text(slack.fake.responses[-1]["blocks"])
    assert "I can't post in this channel (not_in_channel)" in note and "direct messages" in note


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def settings_for(fake: FakeSlack, **values: Any) -> Settings:
    return Settings(slack_bot_token=SecretStr(BOT_TOKEN), slack_api_url=fake.api_url, **values)


async def stop(task: asyncio.Task[None]) -> None:
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_run_slack_in_http_mode_serves_slack_events(fake: FakeSlack, quiz_service: QuizService, repository: Any, runner: LocalRunner) -> None:
    port = free_port()
    settings = settings_for(fake, slack_signing_secret=SecretStr(SIGNING_SECRET))
    app = App(settings=settings, repository=repository, service=quiz_service, runner=runner)
    task = asyncio.create_task(run_slack(app, settings, port=port, host="127.0.0.1"))
    base = f"http://127.0.0.1:{port}"
    async with aiohttp.ClientSession() as http:
        for _ in range(200):
            try:
                async with http.get(f"{base}/healthz") as response:
                    if response.status == 200:
                        break
            except aiohttp.ClientConnectionError:
                await asyncio.sleep(0.02)
        workspace = Slack(http, f"{base}/slack/events", fake, front=None)
        status, _ = await workspace.command("start demo count:1", settle=False)
        assert status == 200
        await fake.wait_for(lambda: fake.posts(dm(LEARNER)))
        status, _ = await workspace.send(workspace.command_body("help"), "application/x-www-form-urlencoded", secret="forged", settle=False)
        assert status == 401
    await stop(task)
    assert fake.calls_to("auth.test")[0].token == BOT_TOKEN  # checked at start, through SLACK_API_URL


async def test_run_slack_in_socket_mode(fake: FakeSlack, quiz_service: QuizService, repository: Any, runner: LocalRunner) -> None:
    settings = settings_for(fake, slack_app_token=SecretStr(APP_TOKEN))
    app = App(settings=settings, repository=repository, service=quiz_service, runner=runner)
    task = asyncio.create_task(run_slack(app, settings))
    payload = {
        "token": "gIkuvaNzQIHg97ATvDxqgjtO",
        "team_id": TEAM,
        "team_domain": "quizbot-test",
        "channel_id": dm(LEARNER),
        "channel_name": "directmessage",
        "user_id": LEARNER,
        "user_name": "learner",
        "command": "/quiz",
        "text": "start demo count:1",
        "api_app_id": "A0001",
        "is_enterprise_install": "false",
        "response_url": fake.response_url(),
        "trigger_id": "1.2.3",
    }
    await fake.socket_send({"envelope_id": "env-1", "type": "slash_commands", "accepts_response_payload": True, "payload": payload})
    acks = await fake.wait_for(lambda: [m for m in fake.socket_received if m.get("envelope_id") == "env-1"])
    assert acks  # acknowledged over the WebSocket
    await fake.wait_for(lambda: fake.posts(dm(LEARNER)))
    assert is_item(fake.posts(dm(LEARNER))[0])
    assert fake.calls_to("apps.connections.open")[0].token == APP_TOKEN
    await stop(task)


async def test_a_refused_token_stops_the_start_with_a_clear_error(fake: FakeSlack, quiz_service: QuizService, repository: Any, runner: LocalRunner, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    settings = Settings(
        slack_bot_token=SecretStr("xoxb-wrong-token-value"), slack_signing_secret=SecretStr(SIGNING_SECRET), slack_api_url=fake.api_url
    )
    app = App(settings=settings, repository=repository, service=quiz_service, runner=runner)
    with pytest.raises(RuntimeError, match=r"Slack refused SLACK_BOT_TOKEN \(invalid_auth\)"):
        await run_slack(app, settings, port=free_port(), host="127.0.0.1")
    assert "xoxb-wrong-token-value" not in caplog.text
    fake.errors.clear()  # the refusal was the point of this test

