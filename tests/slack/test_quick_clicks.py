"""Two clicks on one item made quickly, each its own delivery (two action_ts): one answer, one next item.

The second click finds the item answered by the first, whose reply is on its way (or shown): it
gets the item's grade in place, and the next item is posted once, by the click that answered.
"""

from __future__ import annotations

import asyncio

from bot.core import QuizService
from bot.core import requests as rq
from bot.core.model import Actor
from tests.slack.conftest import LEARNER, TEAM, Slack, block_text, dm
from tests.slack.helpers import feedback_on, has_controls, is_item, items, posted_after


async def test_two_quick_clicks_on_one_item_post_the_next_item_once(slack: Slack, quiz_service: QuizService) -> None:
    channel = dm(LEARNER)
    await slack.command("start demo difficulty:easy count:2")
    first = items(slack, channel)[0]
    assert "Question 1 of 2" in block_text(first["blocks"])
    await asyncio.gather(
        slack.click(channel, first["ts"], label="A"),
        slack.click(channel, first["ts"], label="B"),
    )
    following = [m for m in posted_after(slack, channel, first["ts"]) if is_item(m)]
    assert len(following) == 1, [block_text(m["blocks"])[:60] for m in following]
    assert "Question 2 of 2" in block_text(following[0]["blocks"])
    assert not has_controls(slack.fake.message(channel, first["ts"]))
    shown = feedback_on(slack, channel, first["ts"])
    assert "Correct" in shown or "Not quite" in shown
    stats = await quiz_service.handle(Actor("slack", TEAM, LEARNER), rq.Stats())
    assert "**1** attempt" in stats.messages[0].text()  # one of the two counted

