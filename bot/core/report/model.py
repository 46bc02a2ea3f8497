"""The values of a report, and the port storage implements to hand in the aggregates.

Storage computes every count in SQL (a pack of 10,000 learners and a million attempts is never read
row by row); the core turns the counts into statistics and judgements.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from bot.core.model import Streak


@dataclass(frozen=True)
class Filters:
    """Which attempts a report reads."""

    pack: str
    topic: str | None = None
    since: datetime | None = None
    scope: str | None = None  # one server or workspace; None: every one (the command line)
    platform: str | None = None
    first_only: bool = True  # each learner's first attempt at each item (the default of item analysis)
    textless: tuple[str, ...] = ()  # items whose answers are not grouped by text (code: every one differs)


@dataclass(frozen=True)
class ItemCounts:
    """One item's counts over the learners who attempted it.

    `upper_*` and `lower_*` count the learners in the top and bottom 27% by their share of right
    first answers over the whole pack (the groups are taken over every learner in the report).
    """

    question: str
    learners: int
    right: int
    upper: int
    upper_right: int
    lower: int
    lower_right: int


@dataclass(frozen=True)
class Counted:
    """How many first answers (or tries, or seconds) of one item had one value."""

    question: str
    value: str
    count: int
    correct: bool = False


@dataclass(frozen=True)
class Aggregates:
    """Everything storage counts for one report."""

    items: tuple[ItemCounts, ...]
    answers: tuple[Counted, ...]  # the answers given (text as stored, or the recorded detail), right and wrong
    tries_to_right: tuple[Counted, ...]  # value: attempts up to and including the first right one
    seconds: tuple[Counted, ...]  # value: whole seconds from the item being shown to the answer
    learners: int  # learners with at least one attempt in the report


@dataclass(frozen=True)
class LearnerRow:
    """One learner's counts on the pack, as storage reads them."""

    platform: str
    user_id: str
    items: int  # distinct items attempted
    attempts: int
    right: int
    last: datetime | None
    mastered: int
    overdue: int
    streak: Streak | None = None  # as stored with the learner's daily settings; None: never practised daily
    zone: str = "UTC"


class ReportSource(Protocol):
    """What a report reads from storage."""

    async def report_counts(self, filters: Filters, *, now: datetime) -> Aggregates: ...

    async def learner_rows(self, filters: Filters, *, now: datetime, mastered_days: float) -> list[LearnerRow]: ...

    async def grade_rows(
        self, pack: str | None, *, scope: str | None, since: datetime | None
    ) -> list[tuple[str, str, str, str, str | None, bool]]:
        """(platform, user id, pack, question, topic, ever right) for every item each learner attempted."""
        ...


@dataclass(frozen=True)
class ItemStats:
    """One item's statistics and what they say about it."""

    question: str
    kind: str
    topic: str | None
    learners: int
    facility: float | None  # share of learners right on their first attempt
    discrimination: float | None  # upper 27% facility minus lower 27% facility
    median_tries: float | None
    median_seconds: float | None
    options: tuple[tuple[str, int, bool], ...]  # (option, learners who picked it, is a key)
    wrong_answers: tuple[tuple[str, int], ...]  # the most common wrong short answers or failing test lines
    flags: tuple[str, ...]
    judged: bool  # enough learners to judge the item


@dataclass(frozen=True)
class LearnerProgress:
    """One learner's progress on the pack, for the organiser."""

    platform: str
    user_id: str
    items: int
    attempts: int
    accuracy: float | None
    mastered: int
    overdue: int
    last: datetime | None
    streak: int
    stalled: bool


@dataclass(frozen=True)
class Report:
    """The whole report of one pack."""

    pack: str
    title: str
    filters: Filters
    learners: int
    items: tuple[ItemStats, ...]
    progress: tuple[LearnerProgress, ...] = field(default=())
    min_learners: int = 0
    generated: datetime | None = None

    def flagged(self) -> list[ItemStats]:
        """The judged items with a flag, the worst first: a likely wrong key before a dull item."""
        found = [i for i in self.items if i.flags and i.judged]
        return sorted(
            found,
            key=lambda i: (-sum(SEVERITY.get(f, 1) for f in i.flags), i.discrimination if i.discrimination is not None else 0.0),
        )


# How much each flag calls for a rewrite: a negative index or a wrong option beating the key
# usually means a wrong key or a misleading wording; a too easy item only wastes a learner's time.
SEVERITY = {
    "negative discrimination": 6,
    "a wrong option picked more than the key": 6,
    "near-zero discrimination": 3,
    "too hard": 2,
    "a distractor nobody picks": 2,
    "too easy": 1,
}
