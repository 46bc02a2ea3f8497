"""Forged and stale requests never reach a listener; tokens and secrets never reach the logs."""

from __future__ import annotations

import logging
import time

import pytest

from bot.core import Actor, QuizService
from tests.slack.conftest import APP_TOKEN, BOT_TOKEN, CHANNEL, LEARNER, SIGNING_SECRET, Slack, dm
from tests.slack.helpers import SOLUTION, answer_right, items


async def nothing_happened(slack: Slack, service: QuizService) -> None:
    assert slack.fake.calls == []  # not even auth.test: verification comes before authorization
    assert slack.fake.responses == []
    assert await service.active_session(Actor("slack", "T0001", LEARNER)) is None


@pytest.mark.parametrize(
    ("secret", "age"),
    [
        ("not-the-signing-secret", 0),  # a forged signature
        (SIGNING_SECRET, 6 * 60),  # correctly signed, but more than five minutes old
        (SIGNING_SECRET, -6 * 60),  # from the future
    ],
    ids=["forged", "stale", "future"],
)
async def test_bad_requests_are_rejected_before_any_listener(slack: Slack, quiz_service: QuizService, secret: str, age: int) -> None:
    body = slack.command_body("start demo count:2")
    status, _ = await slack.send(body, "application/x-www-form-urlencoded", secret=secret, timestamp=int(time.time()) - age)
    assert status == 401
    await nothing_happened(slack, quiz_service)


async def test_a_tampered_body_or_missing_signature_is_rejected(slack: Slack, quiz_service: QuizService) -> None:
    body = slack.command_body("help")
    stamp = str(int(time.time()))
    from slack_sdk.signature import SignatureVerifier

    signature = SignatureVerifier(SIGNING_SECRET).generate_signature(timestamp=stamp, body=body)
    tampered = body.replace("help", "start")
    headers = {"Content-Type": "application/x-www-form-urlencoded", "X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": signature or ""}
    async with slack.http.post(slack.url, data=tampered, headers=headers) as response:
        assert response.status == 401
    async with slack.http.post(slack.url, data=body, headers={"Content-Type": "application/x-www-form-urlencoded"}) as response:
        assert response.status == 401
    await slack.settle()
    await nothing_happened(slack, quiz_service)


async def test_a_correctly_signed_request_is_served(slack: Slack) -> None:
    status, body = await slack.command("help")
    assert status == 200 and "/quiz start" in body
    assert slack.fake.calls_to("auth.test")  # Bolt checked the bot token once the request was verified


async def test_tokens_and_secrets_never_reach_the_logs(slack: Slack, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    await slack.command("start demo count:5", channel=CHANNEL)
    channel = CHANNEL
    item = items(slack, channel)[-1]
    await answer_right(slack, channel, item["ts"])
    file = slack.fake.add_file("answer.py", SOLUTION.encode(), filetype="python")
    await slack.message("", files=[file])  # a download with the bot token
    slack.fake.fail("chat.postMessage", error="channel_not_found")
    await slack.command("stop", channel=dm(LEARNER))  # an API error, logged
    await slack.send(slack.command_body("help"), "application/x-www-form-urlencoded", secret="forged-secret-value")
    assert any("chat.postMessage failed: channel_not_found" in r.getMessage() for r in caplog.records)
    assert slack.fake.downloads and all(authorized for _, authorized in slack.fake.downloads)
    logged = caplog.text + "\n".join(str(r.__dict__) for r in caplog.records)
    for secret in (BOT_TOKEN, APP_TOKEN, SIGNING_SECRET):
        assert secret not in logged
