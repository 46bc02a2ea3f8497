"""The review card moves the same whatever time zone the answer's time is given in."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from bot.core.review import review

AT = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "at",
    [AT.astimezone(ZoneInfo("Asia/Tokyo")), AT.astimezone(ZoneInfo("Pacific/Pago_Pago")), AT.replace(tzinfo=ZoneInfo("UTC")), AT.replace(tzinfo=None)],
    ids=["tokyo", "pago-pago", "zoneinfo-utc", "naive"],
)
def test_an_answer_time_in_any_zone_moves_the_card_as_its_utc_instant(at: datetime) -> None:
    card, due = review(None, correct=True, hinted=False, at=at)
    expected_card, expected_due = review(None, correct=True, hinted=False, at=AT)
    assert (card, due) == (expected_card, expected_due)
    assert due.tzinfo is not None and due.utcoffset() == UTC.utcoffset(None)
