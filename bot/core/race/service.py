"""RaceService: the one entry into races for every platform.

Adapters call `start`, `act` (every control whose action id starts with `rc:`) and `stop`; they get
a neutral Reply back. Round ends that no click causes (time up) reach the channel through the
`publish` port the adapter supplies. Any process may close a round: the store's conditional update
lets exactly one of them do it. Closing rounds (timers, `tick`, `resume`, the posts after a round)
is `rounds.py`'s (`Rounds`); its methods are handed out as the service's own (`RaceService.tick`).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import partial

from bot.core.admin import Admins
from bot.core.answer import Answers
from bot.core.daily.schedule import in_direct_message
from bot.core.dispatch import NOT_OURS
from bot.core.errors import BadSubmission, QuizError, UnknownName, place_word
from bot.core.i18n import _, public
from bot.core.items import Changed, Context, Input, NotAnAnswer, kind_of
from bot.core.locale import Locales
from bot.core.model import Actor, ItemState, new_session_id
from bot.core.packs import DIFFICULTIES, AnyQuestion, Pack
from bot.core.ports import Clock, Repository
from bot.core.replies import Message, Reply, cmd
from bot.core.shared_reads import SharedReads

from . import actions as rx
from . import snapshot, view
from .errors import BadRaceOption, NoRace, NotEnoughItems, NotRaceStarter, RaceOver, RaceRunning, RoundClosed
from .ports import Change, Publisher, RaceStore
from .rounds import Rounds, Sleep, round_attempts
from .rules import MAX_ANSWER_CHARS, ROUNDS_MIN, Race, RaceAnswer, RaceItem, check_options

PACK_CACHE_SECONDS = 30.0
MAX_CACHED_RACES = 1000
MAX_VALUES = 25  # a menu holds at most 25 options
DRAFTED = frozenset({rx.BLANK, rx.CHECK})  # verbs that build on a member's earlier picks (blanks)


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
        platforms: Iterable[str] | None = None,
    ) -> None:
        """`platforms`: the front ends this process runs; it keeps time only for their races (None: all)."""
        self._repo = repository
        self._store = store
        self._clock = clock
        self._admins = admins
        self._rng = rng or random.Random()
        self._packs: dict[str, tuple[float, Pack | None]] = {}
        self._races: dict[str, Race] = {}  # running races as of their current round's start
        self._loading: SharedReads[str, Race | None] = SharedReads()  # one read serves every click that arrives while it runs
        # Closing rounds, timers and the posts after a round (rounds.py). Its bound methods are the
        # service's attributes: `races.tick()` calls `Rounds.tick` itself, no call in between.
        rounds = Rounds(
            store=store,
            clock=clock,
            publish=publish,
            languages=Locales(repository, Admins(admins)),  # the server's language, for posts no request causes
            answers=answers,  # counts the round's attempts once stored
            sleep=sleep,
            timers=timers,
            remember=self._remember,
            pack=self._pack,
            question=self._question,
            platforms=platforms,
        )
        self._rounds = rounds
        self.close_round, self.tick, self.resume = rounds.close_round, rounds.tick, rounds.resume
        self.drain, self.aclose = rounds.drain, rounds.aclose

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
        if not channel or _in_dm(actor, channel):
            raise _not_here(actor)
        asked = rounds
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
            and snapshot.fits(p, q)  # its copy in the race stays within its bound
        ]
        if asked is None and ROUNDS_MIN <= len(candidates) < rounds:
            rounds = len(candidates)  # nobody asked for the default: race through what the pack has
        if len(candidates) < rounds:
            if pack:
                where = (_("Pack `{pack}` with those filters") if topic or difficulty else _("Pack `{pack}`")).format(pack=pack)
            else:
                where = _("The enabled packs with those filters") if topic or difficulty else _("The enabled packs")
            raise NotEnoughItems(len(candidates), rounds, where, least=ROUNDS_MIN)
        self._rng.shuffle(candidates)
        items = []
        for p, q in candidates[:rounds]:
            copy = snapshot.ItemSnapshot.take(p, q)  # what the race posts, grades and reveals, whatever the pack becomes
            assert copy is not None  # `fits` said so
            shown = ItemState(p.pack, q.id)
            kind_of(q).prepare(copy.question, shown, self._rng)  # the same shuffle a quiz makes, shared by every member
            items.append(RaceItem(p.pack, q.id, q.topic, tuple(shown.order), copy))
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
        self._rounds.schedule(race)
        first_pack, first = candidates[0][0], items[0].snapshot
        assert first is not None
        with public():
            where = f"`{pack}`" if pack else _("the enabled packs")
        return Reply(
            messages=(view.start_message(race, where), view.round_message(race, 0, first_pack, first.question)),
            private=False,
        )

    async def stop(self, actor: Actor, *, channel_id: str | None = None) -> Reply:
        """`/quiz race stop`: stop the channel's race (its starter or an admin); the reply is public."""
        channel = channel_id or actor.channel_id
        if not channel or _in_dm(actor, channel):  # no race can run there: say where races run, as `start` does
            raise _not_here(actor)
        race = await self._store.running_race(actor.platform, actor.scope, channel)
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
        self._rounds.ensure_timer(race)
        try:
            race.check_answer(actor.user_id, parsed.round, now)
        except RoundClosed:
            if race.running and parsed.round == race.round:
                self._rounds.spawn(self.close_round(race.id, race.round))  # time is up and nobody closed it yet
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
    # close_round, tick, resume, drain and aclose are `Rounds`' (rounds.py), bound in __init__.

    async def set_anchor(self, race_id: str, anchor: dict[str, str]) -> None:
        """Note where the adapter posted the current round, so the closed round can be edited."""
        await self._store.set_anchor(race_id, anchor)

    # ------------------------------------------------------------ helpers

    async def _answer(self, actor: Actor, race: Race, round_index: int, answer: str, correct: bool) -> Reply:
        """Record the answer (the store numbers it); close the round early once every member is in."""
        at = self._clock.now()
        recorded = await self._store.record_answer(
            race.id, RaceAnswer(round_index, actor.user_id, actor.mention, answer[:MAX_ANSWER_CHARS], correct, at)
        )
        if race.all_answered(recorded.answered):
            self._rounds.spawn(self.close_round(race.id, round_index))
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
            return Change(current, round_attempts(current, index))

        done = await self._store.update_race(race_id, change)
        if done is None:
            raise RaceOver("finished")
        self._rounds.count(done)
        self._rounds.cancel_timer(race_id)
        self._remember(done.race)
        self._rounds.spawn(self._rounds.close_stopped(done.race))  # its round's message loses its controls
        return Reply(messages=(view.final_message(done.race),), private=False)

    async def _snapshot(self, race_id: str, round_index: int) -> Race:
        """Return the race as it was when the clicked round opened, reading it only when needed.

        Earlier rounds never change once closed, so a copy taken in the clicked round serves every
        click of that round; the store still checks each answer against the stored round.
        """
        cached = self._races.get(race_id)
        if cached is not None and cached.running and cached.round == round_index:
            return cached
        race = await self._loading.read(race_id, partial(self._store.get_race, race_id))
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
        """The item as the race shows and grades it: its snapshot, while its pack still has it.

        An item removed from its pack (or its pack removed) is gone for the race too; one changed
        by a newer version of the pack is still the one posted. Races stored without snapshots
        read the pack as it is now.
        """
        pack = await self._pack(item.pack)
        question = pack.question(item.question) if pack is not None else None
        if question is None:
            raise QuizError(
                _("The item `{item}` no longer exists; stop the race and start another.").format(item=f"{item.pack}/{item.question}")
            )
        return item.snapshot.question if item.snapshot is not None else question


def _in_dm(actor: Actor, channel: str) -> bool:
    """A direct message with the bot (a Discord DM has no server, a Slack DM's channel id starts with D)."""
    return in_direct_message(actor.platform, actor.scope, channel)


def _not_here(actor: Actor) -> BadRaceOption:
    return BadRaceOption(_("Races run in a channel: start one in a {place} channel.").format(place=place_word(actor.platform)))
