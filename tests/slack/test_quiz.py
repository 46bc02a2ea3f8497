"""A learner's quiz in Slack: every item type to the end, threads, restarts, strangers, expiry."""

from __future__ import annotations

import json

from bot.core import Actor, QuizService
from bot.core.model import Anchor
from tests.fakes import FakeClock, LocalRunner
from tests.slack.conftest import CHANNEL, LEARNER, STRANGER, Slack, block_text, dm, reopen
from tests.slack.helpers import (
    SOLUTION,
    answer_right,
    feedback_on,
    has_controls,
    is_item,
    items,
    kind_of,
    posted_after,
    short_item_form,
)


async def test_a_whole_quiz_of_every_item_type_in_the_dm(slack: Slack) -> None:
    status, body = await slack.command("start demo count:5")
    assert (status, body) == (200, "")  # acknowledged at once; the quiz arrives in the DM
    channel = dm(LEARNER)
    assert [c.args["users"] for c in slack.fake.calls_to("conversations.open")] == [LEARNER]
    seen = []
    for n in range(1, 6):
        item = items(slack, channel)[-1]
        assert block_text(item["blocks"]).startswith(f"Question {n} of 5")
        kind = await answer_right(slack, channel, item["ts"])
        seen.append(kind)
        answered = slack.fake.message(channel, item["ts"])
        assert not has_controls(answered), f"{kind}: buttons must be gone after the answer"
        assert "*Correct!*" in feedback_on(slack, channel, item["ts"])
    assert sorted(seen) == ["blanks", "choice", "code", "multi", "short"]
    summary = slack.fake.posts(channel)[-1]
    text = block_text(summary["blocks"])
    assert "Quiz finished" in text and "5 of 5 right" in text
    assert slack.fake.ephemerals[-1]["text"].startswith("⏳ Running your code")  # the code item said it was running


async def test_choices_are_marked_and_select_all_uses_a_multi_select(slack: Slack) -> None:
    await slack.command("start demo difficulty:medium count:2")
    channel = dm(LEARNER)
    while True:
        item = items(slack, channel)[-1]
        if kind_of(item) == "multi":
            break
        await slack.click(channel, item["ts"], label="Skip")
    menu = next(e for b in item["blocks"] if b["type"] == "actions" for e in b["elements"] if e["type"] == "multi_static_select")
    assert [o["text"]["text"] for o in menu["options"]] == ["A. 1", "B. 2.5", "C. '3'"]
    await slack.click(channel, item["ts"], label="Select all that apply", values=["0", "2"])
    picked = slack.fake.message(channel, item["ts"])
    assert "☑️" in block_text(picked["blocks"])  # the update in place shows the selection
    menu = next(e for b in picked["blocks"] if b["type"] == "actions" for e in b["elements"] if e["type"] == "multi_static_select")
    assert [o["value"] for o in menu["initial_options"]] == ["0", "2"]
    await slack.click(channel, item["ts"], label="Check")
    final = block_text(slack.fake.message(channel, item["ts"])["blocks"])
    assert "*A.* `1` ✅" in final and "*B.* `2.5` ✅" in final and "*C.* `'3'` ❌" in final
    feedback = feedback_on(slack, channel, item["ts"])
    assert "*Not quite.*" in feedback and "Quotes make a string." in feedback


async def test_a_short_answer_wrong_then_right_keeps_the_answer_button(slack: Slack) -> None:
    channel = dm(LEARNER)
    item = await short_item_form(slack)
    view = slack.last_view()
    assert view["callback_id"].startswith("qz:")  # the core's action id comes back on submit
    assert json.loads(view["private_metadata"]) == {"c": channel, "m": item["ts"]}
    element = view["blocks"][0]["element"]
    assert element["type"] == "plain_text_input" and element["multiline"] is True
    status, body = await slack.submit(view, {"answer": "   "})
    assert status == 200 and json.loads(body)["response_action"] == "errors"  # refused in the modal itself
    await slack.submit(view, {"answer": "7"})
    again = slack.fake.message(channel, item["ts"])
    assert has_controls(again) and "2 attempts left" in block_text(again["blocks"])
    feedback = feedback_on(slack, channel, item["ts"])
    assert "*Not quite.*" in feedback and "Add the numbers." in feedback
    await slack.click(channel, item["ts"], label="Answer")
    await slack.submit(slack.last_view(), {"answer": "6"})
    assert not has_controls(slack.fake.message(channel, item["ts"]))


async def test_a_quiz_started_in_a_channel_runs_in_a_thread_and_takes_code_there(slack: Slack, quiz_service: QuizService) -> None:
    await slack.command("start demo difficulty:hard count:1", channel=CHANNEL)
    header, item = slack.fake.posts(CHANNEL)[:2]
    assert "started a quiz" in block_text(header["blocks"]) and "thread_ts" not in header
    assert item["thread_ts"] == header["ts"] and kind_of(item) == "code"
    session = await quiz_service.active_session(slack_actor())
    assert session is not None
    assert session.anchor == Anchor(CHANNEL, header["ts"], item["ts"])
    await slack.message("```python\nprint('talk in another thread')\n```", channel=CHANNEL, thread_ts="1699999999.000001")
    assert len(slack.fake.posts(CHANNEL)) == 2  # code in some other thread is conversation
    await slack.message(f"Here you go:\n```python\n{SOLUTION}```", channel=CHANNEL, thread_ts=header["ts"])
    assert not has_controls(slack.fake.message(CHANNEL, item["ts"]))
    replies = [block_text(m["blocks"]) for m in posted_after(slack, CHANNEL, item["ts"])]
    assert all(m.get("thread_ts") == header["ts"] for m in posted_after(slack, CHANNEL, item["ts"]))
    feedback = feedback_on(slack, CHANNEL, item["ts"])
    assert "*Correct!*" in feedback and "2 of 2 tests passed" in feedback
    assert len(replies) == 1 and "Quiz finished" in replies[-1]  # one new message per answer


async def test_a_restart_in_the_middle_keeps_the_quiz_and_its_buttons(
    open_slack: object, quiz_service: QuizService, repository: object, db_url: str, runner: LocalRunner, clock: FakeClock
) -> None:
    channel = dm(LEARNER)
    async with open_slack(quiz_service) as slack:  # type: ignore[operator]
        await slack.command("start demo count:5")
        first = items(slack, channel)[-1]
        await answer_right(slack, channel, first["ts"])
        second = items(slack, channel)[-1]
        assert second["ts"] != first["ts"]
    await repository.close()  # type: ignore[attr-defined]
    new_repository, service = await reopen(db_url, runner, clock)
    try:
        async with open_slack(service) as slack:  # type: ignore[operator]
            kind = await answer_right(slack, channel, second["ts"])  # a button posted before the restart
            assert not has_controls(slack.fake.message(channel, second["ts"])), kind
            third = items(slack, channel)[-1]
            assert block_text(third["blocks"]).startswith("Question 3 of 5")
            await slack.command("skip")  # the anchor survived too: the skipped item is updated in place
            assert not has_controls(slack.fake.message(channel, third["ts"]))
            assert block_text(items(slack, channel)[-1]["blocks"]).startswith("Question 4 of 5")
    finally:
        await new_repository.close()


async def test_a_strangers_click_gets_a_private_note_and_changes_nothing(slack: Slack) -> None:
    await slack.command("start demo count:3", channel=CHANNEL)
    item = items(slack, CHANNEL)[-1]
    before = slack.fake.message(CHANNEL, item["ts"])
    await slack.click(CHANNEL, item["ts"], label="Skip", user=STRANGER)
    note = slack.fake.ephemerals[-1]
    assert note["user"] == STRANGER and note["channel"] == CHANNEL and note["thread_ts"] == item["thread_ts"]
    assert f"This quiz belongs to <@{LEARNER}>" in block_text(note["blocks"])
    assert slack.fake.message(CHANNEL, item["ts"]) == before
    assert items(slack, CHANNEL)[-1]["ts"] == item["ts"]


async def test_a_click_on_an_expired_quiz_says_so_privately(slack: Slack, clock: FakeClock) -> None:
    await slack.command("start demo count:3")
    channel = dm(LEARNER)
    item = items(slack, channel)[-1]
    clock.advance(hours=25)
    await slack.click(channel, item["ts"], label="Skip")
    note = slack.fake.ephemerals[-1]
    assert note["user"] == LEARNER
    assert "This quiz has expired. Start a new one with `/quiz start`." in block_text(note["blocks"])


async def test_hint_stop_and_a_new_quiz_from_the_summary(slack: Slack) -> None:
    await slack.command("start demo count:2")
    channel = dm(LEARNER)
    item = items(slack, channel)[-1]
    await slack.command("hint")
    assert "💡" in block_text(slack.fake.posts(channel)[-1]["blocks"])
    await slack.command("stop")
    summary = slack.fake.posts(channel)[-1]
    assert "Quiz stopped" in block_text(summary["blocks"])
    await slack.click(channel, item["ts"], label="Skip")
    assert "was stopped" in block_text(slack.fake.ephemerals[-1]["blocks"])
    await slack.click(channel, summary["ts"], label="New quiz")
    assert is_item(slack.fake.posts(channel)[-1])


def slack_actor() -> Actor:
    return Actor("slack", "T0001", LEARNER)


async def test_a_hint_in_a_channel_thread_is_private(slack: Slack) -> None:
    await slack.command("start demo difficulty:hard count:1", channel=CHANNEL)
    header, item = slack.fake.posts(CHANNEL)[:2]
    await slack.click(CHANNEL, item["ts"], label="Hint")
    assert len(slack.fake.posts(CHANNEL)) == 2  # nothing new in the thread for everyone to see
    hint = slack.fake.ephemerals[-1]
    assert hint["user"] == LEARNER and hint["channel"] == CHANNEL and hint.get("thread_ts") == header["ts"]
    assert "sum(range(1, 11))" in block_text(hint["blocks"])


async def test_the_blanks_feedback_marks_each_blank_once(slack: Slack) -> None:
    channel = dm(LEARNER)
    await slack.command("start demo difficulty:medium count:2")
    item = items(slack, channel)[-1]
    if kind_of(item) != "blanks":
        await slack.click(channel, item["ts"], label="Skip")
        item = items(slack, channel)[-1]
    await slack.click(channel, item["ts"], label="Blank 1", values=["0"])
    await slack.click(channel, item["ts"], label="Blank 2", values=["3"])
    await slack.click(channel, item["ts"], label="Check")
    assert "[1] ✅ · [2] ❌" in feedback_on(slack, channel, item["ts"])
    await slack.click(channel, item["ts"], label="Blank 2", values=["2"])
    await slack.click(channel, item["ts"], label="Check")
    shown = feedback_on(slack, channel, item["ts"])
    assert "*Correct!*" in shown and shown.count("✅") == 3  # the mark of Correct! and one line of marks
    assert "[1] ✅ · [2] ✅" in shown and "[1] `4`" not in shown and "Your picks" not in shown
