"""The race rules alone, over a fake clock: scoring, ties, time-out, answering twice, restart."""

from __future__ import annotations

import json

import pytest

from bot.core.race import (
    AlreadyAnswered,
    BadRaceOption,
    Race,
    RaceAnswer,
    RaceItem,
    RaceOver,
    RoundClosed,
    check_options,
    points,
)
from bot.core.race import view as race_view
from tests.fakes import FakeClock


def new_race(clock: FakeClock, rounds: int = 3, seconds: int = 30) -> Race:
    now = clock.now()
    return Race(
        id="race1",
        platform="discord",
        scope="guild-1",
        channel_id="chan-1",
        started_by="ann",
        started_by_name="Ann",
        items=[RaceItem("p", f"q{i}", "t", (1, 0, 2)) for i in range(rounds)],
        seconds=seconds,
        starts=[now],
        created_at=now,
    )


def answer(race: Race, clock: FakeClock, user: str, correct: bool = True) -> RaceAnswer:
    return race.record(RaceAnswer(race.round, user, user.title(), "A", correct, clock.now()))


def test_points_fall_with_order_and_time() -> None:
    assert points(1, 0.0, 30) == 100
    assert points(2, 15.0, 30) == 40 + 25
    assert points(6, 30.0, 30) == 10
    assert points(1, 99.0, 30) == 50  # clamped at the deadline
    ranks = [points(r, t, 30) for r, t in ((1, 3.0), (2, 3.0), (3, 4.5), (4, 20.0))]
    assert ranks == sorted(ranks, reverse=True) and len(set(ranks)) == 4


def test_first_right_answer_scores_most_and_wrong_scores_nothing() -> None:
    clock = FakeClock()
    race = new_race(clock)
    clock.advance(seconds=3)
    answer(race, clock, "bob", correct=False)
    clock.advance(seconds=1)
    answer(race, clock, "cat")
    clock.advance(seconds=1)
    answer(race, clock, "dan")
    scored = {s.answer.user_id: s.points for s in race.scored(0)}
    assert scored == {"bob": 0, "cat": 50 + round(50 * (1 - 4 / 30)), "dan": 40 + round(50 * (1 - 5 / 30))}
    assert [s.answer.user_id for s in race.top(0)] == ["cat", "dan"]
    assert [a.seq for a in race.round_answers(0)] == [1, 2, 3]


def test_a_member_answers_once_per_round() -> None:
    clock = FakeClock()
    race = new_race(clock)
    answer(race, clock, "bob", correct=False)
    with pytest.raises(AlreadyAnswered, match="once per round"):
        answer(race, clock, "bob", correct=True)
    assert [a.correct for a in race.answers] == [False]


def test_time_out_closes_the_round() -> None:
    clock = FakeClock()
    race = new_race(clock, seconds=10)
    clock.advance(seconds=9.9)
    assert not race.round_over(clock.now())
    answer(race, clock, "bob")
    clock.advance(seconds=0.1)
    assert race.round_over(clock.now())
    with pytest.raises(RoundClosed, match="Round closed"):
        answer(race, clock, "cat")
    assert race.close_round(clock.now()) == 0
    assert race.round == 1 and race.round_started == clock.now()
    with pytest.raises(RoundClosed):  # a click on the old round's message
        race.check_answer("cat", 0, clock.now())


def test_round_one_ends_on_time_and_later_rounds_when_every_member_answered() -> None:
    clock = FakeClock()
    race = new_race(clock)
    answer(race, clock, "bob")
    answer(race, clock, "cat")
    assert not race.round_over(clock.now())  # members are still joining
    race.close_round(clock.now())
    answer(race, clock, "bob")
    answer(race, clock, "eve")  # joins in round 2
    assert not race.round_over(clock.now())  # cat has not answered
    answer(race, clock, "cat")
    assert race.round_over(clock.now())


def test_ties_go_to_who_got_there_first() -> None:
    clock = FakeClock()
    race = new_race(clock, rounds=3)
    clock.advance(seconds=2)
    answer(race, clock, "bob")  # rank 1 in round 1
    answer(race, clock, "cat")
    race.close_round(clock.now())
    clock.advance(seconds=2)
    answer(race, clock, "cat")  # cat first in round 2: same two answers mirrored
    answer(race, clock, "bob")
    table = race.standings()
    assert table[0].points == table[1].points
    # bob reached his total with his round-2 answer, which arrived after cat's
    assert [s.user_id for s in table] == ["cat", "bob"]
    assert race.winner() is not None and race.winner().user_id == "cat"  # type: ignore[union-attr]


def test_the_race_finishes_after_the_last_round_and_names_the_winner() -> None:
    clock = FakeClock()
    race = new_race(clock, rounds=3)
    for _ in range(3):
        answer(race, clock, "bob", correct=False)
        answer(race, clock, "cat")
        clock.advance(seconds=30)
        race.close_round(clock.now())
    assert race.status == "finished"
    with pytest.raises(RaceOver):
        race.check_answer("bob", 3, clock.now())
    text = race_view.final_message(race).text()
    assert "**Cat** wins with **300** points" in text
    assert text.index("Cat") < text.index("Bob")


def test_restart_mid_round_resumes_with_the_time_left() -> None:
    clock = FakeClock()
    race = new_race(clock, seconds=30)
    answer(race, clock, "bob")
    race.close_round(clock.now())
    clock.advance(seconds=12)
    answer(race, clock, "cat")
    stored = json.dumps(race.to_json())

    clock.advance(seconds=5)  # the bot is down for five seconds
    back = Race.from_json(json.loads(stored))
    assert back.to_json() == race.to_json()
    assert back.time_left(clock.now()) == pytest.approx(13.0)
    with pytest.raises(AlreadyAnswered):
        back.check_answer("cat", 1, clock.now())
    late = back.record(RaceAnswer(1, "bob", "Bob", "A", True, clock.now()))
    assert late.seq == 3
    assert [(s.answer.user_id, s.points) for s in back.scored(1)] == [
        ("cat", 50 + round(50 * (1 - 12 / 30))),
        ("bob", 40 + round(50 * (1 - 17 / 30))),
    ]
    assert back.scored(0) == race.scored(0)  # past rounds score the same after the restart


@pytest.mark.parametrize(
    ("rounds", "seconds", "message"),
    [(2, 30, "between 3 and 20"), (21, 30, "between 3 and 20"), (5, 9, "between 10 and 120"), (5, 121, "between 10 and 120")],
)
def test_options_outside_their_range_name_it(rounds: int, seconds: int, message: str) -> None:
    with pytest.raises(BadRaceOption, match=message):
        check_options(rounds, seconds)


def test_options_default_to_ten_rounds_of_thirty_seconds() -> None:
    assert check_options(None, None) == (10, 30)
