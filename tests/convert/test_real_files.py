"""What real files from other tools carry: Red's reserved keys, GIFT format markers on answers, numbers
at their tolerance's edge, and per-answer feedback that must not be dropped without a word."""

from __future__ import annotations

import pytest

from bot.core.convert import convert_bytes
from bot.core.items.short import is_right
from bot.core.packs.models import ShortQuestion

from .helpers import assumed, item

RED = b"""AUTHOR: Someone
DESCRIPTION: Questions about the solar system, for the astronomy club.
CONFIG:
  max_score: 10
Which planet is largest?:
- Jupiter
What is the closest star?:
- The Sun
- Sun
"""


def test_red_description_is_the_packs_description_not_a_question() -> None:
    conversion = convert_bytes("space.yaml", RED, fmt="red-trivia")
    assert conversion.ok
    prompts = [q["prompt"] for q in conversion.pack["questions"]]
    assert prompts == ["Which planet is largest?", "What is the closest star?"]
    assert "for the astronomy club" in conversion.pack["description"]
    assert "the list's DESCRIPTION became the pack's description" in assumed(conversion)


GIFT_MARKERS = """::q1::[moodle]¿Alguna vez? {
=[moodle]Nunca. #[html]<b>Bien</b>
~[plain]Siempre. #[markdown]*No*
}

::q2::[html]<p>Pi?</p>{#[moodle]3.1415:0.0005 #[plain]Close enough.}
"""


def test_gift_format_markers_are_removed_from_answers_and_feedback() -> None:
    conversion = convert_bytes("markers.gift", GIFT_MARKERS.encode())
    assert conversion.ok, conversion.report_lines()
    q1 = item(conversion, "q1")
    texts = [c["text"] for c in q1["choices"]]
    assert texts == ["Nunca.", "Siempre."]
    assert [c.get("feedback") for c in q1["choices"]] == ["**Bien**", "*No*"]
    assert "[" not in q1["prompt"]
    q2 = item(conversion, "q2")
    assert q2["explanation"] == "Close enough."


def short_of(conversion_item: dict[str, object]) -> ShortQuestion:
    return ShortQuestion.model_validate({"id": "x", **conversion_item})


@pytest.mark.parametrize(
    ("block", "inside", "outside"),
    [
        ("{#3.1415:0.0005}", ["3.141", "3.142", "3.1415"], ["3.1404", "3.1426"]),
        ("{#-3.142..-3.141}", ["-3.142", "-3.141", "-3.1415"], ["-3.1421", "-3.1409"]),
        ("{#0.1..0.3}", ["0.1", "0.3", "0.2"], ["0.09", "0.31"]),
    ],
)
def test_gift_numbers_at_both_ends_of_their_range_are_right(block: str, inside: list[str], outside: list[str]) -> None:
    conversion = convert_bytes("n.gift", f"::n::How much? {block}\n".encode())
    assert conversion.ok, conversion.report_lines()
    question = short_of(item(conversion, "n"))
    for answer in inside:
        assert is_right(question, answer), answer
    for answer in outside:
        assert not is_right(question, answer), answer


MOODLE = """<?xml version="1.0" encoding="UTF-8"?>
<quiz>
<question type="numerical">
  <name><text>pi</text></name>
  <questiontext format="html"><text>Pi to three places?</text></questiontext>
  <generalfeedback format="html"><text>Pi is about 3.14159.</text></generalfeedback>
  <answer fraction="100"><text>3.1415</text><tolerance>0.0005</tolerance>
    <feedback format="html"><text>Right: rounding keeps three places.</text></feedback></answer>
  <answer fraction="0"><text>3</text><feedback format="html"><text>That is only the whole part.</text></feedback></answer>
</question>
<question type="shortanswer">
  <name><text>word</text></name>
  <questiontext format="html"><text>The method that computes gradients?</text></questiontext>
  <generalfeedback format="html"><text>See the autograd notes.</text></generalfeedback>
  <answer fraction="100"><text>backward</text><feedback format="html"><text>Yes, backward().</text></feedback></answer>
  <answer fraction="0"><text>grad</text><feedback format="html"><text>grad holds the result.</text></feedback></answer>
</question>
</quiz>
"""


def test_moodle_right_answer_feedback_is_kept_with_general_feedback() -> None:
    conversion = convert_bytes("m.xml", MOODLE.encode())
    assert conversion.ok, conversion.report_lines()
    pi = item(conversion, "pi")
    assert pi["explanation"] == "Right: rounding keeps three places.\n\nPi is about 3.14159."
    word = item(conversion, "word")
    assert word["explanation"] == "Yes, backward().\n\nSee the autograd notes."
    notes = assumed(conversion)
    assert "feedback on particular wrong answers is not carried" in notes
    assert len(notes["feedback on particular wrong answers is not carried"]) == 2
    question = short_of(pi)
    assert is_right(question, "3.141") and is_right(question, "3.142")


def test_gift_numerical_feedback_is_kept() -> None:
    conversion = convert_bytes("n.gift", b"::n::Two plus two? {#=4#Well done. =%50%5#Close. ####Add them.}\n")
    assert conversion.ok, conversion.report_lines()
    assert item(conversion, "n")["explanation"] == "Well done.\n\nAdd them."
    assert "feedback on answers worth partial credit is not carried" in assumed(conversion)
