"""Starting a quiz: which items a start request may draw from, which of them to ask, in what order.

`Starter` picks the items (wrong and unseen first, then due, then the rest) and hands them to
`Flow.open` (`flow.py`), which opens the session and shows its first item; what follows, each
input on the current item up to the summary, is the flow's. A graded answer is recorded in
`answer.py`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.core.i18n import _, same_language

from .catalogue import Catalogue
from .errors import QuizError, UnknownName
from .flow import Flow
from .items import kind_of
from .model import Actor, History, ItemState, Owner, Session
from .packs import DIFFICULTIES, AnyQuestion, Pack
from .ports import Clock, Repository
from .replies import Reply, cmd, opt
from .requests import DEFAULT_COUNT, MAX_COUNT, Start
from .review import in_learning, is_due

# A card due within this long may be due today (the practice day ends at the next 04:00 local, at most
# 25 h away across a clock change); only then is the learner's zone read.
_DUE_TODAY_AT_MOST = timedelta(days=2)


class Starter:
    """New quizzes: check a start request, pick its items, open the session through the flow."""

    def __init__(
        self, *, flow: Flow, repository: Repository, catalogue: Catalogue, clock: Clock, rng: random.Random
    ) -> None:
        self._flow = flow
        self._repo = repository
        self._catalogue = catalogue
        self._clock = clock
        self._rng = rng

    async def start(self, actor: Actor, request: Start) -> Reply:
        """Start a quiz: wrong and unseen items first, then due ones, then the rest, up to `count`."""
        packs, candidates, count = await self.candidates(actor, request)
        picked = await self._pick(actor, packs, candidates, count)
        filters = {
            "pack": request.pack,
            "topic": request.topic,
            "difficulty": request.difficulty,
            "count": count,
            "question": request.question,
        }
        return await self._flow.open(actor, request.owner or Owner.user(actor), picked, filters)

    async def candidates(self, actor: Actor, request: Start) -> tuple[list[Pack], list[tuple[Pack, AnyQuestion]], int]:
        """The packs and items a start request may draw from, and how many; a request that cannot start raises."""
        enabled = await self._catalogue.enabled(actor.scope)
        if not enabled:
            raise QuizError(_("No packs are enabled here. An admin can load one with {load}.").format(load=cmd("pack load")))
        if request.language is not None:
            enabled = [p for p in enabled if same_language(p.language, request.language)]
            if not enabled:
                raise QuizError(
                    _("No pack here is written in `{language}`. {packs} lists the packs and their languages.").format(
                        language=request.language, packs=cmd("packs")
                    )
                )
        names = [p.id for p in enabled]
        if request.pack is not None and request.pack not in names:
            raise UnknownName("pack", request.pack, names)
        if request.difficulty is not None and request.difficulty not in DIFFICULTIES:
            raise UnknownName("difficulty", request.difficulty, DIFFICULTIES)
        count = DEFAULT_COUNT if request.count is None else request.count
        if not 1 <= count <= MAX_COUNT:
            raise QuizError(_("{option} must be between 1 and {most}; you gave {count}.").format(option=opt("count"), most=MAX_COUNT, count=count))
        chosen = [p for p in enabled if request.pack is None or p.id == request.pack]
        packs = [p for p in [await self._catalogue.pack(info.id) for info in chosen] if p is not None]
        if request.topic is not None:
            topics = sorted({q.topic for p in packs for q in p.questions if q.topic} | {t.id for p in packs for t in p.topics})
            if request.topic not in topics:
                raise UnknownName("topic", request.topic, topics)
        candidates = [
            (p, q)
            for p in packs
            for q in p.questions
            if (request.topic is None or q.topic == request.topic)
            and (request.difficulty is None or q.difficulty == request.difficulty)
            and (request.question is None or q.id == request.question)
        ]
        if request.question is not None and not candidates:
            raise UnknownName("question", request.question, [q.id for p in packs for q in p.questions])
        if not candidates:
            raise QuizError(
                _("No questions match those filters. Try fewer filters, or {packs} to see what exists.").format(packs=cmd("packs"))
            )
        return packs, candidates, count

    async def _pick(
        self, actor: Actor, packs: list[Pack], candidates: list[tuple[Pack, AnyQuestion]], count: int
    ) -> list[ItemState]:
        history = await self._repo.history(actor.platform, actor.user_id, [p.pack for p in packs])
        now = self._clock.now()
        zone = await self._zone(actor, history.values(), now)

        def rank(pair: tuple[Pack, AnyQuestion]) -> int:
            seen = history.get((pair[0].pack, pair[1].id))
            if seen is None:
                return 0
            if not seen.last_correct:
                return 1
            if seen.due is not None and is_due(seen.due, now, zone, learning=in_learning(seen.card)):  # due today, as the review and stats say
                return 2
            return 3

        self._rng.shuffle(candidates)
        candidates.sort(key=rank)
        items = []
        for p, q in candidates[:count]:
            seen = history.get((p.pack, q.id))
            item = ItemState(pack=p.pack, question=q.id, card=seen.card if seen else None)
            kind_of(q).prepare(q, item, self._rng)
            items.append(item)
        return items

    async def _zone(self, actor: Actor, seen: Iterable[History], now: datetime) -> ZoneInfo:
        """The learner's zone when it decides whether a card is due today (a card due soon), else UTC."""
        soon = [h.due.replace(tzinfo=UTC) if h.due.tzinfo is None else h.due for h in seen if h.due is not None]
        if not any(now < due < now + _DUE_TODAY_AT_MOST for due in soon):
            return ZoneInfo("UTC")
        return ZoneInfo(await self._repo.learner_zone(actor.platform, actor.user_id))

    async def restart(self, actor: Actor, session: Session, *, use_next: bool = False) -> Reply:
        """A new quiz like `session` (New quiz), or the one asked for while it ran (Start new)."""
        return await self.start(actor, restart_request(session, use_next=use_next))


def restart_request(session: Session, *, use_next: bool = False, replace: bool = True) -> Start:
    """The start request of New quiz (one like `session`) or Start new (the one asked for while it ran)."""
    f = session.filters.get("next") if use_next else None
    f = f if isinstance(f, dict) else session.filters
    return Start(
        pack=f.get("pack"),
        topic=f.get("topic"),
        difficulty=f.get("difficulty"),
        count=f.get("count"),
        question=f.get("question"),
        replace=replace,
    )
