"""What races and leaderboards need from storage, and races from the adapters."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from bot.core.answer import AnswerWrite, PracticeDay, card_after
from bot.core.model import Attempt, Review
from bot.core.pictures import ProgressData
from bot.core.replies import Message

from .board import Board, Period
from .rules import Race, RaceAnswer


@dataclass(frozen=True)
class Recorded:
    """An answer as stored: its arrival number and who has answered the round so far."""

    seq: int
    place: int  # its place among this round's answers (1 = first)
    answered: frozenset[str]  # members who answered this round, this answer included


@dataclass(frozen=True)
class Change:
    """What one transition of a race writes: the new state, and attempts for learners' progress."""

    race: Race
    attempts: tuple[Attempt, ...] = ()

    def cards(self, current: Mapping[str, str | None]) -> tuple[Review, ...]:
        """Return each attempt's review card moved from `current` (user id -> card before, read by storage)."""
        return tuple(card_after(a, current.get(a.user_id)) for a in self.attempts)

    def days(self) -> tuple[AnswerWrite, ...]:
        """Return each attempt's practice day (the streak), for storage to write in the same transaction."""
        return tuple(AnswerWrite(day=PracticeDay(a.platform, a.user_id, a.at)) for a in self.attempts)


class RaceStore(Protocol):
    async def create_race(self, race: Race) -> None:
        """Store a new race; raise RaceRunning if one already runs in its channel."""
        ...

    async def get_race(self, race_id: str) -> Race | None:
        """Return the race with every answer so far."""
        ...

    async def running_race(self, platform: str, scope: str, channel_id: str) -> Race | None: ...

    async def running_races(self) -> list[Race]:
        """Every running race (a restarted bot resumes them)."""
        ...

    async def record_answer(self, race_id: str, answer: RaceAnswer) -> Recorded:
        """Store one answer exactly once, numbered in arrival order, if its round is still open.

        The check and the numbering happen under the race's row lock, so several processes agree.
        Raise RoundClosed when the round has moved on or its time is up, AlreadyAnswered for a second
        answer by the same member in the round.
        """
        ...

    async def update_race(self, race_id: str, change: Callable[[Race], Change | None]) -> Change | None:
        """Apply `change` to the race loaded under its row lock and write the result in one transaction.

        `change` returns None to write nothing. Attempts are stored and count in progress and
        review cards. Return what was written.
        """
        ...

    async def save_draft(self, race_id: str, round_index: int, user_id: str, blank: int, option: int) -> dict[int, int]:
        """Keep one blank's pick for a member; return the member's picks so far in this round."""
        ...

    async def get_draft(self, race_id: str, round_index: int, user_id: str) -> dict[int, int]: ...

    async def set_anchor(self, race_id: str, anchor: dict[str, str]) -> None:
        """Remember where the adapter posted the current round (to edit it when the round closes)."""
        ...


@dataclass(frozen=True)
class ChannelPost:
    """Messages for a race's channel, posted by the adapter.

    `closed_round`, when set, is the round message as it should now look (controls disabled, the
    answer marked): edit the message noted in `anchor` to it if the adapter kept one. `messages`
    are posted in order; the last one is the next round's message when `next_round` is set.
    """

    platform: str
    scope: str
    channel_id: str
    race_id: str
    messages: tuple[Message, ...]
    closed_round: Message | None = None
    anchor: dict[str, str] = field(default_factory=dict)
    next_round: int | None = None


class Publisher(Protocol):
    async def __call__(self, post: ChannelPost) -> None:
        """Post to the channel; failures are the adapter's to log (the race goes on)."""
        ...



class BoardStore(Protocol):
    """Leaderboards, the privacy switch and the data of progress pictures."""

    async def leaderboard(
        self, platform: str, scope: str, *, now: datetime, period: Period = "week", pack: str | None = None, tz: str | None = None
    ) -> Board: ...

    async def set_leaderboard_visible(self, platform: str, user_id: str, visible: bool) -> None: ...

    async def leaderboard_visible(self, platform: str, user_id: str) -> bool: ...

    async def progress_data(self, platform: str, user_id: str, *, now: datetime, weeks: int = 16) -> ProgressData: ...
