"""Closing a race's rounds: when time is up or once every member has answered.

`Rounds` keeps a timer per running race (`resume` sets them at start-up, `tick` closes what a
timer missed), closes rounds in the background, posts the reveal with the next round (or the
final standings) through the `publish` port, and turns a closed round's answers into attempts.
`RaceService` builds it and hands out `close_round`, `tick`, `resume`, `drain` and `aclose` as
its own attributes; it lends `Rounds` its caches of packs, items and running races.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable

from bot.core.answer import Answers, graded
from bot.core.errors import QuizError
from bot.core.i18n import _, for_everyone, number, use_locales
from bot.core.locale import Locales
from bot.core.model import Attempt
from bot.core.packs import AnyQuestion, Pack
from bot.core.ports import Clock
from bot.core.replies import Message, Text, Tone

from . import view
from .ports import Change, ChannelPost, Publisher, RaceStore
from .rules import Race, RaceItem

# The race log, under its name from before closing rounds moved here from service.py.
log = logging.getLogger("bot.core.race.service")
Sleep = Callable[[float], Awaitable[None]]


class Rounds:
    """A race's rounds from their start to their close, for every race this process knows of."""

    def __init__(
        self,
        *,
        store: RaceStore,
        clock: Clock,
        publish: Publisher,
        languages: Locales,
        answers: Answers | None,
        sleep: Sleep,
        timers: bool,
        remember: Callable[[Race], None],
        pack: Callable[[str], Awaitable[Pack | None]],
        question: Callable[[RaceItem], Awaitable[AnyQuestion]],
        platforms: Iterable[str] | None = None,
    ) -> None:
        self._store = store
        # The platforms whose channels this process can post to (None: every one). A race of another
        # platform is left to the process that runs it: closing its rounds here would drop their posts.
        self._platforms = frozenset(platforms) if platforms is not None else None
        self._clock = clock
        self._publish = publish
        self._languages = languages  # the server's language, for posts no request causes
        self._answers = answers  # counts the round's attempts once stored
        self._sleep = sleep
        self._use_timers = timers
        self._timers: dict[str, asyncio.Task[None]] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._remember = remember  # the service's cache of running races
        self._pack = pack  # the service's pack cache
        self._question = question

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
            return Change(race, round_attempts(race, round_index))

        done = await self._store.update_race(race_id, change)
        if done is None:
            return False
        self.count(done)
        race = done.race
        gone = await self._missing(race.items[race.round]) if race.running else None
        if gone is not None:  # the next item left its pack (it was removed): end the race instead of a dead round
            race = await self._end_early(race) or race
        self._remember(race)
        self.schedule(race)
        await self._post_after_round(race, round_index, gone=gone)
        return True

    async def _missing(self, item: RaceItem) -> str | None:
        """Return the item's name when its pack no longer has it, else None."""
        try:
            await self._question(item)
        except QuizError:
            return f"{item.pack}/{item.question}"
        return None

    async def _end_early(self, race: Race) -> Race | None:
        """Stop the race at its current round (just opened); return it as stored, or None if it moved on."""
        index = race.round

        def change(current: Race) -> Change | None:
            if not current.running or current.round != index:
                return None
            current.stop()
            current.version += 1
            return Change(current, round_attempts(current, index))

        done = await self._store.update_race(race.id, change)
        if done is None:
            return None
        self.count(done)
        return done.race

    async def tick(self) -> int:
        """Close every round whose time is up, across all races in the database; return how many.

        Timers do this on their own; a scheduler may also call it now and then, so a race started
        by a process that died still moves on.
        """
        now = self._clock.now()
        closed = 0
        for race in await self._store.running_races():
            if now < race.deadline or not self.keeps_time_for(race):
                continue
            try:  # one broken race must not keep the others from moving on
                if await self.close_round(race.id, race.round):
                    closed += 1
            except Exception:
                log.exception("closing race %s round %d failed", race.id, race.round + 1)
        return closed

    async def resume(self) -> list[str]:
        """At start-up: set timers for every running race with the time its round has left."""
        races = [r for r in await self._store.running_races() if self.keeps_time_for(r)]
        for race in races:
            self.schedule(race)
        return [r.id for r in races]

    def keeps_time_for(self, race: Race) -> bool:
        """Say whether this process closes the race's rounds: it can post to the race's platform."""
        return self._platforms is None or race.platform in self._platforms

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

    def count(self, done: Change) -> None:
        """Count the attempts a stored change made (a closed or stopped round's answers)."""
        if self._answers is not None:
            for attempt in done.attempts:
                self._answers.counted(attempt)

    async def _post_after_round(self, race: Race, closed: int, *, gone: str | None = None) -> None:
        item = race.items[closed]
        try:
            question: AnyQuestion | None = await self._question(item)  # as posted: its snapshot
        except QuizError:  # removed from its pack (or the pack removed) while the round ran
            question = None
        pack = await self._pack(item.pack)
        # Often no request is running here (time ran out): the posts are in the server's language all the same.
        server = await self._languages.server(race.platform, race.scope)
        with use_locales(server, server):
            messages: list[Message] = [
                view.reveal_message(race, closed, question)
                if question is not None
                else item_gone_message(race, closed, f"{item.pack}/{item.question}")
            ]
            if gone is not None:
                messages.append(ended_early_message(gone))
            next_round: int | None = None
            if race.running:
                next_item = race.items[race.round]
                next_question = await self._question(next_item)  # its snapshot, once the pack still has it
                messages.append(
                    view.round_message(race, race.round, await self._pack(next_item.pack), next_question)
                )
                next_round = race.round
            else:
                messages.append(view.final_message(race))
            # The round's message is closed (its buttons off) from what was posted: the snapshot, when the
            # item left its pack meanwhile (a race stored without snapshots has nothing to show it from).
            shown = question if question is not None else item.snapshot.question if item.snapshot is not None else None
            closed_round = view.round_message(race, closed, pack, shown, closed=True) if shown is not None else None
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

    async def close_stopped(self, race: Race) -> bool:
        """Close a stopped race's round message (controls off, the answer marked), as a round's end does."""
        if race.running or race.round >= race.rounds:
            return False
        item = race.items[race.round]
        try:
            question: AnyQuestion | None = await self._question(item)
        except QuizError:  # left its pack: shown from its snapshot, as `_post_after_round` does
            question = item.snapshot.question if item.snapshot is not None else None
        if question is None:
            return False
        server = await self._languages.server(race.platform, race.scope)
        with use_locales(server, server):
            closed = view.round_message(race, race.round, await self._pack(item.pack), question, closed=True)
        post = ChannelPost(race.platform, race.scope, race.channel_id, race.id, (), closed_round=closed, anchor=dict(race.anchor))
        await self._publish(post)
        return True

    # ------------------------------------------------------------ timers

    def schedule(self, race: Race) -> None:
        """Set the race's timer for the time its round has left (none once it is over)."""
        self.cancel_timer(race.id)
        if not self._use_timers or not race.running or not self.keeps_time_for(race):
            return
        delay = race.time_left(self._clock.now())
        self._timers[race.id] = asyncio.create_task(self._wait_and_close(race.id, race.round, delay))

    def ensure_timer(self, race: Race) -> None:
        """A process that learns of a race through a click also keeps time for it."""
        if self._use_timers and race.running and race.id not in self._timers:
            self.schedule(race)

    def cancel_timer(self, race_id: str) -> None:
        """Drop the race's timer (unless it is the one running this call)."""
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

    def spawn(self, work: Awaitable[bool]) -> None:
        """Close a round in the background; `drain` waits for it, a failure is logged."""

        async def run() -> None:
            try:
                await work
            except Exception:
                log.exception("closing a race round failed")

        task = asyncio.create_task(run())
        self._background.add(task)
        task.add_done_callback(self._background.discard)


@for_everyone
def item_gone_message(race: Race, index: int, name: str) -> Message:
    """Instead of a round's reveal when its item left its pack while the round ran."""
    title = _("Round {n} of {total}: the answer").format(n=number(index + 1), total=number(race.rounds))
    text = _("The item `{item}` was removed from its pack during this round, so its answer cannot be shown.")
    return Message(kind="feedback", title=title, parts=(Text(text.format(item=name)),), tone=Tone.WARNING, session_id=race.id)


@for_everyone
def ended_early_message(name: str) -> Message:
    """Why a race ends before its last round: its next item left its pack."""
    text = _("The race ends early: the next item, `{item}`, was removed from its pack.")
    return Message(kind="notice", parts=(Text(text.format(item=name)),), tone=Tone.WARNING)


def round_attempts(race: Race, index: int) -> tuple[Attempt, ...]:
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
