"""Race rules: rounds, who may answer, scoring, standings. Pure: no clock, storage or platform.

A race runs in one channel over a fixed list of items (choice, select-all, blanks, short; never
code). Each round is open for `seconds`; every member answers at most once per round; a member
joins by answering. Answers are numbered by arrival (`seq`, increasing over the whole race).

Scoring (points for one answer):

    wrong answer                     0
    right answer, rank r, elapsed t  order + speed
        order = max(50 - 10 * (r - 1), 10)          50, 40, 30, 20, 10, 10, ...
        speed = round(50 * (1 - t / seconds))       50 at once, 0 at the deadline

`r` is the answer's place among the round's right answers (1 = first right answer) and `t` the
seconds since the round opened, clamped to [0, seconds]. A later right answer has a higher rank and
no smaller `t`, so points fall strictly with answer order: the first right answer scores most.

A round ends when its time is up, or (from round 2 on) as soon as every member who joined in an
earlier round has answered; round 1 only ends on time, since members are still joining.

Standings: most points first; equal points go to whoever reached their total first (the arrival
number of their last scoring answer; for members with no points, of their first answer).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Literal

from bot.core.i18n import _
from bot.core.replies import opt

from .errors import AlreadyAnswered, BadRaceOption, RaceOver, RoundClosed
from .snapshot import ItemSnapshot

ROUNDS_MIN, ROUNDS_MAX, ROUNDS_DEFAULT = 3, 20, 10
SECONDS_MIN, SECONDS_MAX, SECONDS_DEFAULT = 10, 120, 30
RACE_TYPES: tuple[str, ...] = ("choice", "blanks", "short")
MAX_ANSWER_CHARS = 500  # a short answer longer than this is cut before it is stored

RaceStatus = Literal["running", "finished", "stopped"]


def check_options(rounds: int | None, seconds: int | None) -> tuple[int, int]:
    """Return (rounds, seconds) with defaults filled in; name the range when one is outside it."""
    rounds = ROUNDS_DEFAULT if rounds is None else rounds
    seconds = SECONDS_DEFAULT if seconds is None else seconds
    if not ROUNDS_MIN <= rounds <= ROUNDS_MAX:
        raise BadRaceOption(
            _("{option} must be between {least} and {most}; you gave {n}.").format(
                option=opt("rounds"), least=ROUNDS_MIN, most=ROUNDS_MAX, n=rounds
            )
        )
    if not SECONDS_MIN <= seconds <= SECONDS_MAX:
        raise BadRaceOption(
            _("{option} per round must be between {least} and {most}; you gave {n}.").format(
                option=opt("seconds"), least=SECONDS_MIN, most=SECONDS_MAX, n=seconds
            )
        )
    return rounds, seconds


def points(rank: int, elapsed: float, seconds: int) -> int:
    """Score a right answer: its rank among the round's right answers and its time (see module)."""
    fraction = min(max(elapsed / seconds, 0.0), 1.0)
    return max(50 - 10 * (rank - 1), 10) + round(50 * (1.0 - fraction))


@dataclass(frozen=True)
class RaceItem:
    """One round's item; `order` is the shuffled choice order shown to everyone.

    `snapshot` is the item as its pack had it when the race started (see `snapshot.py`): the race
    posts, grades and reveals from it. None in races stored before snapshots were taken.
    """

    pack: str
    question: str
    topic: str | None = None
    order: tuple[int, ...] = ()
    snapshot: ItemSnapshot | None = field(default=None, hash=False)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"p": self.pack, "q": self.question, "t": self.topic, "o": list(self.order)}
        if self.snapshot is not None:
            data["s"] = self.snapshot.to_json()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RaceItem:
        order = tuple(int(i) for i in data.get("o", []))
        return cls(data["p"], data["q"], data.get("t"), order, ItemSnapshot.read(data.get("s")))


@dataclass(frozen=True)
class RaceAnswer:
    """One member's answer in one round; `seq` is its arrival number (0 until recorded)."""

    round: int
    user_id: str
    name: str
    answer: str
    correct: bool
    at: datetime
    seq: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "r": self.round,
            "u": self.user_id,
            "n": self.name,
            "a": self.answer,
            "c": self.correct,
            "at": self.at.isoformat(),
            "s": self.seq,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RaceAnswer:
        return cls(
            round=int(data["r"]),
            user_id=str(data["u"]),
            name=str(data["n"]),
            answer=str(data["a"]),
            correct=bool(data["c"]),
            at=datetime.fromisoformat(data["at"]),
            seq=int(data["s"]),
        )


@dataclass(frozen=True)
class Scored:
    """An answer with the points it earned."""

    answer: RaceAnswer
    points: int


@dataclass(frozen=True)
class Standing:
    user_id: str
    name: str
    points: int
    right: int
    answered: int
    reached: int  # arrival number at which the member reached this total (ties: lower wins)


@dataclass
class Race:
    """The whole state of one race; `to_json` and `from_json` round-trip it exactly."""

    id: str
    platform: str
    scope: str
    channel_id: str
    started_by: str
    started_by_name: str
    items: list[RaceItem]
    seconds: int
    round: int = 0  # index of the current round (== len(items) once finished)
    starts: list[datetime] = field(default_factory=list)  # when each round so far opened
    status: RaceStatus = "running"
    answers: list[RaceAnswer] = field(default_factory=list)
    created_at: datetime = field(default_factory=lambda: datetime.min)
    filters: dict[str, Any] = field(default_factory=dict)
    anchor: dict[str, str] = field(default_factory=dict)  # adapter's note of where the round message is
    version: int = 0

    # ------------------------------------------------------------ reading

    @property
    def rounds(self) -> int:
        return len(self.items)

    @property
    def round_started(self) -> datetime:
        return self.starts[min(self.round, len(self.starts) - 1)]

    @property
    def deadline(self) -> datetime:
        return self.round_started + timedelta(seconds=self.seconds)

    @property
    def running(self) -> bool:
        return self.status == "running"

    def time_left(self, now: datetime) -> float:
        """Seconds left in the current round (0 when it is over): what a restarted bot waits."""
        if not self.running:
            return 0.0
        return max((self.deadline - now).total_seconds(), 0.0)

    def round_answers(self, index: int) -> list[RaceAnswer]:
        return sorted((a for a in self.answers if a.round == index), key=lambda a: a.seq)

    def members(self, before_round: int | None = None) -> dict[str, str]:
        """Members (user id -> name) in the order they joined, optionally only those who joined earlier."""
        joined: dict[str, str] = {}
        for a in sorted(self.answers, key=lambda a: a.seq):
            if before_round is None or a.round < before_round:
                joined.setdefault(a.user_id, a.name)
        return joined

    def scored(self, index: int) -> list[Scored]:
        """Round `index`'s answers in arrival order, with their points."""
        result: list[Scored] = []
        rank = 0
        for a in self.round_answers(index):
            if a.correct:
                rank += 1
                elapsed = (a.at - self.starts[index]).total_seconds()
                result.append(Scored(a, points(rank, elapsed, self.seconds)))
            else:
                result.append(Scored(a, 0))
        return result

    def top(self, index: int, count: int = 3) -> list[Scored]:
        """The round's best answers: most points, then earliest arrival; right answers only."""
        right = [s for s in self.scored(index) if s.points > 0]
        return sorted(right, key=lambda s: (-s.points, s.answer.seq))[:count]

    def standings(self) -> list[Standing]:
        names = self.members()
        total: dict[str, int] = dict.fromkeys(names, 0)
        right: dict[str, int] = dict.fromkeys(names, 0)
        answered: dict[str, int] = dict.fromkeys(names, 0)
        reached: dict[str, int] = {}
        for index in range(min(self.round + 1, self.rounds)):
            for s in self.scored(index):
                user = s.answer.user_id
                answered[user] += 1
                reached.setdefault(user, s.answer.seq)
                if s.points:
                    total[user] += s.points
                    right[user] += 1
                    reached[user] = s.answer.seq
        table = [Standing(u, names[u], total[u], right[u], answered[u], reached.get(u, 0)) for u in names]
        return sorted(table, key=lambda s: (-s.points, s.reached))

    def winner(self) -> Standing | None:
        table = self.standings()
        return table[0] if table and table[0].points > 0 else None

    # ------------------------------------------------------------ answering

    def check_answer(self, user_id: str, round_index: int, now: datetime) -> None:
        """Refuse an answer that may not count: race over, round closed or already answered."""
        if not self.running:
            raise RaceOver(self.status)
        if round_index != self.round or now >= self.deadline:
            raise RoundClosed()
        if any(a.user_id == user_id and a.round == round_index for a in self.answers):
            raise AlreadyAnswered()

    def record(self, answer: RaceAnswer) -> RaceAnswer:
        """Add an answer (in memory), numbering it after every earlier one; return it numbered."""
        self.check_answer(answer.user_id, answer.round, answer.at)
        numbered = replace(answer, seq=max((a.seq for a in self.answers), default=0) + 1)
        self.answers.append(numbered)
        return numbered

    def all_answered(self, answered: Iterable[str] | None = None) -> bool:
        """Say whether every member who joined before this round has answered it (never in round 1)."""
        earlier = self.members(before_round=self.round)
        if self.round == 0 or not earlier:
            return False
        now_in = set(answered) if answered is not None else {a.user_id for a in self.answers if a.round == self.round}
        return all(user in now_in for user in earlier)

    def round_over(self, now: datetime) -> bool:
        return self.running and (now >= self.deadline or self.all_answered())

    # ------------------------------------------------------------ moving on

    def close_round(self, now: datetime) -> int:
        """End the current round; open the next (from `now`) or finish. Return the closed round's index."""
        if not self.running:
            raise RaceOver(self.status)
        closed = self.round
        self.round += 1
        if self.round >= self.rounds:
            self.status = "finished"
        else:
            self.starts.append(now)
        return closed

    def stop(self) -> None:
        if not self.running:
            raise RaceOver(self.status)
        self.status = "stopped"

    # ------------------------------------------------------------ storage form

    def to_json(self, *, with_answers: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "platform": self.platform,
            "scope": self.scope,
            "channel": self.channel_id,
            "by": self.started_by,
            "by_name": self.started_by_name,
            "items": [i.to_json() for i in self.items],
            "seconds": self.seconds,
            "round": self.round,
            "starts": [d.isoformat() for d in self.starts],
            "status": self.status,
            "created_at": self.created_at.isoformat(),
            "filters": self.filters,
            "anchor": self.anchor,
            "version": self.version,
        }
        if with_answers:
            data["answers"] = [a.to_json() for a in self.answers]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any], answers: Iterable[RaceAnswer] | None = None) -> Race:
        stored = [RaceAnswer.from_json(a) for a in data.get("answers", [])]
        status = str(data["status"])
        if status not in ("running", "finished", "stopped"):
            raise ValueError(f"unknown race status {status!r}")
        return cls(
            id=str(data["id"]),
            platform=str(data["platform"]),
            scope=str(data["scope"]),
            channel_id=str(data["channel"]),
            started_by=str(data["by"]),
            started_by_name=str(data["by_name"]),
            items=[RaceItem.from_json(i) for i in data["items"]],
            seconds=int(data["seconds"]),
            round=int(data["round"]),
            starts=[datetime.fromisoformat(d) for d in data["starts"]],
            status=status,  # type: ignore[arg-type]
            answers=list(answers) if answers is not None else stored,
            created_at=datetime.fromisoformat(data["created_at"]),
            filters=dict(data.get("filters", {})),
            anchor={str(k): str(v) for k, v in data.get("anchor", {}).items()},
            version=int(data.get("version", 0)),
        )
