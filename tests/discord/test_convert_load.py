"""`/quiz pack load` with another tool's file on Discord: a preview first, then Load or Cancel."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from tests.fakes import LocalRunner

from . import payloads as p
from .conftest import Harness
from .test_admin import load

FIXTURES = Path(__file__).parents[1] / "fixtures" / "import"
SOURCES = [
    ("moodle-pytorch-basics-20261130-1412.xml", "moodle-pytorch-basics", 8, "3 choice, 2 blanks, 2 short, 1 code"),
    ("pytorch-gift.txt", "pytorch-gift", 13, "7 choice, 6 short"),
]


async def pack_ids(bot: Harness) -> list[str]:
    return [info.id for info in await bot.service.enabled_packs_all()]


@pytest.mark.parametrize(("filename", "pack_id", "count", "kinds"), SOURCES)
async def test_a_converted_file_is_previewed_then_loaded_and_played(
    bot: Harness, filename: str, pack_id: str, count: int, kinds: str
) -> None:
    preview = await load(bot, p.ADMIN, filename, (FIXTURES / filename).read_bytes())
    text = preview.text()
    assert f"Converted {count} items" in text and f"({kinds})" in text
    assert "not converted" in text and "line " in text  # the first problems, with their lines
    assert pack_id not in await pack_ids(bot)  # nothing stored before the click
    message = copy.deepcopy(preview.stored()[-1])  # as it was shown: the click edits the stored one
    loaded = await bot.click(p.ADMIN, message, f"Load {pack_id}")
    assert f"Pack `{pack_id}` v1 added with {count} questions." in loaded.text()
    assert pack_id in await pack_ids(bot)
    again = await bot.click(p.ADMIN, message, f"Load {pack_id}")  # the key was used up
    assert "expired or was already used" in again.text()

    start = await bot.command(p.ALICE, "start", [p.option("pack", pack_id), p.option("count", count)])
    assert start.item()["embeds"][0]["title"] == f"Question 1 of {count}"
    for _ in range(count - 1):
        assert "Skipped" in (await bot.command(p.ALICE, "skip")).text()
    assert "Quiz finished" in (await bot.command(p.ALICE, "skip")).text()
    bot.assert_all_acknowledged()


async def test_cancel_stores_nothing_and_only_the_uploader_may_click(bot: Harness) -> None:
    name = SOURCES[1][0]
    preview = await load(bot, p.ADMIN, name, (FIXTURES / name).read_bytes())
    message = copy.deepcopy(preview.stored()[-1])  # as it was shown: the click edits the stored one
    stranger = await bot.click(p.BOB, message, "Load pytorch-gift")
    assert "Only admins may load packs." in stranger.text()
    cancelled = await bot.click(p.ADMIN, message, "Cancel")
    assert "Nothing was loaded" in cancelled.text()
    late = await bot.click(p.ADMIN, message, "Load pytorch-gift")
    assert "expired or was already used" in late.text()
    assert "pytorch-gift" not in await pack_ids(bot)


async def test_a_forged_key_loads_nothing(bot: Harness) -> None:
    name = SOURCES[1][0]
    preview = await load(bot, p.ADMIN, name, (FIXTURES / name).read_bytes())
    message = preview.stored()[-1]
    button = message["components"][0]["components"][0]
    button["custom_id"] = button["custom_id"][:-3] + "xyz"
    forged = await bot.click(p.ADMIN, message, button["custom_id"])
    assert "expired or was already used" in forged.text()
    assert "pytorch-gift" not in await pack_ids(bot)


async def test_a_malformed_file_gets_its_one_line(bot: Harness) -> None:
    broken = b'<?xml version="1.0"?>\n<quiz>\n  <question type="truefalse">\n  </questoin>\n</quiz>\n'
    answer = await load(bot, p.ADMIN, "quiz.xml", broken)
    assert "quiz.xml:4: broken XML: mismatched tag" in answer.text()
    assert not any(row for body in answer.bodies() for row in body.get("components") or [])


RIGHT_FEEDBACK_XML = b"""<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="multichoice">
    <name><text>Zeros</text></name>
    <questiontext format="html"><text><![CDATA[<p>Which call makes a 2x3 tensor of zeros?</p>]]></text></questiontext>
    <single>true</single>
    <shuffleanswers>false</shuffleanswers>
    <answer fraction="100" format="html">
      <text><![CDATA[<p><code>torch.zeros(2, 3)</code></p>]]></text>
      <feedback format="html"><text><![CDATA[<p>Yes: two rows, three columns.</p>]]></text></feedback>
    </answer>
    <answer fraction="0" format="html">
      <text><![CDATA[<p><code>torch.zeros(6)</code></p>]]></text>
      <feedback format="html"><text><![CDATA[<p>That is a flat tensor of six zeros.</p>]]></text></feedback>
    </answer>
  </question>
</quiz>
"""


async def test_feedback_written_for_the_right_choice_is_shown(bot: Harness) -> None:
    preview = await load(bot, p.ADMIN, "zeros.xml", RIGHT_FEEDBACK_XML)
    await bot.click(p.ADMIN, preview.stored()[-1], "Load zeros")
    start = await bot.command(p.ALICE, "start", [p.option("pack", "zeros")])
    answer = await bot.click(p.ALICE, start.item(), "A")
    text = answer.text()
    assert "Correct" in text and "Yes: two rows, three columns." in text
    assert "six zeros" not in text


async def test_a_converted_wrong_key_is_listed_in_the_preview_and_the_rest_can_be_loaded(
    bot: Harness, runner: LocalRunner
) -> None:
    name = SOURCES[0][0]
    text = (FIXTURES / name).read_text(encoding="utf-8")
    right = "    return [i * i for i in range(n)]\n</answer>"
    wrong = "    return [i * i for i in range(1, n + 1)]\n</answer>"
    line = text[: text.index("<question type=\"coderunner\">\n    <name>\n      <text>Squares")].count("\n") + 1
    preview = await load(bot, p.ADMIN, name, text.replace(right, wrong).encode())
    shown = preview.text()
    assert "1 of 8 questions failed the proof" in shown
    assert f"{name}:{line}: question `squares-of-a-tensor`:" in shown
    assert ".zip/" not in shown and "pack.yaml" not in shown
    message = preview.stored()[-1]
    labels = [c.get("label") for row in message["components"] for c in row["components"]]
    assert labels == ["Load the 7 that pass", "Cancel"]  # the whole pack cannot be loaded: no such button
    assert "moodle-pytorch-basics" not in await pack_ids(bot)

    runs = len(runner.requests)
    loaded = await bot.click(p.ADMIN, message, "Load the 7 that pass")
    reply = loaded.text()
    assert "Pack `moodle-pytorch-basics` v1 added with 7 questions." in reply
    assert "left out 1 question that failed the proof" in reply and f"{name}:{line}: question `squares-of-a-tensor`:" in reply
    assert len(runner.requests) == runs  # the preview's proof was kept: nothing ran twice
    pack = await bot.service.catalogue.pack("moodle-pytorch-basics")
    assert pack is not None and "squares-of-a-tensor" not in [q.id for q in pack.questions]
    assert len(pack.questions) == 7


async def test_a_passing_upload_is_proven_once_at_the_preview(bot: Harness, runner: LocalRunner) -> None:
    name = SOURCES[0][0]
    preview = await load(bot, p.ADMIN, name, (FIXTURES / name).read_bytes())
    assert "failed the proof" not in preview.text()
    runs = len(runner.requests)
    assert runs > 0  # the code item's solution and starter ran for the preview
    loaded = await bot.click(p.ADMIN, preview.stored()[-1], "Load moodle-pytorch-basics")
    assert "added with 8 questions" in loaded.text()
    assert len(runner.requests) == runs
