"""An answer stored but never acknowledged (the process died between its commit and its reply).

The state is made in a real database: the click is recorded through a second service on the same
database, as the process that died did (what it handed over died with it), and nothing of its reply reaches Slack, so the item message keeps its buttons. The
learner's next click on it (Slack showed the first one as failed) gets what the first would have
shown: the feedback in the item message, and the next item.
"""

from __future__ import annotations

from typing import Any

from bot.core import QuizService
from bot.core import requests as rq
from bot.core.model import Actor
from tests.fakes import FakeClock, LocalRunner
from tests.slack.conftest import LEARNER, TEAM, Slack, block_text, dm, make_service
from tests.slack.helpers import feedback_on, has_controls, is_item, items, posted_after


async def record_unseen(service: QuizService, item: dict[str, Any]) -> None:
    """Store a right answer to the item as the killed process did: through the core, with no reply shown."""
    actor = Actor("slack", TEAM, LEARNER, name=f"<@{LEARNER}>", channel_id=dm(LEARNER))
    if "What does this print" in block_text(item["blocks"]):  # the short answer
        form = await service.handle(actor, rq.OpenAnswer())
        assert form.form is not None
        reply = await service.handle(actor, rq.Act(form.form.action, ("6",), key="lost-click"))
    else:  # the single choice: its first option is right
        action = next(
            e["action_id"] for b in item["blocks"] if b["type"] == "actions" for e in b["elements"] if e.get("text", {}).get("text") == "A"
        )
        reply = await service.handle(actor, rq.Act(action, (), key="lost-click"))
    assert reply.update is not None and "Correct" in reply.update.text()  # stored; this reply is lost with the process


async def test_a_click_stored_but_never_acknowledged_shows_its_feedback_and_the_next_item_on_the_next_click(
    slack: Slack, quiz_service: QuizService, repository: Any, runner: LocalRunner, clock: FakeClock
) -> None:
    channel = dm(LEARNER)
    await slack.command("start demo difficulty:easy count:2")
    first = items(slack, channel)[0]
    await record_unseen(make_service(repository, runner, clock), first)  # the process that died
    assert has_controls(slack.fake.message(channel, first["ts"]))  # the learner still sees the question
    clock.advance(seconds=20)  # the dead process's restart (or the learner's pause) outlasts any reply in flight

    await slack.click(channel, first["ts"], label="Skip")  # the next action: a click on the same message
    shown = feedback_on(slack, channel, first["ts"])
    assert "Correct" in shown and not has_controls(slack.fake.message(channel, first["ts"])), shown
    following = [m for m in posted_after(slack, channel, first["ts"]) if is_item(m)]
    assert len(following) == 1 and "Question 2 of 2" in block_text(following[0]["blocks"])
    told = [e.get("text", "") + block_text(e.get("blocks") or []) for e in slack.fake.ephemerals]
    assert not any("already answered" in t for t in told), told
    stats = await quiz_service.handle(Actor("slack", TEAM, LEARNER), rq.Stats())
    assert "**1** attempt" in stats.messages[0].text()  # the lost click counted once, the Skip not at all


async def test_a_click_while_another_process_reply_is_on_its_way_only_puts_the_grade_in_place(
    slack: Slack, quiz_service: QuizService, repository: Any, runner: LocalRunner, clock: FakeClock
) -> None:
    # Two quick clicks on one item, delivered to two processes: the other one stored the first and
    # is posting what follows; this one must not post the next item a second time.
    channel = dm(LEARNER)
    await slack.command("start demo difficulty:easy count:2")
    first = items(slack, channel)[0]
    await record_unseen(make_service(repository, runner, clock), first)  # the other process, replying now
    clock.advance(seconds=1)

    await slack.click(channel, first["ts"], label="B")
    shown = feedback_on(slack, channel, first["ts"])
    assert "Correct" in shown and not has_controls(slack.fake.message(channel, first["ts"])), shown
    assert [m for m in posted_after(slack, channel, first["ts"]) if is_item(m)] == []  # the other process posts it
    told = [e.get("text", "") + block_text(e.get("blocks") or []) for e in slack.fake.ephemerals]
    assert not any("already answered" in t for t in told), told
    stats = await quiz_service.handle(Actor("slack", TEAM, LEARNER), rq.Stats())
    assert "**1** attempt" in stats.messages[0].text()
