"""Quiz clicks over HTTP go straight to their listener; their bodies read as Bolt reads them."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlencode

import aiohttp
import pytest
from aiohttp.test_utils import TestServer
from slack_bolt.request.internals import parse_body as bolt_parse_body
from sqlalchemy import func, select

from bot.adapters.slack import slack_front_end, web_app
from bot.adapters.slack.app import parse_body
from bot.core import QuizService
from bot.storage import SqlRepository
from bot.storage import tables as t
from tests.slack.conftest import BOT_TOKEN, LEARNER, SIGNING_SECRET, Slack, dm
from tests.slack.fake_slack import FakeSlack
from tests.slack.helpers import items

FORM = "application/x-www-form-urlencoded"
TEXTS = ["plain", "a & b = c + d", "100% sure?", "é ✅ 😀 \u2028", 'quotes " and \\ backslash', "%zz % %2", "line\nbreak\ttab", ""]


def bodies() -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for text in TEXTS:
        payload = {"type": "block_actions", "actions": [{"action_id": "qz:s1:0:c:1", "value": text}], "n": 2**40, "f": 0.5}
        out.append((FORM, urlencode({"payload": json.dumps(payload)})))
        out.append(("application/json", json.dumps({"event": {"text": text}})))
        out.append((FORM, urlencode({"command": "/quiz", "text": text, "user_id": "U1", "blank": ""})))
    out += [
        (FORM, "payload=%7B%22a%22%3A1%7D&payload=%7B%22a%22%3A2%7D"),  # the last one wins, as in dict(parse_qsl(...))
        (FORM, "a=1&a=2&b=x+y%2Bz&c"),
        ("text/plain", '{"starts": "with a brace"}'),
        (FORM, "payloadish=1"),
        (FORM, ""),
    ]
    return out


@pytest.mark.parametrize(("content_type", "text"), bodies())
def test_a_body_reads_as_bolt_reads_it(content_type: str, text: str) -> None:
    assert parse_body(text, content_type) == bolt_parse_body(text, content_type)


async def attempts(repository: SqlRepository) -> int:
    async with repository.engine.connect() as conn:
        return int((await conn.execute(select(func.count()).select_from(t.attempts))).scalar_one())


async def test_a_quiz_click_skips_bolts_dispatch_and_is_answered_as_before(fake: FakeSlack, quiz_service: QuizService, repository: SqlRepository) -> None:
    """Bolt's middleware sees the command; the click goes straight to the quiz listener, stored and shown as through Bolt."""
    through_bolt: list[str] = []

    async def seen(body: dict[str, Any], next: Callable[[], Awaitable[None]]) -> None:
        through_bolt.append(str(body.get("type") or body.get("command")))
        await next()

    async with slack_front_end(quiz_service, token=BOT_TOKEN, api_url=fake.api_url, signing_secret=SIGNING_SECRET) as (front, bolt):
        bolt.use(seen)
        server = TestServer(web_app(bolt), host="127.0.0.1")
        await server.start_server()
        try:
            async with aiohttp.ClientSession() as http:
                slack = Slack(http, str(server.make_url("/slack/events")), fake, front)
                await slack.command("start demo difficulty:easy count:2")
                channel = dm(LEARNER)
                first = items(slack, channel)[-1]
                status, text = await slack.click(channel, first["ts"], label="Skip")
                assert (status, text) == (200, "")
                assert len(items(slack, channel)) == 2  # the next item, posted once
                assert "Skipped" in json.dumps(fake.message(channel, first["ts"])["blocks"])  # the click's item, edited
                second = items(slack, channel)[-1]
                await slack.click(channel, second["ts"], label="Answer")
                await slack.submit(slack.last_view(), {"answer": "6"})  # a form: through Bolt
                assert await attempts(repository) == 1
        finally:
            await server.close()
    assert through_bolt == ["/quiz", "view_submission"]  # no block_actions: the clicks did not pass Bolt
