"""A channel's daily question whose pack an admin updates while the post is open.

The post shows "A. `requires_grad=True`" (right) and "B. `track=True`"; an admin then loads a new
version of the pack whose choices of that question come in the other order. A member who pressed A
on the post as everyone sees it was graded against the new version, where A is `track=True`: told
"Not quite", an attempt counted against them and the channel's tally. A quiz's item in the same
case grades nothing and shows the question as it is now (`items.remade`); so does the post now:
the press is not counted, the member is told the question changed and gets it as it is now, whose
buttons answer it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.core.packs import load_path
from tests.daily.wired import STUDY_PACK
from tests.fakes import FakeClock

from . import payloads as p
from .conftest import DailyBot, Harness
from .fake_discord import FakeDiscord
from .test_daily import channel_posts, daily_set, private

SWAPPED = STUDY_PACK.replace("version: 1", "version: 2").replace(
    '      - {text: "`requires_grad=True`", correct: true}\n      - {text: "`track=True`", feedback: "There is no `track` argument."}',
    '      - {text: "`track=True`", feedback: "There is no `track` argument."}\n      - {text: "`requires_grad=True`", correct: true}',
)
RETYPED = STUDY_PACK.replace("version: 1", "version: 2").replace("type: choice", "type: short").replace(
    "    shuffle: false\n    choices:\n"
    '      - {text: "`requires_grad=True`", correct: true}\n      - {text: "`track=True`", feedback: "There is no `track` argument."}\n',
    '    accept: ["requires_grad=True"]\n',
)


async def posted(daily_bot: DailyBot, fake: FakeDiscord, clock: FakeClock) -> dict[str, Any]:
    bot, wired, *_ = daily_bot
    done = await bot.command(p.ADMIN, "daily", daily_set(time="11:00", timezone="Europe/Berlin", pack="study"))
    assert "Daily question set" in done.text(), done.text()
    clock.advance(hours=1)
    start = len(fake.calls)
    await wired.scheduler.tick()
    [call] = channel_posts(fake, start)
    post: dict[str, Any] = fake.messages[call.message_id]
    labels = [c.get("label") for row in post["components"] for c in row["components"]]
    assert labels[:2] == ["A. requires_grad=True", "B. track=True"], labels
    return post


async def update(bot: Harness, tmp_path: Path, text: str) -> None:
    path = tmp_path / "study-v2.yaml"
    path.write_text(text, encoding="utf-8")
    await bot.service.import_pack(load_path(path).pack)


def buttons(answer: Any) -> list[dict[str, Any]]:
    return [row for b in answer.bodies() for row in b.get("components", ())]


async def test_a_press_on_a_daily_post_whose_choices_changed_is_not_graded(
    daily_bot: DailyBot, fake: FakeDiscord, clock: FakeClock, tmp_path: Path
) -> None:
    bot = daily_bot.bot
    post = await posted(daily_bot, fake, clock)
    await update(bot, tmp_path, SWAPPED)
    pressed = await bot.click(p.ALICE, post, "A")  # `requires_grad=True`, as the post shows it
    text = pressed.text()
    assert private(pressed), text
    assert "Not quite" not in text and "Right!" not in text, text
    assert "changed" in text, text
    assert "**B.** `requires_grad=True`" in text, text  # the question as it is now
    stats = await bot.command(p.ALICE, "stats")
    assert "No attempts yet" in stats.text(), stats.text()
    again = await bot.click(p.ALICE, post | {"components": buttons(pressed)}, "B")
    assert "Right!" in again.text(), again.text()  # both attempts are still the member's


async def test_a_press_on_a_daily_post_not_changed_by_the_update_is_graded(
    daily_bot: DailyBot, fake: FakeDiscord, clock: FakeClock, tmp_path: Path
) -> None:
    bot = daily_bot.bot
    post = await posted(daily_bot, fake, clock)
    await update(bot, tmp_path, STUDY_PACK.replace("version: 1", "version: 2").replace("It is a keyword", "A keyword"))
    pressed = await bot.click(p.ALICE, post, "A")
    assert "Right!" in pressed.text(), pressed.text()


async def test_a_press_on_a_daily_post_whose_question_became_a_short_answer_is_not_called_stale(
    daily_bot: DailyBot, fake: FakeDiscord, clock: FakeClock, tmp_path: Path
) -> None:
    bot = daily_bot.bot
    post = await posted(daily_bot, fake, clock)
    await update(bot, tmp_path, RETYPED)
    pressed = await bot.click(p.ALICE, post, "A")
    text = pressed.text()
    assert private(pressed), text
    assert "already answered" not in text and "moved on" not in text and "Not quite" not in text, text
    assert "changed" in text, text
    labels = [c.get("label") for row in buttons(pressed) for c in row["components"]]
    assert "Answer" in labels, labels  # answered with its form now


MULTI = """\
pack: many
title: Many
version: 1
questions:
  - id: evens
    type: choice
    prompt: Which numbers are even?
    multiple: true
    shuffle: false
    choices:
      - {text: "two", correct: true}
      - {text: "four", correct: true}
      - {text: "five"}
"""
MULTI_V2 = MULTI.replace("version: 1", "version: 2").replace(
    '      - {text: "two", correct: true}\n      - {text: "four", correct: true}\n      - {text: "five"}',
    '      - {text: "five"}\n      - {text: "two", correct: true}\n      - {text: "four", correct: true}',
)


def menu_values(message: dict[str, Any], picked: list[str]) -> list[str]:
    """The values the client sends for the options whose labels start with `picked` (as Discord does)."""
    [menu] = [c for row in message["components"] for c in row["components"] if c["type"] == 3]
    return [o["value"] for o in menu["options"] if o["label"].split(".")[0] in picked]


async def test_picks_made_before_a_select_all_post_changed_are_not_checked(
    daily_bot: DailyBot, fake: FakeDiscord, clock: FakeClock, tmp_path: Path
) -> None:
    bot, wired, *_ = daily_bot
    await update(bot, tmp_path, MULTI)
    done = await bot.command(p.ADMIN, "daily", daily_set(time="11:00", timezone="Europe/Berlin", pack="many"))
    assert "Daily question set" in done.text(), done.text()
    clock.advance(hours=1)
    start = len(fake.calls)
    await wired.scheduler.tick()
    [call] = channel_posts(fake, start)
    post: dict[str, Any] = fake.messages[call.message_id]
    [menu] = [c for row in post["components"] for c in row["components"] if c["type"] == 3]
    await bot.click(p.ALICE, post, menu["custom_id"], menu_values(post, ["A", "B"]))  # two, four: right
    await update(bot, tmp_path, MULTI_V2)  # now A is five, B two, C four
    checked = await bot.click(p.ALICE, post, "Check")
    text = checked.text()
    assert "Not quite" not in text and "Right!" not in text, text
    assert "changed" in text, text
    stats = await bot.command(p.ALICE, "stats")
    assert "No attempts yet" in stats.text(), stats.text()
    picked_late = await bot.click(p.ALICE, post, menu["custom_id"], menu_values(post, ["A", "B"]))
    assert "changed" in picked_late.text(), picked_late.text()  # the old menu's picks are not kept either
    now = post | {"components": buttons(checked)}
    await bot.click(p.ALICE, now, menu["custom_id"], menu_values(now, ["B", "C"]))
    right = await bot.click(p.ALICE, now, "Check")
    assert "Right!" in right.text(), right.text()


SHORT = """\
pack: words
title: Words
version: 1
questions:
  - id: two
    type: short
    prompt: What is 1 + 1?
    accept: ["2"]
"""
SHORT_TO_CHOICE = SHORT.replace("version: 1", "version: 2").replace(
    '    type: short\n    prompt: What is 1 + 1?\n    accept: ["2"]\n',
    '    type: choice\n    prompt: What is 1 + 1?\n    shuffle: false\n    choices:\n      - {text: "3"}\n      - {text: "2", correct: true}\n',
)


async def test_the_answer_button_of_a_post_whose_question_became_a_choice_shows_it_as_it_is_now(
    daily_bot: DailyBot, fake: FakeDiscord, clock: FakeClock, tmp_path: Path
) -> None:
    bot, wired, *_ = daily_bot
    await update(bot, tmp_path, SHORT)
    done = await bot.command(p.ADMIN, "daily", daily_set(time="11:00", timezone="Europe/Berlin", pack="words"))
    assert "Daily question set" in done.text(), done.text()
    clock.advance(hours=1)
    start = len(fake.calls)
    await wired.scheduler.tick()
    [call] = channel_posts(fake, start)
    post: dict[str, Any] = fake.messages[call.message_id]
    await update(bot, tmp_path, SHORT_TO_CHOICE)
    pressed = await bot.click(p.ALICE, post, "Answer")
    text = pressed.text()
    assert private(pressed), text
    assert "changed" in text, text
    labels = [c.get("label") for row in buttons(pressed) for c in row["components"]]
    assert "B. 2" in labels, labels
    right = await bot.click(p.ALICE, post | {"components": buttons(pressed)}, "B")
    assert "Right!" in right.text(), right.text()
