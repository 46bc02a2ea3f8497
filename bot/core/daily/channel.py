"""The channel's daily question: each member's one scored answer, the live tally, the reveal."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta

from bot.core.i18n import _, ngettext, number

from .errors import AlreadyAnswered

FIRST_RIGHT_SHOWN = 3
TALLY_EVERY = timedelta(seconds=5)  # the post's tally is edited at most this often


@dataclass(frozen=True)
class DailyPost:
    """One day's question in one channel."""

    id: str  # same shape as a session id: controls on the post carry it
    platform: str
    scope: str
    channel_id: str
    day: date  # the channel's local day
    pack: str
    question: str
    posted_at: datetime
    reveal_at: datetime  # posted_at + reveal_after_hours, or the next day's post time
    status: str = "claimed"  # claimed -> posted | failed
    message_ref: str | None = None  # the adapter's id of the posted message
    revealed_at: datetime | None = None
    answered: int = 0
    right: int = 0

    def closed(self, now: datetime) -> bool:
        """Say whether answers are no longer taken (revealed, or past reveal time)."""
        return self.revealed_at is not None or now >= self.reveal_at


@dataclass(frozen=True)
class MemberAnswer:
    """One member's answer to one day's question: attempts as in a quiz, scored once."""

    user_id: str
    name: str
    attempts: int = 0
    hinted: bool = False
    done: bool = False
    correct: bool = False
    first_at: datetime | None = None
    done_at: datetime | None = None
    selections: dict[int, int] = field(default_factory=dict)  # menus picked so far (blank -> option)
    last_key: str | None = None  # the platform's delivery that last changed it (a repeat of it is shown its grade)


def apply_attempt(
    previous: MemberAnswer | None,
    *,
    user_id: str,
    name: str,
    correct: bool,
    max_attempts: int,
    at: datetime,
) -> MemberAnswer:
    """Return the member's answer after one graded attempt; raise AlreadyAnswered when it was scored."""
    base = previous or MemberAnswer(user_id, name, first_at=at)
    if base.done:
        raise AlreadyAnswered(correct=base.correct, key=base.last_key)
    attempts = base.attempts + 1
    done = correct or attempts >= max(max_attempts, 1)
    return replace(
        base,
        name=name or base.name,
        attempts=attempts,
        done=done,
        correct=correct,
        first_at=base.first_at or at,
        done_at=at if done else None,
    )


def apply_hint(previous: MemberAnswer | None, *, user_id: str, name: str, at: datetime) -> MemberAnswer:
    """Return the member's answer marked as hinted (a right answer then rates Hard)."""
    base = previous or MemberAnswer(user_id, name, first_at=at)
    if base.done:
        raise AlreadyAnswered(correct=base.correct, key=base.last_key)
    return replace(base, hinted=True)


def apply_selection(
    previous: MemberAnswer | None, *, user_id: str, name: str, selections: dict[int, int], at: datetime
) -> MemberAnswer:
    """Return the member's answer with menu picks merged in (blanks, select-all), before Check grades them."""
    base = previous or MemberAnswer(user_id, name, first_at=at)
    if base.done:
        raise AlreadyAnswered(correct=base.correct, key=base.last_key)
    return replace(base, selections={**base.selections, **selections})


@dataclass(frozen=True)
class Tally:
    answered: int
    right: int

    def text(self) -> str:
        answered = ngettext("{n} person has answered", "{n} people have answered", self.answered)
        return answered.format(n=number(self.answered)) + " · " + _("{n} right").format(n=number(self.right))


def tally(answers: Iterable[MemberAnswer]) -> Tally:
    """Count the scored answers and the right ones (no spoilers: no names, no choices)."""
    done = [a for a in answers if a.done]
    return Tally(len(done), sum(1 for a in done if a.correct))


def first_right(answers: Iterable[MemberAnswer], limit: int = FIRST_RIGHT_SHOWN) -> list[MemberAnswer]:
    """Return who got it right first, earliest first."""
    right = [a for a in answers if a.done and a.correct and a.done_at is not None]
    right.sort(key=lambda a: (a.done_at, a.user_id))
    return right[:limit]
