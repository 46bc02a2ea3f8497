"""What daily practice needs from storage and from the pack library (bot.storage implements it), and
what `/quiz daily set` asks of a platform's poster (`ChannelCheck`; each adapter's poster implements it)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from bot.core.model import PackInfo
from bot.core.packs.models import Pack

from .channel import DailyPost, MemberAnswer
from .learner import Learner
from .queue import DayCount, DueCard
from .rotation import ItemKey
from .schedule import Schedule

Platforms = Collection[str] | None  # the platforms a scheduler serves; None: every platform

if TYPE_CHECKING:
    from bot.core.answer import AnswerWrite


@dataclass(frozen=True)
class PostAccess:
    """What a platform said about the bot posting in a channel (`ChannelCheck.can_post`)."""

    problem: str | None = None  # what stops the bot there and what to do about it (translated); None: nothing
    checked: bool = True  # False: the platform could not be asked (an API error, a timeout)

    @property
    def refused(self) -> bool:
        return self.problem is not None


class ChannelCheck(Protocol):
    """Asked by `/quiz daily set` before it stores a schedule: one of `bot.scheduling.posters.Poster`'s
    methods (DiscordPoster, SlackPoster and the tests' posters implement it; `PlatformPosters` asks the
    channel's platform's)."""

    async def can_post(self, platform: str, channel_id: str) -> PostAccess:
        """Say whether the bot can post the daily question (an embed with buttons) in the channel.

        A refusal is an answer (`PostAccess(problem)`, in the request's language); a check that could
        not be made (the platform's API failed) is `PostAccess(checked=False)`, never an exception.
        """
        ...


class Packs(Protocol):
    """The part of the core's Repository that daily practice uses: packs, and the answer path's write."""

    async def get_pack(self, pack_id: str) -> Pack | None: ...

    async def list_packs(self, scope: str | None = None) -> list[PackInfo]: ...

    async def write_answer(self, unit: AnswerWrite) -> None:
        """Write a graded answer's unit of work in one transaction (`bot.core.answer`), or raise Conflict."""
        ...


class DailyStore(Protocol):
    async def save_schedule(self, schedule: Schedule) -> None:
        """Create or replace the channel's schedule."""
        ...

    async def get_schedule(self, platform: str, channel_id: str) -> Schedule | None: ...

    async def list_schedules(self, platform: str, scope: str) -> list[Schedule]: ...

    async def delete_schedule(self, platform: str, channel_id: str) -> bool: ...

    async def get_post(self, post_id: str) -> DailyPost | None: ...

    async def post_at(self, platform: str, message_ref: str, channel_id: str | None = None) -> DailyPost | None:
        """Return the posted post whose platform message is `message_ref` (in `channel_id`, when given)."""
        ...

    async def member_answer(self, post_id: str, user_id: str) -> MemberAnswer | None: ...

    async def member_answers(self, post_id: str) -> list[MemberAnswer]: ...

    async def save_member_answer(
        self, post_id: str, answer: MemberAnswer, *, previous_attempts: int | None, key: str | None = None
    ) -> bool:
        """Store the answer unless another click changed it first (then return False).

        `previous_attempts` is None for a first row. `key` is the platform's id of the delivery that
        made this attempt: the same key as the last stored one is refused (a delivery counted twice). A scored answer updates the post's tally and
        marks it for the scheduler's next tally edit, in the same transaction.
        """
        ...

    async def get_learner(self, platform: str, user_id: str) -> Learner:
        """Return the learner's settings and state (defaults for a learner never seen)."""
        ...

    async def save_learner(self, learner: Learner) -> None: ...

    async def day_count(self, platform: str, user_id: str, day: date) -> DayCount: ...

    async def due_cards(
        self, platform: str, user_id: str, now: datetime, before: datetime, limit: int
    ) -> tuple[list[DueCard], int, DueCard | None]:
        """Return the most overdue unsuspended cards due at `now` (at most `limit`), how many, and the next not yet due.

        `before`: `bot.core.review.due_before(now, zone)`, the end of the learner's practice day; due
        is `bot.core.review.is_due` (a card in a learning step only at its time).
        """
        ...

    async def new_items(self, platform: str, user_id: str, packs: Sequence[str], limit: int) -> list[ItemKey]:
        """Return items of `packs` the learner never answered, in pack order."""
        ...

    async def practised_packs(self, platform: str, user_id: str) -> list[str]: ...

    async def card_failures(self, platform: str, user_id: str, item: ItemKey) -> tuple[int, bool]:
        """Return how often the card was failed and whether it is suspended as a leech."""
        ...

    async def save_card_failures(self, platform: str, user_id: str, item: ItemKey, failures: int, suspended: bool) -> None: ...

    async def leeches(self, platform: str, user_id: str) -> list[ItemKey]: ...

    async def cards(self, platform: str, user_id: str) -> list[tuple[str, str, str]]:
        """Return every review card of the learner as (pack, question, card JSON)."""
        ...

class SchedulerStore(Protocol):
    """What the scheduler needs of storage (`bot.storage.daily.DailyRepository` implements it).

    Every claim is made unique by the database, so several processes never run one job twice.
    """

    async def get_schedule(self, platform: str, channel_id: str) -> Schedule | None:
        ...

    async def due_schedules(self, now: datetime, limit: int = 100, *, platforms: Platforms = None) -> list[Schedule]:
        """Return schedules of `platforms` that are not paused and whose next look is due."""
        ...

    async def advance_schedule(self, schedule: Schedule, *, next_at: datetime) -> None:
        """Move the schedule's next look on, when another process claimed today's post or none is due."""
        ...

    async def pause_schedule(self, schedule: Schedule, reason: str) -> bool:
        """Pause the schedule; return True when this call paused it (so the admin is told once)."""
        ...

    async def candidates(self, schedule: Schedule) -> list[ItemKey]:
        """Return the items a schedule draws from: its packs (or every enabled pack), topic, difficulty."""
        ...

    async def posted_in_cycle(self, schedule: Schedule, cycle: int) -> list[ItemKey]:
        ...

    async def claim_post(self, schedule: Schedule, post: DailyPost, *, cycle: int, next_at: datetime) -> bool:
        """Record the day's post and move the schedule on, in one transaction; False if taken already."""
        ...

    async def mark_post(self, post_id: str, *, status: str, message_ref: str | None = None) -> None:
        ...

    async def open_posts(self, platform: str, channel_id: str) -> list[DailyPost]:
        """Return the channel's posted, unrevealed posts (revealed before a new one goes up)."""
        ...

    async def due_reveals(self, now: datetime, limit: int = 100, *, platforms: Platforms = None) -> list[DailyPost]:
        ...

    async def claim_reveal(self, post_id: str, now: datetime) -> bool:
        """Mark the post revealed; True for the one caller that did it."""
        ...

    async def due_tallies(
        self, now: datetime, every: timedelta, limit: int = 100, *, platforms: Platforms = None
    ) -> list[DailyPost]:
        ...

    async def claim_tally(self, post_id: str, now: datetime, every: timedelta) -> DailyPost | None:
        """Take the post's pending tally edit; return the post with its current counts, or None."""
        ...

    async def due_reminders(self, now: datetime, limit: int = 100, *, platforms: Platforms = None) -> list[Learner]:
        ...

    async def advance_reminder(self, learner: Learner, *, next_at: datetime) -> None:
        ...

    async def claim_reminder(
        self, learner: Learner, day: date, *, due: int, now: datetime, next_at: datetime
    ) -> bool:
        """Take the learner's reminder for `day` and move it on, in one transaction; False if taken."""
        ...

    async def finish_reminder(self, learner: Learner, day: date, *, sent: bool, failures: int, stopped: bool) -> None:
        """Record how the reminder's delivery went, and the learner's failure count."""
        ...

    async def next_wake(self, every: timedelta, *, platforms: Platforms = None) -> datetime | None:
        """Return the earliest instant any job of `platforms` may become due (None: nothing scheduled)."""
        ...

    async def member_answers(self, post_id: str) -> list[MemberAnswer]:
        ...

    async def day_count(self, platform: str, user_id: str, day: date) -> DayCount:
        ...

    async def due_cards(
        self, platform: str, user_id: str, now: datetime, before: datetime, limit: int
    ) -> tuple[list[DueCard], int, DueCard | None]:
        ...
