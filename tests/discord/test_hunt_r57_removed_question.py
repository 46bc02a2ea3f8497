"""A learner whose current question left its pack can still skip it and stop the quiz.

An admin removes a pack, or loads a version without some question, while learners are on it. The
question's reply says "removed from its pack, use /quiz skip to move on": skipping must then move
on, and stopping must stop, though neither can show the question. Before, `/quiz skip` on a
question dropped by an update, and `/quiz stop` (or the Stop button) on either, answered only
that same note again: the learner was stuck on the quiz.
"""

from __future__ import annotations

from bot.core.packs import load_path
from tests.conftest import DEMO_PACK, hand_demo_to

from . import payloads as p
from .conftest import Harness

REMOVED = "This question was removed from its pack"


async def drop_first_question(bot: Harness, prompt: str) -> None:
    """Load version 2 of the demo pack, without the question whose prompt starts `prompt`."""
    pack = load_path(DEMO_PACK).pack
    kept = [q for q in pack.questions if not prompt.startswith(q.prompt[:30])]
    assert len(kept) == len(pack.questions) - 1
    await bot.service.import_pack(pack.model_copy(update={"version": 2, "questions": kept}))


async def test_a_question_dropped_by_an_update_can_be_skipped(bot: Harness) -> None:
    item = (await bot.command(p.ALICE, "start", [p.option("pack", "demo")])).item()
    await drop_first_question(bot, item["embeds"][0]["description"])
    assert REMOVED in (await bot.command(p.ALICE, "current")).text()
    skipped = await bot.command(p.ALICE, "skip")
    assert "Skipped" in skipped.text() and "Question 2 of 5" in skipped.text(), skipped.text()
    assert "Question 2 of 5" in (await bot.command(p.ALICE, "current")).text()
    bot.assert_all_acknowledged()


async def test_a_quiz_on_a_dropped_question_can_be_stopped_with_the_command(bot: Harness) -> None:
    item = (await bot.command(p.ALICE, "start", [p.option("pack", "demo")])).item()
    await drop_first_question(bot, item["embeds"][0]["description"])
    stopped = await bot.command(p.ALICE, "stop")
    assert "Quiz stopped" in stopped.text(), stopped.text()
    assert "You have no quiz running" in (await bot.command(p.ALICE, "current")).text()
    bot.assert_all_acknowledged()


async def test_a_quiz_on_a_removed_pack_can_be_stopped_with_its_button(bot: Harness) -> None:
    await hand_demo_to(bot.service, f"discord:{p.GUILD_ID}")
    item = (await bot.command(p.ALICE, "start", [p.option("pack", "demo")])).item()
    asked = await bot.command(p.ADMIN, "remove", [p.option("pack", "demo")], group="pack")
    assert "was removed" in (await bot.click(p.ADMIN, asked.stored()[-1], "Remove demo")).text()
    assert REMOVED in (await bot.click(p.ALICE, item, "Hint")).text()
    stopped = await bot.click(p.ALICE, item, "Stop")
    assert "Quiz stopped" in stopped.text(), stopped.text()
    assert "You have no quiz running" in (await bot.command(p.ALICE, "current")).text()
    bot.assert_all_acknowledged()
