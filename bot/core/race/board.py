"""Leaderboards per server or workspace: periods, weights, and what `/quiz leaderboard` shows.

Points on the board, from the stored attempts in the period (and pack, if given):

    board points = floor(10 × quiz and review points + 20 × daily question points + race points / 5)

Quiz and daily points are the pack's points for a right answer (1 unless the pack says otherwise);
race points are the 0-100 of the race formula (see `rules`), so a fast first right answer in a race
is worth about two right quiz answers, and the channel's daily question twice a quiz answer.
Accuracy ranks learners with at least ACCURACY_MIN answers by the share of right answers.
Ties go to whoever got there first: the earlier time of the last answer that changed the figure.
Weeks start on Monday at 00:00 in the server's time zone (UTC when none is set); months on the 1st.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.core.i18n import N_, _, for_everyone, ngettext, number, percent
from bot.core.replies import Fields, Message, Text, Tone, cmd

Period = Literal["week", "month", "all"]
PERIODS: tuple[Period, ...] = ("week", "month", "all")
Source = Literal["quiz", "review", "daily", "race"]  # an attempt's mode (bot.core.answer)
WEIGHTS: dict[Source, Fraction] = {
    "quiz": Fraction(10), "review": Fraction(10), "daily": Fraction(20), "race": Fraction(1, 5),
}
ACCURACY_MIN = 20
BOARD_ROWS = 10


def zone(name: str | None) -> ZoneInfo:
    """Return the time zone, UTC when unset or unknown."""
    if not name:
        return ZoneInfo("UTC")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def period_start(period: Period, now: datetime, tz: str | None = None) -> datetime | None:
    """Return when the period containing `now` began, in UTC (None for all time)."""
    if period == "all":
        return None
    local = now.astimezone(zone(tz))
    day = local.date()
    if period == "week":
        day -= timedelta(days=day.weekday())
    else:
        day = day.replace(day=1)
    start = datetime(day.year, day.month, day.day, tzinfo=zone(tz))
    return start.astimezone(UTC)


def board_points(by_source: Mapping[str, int]) -> int:
    total = sum((WEIGHTS[s] * n for s, n in by_source.items() if s in WEIGHTS), Fraction(0))
    return int(total)  # floor: the total is never negative


@dataclass(frozen=True)
class BoardRow:
    user_id: str
    points: int
    answers: int
    right: int
    reached: datetime  # when the figure the row is ranked by was last changed

    @property
    def accuracy(self) -> float:
        return self.right / self.answers if self.answers else 0.0


@dataclass(frozen=True)
class Board:
    period: Period
    since: datetime | None
    pack: str | None
    by_points: tuple[BoardRow, ...]
    by_accuracy: tuple[BoardRow, ...]

    def rank(self, user_id: str) -> int | None:
        """The learner's place by points (1 = top), or None when not on the board."""
        for place, row in enumerate(self.by_points, start=1):
            if row.user_id == user_id:
                return place
        return None


def rank_by_points(rows: list[BoardRow]) -> tuple[BoardRow, ...]:
    return tuple(sorted((r for r in rows if r.points > 0), key=lambda r: (-r.points, r.reached, r.user_id)))


def rank_by_accuracy(rows: list[BoardRow]) -> tuple[BoardRow, ...]:
    eligible = [r for r in rows if r.answers >= ACCURACY_MIN]
    return tuple(sorted(eligible, key=lambda r: (-Fraction(r.right, r.answers), r.reached, r.user_id)))


_TITLES = {
    "week": (N_("Leaderboard this week"), N_("Leaderboard this week in `{pack}`")),
    "month": (N_("Leaderboard this month"), N_("Leaderboard this month in `{pack}`")),
    "all": (N_("Leaderboard of all time"), N_("Leaderboard of all time in `{pack}`")),
}
_EMPTY = {
    "week": (N_("Nobody is on the leaderboard this week yet."), N_("Nobody is on the leaderboard this week in `{pack}` yet.")),
    "month": (N_("Nobody is on the leaderboard this month yet."), N_("Nobody is on the leaderboard this month in `{pack}` yet.")),
    "all": (N_("Nobody is on the leaderboard of all time yet."), N_("Nobody is on the leaderboard of all time in `{pack}` yet.")),
}


def _pick(texts: dict[str, tuple[str, str]], period: Period, pack: str | None) -> str:
    plain, in_pack = texts[period]
    return _(in_pack).format(pack=pack) if pack else _(plain)


@for_everyone
def leaderboard_message(board: Board, names: Mapping[str, str] | None = None, *, rows: int = BOARD_ROWS) -> Message:
    """Render the board; `names` maps user ids to how the platform shows a person (a mention)."""
    names = names or {}
    title = _pick(_TITLES, board.period, board.pack)
    if not board.by_points and not board.by_accuracy:
        return Message(kind="stats", title=title, parts=(Text(_pick(_EMPTY, board.period, board.pack)),))
    parts: list[Text | Fields] = []
    if board.by_points:
        parts.append(Text(_("**By points**")))
        parts.append(
            Fields(
                tuple(
                    (f"{place}. {names.get(r.user_id, r.user_id)}", ngettext("{n} pt", "{n} pts", r.points).format(n=number(r.points)))
                    for place, r in enumerate(board.by_points[:rows], start=1)
                )
            )
        )
    if board.by_accuracy:
        parts.append(Text(_("**By accuracy** (at least {n} answers)").format(n=ACCURACY_MIN)))
        parts.append(
            Fields(
                tuple(
                    (f"{place}. {names.get(r.user_id, r.user_id)}", _("{percent} of {n}").format(percent=percent(round(r.accuracy, 2)), n=number(r.answers)))
                    for place, r in enumerate(board.by_accuracy[:rows], start=1)
                )
            )
        )
    else:
        parts.append(Text(_("_Nobody has {n} answers yet for the accuracy board._").format(n=ACCURACY_MIN)))
    parts.append(Text(_("_Hide yourself with {off}._").format(off=cmd("privacy leaderboard off"))))
    return Message(kind="stats", title=title, parts=tuple(parts), tone=Tone.INFO)


def privacy_message(visible: bool) -> Message:
    text = (
        _("You are shown on leaderboards again.")
        if visible
        else _("You are hidden from leaderboards. Your progress is kept; {on} shows you again.").format(
            on=cmd("privacy leaderboard on")
        )
    )
    return Message(kind="notice", parts=(Text(text),), tone=Tone.SUCCESS)
