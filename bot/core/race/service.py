"""RaceService: the one entry into races for every platform.

Adapters call `start`, `act` (every control whose action id starts with `rc:`) and `stop`; they get
a neutral Reply back. Round ends that no click causes (time up) reach the channel through the
`publish` port the adapter supplies. Any process may close a round: the store's conditional update
lets exactly one of them do it.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from bot.core.admin import Admins
from bot.core.answer import Answers, graded
from bot.core.dispatch import NOT_OURS
from bot.core.errors import BadSubmission, QuizError, UnknownName, place_word
from bot.core.i18n import _, public, use_locales
from bot.core.items import Changed, Context, Input, NotAnAnswer, kind_of
from bot.core.locale import Locales
from bot.core.model import Actor, Attempt, ItemState, new_session_id
from bot.core.packs import DIFFICULTIES, AnyQuestion, Pack
from bot.core.ports import Clock, Repository
from bot.core.replies import Message, Reply, cmd

from . import actions as rx
from . import view
from .errors import BadRaceOption, NoRace, NotEnoughItems, NotRaceStarter, RaceOver, RaceRunning, RoundClosed
from .ports import Change, ChannelPost, Publisher, RaceStore
from .rules import MAX_ANSWER_CHARS, Race, RaceAnswer, RaceItem, check_options

log = logging.getLogger(__name__)
PACK_CACHE_SECONDS = 30.0
MAX_CACHED_RACES = 1000
MAX_VALUES = 25  # a menu holds at most 25 options
DRAFTED = frozenset({rx.BLANK, rx.CHECK})  # verbs that build on a member's earlier picks (blanks)
Sleep = Callable[[float], Awaitable[None]]


class RaceService:
    """Races in channels, independent of any chat platform."""

    def __init__(
        self,
        *,
        repository: Repository,
        store: RaceStore,
        clock: Clock,
        publish: Publisher,
        admins: frozenset[str] = frozenset(),
        rng: random.Random | None = None,
        sleep: Sleep = asyncio.sleep,
        timers: bool = True,
        answers: Answers | None = None,
    ) -> None:
        self._repo = repository
        self._languages = Locales(repository, Admins(admins))  # the server's language, for posts no request causes
        self._answers = answers  # counts the round's attempts once stored
        self._store = store
        self._clock = clock
        self._publish = publish
        self._admins = admins
        self._rng = rng or random.Random()
        self._sleep = sleep
        self._use_timers = timers
        self._timers: dict[str, asyncio.Task[None]] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._packs: dict[str, tuple[float, Pack | None]] = {}
        self._races: dict[str, Race] = {}  # running races as of their current round's start
        self._loading: dict[str, asyncio.Future[Race | None]] = {}

    # ------------------------------------------------------------ commands

    async def start(
        self,
        actor: Actor,
        *,
        channel_id: str | None = None,
        pack: str | None = None,
        topic: str | None = None,
        difficulty: str | None = None,
        rounds: int | None = None,
        seconds: int | None = None,
    ) -> Reply:
        """`/quiz race`: start a race in the actor's channel; the reply is public."""
        channel = channel_id or actor.channel_id
        if not channel or actor.scope == "dm":  # a Discord DM has no server to race in
            raise BadRaceOption(
                _("Races run in a channel: start one in a {place} channel.").format(place=place_word(actor.platform))
            )
        rounds, seconds = check_options(rounds, seconds)
        running = await self._store.running_race(actor.platform, actor.scope, channel)
        if running is not None:
            raise RaceRunning(running.started_by_name)
        enabled = [p for p in await self._repo.list_packs(actor.scope) if p.enabled]
        if not enabled:
            raise QuizError(_("No packs are enabled here. An admin can load one with {load}.").format(load=cmd("pack load")))
        names = [p.id for p in enabled]
        if pack is not None and pack not in names:
            raise UnknownName("pack", pack, names)
        if difficulty is not None and difficulty not in DIFFICULTIES:
            raise UnknownName("difficulty", difficulty, DIFFICULTIES)
        packs = [p for p in [await self._pack(n) for n in names if pack is None or n == pack] if p is not None]
        if topic is not None:
            topics = sorted({q.topic for p in packs for q in p.questions if q.topic} | {t.id for p in packs for t in p.topics})
            if topic not in topics:
                raise UnknownName("topic", topic, topics)
        candidates = [
            (p, q)
            for p in packs
            for q in p.questions
            if view.raceable(q)
            and (topic is None or q.topic == topic)
            and (difficulty is None or q.difficulty == difficulty)
        ]
        if len(candidates) < rounds:
            if pack:
                where = (_("Pack `{pack}` with those filters") if topic or difficulty else _("Pack `{pack}`")).format(pack=pack)
            else:
                where = _("The enabled packs with those filters") if topic or difficulty else _("The enabled packs")
            raise NotEnoughItems(len(candidates), rounds, where)
        self._rng.shuffle(candidates)
        items = []
        for p, q in candidates[:rounds]:
            shown = ItemState(p.pack, q.id)
            kind_of(q).prepare(q, shown, self._rng)  # the same shuffle a quiz makes, shared by every member
            items.append(RaceItem(p.pack, q.id, q.topic, tuple(shown.order)))
        now = self._clock.now()
        race = Race(
            id=new_session_id(),
            platform=actor.platform,
            scope=actor.scope,
            channel_id=channel,
            started_by=actor.user_id,
            started_by_name=actor.mention,
            items=items,
            seconds=seconds,
            starts=[now],
            created_at=now,
            filters={"pack": pack, "topic": topic, "difficulty": difficulty},
        )
        await self._store.create_race(race)
        self._remember(race)
        self._schedule(race)
        first_pack, first = candidates[0]
        with public():
            where = f"`{pack}`" if pack else _("the enabled packs")
        return Reply(
            messages=(view.start_message(race, where), view.round_message(race, 0, first_pack, first)),
            private=False,
        )

    async def stop(self, actor: Actor, *, channel_id: str | None = None) -> Reply:
        """`/quiz race stop`: stop the channel's race (its starter or an admin); the reply is public."""
        channel = channel_id or actor.channel_id
        race = await self._store.running_race(actor.platform, actor.scope, channel) if channel else None
        if race is None:
            raise NoRace()
        return await self._stop(actor, race.id)

    async def act(self, actor: Actor, action: str, values: Sequence[str] = ()) -> Reply:
        """Handle a click, a menu choice or a form submission on a race message (action `rc:...`)."""
        parsed = rx.parse(action)
        if parsed is None:
            raise QuizError(_(NOT_OURS))
        if len(values) > MAX_VALUES:
            raise BadSubmission(_("Too many values for one control."))
        if parsed.verb == rx.STOP:
            return await self._stop(actor, parsed.race_id)
        race = await self._snapshot(parsed.race_id, parsed.round)
        now = self._clock.now()
        self._ensure_timer(race)
        try:
            race.check_answer(actor.user_id, parsed.round, now)
        except RoundClosed:
            if race.running and parsed.round == race.round:
                self._spawn(self.close_round(race.id, race.round))  # time is up and nobody closed it yet
            raise
        if parsed.round >= race.rounds:
            raise RoundClosed()
        item = race.items[parsed.round]
        question = await self._question(item)
        kind = kind_of(question)
        if parsed.verb == rx.ANSWER:
            form = kind.form(question, view.RaceMake(race.id, parsed.round))
            if form is None:
                raise QuizError(_("That control does not belong to this round."))
            title = _("Race · round {n}").format(n=parsed.round + 1)
            return Reply(form=replace(form, title=title, label=_("Your answer (one try)")))
        draft = await self._store.get_draft(race.id, parsed.round, actor.user_id) if parsed.verb in DRAFTED else {}
        state = view.state(race.items[parsed.round], draft)
        ctx = Context(runner=None, owner_key=actor.key)
        outcome = await kind.answer(question, state, Input(parsed.verb, parsed.argument, tuple(values)), ctx)
        if isinstance(outcome, Changed) and parsed.verb == rx.MULTI:
            outcome = await kind.answer(question, state, Input(rx.CHECK), ctx)  # a race's select-all menu is one answer
        if isinstance(outcome, Changed):
            for number, option in state.selections.items():
                if draft.get(number) != option:
                    await self._store.save_draft(race.id, parsed.round, actor.user_id, number, option)
            mine = kind.view(question, state, view.RaceMake(race.id, parsed.round), final=False)
            return Reply(messages=(view.draft_message(mine),))
        if isinstance(outcome, NotAnAnswer):
            return Reply(messages=(Message(kind="notice", parts=outcome.parts, tone=outcome.tone),))
        return await self._answer(actor, race, parsed.round, outcome.answer, outcome.correct)

    # ------------------------------------------------------------ rounds

    async def close_round(self, race_id: str, round_index: int) -> bool:
        """Close round `round_index` if its time is up or every member answered; post the reveal.

        Return whether this call closed it (another process, or an earlier call, may have).
        """
        clock = self._clock

        def change(race: Race) -> Change | None:
            now = clock.now()
            if not race.running or race.round != round_index:
                return None
            if now < race.deadline and not race.all_answered():
                return None
            race.close_round(now)
            race.version += 1
            return Change(race, _attempts(race, round_index))

        done = await self._store.update_race(race_id, change)
        if done is None:
            return False
        self._count(done)
        race = done.race
        self._remember(race)
        self._schedule(race)
        await self._post_after_round(race, round_index)
        return True

    async def tick(self) -> int:
        """Close every round whose time is up, across all races in the database; return how many.

        Timers do this on their own; a scheduler may also call it now and then, so a race started
        by a process that died still moves on.
        """
        now = self._clock.now()
        closed = 0
        for race in await self._store.running_races():
            if now >= race.deadline and await self.close_round(race.id, race.round):
                closed += 1
        return closed

    async def resume(self) -> list[str]:
        """At start-up: set timers for every running race with the time its round has left."""
        races = await self._store.running_races()
        for race in races:
            self._schedule(race)
        return [r.id for r in races]

    async def set_anchor(self, race_id: str, anchor: dict[str, str]) -> None:
        """Note where the adapter posted the current round, so the closed round can be edited."""
        await self._store.set_anchor(race_id, anchor)

    async def drain(self) -> None:
        """Wait for round closes started in the background (tests, shutdown)."""
        while self._background:
            await asyncio.gather(*list(self._background), return_exceptions=True)

    async def aclose(self) -> None:
        """Cancel the timers and wait for background work; races stay stored and resume later."""
        timers = list(self._timers.values())
        self._timers.clear()
        for task in timers:
            task.cancel()
        await asyncio.gather(*timers, return_exceptions=True)
        await self.drain()

    # ------------------------------------------------------------ helpers

    def _count(self, done: Change) -> None:
        if self._answers is not None:
            for attempt in done.attempts:
                self._answers.counted(attempt)

    async def _answer(self, actor: Actor, race: Race, round_index: int, answer: str, correct: bool) -> Reply:
        """Record the answer (the store numbers it); close the round early once every member is in."""
        at = self._clock.now()
        recorded = await self._store.record_answer(
            race.id, RaceAnswer(round_index, actor.user_id, actor.mention, answer[:MAX_ANSWER_CHARS], correct, at)
        )
        if race.all_answered(recorded.answered):
            self._spawn(self.close_round(race.id, round_index))
        return Reply(messages=(view.ack_message(recorded.place, race.time_left(at)),))

    async def _stop(self, actor: Actor, race_id: str) -> Reply:
        race = await self._store.get_race(race_id)
        if race is None:
            raise NoRace()
        if not race.running:
            raise RaceOver(race.status)
        if actor.user_id != race.started_by and not (actor.is_admin or actor.key in self._admins):
            raise NotRaceStarter(race.started_by_name)

        def change(current: Race) -> Change | None:
            if not current.running:
                return None
            index = current.round
            current.stop()
            current.version += 1
            return Change(current, _attempts(current, index))

        done = await self._store.update_race(race_id, change)
        if done is None:
            raise RaceOver("finished")
        self._count(done)
        self._cancel_timer(race_id)
        self._remember(done.race)
        return Reply(messages=(view.final_message(done.race),), private=False)

    async def _post_after_round(self, race: Race, closed: int) -> None:
        question = await self._question(race.items[closed])
        pack = await self._pack(race.items[closed].pack)
        assert pack is not None
        # Often no request is running here (time ran out): the posts are in the server's language all the same.
        server = await self._languages.server(race.platform, race.scope)
        with use_locales(server, server):
            messages: list[Message] = [view.reveal_message(race, closed, question)]
            next_round: int | None = None
            if race.running:
                next_item = race.items[race.round]
                next_pack = await self._pack(next_item.pack)
                assert next_pack is not None
                messages.append(view.round_message(race, race.round, next_pack, await self._question(next_item)))
                next_round = race.round
            else:
                messages.append(view.final_message(race))
            closed_round = view.round_message(race, closed, pack, question, closed=True)
        post = ChannelPost(
            platform=race.platform,
            scope=race.scope,
            channel_id=race.channel_id,
            race_id=race.id,
            messages=tuple(messages),
            closed_round=closed_round,
            anchor=dict(race.anchor),
            next_round=next_round,
        )
        try:
            await self._publish(post)
        except Exception:
            log.exception("posting race %s round %d failed", race.id, closed + 1)

    async def _snapshot(self, race_id: str, round_index: int) -> Race:
        """Return the race as it was when the clicked round opened, reading it only when needed.

        Earlier rounds never change once closed, so a copy taken in the clicked round serves every
        click of that round; the store still checks each answer against the stored round.
        """
        cached = self._races.get(race_id)
        if cached is not None and cached.running and cached.round == round_index:
            return cached
        loading = self._loading.get(race_id)
        if loading is None:  # one read serves every click that arrives while it runs
            loading = self._loading[race_id] = asyncio.ensure_future(self._store.get_race(race_id))
            loading.add_done_callback(lambda _: self._loading.pop(race_id, None))
        race = await asyncio.shield(loading)
        if race is None:
            raise NoRace()
        self._remember(race)
        return race

    def _remember(self, race: Race) -> None:
        if race.running:
            self._races[race.id] = race
            while len(self._races) > MAX_CACHED_RACES:
                del self._races[next(iter(self._races))]
        else:
            self._races.pop(race.id, None)

    async def _pack(self, pack_id: str) -> Pack | None:
        cached = self._packs.get(pack_id)
        now = time.monotonic()
        if cached is not None and now - cached[0] < PACK_CACHE_SECONDS:
            return cached[1]
        pack = await self._repo.get_pack(pack_id)
        self._packs[pack_id] = (now, pack)
        return pack

    async def _question(self, item: RaceItem) -> AnyQuestion:
        pack = await self._pack(item.pack)
        question = pack.question(item.question) if pack is not None else None
        if question is None:
            raise QuizError(
                _("The item `{item}` no longer exists; stop the race and start another.").format(item=f"{item.pack}/{item.question}")
            )
        return question

    # ------------------------------------------------------------ timers

    def _schedule(self, race: Race) -> None:
        self._cancel_timer(race.id)
        if not self._use_timers or not race.running:
            return
        delay = race.time_left(self._clock.now())
        self._timers[race.id] = asyncio.create_task(self._wait_and_close(race.id, race.round, delay))

    def _ensure_timer(self, race: Race) -> None:
        """A process that learns of a race through a click also keeps time for it."""
        if self._use_timers and race.running and race.id not in self._timers:
            self._schedule(race)

    def _cancel_timer(self, race_id: str) -> None:
        task = self._timers.pop(race_id, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    async def _wait_and_close(self, race_id: str, round_index: int, delay: float) -> None:
        await self._sleep(delay)
        if self._timers.get(race_id) is asyncio.current_task():
            del self._timers[race_id]
        try:
            await self.close_round(race_id, round_index)
        except Exception:
            log.exception("closing race %s round %d failed", race_id, round_index + 1)

    def _spawn(self, work: Awaitable[bool]) -> None:
        async def run() -> None:
            try:
                await work
            except Exception:
                log.exception("closing a race round failed")

        task = asyncio.create_task(run())
        self._background.add(task)
        task.add_done_callback(self._background.discard)


def _attempts(race: Race, index: int) -> tuple[Attempt, ...]:
    """The closed round's answers as attempts, so they count in each member's progress (cards: `Change.cards`)."""
    item = race.items[index]
    return tuple(
        graded(
            platform=race.platform,
            scope=race.scope,
            user_id=s.answer.user_id,
            pack=item.pack,
            question=item.question,
            topic=item.topic,
            points=s.points,
            text=s.answer.answer,
            correct=s.answer.correct,
            hinted=False,
            card=None,
            at=s.answer.at,
            mode="race",
            session_id=race.id,
            final=False,  # the card is moved from the stored one, in the round's transaction
        )[0]
        for s in race.scored(index)
    )
