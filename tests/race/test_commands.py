"""Typed race, leaderboard and privacy commands (Slack's `/quiz <text>`, the terminal) read into requests."""

from __future__ import annotations

from bot.core import commands as cm
from bot.core import requests as rq


def test_race_reads_pack_topic_difficulty_then_rounds_and_seconds_in_order() -> None:
    assert cm.parse("race") == rq.RaceStart()
    assert cm.parse("race pytorch-basics tensors hard 5 20") == rq.RaceStart("pytorch-basics", "tensors", "hard", 5, 20)
    assert cm.parse("race 12") == rq.RaceStart(rounds=12)
    assert cm.parse("race seconds:45 pack:demo") == rq.RaceStart(pack="demo", seconds=45)
    assert cm.parse("race stop") == rq.RaceStop()


def test_race_refuses_what_it_cannot_read() -> None:
    assert isinstance(cm.parse("race stop now"), cm.Usage)
    assert isinstance(cm.parse("race a b c"), cm.Usage)  # three names: pack, topic and what?
    assert isinstance(cm.parse("race 3 20 40"), cm.Usage)
    bad = cm.parse("race rounds:many")
    assert isinstance(bad, cm.Usage) and "whole number" in bad.problem
    unknown = cm.parse("race speed:9")
    assert isinstance(unknown, cm.Usage) and "`speed`" in unknown.problem


def test_leaderboard_and_privacy() -> None:
    assert cm.parse("leaderboard") == rq.Leaderboard()
    assert cm.parse("leaderboard month demo") == rq.Leaderboard("month", "demo")
    assert cm.parse("leaderboard demo ALL") == rq.Leaderboard("all", "demo")
    assert isinstance(cm.parse("leaderboard a b c"), cm.Usage)
    assert cm.parse("privacy leaderboard off") == rq.Privacy(visible=False)
    assert cm.parse("privacy Leaderboard ON") == rq.Privacy(visible=True)
    assert isinstance(cm.parse("privacy leaderboard maybe"), cm.Usage)
    assert isinstance(cm.parse("privacy"), cm.Usage)


def test_race_start_is_read_as_discord_writes_it() -> None:
    from bot.core import commands
    from bot.core import requests as rq

    assert commands.parse("race start demo 3 20") == rq.RaceStart(pack="demo", rounds=3, seconds=20)
