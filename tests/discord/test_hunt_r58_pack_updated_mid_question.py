"""A choice question whose pack an admin updates while a learner has it on screen.

The learner is shown "A. torch.zeros(3)" and presses A; meanwhile an admin loads a new version of
the pack whose choices of that question come in another order (a choice added first). The press
was graded against the new version, where A is `torch.ones(3)`: the learner was told "Not quite",
shown A marked wrong, and a wrong attempt was stored for a right answer. Now the press grades
nothing: the learner is told the question changed and sees it as it is now, with its new buttons.
"""

from __future__ import annotations

import copy

from . import payloads as p
from .conftest import Harness, components
from .test_admin import load

V1 = """\
pack: extra
title: Extra
version: 1
questions:
  - id: zeros
    type: choice
    prompt: Which call makes a tensor of zeros?
    shuffle: false
    choices:
      - {text: "`torch.zeros(3)`", correct: true}
      - {text: "`torch.empty(3)`"}
  - id: two
    type: short
    prompt: What is 1 + 1?
    accept: ["2"]
"""
V2 = V1.replace("version: 1", "version: 2").replace(
    '      - {text: "`torch.zeros(3)`", correct: true}\n      - {text: "`torch.empty(3)`"}',
    '      - {text: "`torch.ones(3)`"}\n      - {text: "`torch.empty(3)`"}\n      - {text: "`torch.zeros(3)`", correct: true}',
)


async def zeros_on_screen(bot: Harness) -> dict[str, object]:
    assert "v1 added" in (await load(bot, p.ADMIN, "extra.yaml", V1.encode())).text()
    item = (await bot.command(p.ALICE, "start", [p.option("pack", "extra")])).item()
    while "zeros" not in item["embeds"][0]["description"]:
        await bot.command(p.ALICE, "stop")
        item = (await bot.command(p.ALICE, "start", [p.option("pack", "extra")])).item()
    assert components(item)[0]["label"] == "A. torch.zeros(3)"
    return copy.deepcopy(item)  # as the learner's client shows it


async def test_a_press_on_a_question_changed_since_it_was_shown_is_not_graded(bot: Harness) -> None:
    shown = await zeros_on_screen(bot)
    assert "v1 → v2" in (await load(bot, p.ADMIN, "extra.yaml", V2.encode())).text()
    pressed = await bot.click(p.ALICE, shown, "A")
    text = pressed.text()
    assert "Not quite" not in text and "Correct" not in text, text
    assert "changed" in text, text  # said why nothing was graded
    assert "**C.** `torch.zeros(3)`" in text, text  # the question as it is now
    redrawn = pressed.edits()[-1].body if pressed.edits() else pressed.data
    labels = [c.get("label") for row in redrawn["components"] for c in row["components"]]
    assert "C. torch.zeros(3)" in labels, labels
    stats = await bot.command(p.ALICE, "stats")
    assert "No attempts yet" in stats.text(), stats.text()  # nothing stored for the press
    again = await bot.click(p.ALICE, shown | {"components": redrawn["components"]}, "C")
    assert "Correct" in again.text(), again.text()


async def test_a_question_not_changed_by_the_update_is_graded_as_usual(bot: Harness) -> None:
    shown = await zeros_on_screen(bot)
    unchanged = V1.replace("version: 1", "version: 2").replace("What is 1 + 1?", "What is 2 + 0?")
    assert "v1 → v2" in (await load(bot, p.ADMIN, "extra.yaml", unchanged.encode())).text()
    pressed = await bot.click(p.ALICE, shown, "A")
    assert "Correct" in pressed.text(), pressed.text()


async def test_blanks_picked_before_their_menu_changed_are_not_graded(bot: Harness) -> None:
    from bot.core.packs import load_path
    from tests.conftest import DEMO_PACK

    item = (await bot.command(p.ALICE, "start", [p.option("pack", "demo"), p.option("difficulty", "medium")])).item()
    while "prints 8" not in item["embeds"][0]["description"]:
        await bot.command(p.ALICE, "stop")
        item = (await bot.command(p.ALICE, "start", [p.option("pack", "demo"), p.option("difficulty", "medium")])).item()
    shown = copy.deepcopy(item)
    await bot.click(p.ALICE, shown, "Blank 1", ["0"])  # "4"
    await bot.click(p.ALICE, shown, "Blank 2", ["2"])  # "print"
    pack = load_path(DEMO_PACK).pack
    questions = [
        q.model_copy(update={"options": ["print", "len", "4", "2"]}) if q.id == "q-blanks" else q for q in pack.questions
    ]
    await bot.service.import_pack(pack.model_copy(update={"version": 2, "questions": questions}))
    checked = await bot.click(p.ALICE, shown, "Check")
    text = checked.text()
    assert "Not quite" not in text and "Correct" not in text, text
    assert "changed" in text, text
    stats = await bot.command(p.ALICE, "stats")
    assert "No attempts yet" in stats.text(), stats.text()


async def test_a_question_shown_again_after_the_update_is_answered_at_once(bot: Harness) -> None:
    shown = await zeros_on_screen(bot)
    assert "v1 → v2" in (await load(bot, p.ADMIN, "extra.yaml", V2.encode())).text()
    current = (await bot.command(p.ALICE, "current")).item()  # the question as it is now, C the right one
    assert components(current)[2]["label"] == "C. torch.zeros(3)", components(current)
    pressed = await bot.click(p.ALICE, copy.deepcopy(current), "C")
    assert "Correct" in pressed.text(), pressed.text()
    assert shown  # the old message's buttons are not pressed here


async def test_a_later_question_changed_by_the_update_is_shown_and_graded_as_it_is_now(bot: Harness) -> None:
    assert "v1 added" in (await load(bot, p.ADMIN, "extra.yaml", V1.encode())).text()
    item = (await bot.command(p.ALICE, "start", [p.option("pack", "extra")])).item()
    while "zeros" in item["embeds"][0]["description"]:  # the short one first: the choice comes later
        await bot.command(p.ALICE, "stop")
        item = (await bot.command(p.ALICE, "start", [p.option("pack", "extra")])).item()
    assert "v1 → v2" in (await load(bot, p.ADMIN, "extra.yaml", V2.encode())).text()
    form = await bot.click(p.ALICE, copy.deepcopy(item), "Answer")
    answered = await bot.submit(p.ALICE, form.data["custom_id"], "2", message=copy.deepcopy(item))
    following = answered.item()
    assert "zeros" in following["embeds"][0]["description"]
    assert components(following)[2]["label"] == "C. torch.zeros(3)", components(following)
    pressed = await bot.click(p.ALICE, copy.deepcopy(following), "C")
    assert "Correct" in pressed.text(), pressed.text()
