"""Robustness: acknowledgement in time, expired tokens, Discord errors and rate limits, failures in the bot."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest

from . import payloads as p
from .conftest import Harness
from .fake_discord import BOT_TOKEN

INVALID_TOKEN = {"message": "Invalid Webhook Token", "code": 50027}
RIGHT = "```python\ntotal = sum(range(1, 11))\nprint(total)\n```"


def old_snowflake(minutes: float) -> str:
    ms = int((datetime.now(UTC) - timedelta(minutes=minutes)).timestamp() * 1000) - 1420070400000
    return str((ms << 22) + 4242)


def no_secrets_in(caplog: pytest.LogCaptureFixture, *secrets: str) -> None:
    for record in caplog.records:
        text = record.getMessage() + (record.exc_text or "")
        for secret in secrets:
            assert secret not in text, f"a secret in the log: {text[:200]}"


async def test_a_slow_answer_is_deferred_first_and_followed_up(bot: Harness) -> None:
    bot.client.handler.ack_within = 0  # as if the database were slow: the guard must acknowledge first
    answer = await bot.command(p.ALICE, "stats")
    assert answer.kind == 5
    assert "No attempts yet" in answer.text()
    item = (await bot.command(p.ALICE, "start", [p.option("pack", "demo")])).item()
    clicked = await bot.click(p.ALICE, item, "Skip")
    assert clicked.kind == 6  # a deferred update of the clicked message...
    assert clicked.edits() and "Skipped" in clicked.text()  # ...then the edit and the follow-ups
    bot.assert_all_acknowledged()


async def test_an_expired_token_falls_back_to_a_dm(bot: Harness) -> None:
    item = (
        await bot.command(p.ALICE, "start", [p.option("pack", "demo"), p.option("difficulty", "hard")])
    ).item()
    form = await bot.click(p.ALICE, item, "Answer")
    # The sandbox took so long that Discord no longer accepts the interaction's follow-ups.
    bot.fake.fail("POST", r"^/webhooks/", 401, INVALID_TOKEN, times=10)
    answer = await bot.submit(p.ALICE, form.data["custom_id"], RIGHT, message=item)
    assert answer.kind == 6
    # The item itself is edited to show the grade; what needs a new message goes to the DM instead.
    assert any("Correct" in (e.get("description") or "") for c in answer.edits() for e in c.body["embeds"])
    dm = [c for c in answer.calls if c.path == f"/channels/{p.ALICE.dm_channel}/messages"]
    assert dm, [c.path for c in answer.calls]
    assert any("Quiz finished" in (e.get("title") or "") for c in dm for e in c.body["embeds"])


async def test_an_interaction_older_than_15_minutes_is_answered_in_the_channel_or_dm(bot: Harness) -> None:
    iid = old_snowflake(20)
    bot.fake.fail("POST", rf"^/interactions/{iid}/", 404, {"message": "Unknown interaction", "code": 10062})
    answer = await bot.feed(p.interaction(2, p.command("help"), p.ALICE, iid=iid))
    dm = [c for c in answer.calls if c.path == f"/channels/{p.ALICE.dm_channel}/messages"]
    assert dm and "/quiz start" in dm[0].body["embeds"][0]["description"]


async def test_rate_limits_are_waited_out_and_logged_without_tokens(
    bot: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="discord")
    item = (await bot.command(p.ALICE, "start", [p.option("pack", "demo")])).item()
    limited = {"message": "You are being rate limited.", "retry_after": 0.01, "global": False}
    bot.fake.fail("POST", r"^/webhooks/", 429, limited, headers={"Via": "1.1 google", "Retry-After": "0"})
    answer = await bot.click(p.ALICE, item, "Skip")
    assert "Skipped" in answer.text()
    assert len(answer.followups()) == 2  # the next item refused once, then sent again
    assert any("rate limited" in r.getMessage() for r in caplog.records)
    # URLs are logged, their tokens are not.
    assert any("[redacted]" in r.getMessage() for r in caplog.records)
    no_secrets_in(caplog, BOT_TOKEN, answer.payload["token"])


async def test_a_discord_error_is_logged_and_the_learner_gets_an_apology(
    bot: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    item = (await bot.command(p.ALICE, "start", [p.option("pack", "demo")])).item()
    bot.fake.fail("POST", r"^/webhooks/", 400, {"message": "Invalid Form Body", "code": 50035})
    answer = await bot.click(p.ALICE, item, "Skip")
    assert "Sorry, something went wrong" in answer.text()
    assert any(r.levelno >= logging.ERROR for r in caplog.records)
    no_secrets_in(caplog, BOT_TOKEN, answer.payload["token"])


async def test_a_failure_inside_the_bot_gets_an_apology_not_silence(
    bot: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    from sqlalchemy import text

    async with bot.service._repo.engine.begin() as connection:  # type: ignore[attr-defined]
        await connection.execute(text("DROP TABLE attempts"))  # the database breaks under the bot
    answer = await bot.command(p.ALICE, "stats")
    assert answer.kind == 4 and "Sorry, something went wrong" in answer.text()
    assert any("error while handling" in r.getMessage() for r in caplog.records)
    no_secrets_in(caplog, BOT_TOKEN, answer.payload["token"])


@pytest.mark.parametrize("custom_id", ["zz:forged", "qz:not-a-session", "x" * 100])
async def test_a_button_the_bot_does_not_know_is_answered_not_left_to_fail(bot: Harness, custom_id: str) -> None:
    item = (await bot.command(p.ALICE, "start", [p.option("pack", "demo")])).item()
    forged = {**item, "components": [{"type": 1, "components": [{"type": 2, "style": 2, "label": "?", "custom_id": custom_id}]}]}
    answer = await bot.click(p.ALICE, forged, custom_id)
    assert "not one of this bot's" in answer.text()
    bot.assert_all_acknowledged()
    assert "Skipped" in (await bot.click(p.ALICE, item, "Skip")).text()  # the quiz itself is untouched
