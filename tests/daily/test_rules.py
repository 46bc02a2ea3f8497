"""The pure rules: rotation, one scored answer each, tally, review queue, ratings, leeches, streaks, reminders."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.core.daily import actions as dx
from bot.core.daily.cards import LEECH_FAILURES, grade_card, rating_for
from bot.core.daily.channel import DailyPost, MemberAnswer, apply_attempt, apply_hint, first_right, tally
from bot.core.daily.errors import AlreadyAnswered, BadSetting
from bot.core.daily.messages import queue_message, reminder_message
from bot.core.daily.queue import Caps, DayCount, DueCard, build_queue, minutes_for, review_day
from bot.core.daily.reminders import MAX_FAILURES, Reminder, after_delivery, reminder_text
from bot.core.daily.rotation import pick_item
from bot.core.daily.streak import MAX_FREEZES, Streak, record_day, settle
from bot.core.progress import is_mastered, stability_days
from bot.core.review import review

BERLIN = ZoneInfo("Europe/Berlin")
T0 = datetime(2026, 6, 1, 10, 0, tzinfo=UTC)


def test_rotation_posts_every_item_once_per_round() -> None:
    items = [("a", str(i)) for i in range(6)] + [("b", "x"), ("b", "y")]
    used: list[tuple[str, str]] = []
    rounds = 0
    posted: list[tuple[str, str]] = []
    for day in range(3 * len(items)):
        picked = pick_item(items, used, seed=f"chan:{day}")
        assert picked is not None
        item, new_round = picked
        if new_round:
            rounds += 1
            used = []
        used.append(item)
        posted.append(item)
    # Each window of one round holds every item exactly once.
    for start in range(0, len(posted), len(items)):
        assert sorted(posted[start : start + len(items)]) == sorted(items)
    assert rounds == 2
    assert pick_item([], [], seed="x") is None


def test_rotation_is_the_same_in_every_process_for_a_channel_and_day() -> None:
    items = [("p", str(i)) for i in range(50)]
    assert pick_item(items, [], seed="discord:1:2026-06-01") == pick_item(list(reversed(items)), [], seed="discord:1:2026-06-01")
    picks = {pick_item(items, [], seed=f"discord:1:2026-06-{d:02d}") for d in range(1, 29)}
    assert len(picks) > 5  # not always the first item


def test_a_member_gets_attempts_then_one_scored_answer() -> None:
    first = apply_attempt(None, user_id="u", name="Ann", correct=False, max_attempts=2, at=T0)
    assert (first.attempts, first.done, first.correct) == (1, False, False)
    second = apply_attempt(first, user_id="u", name="Ann", correct=True, max_attempts=2, at=T0 + timedelta(minutes=1))
    assert (second.attempts, second.done, second.correct, second.done_at) == (2, True, True, T0 + timedelta(minutes=1))
    assert second.first_at == T0
    with pytest.raises(AlreadyAnswered):
        apply_attempt(second, user_id="u", name="Ann", correct=True, max_attempts=2, at=T0)
    wrong_once = apply_attempt(None, user_id="v", name="Bo", correct=False, max_attempts=1, at=T0)
    assert wrong_once.done and not wrong_once.correct
    hinted = apply_hint(None, user_id="w", name="Cy", at=T0)
    assert hinted.hinted and not hinted.done
    assert apply_attempt(hinted, user_id="w", name="Cy", correct=True, max_attempts=1, at=T0).hinted


def test_tally_counts_scored_answers_and_first_right_is_by_time() -> None:
    answers = [
        MemberAnswer("a", "Ann", 1, done=True, correct=True, done_at=T0 + timedelta(seconds=30)),
        MemberAnswer("b", "Bo", 1, done=True, correct=False, done_at=T0),
        MemberAnswer("c", "Cy", 1, done=False),
        MemberAnswer("d", "Di", 2, done=True, correct=True, done_at=T0 + timedelta(seconds=10)),
    ]
    counts = tally(answers)
    assert (counts.answered, counts.right) == (3, 2)
    assert counts.text() == "3 people have answered · 2 right"
    assert [a.name for a in first_right(answers)] == ["Di", "Ann"]


def test_a_post_closes_at_reveal_time_or_when_revealed() -> None:
    post = DailyPost("p1", "discord", "g", "c", date(2026, 6, 1), "demo", "q", T0, T0 + timedelta(hours=6))
    assert not post.closed(T0 + timedelta(hours=5))
    assert post.closed(T0 + timedelta(hours=6))
    assert DailyPost("p1", "discord", "g", "c", date(2026, 6, 1), "demo", "q", T0, T0 + timedelta(hours=6), revealed_at=T0).closed(T0)


def _cards(n: int, start: datetime) -> list[DueCard]:
    return [DueCard("demo", f"q{i}", start - timedelta(hours=i), "{}") for i in range(n)]


def test_the_queue_is_most_overdue_first_then_new_within_caps() -> None:
    due = _cards(30, T0)
    future = DueCard("demo", "later", T0 + timedelta(days=2), "{}")
    new = [("demo", f"n{i}") for i in range(10)]
    queue = build_queue([*due, future], new, now=T0, zone=BERLIN, caps=Caps(), done=DayCount(), next_due=None)
    assert len(queue.reviews) == 20 and len(queue.new) == 5
    assert [c.question for c in queue.reviews[:3]] == ["q29", "q28", "q27"]
    assert queue.items()[20] == ("demo", "n0")
    assert queue.due_total == 30
    assert queue.next_due == datetime(2026, 6, 3, 2, 0, tzinfo=UTC)  # T0 + 2 days falls due at that day's 04:00 in Berlin
    # What was done today counts against the caps.
    later = build_queue(due, new, now=T0, zone=BERLIN, caps=Caps(), done=DayCount(reviews=18, new=5), next_due=None)
    assert (len(later.reviews), len(later.new)) == (2, 0)
    small = build_queue(due, new, now=T0, zone=BERLIN, caps=Caps(reviews=3, new=1), done=DayCount(), next_due=None)
    assert (len(small.reviews), len(small.new)) == (3, 1)


def test_caps_are_bounded() -> None:
    for bad in ({"reviews": -1}, {"reviews": 201}, {"new": 51}):
        with pytest.raises(BadSetting):
            Caps(**bad)


def test_the_review_day_rolls_over_at_four_in_the_learners_zone() -> None:
    assert review_day(datetime(2026, 6, 2, 1, 30, tzinfo=UTC), BERLIN) == date(2026, 6, 1)  # 03:30
    assert review_day(datetime(2026, 6, 2, 2, 30, tzinfo=UTC), BERLIN) == date(2026, 6, 2)  # 04:30


def test_nothing_due_says_when_the_next_card_is() -> None:
    nxt = DueCard("demo", "q-short", datetime(2026, 6, 3, 16, 0, tzinfo=UTC), '{"state": 2}')
    queue = build_queue([], [], now=T0, zone=BERLIN, caps=Caps(), done=DayCount(), next_due=nxt)
    assert queue.empty
    text = queue_message(queue, BERLIN).text()
    assert "Nothing is due" in text and "Wed 3 Jun 04:00 (Europe/Berlin)" in text  # due that day: from its 04:00


def test_ratings_and_leeches() -> None:
    assert rating_for(correct=True, hinted=False) == "good"
    assert rating_for(correct=True, hinted=True) == "hard"
    assert rating_for(correct=False, hinted=True) == "again"
    good = grade_card(None, failures=0, suspended=False, correct=True, hinted=False, at=T0)
    hard = grade_card(None, failures=0, suspended=False, correct=True, hinted=True, at=T0)
    again = grade_card(None, failures=0, suspended=False, correct=False, hinted=False, at=T0)
    assert again.due < hard.due <= good.due
    assert (good.card, good.due) == review(None, correct=True, hinted=False, at=T0)
    card, failures, at = None, 0, T0
    outcomes = []
    for _ in range(LEECH_FAILURES):
        out = grade_card(card, failures=failures, suspended=False, correct=False, hinted=False, at=at)
        card, failures, at = out.card, out.failures, out.due
        outcomes.append(out)
    assert [o.became_leech for o in outcomes] == [False] * (LEECH_FAILURES - 1) + [True]
    assert outcomes[-1].suspended and not outcomes[-2].suspended


def test_mastered_means_stability_above_21_days() -> None:
    assert is_mastered(json.dumps({"stability": 21.5}))
    assert not is_mastered(json.dumps({"stability": 21.0}))
    assert stability_days("not json") == 0.0


def _days(start: date, *offsets: int) -> list[date]:
    return [start + timedelta(days=o) for o in offsets]


def test_a_streak_counts_consecutive_days_once_each() -> None:
    s = Streak()
    for day in _days(date(2026, 6, 1), 0, 0, 1, 2):
        s = record_day(s, day)
    assert (s.current, s.longest) == (3, 3)
    s = record_day(s, date(2026, 6, 5))  # missed the 4th, no freeze held
    assert (s.current, s.longest) == (1, 3)


def test_freezes_are_earned_every_seven_days_at_most_two_and_spent_on_missed_days() -> None:
    s = Streak()
    start = date(2026, 6, 1)
    for i in range(7):
        s = record_day(s, start + timedelta(days=i))
    assert (s.current, s.freezes) == (7, 1)
    for i in range(7, 21):
        s = record_day(s, start + timedelta(days=i))
    assert (s.current, s.freezes) == (21, MAX_FREEZES)  # three earned, two held
    # Miss two days (22nd and 23rd): both freezes spent, the streak goes on.
    after = record_day(s, start + timedelta(days=23))
    assert (after.current, after.freezes, after.frozen_days) == (22, 0, 2)
    # Stats on a later day see a missed day without a freeze: the streak is broken.
    assert settle(after, start + timedelta(days=25)).current == 0
    # Today still open: not broken yet.
    assert settle(after, start + timedelta(days=24)).current == 22


def test_three_missed_days_with_two_freezes_break_the_streak() -> None:
    s = Streak(current=20, longest=20, freezes=2, last_day=date(2026, 6, 20))
    after = record_day(s, date(2026, 6, 24))
    assert (after.current, after.longest, after.freezes) == (1, 20, 2)


def test_reminder_text_and_delivery_failures() -> None:
    assert reminder_text(7) == "7 reviews due, about 4 minutes"
    assert reminder_text(1) == "1 review due, about 1 minute"
    assert minutes_for(0) == 0
    message = reminder_message(7)
    assert message.text() == "7 reviews due, about 4 minutes."
    assert [c.action for c in message.controls()] == ["dy:start"]
    r = Reminder(at=datetime(2026, 1, 1, 8, 0).time(), zone="Europe/Berlin")
    once = after_delivery(r, delivered=False)
    assert (once.failures, once.stopped) == (1, False)
    assert after_delivery(once, delivered=True).failures == 0
    twice = after_delivery(once, delivered=False)
    assert (twice.failures, twice.stopped) == (MAX_FAILURES, True)


def test_daily_actions_round_trip_and_reject_others() -> None:
    action = dx.make(dx.RESET_LEECH, "demo/q-choice")
    assert dx.parse(action) == dx.DailyAction(dx.RESET_LEECH, "demo/q-choice")
    assert dx.parse("qz:abc:0:c:1") is None
    assert dx.parse("dy:nope") is None
    assert dx.parse("dy:start" + ":x" * 200) is None


def test_a_used_up_cap_says_how_many_are_still_due_not_that_nothing_is() -> None:
    due = _cards(30, T0)
    capped = build_queue(due, [], now=T0, zone=BERLIN, caps=Caps(reviews=20, new=0), done=DayCount(reviews=20), next_due=None)
    assert capped.empty and capped.due_total == 30
    text = queue_message(capped, BERLIN).text()
    assert "Nothing is due" not in text
    assert text.startswith("You have done today's reviews: 30 more cards are due, over your daily cap.")
    assert "⟦daily settings⟧ `reviews:<number>`" in text  # the platform spells the command
