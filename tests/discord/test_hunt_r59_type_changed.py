"""A question whose TYPE an admin changes (a pack update) while a learner has it on screen.

The learner sees the short question "What is 1 + 1?" and opens its answer form; meanwhile an admin
loads a version of the pack where that question is a choice question. The form's answer used to be
refused with "That question was already answered; the quiz has moved on", though the quiz had not
moved on at all (and no way forward was offered). Now it grades nothing, says the question changed
and shows it as it is now, with its buttons, which then answer it.
"""

from __future__ import annotations

import copy

from . import payloads as p
from .conftest import Harness
from .test_admin import load

V1 = """\
pack: extra
title: Extra
version: 1
questions:
  - id: two
    type: short
    prompt: What is 1 + 1?
    accept: ["2"]
"""
V2 = """\
pack: extra
title: Extra
version: 2
questions:
  - id: two
    type: choice
    prompt: What is 1 + 1?
    shuffle: false
    choices:
      - {text: "3"}
      - {text: "2", correct: true}
"""


async def test_an_answer_to_a_question_whose_type_changed_since_it_was_shown_is_not_called_already_answered(
    bot: Harness,
) -> None:
    assert "v1 added" in (await load(bot, p.ADMIN, "extra.yaml", V1.encode())).text()
    item = (await bot.command(p.ALICE, "start", [p.option("pack", "extra")])).item()
    shown = copy.deepcopy(item)
    form = await bot.click(p.ALICE, shown, "Answer")
    assert "v1 → v2" in (await load(bot, p.ADMIN, "extra.yaml", V2.encode())).text()
    answered = await bot.submit(p.ALICE, form.data["custom_id"], "2", message=shown)
    text = answered.text()
    assert "already answered" not in text and "moved on" not in text, text
    assert "Correct" not in text and "Not quite" not in text, text
    assert "changed" in text, text
    bodies = answered.bodies()
    labels = [c.get("label") for b in bodies for row in b.get("components", ()) for c in row["components"]]
    assert "B. 2" in labels, labels  # the question as it is now, with its buttons
    stats = await bot.command(p.ALICE, "stats")
    assert "No attempts yet" in stats.text(), stats.text()  # nothing stored for the answer
    redrawn = next(b for b in reversed(bodies) if b.get("components"))
    pressed = await bot.click(p.ALICE, shown | {"components": redrawn["components"]}, "B")
    assert "Correct" in pressed.text(), pressed.text()
