"""A stranger's click on the Back/Next step buttons of someone else's quiz: a private note, nothing changed.

The step buttons are the Discord adapter's own (`qzp:<session>:<page>`, for an item whose menus do
not fit one message); the core decides whose quiz it is, as for the quiz's other controls, and says
the same as Slack says for a stranger's click.
"""

from __future__ import annotations

import copy
from typing import Any

from . import payloads as p
from .conftest import Harness

EPHEMERAL = 64


def with_steps(message: dict[str, Any]) -> dict[str, Any]:
    """The item's message as Discord shows an item cut into steps: its controls, then a Next button."""
    session = next(c["custom_id"] for row in message["components"] for c in row["components"]).split(":")[1]
    nav = {"type": 1, "components": [{"type": 2, "style": 2, "label": "Next ▶", "custom_id": f"qzp:{session}:1"}]}
    return {**copy.deepcopy(message), "components": [*copy.deepcopy(message["components"]), nav]}


async def test_a_strangers_step_click_says_whose_quiz_it_is_and_changes_nothing(bot: Harness) -> None:
    start = await bot.command(p.ALICE, "start", [p.option("count", 3)])
    item = with_steps(start.item())
    session_id = item["components"][-1]["components"][0]["custom_id"].split(":")[1]
    before = await bot.service.gate.get(session_id)

    for _ in range(2):  # with no quiz of his own, then with one running
        stranger = await bot.click(p.BOB, item, "Next ▶")
        assert stranger.kind == 4 and stranger.data["flags"] & EPHEMERAL
        text = stranger.text()
        assert "This quiz belongs to Alice" in text and "/quiz start" in text, text
        assert "already answered" not in text and "no quiz running" not in text
        assert not stranger.edits() and not stranger.followups()  # Alice's message is untouched
        await bot.command(p.BOB, "start", [p.option("count", 1)])

    after = await bot.service.gate.get(session_id)
    assert after == before  # nothing of Alice's quiz changed, not even its version
    mine = await bot.click(p.ALICE, item, "Next ▶")  # her own step button still works
    assert mine.kind == 7 and mine.data["embeds"][0]["title"] == "Question 1 of 3"
    bot.assert_all_acknowledged()


async def test_a_step_click_on_a_stopped_quiz_says_it_stopped(bot: Harness) -> None:
    start = await bot.command(p.ALICE, "start", [p.option("count", 3)])
    item = with_steps(start.item())
    await bot.command(p.ALICE, "stop")
    late = await bot.click(p.ALICE, item, "Next ▶")
    assert late.kind == 4 and "This quiz was stopped" in late.text(), late.text()
    stranger = await bot.click(p.BOB, item, "Next ▶")
    assert "This quiz belongs to Alice" in stranger.text()
