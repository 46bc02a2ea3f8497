"""The scheduler: one asyncio task that runs daily posts, reveals, tally edits and reminders.

All of its state is in the database, so it survives restarts; each job is taken by an atomic
claim there, so several bot processes sharing PostgreSQL never run one twice. A claim is taken
before the platform is called: a process that dies between the two loses that one job rather
than ever repeating it. Time comes from the clock port, and sleeping through the `sleep`
function given, so tests drive days of schedule with a fake clock in milliseconds.

This module is the loop: what is due, the claims' batches, the task. What each job does is in
`bot.scheduling.jobs`, and what the scheduler asks of the platforms in `bot.scheduling.posters`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from dataclasses import replace
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from bot.core import i18n
from bot.core.daily.channel import TALLY_EVERY
from bot.core.daily.errors import NoSchedule, NotServed
from bot.core.daily.pauses import pause_text
from bot.core.daily.ports import Packs, SchedulerStore
from bot.core.daily.schedule import in_direct_message
from bot.core.daily.timing import local_day
from bot.core.errors import NotAllowed
from bot.core.faults import FaultLog
from bot.core.model import Actor
from bot.core.ports import Clock
from bot.core.replies import Reply, Tone, notice
from bot.scheduling.jobs import DailyJobs, LearnerLanguage, ServerLanguage, stored_languages
from bot.scheduling.posters import DeliveryFailed, PlatformPosters, Poster
from bot.settings import Settings
from bot.storage.daily import DailyRepository
from bot.storage.repository import SqlRepository

# The platform port and the jobs' languages are defined in bot.scheduling, and importable from here as before.
__all__ = [
    "BATCH", "IDLE_AFTER_ERROR_S", "MAX_SLEEP_S", "PARALLEL_JOBS", "RETRY_AFTER", "DeliveryFailed",
    "LearnerLanguage", "PlatformPosters", "Poster", "Scheduler", "ServerLanguage", "Sleep", "scheduler_for",
    "stored_languages",
]

MAX_SLEEP_S = 60.0  # look at the database at least this often: other processes change schedules too
IDLE_AFTER_ERROR_S = 30.0
BATCH = 100
PARALLEL_JOBS = 8  # jobs in flight at once: platform calls overlap, the database pool is not drained
RETRY_AFTER = timedelta(minutes=5)  # a job that failed is looked at again after this


Sleep = Callable[[float], Awaitable[None]]


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
        self._store = store
        self.platforms = frozenset(platforms) if platforms is not None else None
        languages = languages or stored_languages(packs)
        self._jobs = DailyJobs(store=store, packs=packs, poster=poster, languages=languages, tally_every=tally_every)
        self._clock = clock
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
                    self._jobs.schedule_job(x, now), partial(self._store.advance_schedule, x, next_at=now + RETRY_AFTER)
                )
                for x in schedules
            )
            if not schedules:
                break
        while True:
            reveals = [p for p in await self._store.due_reveals(now, BATCH, platforms=mine) if ("r", p.id) not in seen]
            seen.update(("r", p.id) for p in reveals)
            await self._all(self._guarded(self._jobs.reveal(p, now)) for p in reveals)
            if not reveals:
                break
        tallies = await self._store.due_tallies(now, self._tally_every, BATCH, platforms=mine)
        await self._all(self._guarded(self._jobs.refresh_tally(p, now)) for p in tallies)
        while True:
            learners = [
                x for x in await self._store.due_reminders(now, BATCH, platforms=mine) if ("m", x.platform, x.user_id) not in seen
            ]
            seen.update(("m", x.platform, x.user_id) for x in learners)
            await self._all(
                self._guarded(self._jobs.remind(x, now), partial(self._store.advance_reminder, x, next_at=now + RETRY_AFTER))
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

    # ------------------------------------------------------------ `/quiz daily now`

    async def post_now(self, actor: Actor, *, channel_id: str) -> Reply:
        """Post today's question now, once (`/quiz daily now`); admins only."""
        if not (actor.is_admin or actor.key in self._admins):
            in_dm = in_direct_message(actor.platform, actor.scope, channel_id)  # nobody is an admin in a DM: say so
            raise NotAllowed(i18n._("post the daily question"), in_dm=in_dm, platform=actor.platform)
        if not self.serves(actor.platform):
            raise NotServed(actor.platform)
        schedule = await self._store.get_schedule(actor.platform, channel_id)
        if schedule is None or schedule.scope != actor.scope:
            raise NoSchedule()
        now = self._clock.now()
        today = local_day(now, schedule.tz)
        outcome = await self._jobs.publish(replace(schedule, paused=False), today, now)
        if outcome == "taken":
            return notice(i18n._("Today's question was already posted in this channel."))
        if outcome != "posted":
            return notice(i18n._("The daily question could not be posted: {why}.").format(why=pause_text(outcome)), tone=Tone.WARNING)
        self.wake()  # its tally and reveal are the loop's jobs from now on: look again, not in a minute
        return notice(i18n._("Today's question is posted."), tone=Tone.SUCCESS)


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
