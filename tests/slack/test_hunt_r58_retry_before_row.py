"""Hunt: Slack's retry of a code message was acknowledged at once, before the first delivery's grading row existed.

A code message's 200 waits for its grading row (`Inbound.message_then_ack`): killed before that,
the bot has said nothing and Slack sends the message again. But Slack waits only 3 seconds for the
200; when the row took longer (a busy database), Slack resent the event (`X-Slack-Retry-Num: 1`,
the same `event_id`), and the duplicate check answered that retry 200 at once. Slack had its 200
while nothing was recorded: a process killed then lost the learner's code without a word (no row to
tell them after the restart, and Slack never sent it again). A retry of a request still in progress
now gets its 200 only once the first delivery's would be sent, and is still handled once.

`quizbot run` runs in a subprocess (real sandbox pool, SQLite) against the fake Slack Web API; the
test holds the database's write lock so the row cannot be written while Slack retries.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from pathlib import Path

import aiohttp
from slack_sdk.signature import SignatureVerifier

from tests.ops.test_shutdown_abandoned import Bot, slack_to, stored
from tests.slack.conftest import APP_TOKEN, BOT_TOKEN, LEARNER, SIGNING_SECRET, TEAM, dm
from tests.slack.fake_slack import FakeSlack
from tests.slack.helpers import SOLUTION

LOCKED_S = 3.5  # longer than Slack waits for a 200 (3 s): its retry comes meanwhile


async def deliver(bot: Bot, body: str, *, retry: int | None = None) -> int:
    """POST one event delivery as Slack does: signed; a retry carries X-Slack-Retry-Num and the same body."""
    stamp = str(int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": SignatureVerifier(SIGNING_SECRET).generate_signature(timestamp=stamp, body=body) or "",
    }
    if retry is not None:
        headers |= {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"}
    async with aiohttp.ClientSession() as http, http.post(f"http://127.0.0.1:{bot.port}/slack/events", data=body.encode(), headers=headers) as r:
        await r.read()
        return r.status


def code_event() -> str:
    event = {
        "type": "message", "channel": dm(LEARNER), "user": LEARNER, "text": f"```python\n{SOLUTION}```", "ts": "1700000600.000001",
        "event_ts": "1700000600.000001", "channel_type": "im", "team": TEAM,
    }  # fmt: skip
    return json.dumps({
        "token": "gIkuvaNzQIHg97ATvDxqgjtO", "team_id": TEAM, "api_app_id": "A0001", "event": event, "type": "event_callback",
        "event_id": "Ev0RETRY0001", "event_time": int(time.time()), "is_ext_shared_channel": False,
        "authorizations": [{"enterprise_id": None, "team_id": TEAM, "user_id": "UBOT", "is_bot": True, "is_enterprise_install": False}],
    })  # fmt: skip


async def test_a_retry_is_not_acknowledged_before_the_first_delivery_is_recorded(tmp_path: Path) -> None:
    fake = FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN, team=TEAM)
    await fake.start()
    bot = Bot(tmp_path, fake, "bot")
    db = tmp_path / "bot.db"
    try:
        await bot.start()
        async with slack_to(bot, fake) as slack:
            await slack.command("start demo difficulty:hard count:1")
            await fake.wait_for(lambda: fake.posts(dm(LEARNER)), 30)
        body = code_event()
        lock = sqlite3.connect(db, isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")  # no other writer until it ends: the bot cannot store the grading row
        try:
            first = asyncio.create_task(deliver(bot, body))
            await asyncio.sleep(1.0)
            retry = asyncio.create_task(deliver(bot, body, retry=1))  # Slack's retry (sooner here than its 3 s)
            done, _ = await asyncio.wait({first, retry}, timeout=LOCKED_S - 1.0)
            # a 200 now, to either delivery, is what a kill would lose: nothing is recorded yet
            assert not done, f"Slack got a 200 before the answer's row could be written: {[t.result() for t in done]}"
        finally:
            lock.execute("ROLLBACK")
            lock.close()
        assert await asyncio.wait_for(first, 30) == 200
        assert await asyncio.wait_for(retry, 30) == 200
        await fake.wait_for(lambda: stored(db, "SELECT count(*) FROM attempts") == [(1,)], 60)
        await asyncio.sleep(1.0)
        assert stored(db, "SELECT count(*) FROM attempts") == [(1,)]  # handled once
    finally:
        await bot.stop()
        await fake.close()
