"""Typed `start` (Slack's `/quiz start ...`, the terminal's `start ...`) read into a request.

The command table (DESIGN.md, `help`) reads `start [pack] [topic] [difficulty] [count]`: a
difficulty word and a number are taken in place, after the pack and the topic, as well as by name.
"""

from __future__ import annotations

import pytest

from bot.core import commands as cm
from bot.core import requests as rq
from bot.core.i18n import use_locale


def test_difficulty_and_count_are_read_in_place_after_pack_and_topic() -> None:
    assert cm.parse("start pytorch-autograd requires-grad easy 3") == rq.Start("pytorch-autograd", "requires-grad", "easy", 3)
    assert cm.parse("start demo hard") == rq.Start(pack="demo", difficulty="hard")
    assert cm.parse("start demo Medium 5") == rq.Start(pack="demo", difficulty="medium", count=5)
    assert cm.parse("start demo 5") == rq.Start(pack="demo", count=5)
    assert cm.parse("start demo basics 2") == rq.Start(pack="demo", topic="basics", count=2)
    assert cm.parse("start easy") == rq.Start(difficulty="easy")
    assert cm.parse("start 4") == rq.Start(count=4)


def test_named_options_still_work_and_mix_with_words_in_place() -> None:
    assert cm.parse("start demo difficulty:easy count:2") == rq.Start(pack="demo", difficulty="easy", count=2)
    assert cm.parse("start demo basics count:2 easy") == rq.Start(pack="demo", topic="basics", difficulty="easy", count=2)
    assert cm.parse("start pack:demo easy 3") == rq.Start(pack="demo", difficulty="easy", count=3)


@pytest.mark.parametrize(
    "text",
    [
        "start demo basics extra",  # three names
        "start demo easy basics",  # a topic after the difficulty
        "start demo 3 basics",  # a topic after the count
        "start demo 3 easy",  # the difficulty after the count
        "start demo easy hard",  # two difficulties
        "start demo 3 4",  # two counts
    ],
)
def test_words_out_of_order_get_the_usage_with_the_order(text: str) -> None:
    parsed = cm.parse(text)
    assert isinstance(parsed, cm.Usage), parsed
    assert "`[pack] [topic] [difficulty] [count]`" in parsed.problem


@pytest.mark.parametrize("text", ["start demo count:-3", "start demo -3", "start demo count:0", "start demo count:+7"])
def test_a_negative_or_signed_count_is_a_whole_number_left_to_the_range_check(text: str) -> None:
    parsed = cm.parse(text)
    assert isinstance(parsed, rq.Start), parsed
    assert parsed.count == int(text.rpartition(":")[2].rpartition(" ")[2])


@pytest.mark.parametrize("count", ["many", "2.5", "²", "3e2", "-"])
def test_a_count_that_is_no_whole_number_says_so(count: str) -> None:
    parsed = cm.parse(f"start demo count:{count}")
    assert isinstance(parsed, cm.Usage) and "must be a whole number" in parsed.problem


def test_a_count_too_long_for_a_number_is_out_of_range_not_a_crash() -> None:
    parsed = cm.parse("start demo count:" + "9" * 5000)
    assert isinstance(parsed, cm.Usage)
    assert "must be between 1 and 50" in parsed.problem and len(parsed.problem) < 200


def test_race_numbers_written_in_other_scripts_are_refused_not_a_crash() -> None:
    parsed = cm.parse("race demo ²")
    assert isinstance(parsed, cm.Usage)


@pytest.mark.parametrize("lang", ["es", "de"])
def test_the_order_usage_is_translated(lang: str) -> None:
    with use_locale(lang):
        parsed = cm.parse("start demo 3 easy")
    assert isinstance(parsed, cm.Usage)
    assert "`[pack] [topic] [difficulty] [count]`" in parsed.problem and " in that order" not in parsed.problem
