"""The scheduler: one asyncio task that runs daily posts, reveals, tally edits and reminders.

All of its state is in the database, so it survives restarts; each job is taken by an atomic
claim there, so several bot processes sharing PostgreSQL never run one twice. A claim is taken
before the platform is called: a process that dies between the two loses that one job rather
than ever repeating it. Time comes from the clock port, and sleeping through the `sleep`
function given, so tests drive days of schedule with a fake clock in milliseconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from dataclasses import replace
from datetime import date, datetime, timedelta
from functools import partial
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from bot.core import i18n
from bot.core.admin import Admins
from bot.core.daily.channel import TALLY_EVERY, DailyPost, Tally, first_right, tally
from bot.core.daily.errors import NoSchedule, NotServed
from bot.core.daily.learner import Learner
from bot.core.daily.messages import (
    closed_post_message,
    paused_message,
    post_message,
    reminder_message,
    reveal_message,
)
from bot.core.daily.pauses import CANNOT_POST, NO_QUESTION, pause_reason, pause_text
from bot.core.daily.ports import Packs, SchedulerStore
from bot.core.daily.queue import review_day
from bot.core.daily.reminders import after_delivery
from bot.core.daily.rotation import pick_item
from bot.core.daily.schedule import Schedule
from bot.core.daily.timing import due_day, local_day, next_run
from bot.core.errors import NotAllowed
from bot.core.faults import FaultLog
from bot.core.i18n import DEFAULT as DEFAULT_LANGUAGE
from bot.core.i18n import use_locale
from bot.core.locale import Locales
from bot.core.model import Actor, new_session_id
from bot.core.packs.models import AnyQuestion, Pack
from bot.core.ports import Clock
from bot.core.replies import Message, Reply, Tone, notice
from bot.settings import Settings
from bot.storage.daily import DailyRepository
from bot.storage.repository import SqlRepository

log = logging.getLogger(__name__)

MAX_SLEEP_S = 60.0  # look at the database at least this often: other processes change schedules too
IDLE_AFTER_ERROR_S = 30.0
BATCH = 100
PARALLEL_JOBS = 8  # jobs in flight at once: platform calls overlap, the database pool is not drained
RETRY_AFTER = timedelta(minutes=5)  # a job that failed is looked at again after this


class DeliveryFailed(Exception):
    """The platform refused a delivery: channel gone, permissions removed, direct messages closed."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class Poster(Protocol):
    """What the scheduler asks of the platforms; each adapter implements it (raise DeliveryFailed)."""

    async def post_item(self, post: DailyPost, message: Message) -> str:
        """Post the day's item to `post.channel_id`; return a reference to the message, for edits."""
        ...

    async def edit_post(self, post: DailyPost, message: Message) -> None:
        """Replace the posted message `post.message_ref` (new tally, or closed at reveal)."""
        ...

    async def post_reveal(self, post: DailyPost, message: Message) -> None:
        """Post the answer under the day's message (its thread, where there is one)."""
        ...

    async def send_dm(self, platform: str, user_id: str, message: Message) -> None:
        """Send a direct message: a reminder, or a paused schedule's notice to its admin."""
        ...


class PlatformPosters:
    """One Poster per platform behind one: each call goes to the poster of its platform."""

    def __init__(self, posters: dict[str, Poster]) -> None:
        self._posters = dict(posters)
        self._added = asyncio.Condition()

    async def add(self, platform: str, poster: Poster) -> None:
        """Add (or replace) a platform's poster: a front end does this once its client exists."""
        async with self._added:
            self._posters[platform] = poster
            self._added.notify_all()

    async def wait_for(self, platforms: Iterable[str]) -> None:
        """Wait until every platform named has its poster (the scheduler starts after that)."""
        wanted = set(platforms)
        async with self._added:
            await self._added.wait_for(lambda: wanted <= self._posters.keys())

    def _for(self, platform: str) -> Poster:
        # The scheduler takes only its platforms' jobs (Scheduler's `platforms`); this is the backstop.
        poster = self._posters.get(platform)
        if poster is None:
            raise DeliveryFailed(f"this process does not run the {platform} front end")
        return poster

    async def post_item(self, post: DailyPost, message: Message) -> str:
        return await self._for(post.platform).post_item(post, message)

    async def edit_post(self, post: DailyPost, message: Message) -> None:
        await self._for(post.platform).edit_post(post, message)

    async def post_reveal(self, post: DailyPost, message: Message) -> None:
        await self._for(post.platform).post_reveal(post, message)

    async def send_dm(self, platform: str, user_id: str, message: Message) -> None:
        await self._for(platform).send_dm(platform, user_id, message)


Sleep = Callable[[float], Awaitable[None]]
ServerLanguage = Callable[[str, str], Awaitable[str]]  # (platform, scope) -> the language of its public posts
LearnerLanguage = Callable[[str, str], Awaitable[str]]  # (platform, user id) -> the language of their DMs


def stored_languages(packs: Any) -> tuple[ServerLanguage, LearnerLanguage]:
    """Read the languages chosen with `/quiz language` where the repository keeps settings (else English)."""
    if not hasattr(packs, "get_setting"):
        async def english(_platform: str, _who: str) -> str:
            return DEFAULT_LANGUAGE

        return english, english
    locales = Locales(packs, Admins())

    async def learner(platform: str, user_id: str) -> str:
        return await locales.learner(Actor(platform, "", user_id))

    return locales.server, learner


class Scheduler:
    def __init__(
        self,
        *,
        store: SchedulerStore,
        packs: Packs,
        clock: Clock,
        poster: Poster,
        admins: frozenset[str] = frozenset(),
        sleep: Sleep | None = None,
        tally_every: timedelta = TALLY_EVERY,
        max_sleep_s: float = MAX_SLEEP_S,
        platforms: Iterable[str] | None = None,
        on_lag: Callable[[float], None] | None = None,
        languages: tuple[ServerLanguage, LearnerLanguage] | None = None,
        faults: FaultLog | None = None,
    ) -> None:
        """`platforms`: the front ends this process runs; it takes only their jobs (None: every platform).

        `languages`: where the server's and a learner's language are read (default: the repository's settings).
        `faults`: where a failed tick or job is logged: a database fault as one line per kind per interval,
        another error with its traceback once per interval (the process's shared log, so a database that is
        down is one line for the scheduler and the requests together).
        """
        self._faults = faults or FaultLog()
        self._server_language, self._learner_language = languages or stored_languages(packs)
        self._store = store
        self.platforms = frozenset(platforms) if platforms is not None else None
        self._packs = packs
        self._clock = clock
        self._poster = poster
        self._admins = admins
        self._tally_every = tally_every
        self._max_sleep_s = max_sleep_s
        self._woken = asyncio.Event()
        self._closing = False
        self._sleep = sleep or self._wait
        self._task: asyncio.Task[None] | None = None
        self._parallel = asyncio.Semaphore(PARALLEL_JOBS)
        self._on_lag = on_lag  # told, at each tick, how late it begins the job it slept for (seconds)

    # ------------------------------------------------------------ the task

    def start(self) -> asyncio.Task[None]:
        """Start the task (once); `quizbot run` calls this when QUIZBOT_SCHEDULER is on."""
        if self._task is None or self._task.done():
            self._closing = False
            self._task = asyncio.create_task(self.run(), name="quizbot-scheduler")
        return self._task

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            # The flag as well as the cancel: a cancel that lands inside a database call can be
            # swallowed below us (seen: the loop went on to sleep, and close() waited a minute).
            self._closing = True
            self._woken.set()
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                if not task.cancelled():
                    raise

    def wake(self) -> None:
        """Look again now: a schedule or reminder changed in this process."""
        self._woken.set()

    async def _wait(self, seconds: float) -> None:
        # asyncio.timeout rather than wait_for, which on Python 3.11 can lose a cancel that meets the
        # wake-up (CPython gh-86296); close() sets a flag as well (see there).
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self._woken.wait()
        self._woken.clear()

    async def run(self) -> None:
        """Run jobs as they fall due, forever."""
        wake_at: datetime | None = None
        while not self._closing:
            try:
                if self._on_lag is not None:
                    self._on_lag(max(0.0, (self._clock.now() - wake_at).total_seconds()) if wake_at else 0.0)
                wake_at = await self.tick()
                now = self._clock.now()
                if wake_at is None:
                    delay = self._max_sleep_s
                else:
                    # A job still due after a tick failed to move on: do not spin on it.
                    delay = min(max((wake_at - now).total_seconds(), 1.0), self._max_sleep_s)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self._faults.failure(exc, f"running the scheduler's tick (trying again in {IDLE_AFTER_ERROR_S:g} s)")
                delay = IDLE_AFTER_ERROR_S
            if self._closing:
                return
            await self._sleep(delay)

    def serves(self, platform: str) -> bool:
        """Whether this process runs `platform`'s front end, and so takes its jobs."""
        return self.platforms is None or platform in self.platforms

    async def tick(self) -> datetime | None:
        """Run every job of the platforms served that is due now; return when the next one may fall due."""
        now = self._clock.now()
        # Other processes serve the other platforms: their jobs are not claimed, paused or counted here.
        mine = self.platforms
        seen: set[tuple[str, ...]] = set()
        # Batches until none is left; a job that failed stays due, so stop when a batch brings nothing new.
        while True:
            schedules = [s for s in await self._store.due_schedules(now, BATCH, platforms=mine) if ("s", s.platform, s.channel_id) not in seen]
            seen.update(("s", x.platform, x.channel_id) for x in schedules)
            await self._all(
                self._guarded(
                    self._schedule_job(x, now), partial(self._store.advance_schedule, x, next_at=now + RETRY_AFTER)
                )
                for x in schedules
            )
            if not schedules:
                break
        while True:
            reveals = [p for p in await self._store.due_reveals(now, BATCH, platforms=mine) if ("r", p.id) not in seen]
            seen.update(("r", p.id) for p in reveals)
            await self._all(self._guarded(self._reveal(p, now)) for p in reveals)
            if not reveals:
                break
        tallies = await self._store.due_tallies(now, self._tally_every, BATCH, platforms=mine)
        await self._all(self._guarded(self._tally(p, now)) for p in tallies)
        while True:
            learners = [
                x for x in await self._store.due_reminders(now, BATCH, platforms=mine) if ("m", x.platform, x.user_id) not in seen
            ]
            seen.update(("m", x.platform, x.user_id) for x in learners)
            await self._all(
                self._guarded(self._remind(x, now), partial(self._store.advance_reminder, x, next_at=now + RETRY_AFTER))
                for x in learners
            )
            if not learners:
                break
        return await self._store.next_wake(self._tally_every, platforms=mine)

    async def _all(self, jobs: Iterable[Coroutine[Any, Any, None]]) -> None:
        """Run jobs for different channels and learners side by side, a few at a time."""
        async def limited(job: Coroutine[Any, Any, None]) -> None:
            async with self._parallel:
                await job

        await asyncio.gather(*(limited(job) for job in jobs))

    async def _guarded(self, job: Awaitable[object], retry: Callable[[], Awaitable[None]] | None = None) -> None:
        try:
            await job
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._faults.failure(exc, "running a scheduled job")
            if retry is not None:
                # Look again later, so one failing job does not hold up the others behind it.
                with contextlib.suppress(Exception):
                    await retry()

    # ------------------------------------------------------------ the channel's daily question

    async def _schedule_job(self, schedule: Schedule, now: datetime) -> None:
        day = due_day(schedule.at, schedule.tz, now, schedule.last_day)
        if day is None:
            # Either not yet today, or a day missed while down: yesterday's is never posted late.
            _, next_at = next_run(schedule.at, schedule.tz, now, schedule.last_day)
            await self._store.advance_schedule(schedule, next_at=next_at)
            return
        if await self._publish(schedule, day, now) == "taken":
            # Posted already that day (by another process, or before the schedule was set again):
            # look again at the next day's time, not every second until midnight.
            _, next_at = next_run(schedule.at, schedule.tz, now, day)
            await self._store.advance_schedule(schedule, next_at=next_at)

    async def post_now(self, actor: Actor, *, channel_id: str) -> Reply:
        """Post today's question now, once (`/quiz daily now`); admins only."""
        if not (actor.is_admin or actor.key in self._admins):
            raise NotAllowed(i18n._("post the daily question"), platform=actor.platform)
        if not self.serves(actor.platform):
            raise NotServed(actor.platform)
        schedule = await self._store.get_schedule(actor.platform, channel_id)
        if schedule is None or schedule.scope != actor.scope:
            raise NoSchedule()
        now = self._clock.now()
        today = local_day(now, schedule.tz)
        outcome = await self._publish(replace(schedule, paused=False), today, now)
        if outcome == "taken":
            return notice(i18n._("Today's question was already posted in this channel."))
        if outcome != "posted":
            return notice(i18n._("The daily question could not be posted: {why}.").format(why=pause_text(outcome)), tone=Tone.WARNING)
        self.wake()  # its tally and reveal are the loop's jobs from now on: look again, not in a minute
        return notice(i18n._("Today's question is posted."), tone=Tone.SUCCESS)

    async def _publish(self, schedule: Schedule, day: date, now: datetime) -> str:
        """Post `day`'s question once; return "posted", "taken" or why it could not be posted."""
        for old in await self._store.open_posts(schedule.platform, schedule.channel_id):
            if old.day < day:  # an earlier day's question closes as this one goes up; today's stays open
                await self._reveal(old, now)
        candidates = await self._store.candidates(schedule)
        used = await self._store.posted_in_cycle(schedule, schedule.cycle)
        picked = pick_item(candidates, used, seed=f"{schedule.platform}:{schedule.channel_id}:{day.isoformat()}")
        found = await self._question(*picked[0]) if picked is not None else None
        if picked is None or found is None:
            reason = pause_reason(NO_QUESTION)
            await self._pause(schedule, reason)
            return reason
        (item, new_round), (pack, question) = picked, found
        _, next_at = next_run(schedule.at, schedule.tz, now, day)
        hours = schedule.reveal_after_hours
        post = DailyPost(
            id=new_session_id(),
            platform=schedule.platform,
            scope=schedule.scope,
            channel_id=schedule.channel_id,
            day=day,
            pack=item[0],
            question=item[1],
            posted_at=now,
            reveal_at=min(now + timedelta(hours=hours), next_at) if hours is not None else next_at,
        )
        cycle = schedule.cycle + 1 if new_round else schedule.cycle
        if not await self._store.claim_post(schedule, post, cycle=cycle, next_at=next_at):
            return "taken"
        try:
            with use_locale(await self._server_language(post.platform, post.scope)):
                message = post_message(post, pack, question, Tally(0, 0))
            ref = await self._poster.post_item(post, message)
        except DeliveryFailed as exc:
            await self._store.mark_post(post.id, status="failed")
            await self._pause(schedule, pause_reason(CANNOT_POST, detail=exc.reason))
            return exc.reason
        except Exception:
            await self._store.mark_post(post.id, status="failed")
            raise
        await self._store.mark_post(post.id, status="posted", message_ref=ref)
        return "posted"

    async def _pause(self, schedule: Schedule, reason: str) -> None:
        if not await self._store.pause_schedule(schedule, reason):
            return  # paused already, and the admin was told then
        with use_locale(None):  # the log in English, whoever's request paused it
            log.warning("Daily question for %s:%s paused: %s", schedule.platform, schedule.channel_id, pause_text(reason))
        try:
            with use_locale(await self._learner_language(schedule.platform, schedule.set_by)):
                message = paused_message(replace(schedule, paused=True, pause_reason=reason))
            await self._poster.send_dm(schedule.platform, schedule.set_by, message)
        except DeliveryFailed:
            log.warning("Could not tell the admin %s that a schedule paused", schedule.set_by)

    async def _question(self, pack_id: str, question_id: str) -> tuple[Pack, AnyQuestion] | None:
        pack = await self._packs.get_pack(pack_id)
        question = pack.question(question_id) if pack is not None else None
        return (pack, question) if pack is not None and question is not None else None

    async def _reveal(self, post: DailyPost, now: datetime) -> None:
        if not await self._store.claim_reveal(post.id, now):
            return
        found = await self._question(post.pack, post.question)
        if found is None:
            return
        pack, question = found
        answers = await self._store.member_answers(post.id)
        counts = tally(answers)
        with use_locale(await self._server_language(post.platform, post.scope)):
            closed = closed_post_message(post, pack, question, counts)
            revealed = reveal_message(post, question, counts, first_right(answers))
        try:
            await self._poster.edit_post(post, closed)
            await self._poster.post_reveal(post, revealed)
        except DeliveryFailed as exc:
            log.warning("Could not reveal daily post %s: %s", post.id, exc.reason)

    async def _tally(self, post: DailyPost, now: datetime) -> None:
        current = await self._store.claim_tally(post.id, now, self._tally_every)
        found = await self._question(post.pack, post.question) if current is not None else None
        if current is None or found is None:
            return
        pack, question = found
        with use_locale(await self._server_language(current.platform, current.scope)):
            message = post_message(current, pack, question, Tally(current.answered, current.right))
        try:
            await self._poster.edit_post(current, message)
        except DeliveryFailed as exc:
            log.warning("Could not update the tally of daily post %s: %s", post.id, exc.reason)

    # ------------------------------------------------------------ reminders

    async def _remind(self, learner: Learner, now: datetime) -> None:
        reminder = learner.reminder
        if reminder is None or reminder.stopped:
            return
        zone = ZoneInfo(reminder.zone)
        day = due_day(reminder.at, zone, now, reminder.last_day)
        _, next_at = next_run(reminder.at, zone, now, day if day is not None else reminder.last_day)
        if day is None:
            await self._store.advance_reminder(learner, next_at=next_at)
            return
        done = await self._store.day_count(learner.platform, learner.user_id, review_day(now, learner.tz))
        _, due_total, _ = await self._store.due_cards(learner.platform, learner.user_id, now, 0)
        due = min(due_total, max(learner.caps.reviews - done.reviews, 0))
        if not await self._store.claim_reminder(learner, day, due=due, now=now, next_at=next_at):
            # Taken already that day (by another process, or before the reminder was set again):
            # never a second one, and no looking again until the next day's time.
            await self._store.advance_reminder(learner, next_at=next_at)
            return
        if due == 0:
            return
        with use_locale(await self._learner_language(learner.platform, learner.user_id)):
            message = reminder_message(due)
        try:
            await self._poster.send_dm(learner.platform, learner.user_id, message)
            delivered = True
        except DeliveryFailed as exc:
            log.info("Reminder to %s:%s not delivered: %s", learner.platform, learner.user_id, exc.reason)
            delivered = False
        after = after_delivery(reminder, delivered=delivered)
        await self._store.finish_reminder(
            learner, day, sent=delivered, failures=after.failures, stopped=after.stopped
        )


def scheduler_for(
    settings: Settings,
    *,
    repository: SqlRepository,
    poster: Poster,
    clock: Clock,
    platforms: Iterable[str] | None = None,
) -> Scheduler | None:
    """Build the scheduler for `quizbot run`, or None when QUIZBOT_SCHEDULER is off."""
    if settings.scheduler == "off":
        return None
    return Scheduler(
        store=DailyRepository.beside(repository),
        packs=repository,
        clock=clock,
        poster=poster,
        admins=frozenset(settings.admins),
        platforms=platforms,
    )
