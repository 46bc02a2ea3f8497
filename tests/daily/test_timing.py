"""Times, zones and local days: parsing, DST in Berlin and New York, the late-start rule."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.core.daily.errors import BadSetting, BadTime, UnknownZone
from bot.core.daily.schedule import check_filters, parse_reveal_hours, parse_time, parse_zone
from bot.core.daily.timing import REVIEW_ROLLOVER, due_day, local_day, next_run, occurrence

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


@pytest.mark.parametrize(("text", "expected"), [("09:30", time(9, 30)), ("9:05", time(9, 5)), (" 23:59 ", time(23, 59)), ("00:00", time(0, 0))])
def test_times_in_hh_mm_parse(text: str, expected: time) -> None:
    assert parse_time(text) == expected


@pytest.mark.parametrize("text", ["24:00", "9", "9.30", "09:60", "nine", "", "09:30:00", "1" * 10_000])
def test_other_times_name_the_format(text: str) -> None:
    with pytest.raises(BadTime) as caught:
        parse_time(text)
    assert "HH:MM" in str(caught.value)
    assert len(str(caught.value)) < 200  # a huge input is not echoed back


def test_zones_parse_exactly_or_by_case() -> None:
    assert parse_zone("Europe/Berlin").key == "Europe/Berlin"
    assert parse_zone("america/new_york").key == "America/New_York"


@pytest.mark.parametrize(("typed", "expected"), [("Europe/Berln", "Europe/Berlin"), ("America/New York", "America/New_York"), ("Berlin", "Europe/Berlin")])
def test_an_unknown_zone_names_close_matches(typed: str, expected: str) -> None:
    with pytest.raises(UnknownZone) as caught:
        parse_zone(typed)
    assert expected in caught.value.close
    assert 0 < len(caught.value.close) <= 3
    assert f"`{expected}`" in str(caught.value)


def test_a_zone_far_from_every_name_gets_the_format_instead() -> None:
    with pytest.raises(UnknownZone) as caught:
        parse_zone("qqqqqqqqqqqq")
    assert caught.value.close == ()
    assert "IANA" in str(caught.value)
    with pytest.raises(UnknownZone):
        parse_zone("x" * 5000)


def test_reveal_hours_and_filters_are_checked() -> None:
    assert parse_reveal_hours(None) is None
    assert parse_reveal_hours("6") == 6.0
    for bad in ("0", "-1", "24", "nan", "soon", "1" * 50):
        with pytest.raises(BadSetting):
            parse_reveal_hours(bad)
    with pytest.raises(BadSetting):
        check_filters((), None, "impossible")
    check_filters(("demo",), "basics", "easy")


def test_berlin_9am_across_spring_forward_and_fall_back() -> None:
    at = time(9, 0)
    # Winter: UTC+1; summer (from 29 March 2026): UTC+2; winter again from 25 October 2026.
    assert occurrence(date(2026, 3, 28), at, BERLIN) == utc(2026, 3, 28, 8, 0)
    assert occurrence(date(2026, 3, 29), at, BERLIN) == utc(2026, 3, 29, 7, 0)
    assert occurrence(date(2026, 10, 24), at, BERLIN) == utc(2026, 10, 24, 7, 0)
    assert occurrence(date(2026, 10, 25), at, BERLIN) == utc(2026, 10, 25, 8, 0)


def test_new_york_9am_across_its_own_changes() -> None:
    at = time(9, 0)
    assert occurrence(date(2026, 3, 7), at, NEW_YORK) == utc(2026, 3, 7, 14, 0)
    assert occurrence(date(2026, 3, 8), at, NEW_YORK) == utc(2026, 3, 8, 13, 0)
    assert occurrence(date(2026, 10, 31), at, NEW_YORK) == utc(2026, 10, 31, 13, 0)
    assert occurrence(date(2026, 11, 1), at, NEW_YORK) == utc(2026, 11, 1, 14, 0)


def test_a_skipped_time_runs_late_and_a_repeated_time_runs_once() -> None:
    at = time(2, 30)
    # 02:30 does not exist in Berlin on 29 March 2026: it runs at 03:30 local (01:30 UTC).
    skipped = occurrence(date(2026, 3, 29), at, BERLIN)
    assert skipped == utc(2026, 3, 29, 1, 30)
    assert skipped.astimezone(BERLIN).hour == 3
    # 02:30 happens twice on 25 October 2026: the first (CEST, 00:30 UTC) is the one.
    assert occurrence(date(2026, 10, 25), at, BERLIN) == utc(2026, 10, 25, 0, 30)
    assert occurrence(date(2026, 11, 1), time(1, 30), NEW_YORK) == utc(2026, 11, 1, 5, 30)


def test_a_week_of_runs_in_new_york_steps_one_local_day_at_a_time() -> None:
    at, done, now = time(7, 15), None, utc(2026, 10, 28, 4, 0)  # midnight in New York
    seen: list[datetime] = []
    while len(seen) < 7:
        day, when = next_run(at, NEW_YORK, now, done)
        assert when > now
        now = when  # the scheduler wakes exactly then
        assert due_day(at, NEW_YORK, now, done) == day
        seen.append(when.astimezone(NEW_YORK))
        done = day
    assert [s.date() for s in seen] == [date(2026, 10, 28) + timedelta(days=i) for i in range(7)]
    assert {(s.hour, s.minute) for s in seen} == {(7, 15)}
    assert {s.utcoffset() for s in seen} == {timedelta(hours=-4), timedelta(hours=-5)}


def test_down_at_the_set_time_runs_once_the_same_day_and_never_late_the_next() -> None:
    at = time(9, 0)
    done = date(2026, 6, 1)
    # Back at 15:00 on 2 June (Berlin): 2 June's run is due now.
    back = utc(2026, 6, 2, 13, 0)
    assert due_day(at, BERLIN, back, done) == date(2026, 6, 2)
    # ...and once done, not again that day.
    assert due_day(at, BERLIN, back, date(2026, 6, 2)) is None
    # Down through all of 2 June, back at 08:00 on the 3rd: nothing now, the 3rd's run at 09:00.
    later = utc(2026, 6, 3, 6, 0)
    assert due_day(at, BERLIN, later, done) is None
    assert next_run(at, BERLIN, later, done) == (date(2026, 6, 3), utc(2026, 6, 3, 7, 0))


def test_local_day_with_a_four_oclock_rollover() -> None:
    assert local_day(utc(2026, 6, 2, 1, 59), BERLIN, REVIEW_ROLLOVER) == date(2026, 6, 1)  # 03:59 local
    assert local_day(utc(2026, 6, 2, 2, 0), BERLIN, REVIEW_ROLLOVER) == date(2026, 6, 2)  # 04:00 local
    assert local_day(utc(2026, 6, 2, 3, 0), NEW_YORK) == date(2026, 6, 1)  # 23:00 the day before
    # On the fall-back night 03:59 comes after the repeated hour; still the old day until 04:00.
    assert local_day(utc(2026, 10, 25, 2, 59), BERLIN, REVIEW_ROLLOVER) == date(2026, 10, 24)
    assert local_day(utc(2026, 10, 25, 3, 0), BERLIN, REVIEW_ROLLOVER) == date(2026, 10, 25)
