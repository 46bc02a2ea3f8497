"""A whole quiz through discord.py: every item type answered with its buttons, menus, forms and a DM."""

from __future__ import annotations

import copy
from typing import Any

from . import payloads as p
from .conftest import Harness, components, find_component

EPHEMERAL = 64
WRONG_CODE = "```python\ntotal = 54\nprint(55)\n```"
RIGHT_CODE = "total = sum(range(1, 11))\nprint(total)\n"


def prompt(item: dict[str, Any]) -> str:
    return str(item["embeds"][0]["description"])


def button(message: dict[str, Any], label: str) -> dict[str, Any]:
    return find_component(message, label)


async def open_form(bot: Harness, user: p.User, item: dict[str, Any], **kw: Any) -> dict[str, Any]:
    answer = await bot.click(user, item, "Answer", **kw)
    assert answer.kind == 9, answer.calls
    return answer.data


async def test_a_whole_quiz_of_every_item_type(bot: Harness) -> None:
    start = await bot.command(p.ALICE, "start", [p.option("pack", "demo")])
    assert start.kind == 4 and start.data["flags"] & EPHEMERAL  # a personal quiz is private in a server
    item = start.item()
    seen: list[str] = []
    in_dm = False
    for number in range(1, 6):
        embed = item["embeds"][0]
        assert embed["title"] == f"Question {number} of 5"
        assert "Demo pack · Basics" in embed["footer"]["text"]  # pack, topic, difficulty
        text = prompt(item)
        where: dict[str, Any] = {"guild": not in_dm}
        if "Which flag" in text:
            seen.append("choice")
            labels = [c["label"] for c in components(item)]
            assert labels[:2] == ["A. requires_grad=True", "B. track=True"]  # short texts ride on the buttons
            answer = await bot.click(p.ALICE, item, "A", **where)
            assert answer.kind == 7  # the question is edited in place
            answered = answer.data
            buttons = components(answered)
            assert all(b["disabled"] for b in buttons)
            assert buttons[0]["style"] == 3  # the right (and chosen) option is marked green
            assert "✅" in answered["embeds"][0]["description"]
            assert "Correct" in answer.text()
        elif "Complete the code" in text:
            seen.append("blanks")
            assert "[1]" in text and "[2]" in text  # the template with numbered blanks
            menus = [c for c in components(item) if c["type"] == 3]
            assert [m["placeholder"] for m in menus] == ["Blank 1", "Blank 2"]
            assert [o["label"] for o in menus[0]["options"]] == ["A. 4", "B. 2", "C. print", "D. len"]
            first = await bot.click(p.ALICE, item, "Blank 1", ["0"], **where)
            assert first.kind == 7 and "[1: 4]" in prompt(first.data)
            await bot.click(p.ALICE, bot.fake.messages[item["id"]], "Blank 2", ["3"], **where)
            wrong = await bot.click(p.ALICE, bot.fake.messages[item["id"]], "Check", **where)
            assert "Not quite" in wrong.text() and "2 attempts left" in wrong.text()
            assert "💡 Two times four." in wrong.text()
            again = bot.fake.messages[item["id"]]
            assert not button(again, "Check")["disabled"]  # still answerable
            await bot.click(p.ALICE, again, "Blank 2", ["2"], **where)
            answer = await bot.click(p.ALICE, bot.fake.messages[item["id"]], "Check", **where)
            assert "Correct" in answer.text()
            assert "x = 4\nassert x * 2 == 8\nprint(x * 2)" in answer.data["embeds"][0]["description"]  # the filled-in code
        elif "What does this print" in text:
            seen.append("short")
            assert "```python\nprint(2 + 4)\n```" in text
            form = await open_form(bot, p.ALICE, item, **where)
            assert form["title"] == "Your answer"
            field = form["components"][0]
            assert field["type"] == 18 and field["component"]["style"] == 2  # a labelled paragraph input
            answer = await bot.submit(p.ALICE, form["custom_id"], " 6 ", message=item, **where)
            assert answer.kind == 7
            assert "Correct" in answer.text()
        elif "Python numbers" in text:
            seen.append("select-all")
            menu = next(c for c in components(item) if c["type"] == 3)
            assert (menu["min_values"], menu["max_values"]) == (1, 3)
            picked = await bot.click(p.ALICE, item, menu["custom_id"], ["0", "1"], **where)
            assert picked.kind == 7 and "☑️" in prompt(picked.data)
            answer = await bot.click(p.ALICE, bot.fake.messages[item["id"]], "Check", **where)
            assert "Correct" in answer.text()
        elif "Define `total`" in text:
            seen.append("code")
            form = await open_form(bot, p.ALICE, item, **where)
            assert form["components"][0]["component"]["value"] == "total = 0\n"  # the starter code
            failed = await bot.submit(p.ALICE, form["custom_id"], WRONG_CODE, message=item, **where)
            assert failed.kind == 6  # deferred at once: the sandbox takes its time
            assert "Running your code" in failed.text()
            assert "1 of 2 tests passed" in failed.text()
            assert "❌ `total` must be 55." in failed.text() and "✅ The total is printed." in failed.text()
            assert "```\n55\n```" in failed.text()  # the output, in a code block
            # The right code arrives as a ```python block in a DM to the bot.
            dm = await bot.event(
                "MESSAGE_CREATE",
                p.message_create(
                    p.ALICE, f"here:\n```py\n{RIGHT_CODE}```", channel_id=p.ALICE.dm_channel, guild=False
                ),
            )
            assert any(c.path.endswith("/typing") for c in dm.calls)  # "QuizBot is typing" while it runs
            assert "Correct" in dm.text() and "2 of 2 tests passed" in dm.text()
            assert dm.calls[-1].path == f"/channels/{p.ALICE.dm_channel}/messages"  # answered in the DM
            # ...and the question in the server was marked answered, with the token that showed it.
            assert any(c.method == "PATCH" and c.message_id == item["id"] for c in dm.calls)
            in_dm = True
            answer = dm
        else:
            raise AssertionError(text)
        if number < 5:
            item = answer.item()
    assert sorted(seen) == ["blanks", "choice", "code", "select-all", "short"]
    assert "Quiz finished" in answer.text() and "5 of 5 right" in answer.text()
    summary = answer.stored()[-1]
    assert button(summary, "New quiz")
    stats = await bot.command(p.ALICE, "stats")
    assert stats.kind == 4
    embed = stats.data["embeds"][0]
    assert embed["title"] == "Progress: Alice"
    assert "streak **1** day" in embed["description"]
    assert embed["fields"] == [{"name": "demo · Basics", "value": "5/7 (71%)", "inline": True}]
    resolved = {"users": {p.ALICE.id: p.ALICE.json()}}
    option = {"name": "user", "type": 6, "value": p.ALICE.id}
    theirs = await bot.command(p.BOB, "stats", [option], resolved=resolved)
    assert theirs.data["embeds"][0]["title"] == "Progress: Alice"
    assert "7** attempts" in theirs.data["embeds"][0]["description"]
    bot.assert_all_acknowledged()


async def test_the_summary_starts_a_new_quiz_and_skip_hint_stop_work_as_commands(bot: Harness) -> None:
    start = await bot.command(p.ALICE, "start", [p.option("count", 1)])
    item = start.item()
    hint = await bot.command(p.ALICE, "hint")
    assert "💡" in hint.text() and hint.data["flags"] & EPHEMERAL
    skipped = await bot.command(p.ALICE, "skip")
    assert "Skipped" in skipped.text() and "Quiz finished" in skipped.text()
    # /quiz skip also marked the question it skipped, through the token of the interaction that sent it.
    edited = bot.fake.messages[item["id"]]
    assert all(c.get("disabled") for c in components(edited))
    summary = skipped.stored()[-1]
    again = await bot.click(p.ALICE, summary, "New quiz")
    assert again.item()["embeds"][0]["title"] == "Question 1 of 1"
    stopped = await bot.command(p.ALICE, "stop")
    assert "Quiz stopped" in stopped.text()
    late = await bot.click(p.ALICE, again.item(), "Skip")
    assert late.kind == 4 and late.data["flags"] & EPHEMERAL
    assert "This quiz was stopped" in late.text()
    bot.assert_all_acknowledged()


async def test_a_strangers_click_gets_a_private_note(bot: Harness) -> None:
    start = await bot.command(p.ALICE, "start", [p.option("pack", "demo")])
    item = copy.deepcopy(start.item())  # as a client that has not refreshed still shows it
    stranger = await bot.click(p.BOB, item, "Skip")
    assert stranger.kind == 4
    assert stranger.data["flags"] & EPHEMERAL
    assert "This quiz belongs to Alice" in stranger.text() and "/quiz start" in stranger.text()
    assert not stranger.edits()  # Alice's question is untouched
    mine = await bot.click(p.ALICE, item, "Skip")
    assert "Skipped" in mine.text()
    stale = await bot.click(p.ALICE, item, "Skip")  # the answered item again: how it ended, in place
    assert stale.kind == 7 and "Skipped" in stale.text() and "Question 2 of 5" not in stale.text()
    assert not stale.followups()  # the next item was posted once, by the click that answered
    bot.assert_all_acknowledged()


async def test_a_dismissed_quiz_comes_back_with_current_and_resume(bot: Harness) -> None:
    first = (await bot.command(p.ALICE, "start", [p.option("pack", "demo")])).item()
    again = await bot.command(p.ALICE, "current")
    assert again.data["flags"] & EPHEMERAL
    shown = again.item()
    assert prompt(shown) == prompt(first) and shown["embeds"][0]["title"] == "Question 1 of 5"
    asked = await bot.command(p.ALICE, "start", [p.option("pack", "demo")])
    assert "You have a quiz running: question 1 of 5" in asked.text()
    resumed = await bot.click(p.ALICE, asked.stored()[0], "Resume")
    assert prompt(resumed.item()) == prompt(first)
    skipped = await bot.click(p.ALICE, resumed.item(), "Skip")  # the recovered controls work
    assert "Skipped" in skipped.text() and "Question 2 of 5" in skipped.text()


async def test_answer_on_a_button_item_points_at_current(bot: Harness) -> None:
    from bot.core import Actor

    alice = Actor("discord", p.GUILD_ID, p.ALICE.id, p.ALICE.name)
    await bot.service.start(alice, pack="demo", question="q-choice")
    answer = await bot.command(p.ALICE, "answer")
    assert answer.kind == 4 and "answered with its buttons or menus; `/quiz current` shows it again" in answer.text()
