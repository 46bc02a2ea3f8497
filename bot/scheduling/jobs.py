"""The scheduler's job bodies: post the day's question, reveal it, edit its tally, send a reminder.

`bot.scheduler.Scheduler` finds what is due and runs these side by side; each job takes its own
claim in the database before the platform is called, so it runs once across processes.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from bot.core.admin import Admins
from bot.core.daily.channel import DailyPost, Tally, first_right, tally
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
from bot.core.daily.timing import due_day, next_run
from bot.core.i18n import DEFAULT as DEFAULT_LANGUAGE
from bot.core.i18n import use_locale
from bot.core.locale import Locales
from bot.core.model import Actor, new_session_id
from bot.core.packs.models import AnyQuestion, Pack
from bot.core.review import due_before

from .posters import DeliveryFailed, Poster

log = logging.getLogger("bot.scheduler")  # the scheduler's log, under its name from before the jobs moved here

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


class DailyJobs:
    """One of each job, run by the scheduler: what a job does once it is due."""

    def __init__(
        self,
        *,
        store: SchedulerStore,
        packs: Packs,
        poster: Poster,
        languages: tuple[ServerLanguage, LearnerLanguage],
        tally_every: timedelta,
    ) -> None:
        self._server_language, self._learner_language = languages
        self._store = store
        self._packs = packs
        self._poster = poster
        self._tally_every = tally_every

    # ------------------------------------------------------------ the channel's daily question

    async def schedule_job(self, schedule: Schedule, now: datetime) -> None:
        day = due_day(schedule.at, schedule.tz, now, schedule.last_day)
        if day is None:
            # Either not yet today, or a day missed while down: yesterday's is never posted late.
            _, next_at = next_run(schedule.at, schedule.tz, now, schedule.last_day)
            await self._store.advance_schedule(schedule, next_at=next_at)
            return
        if await self.publish(schedule, day, now) == "taken":
            # Posted already that day (by another process, or before the schedule was set again):
            # look again at the next day's time, not every second until midnight.
            _, next_at = next_run(schedule.at, schedule.tz, now, day)
            await self._store.advance_schedule(schedule, next_at=next_at)

    async def publish(self, schedule: Schedule, day: date, now: datetime) -> str:
        """Post `day`'s question once; return "posted", "taken" or why it could not be posted."""
        for old in await self._store.open_posts(schedule.platform, schedule.channel_id):
            if old.day < day:  # an earlier day's question closes as this one goes up; today's stays open
                await self.reveal(old, now)
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

    async def reveal(self, post: DailyPost, now: datetime) -> None:
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

    async def refresh_tally(self, post: DailyPost, now: datetime) -> None:
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

    async def remind(self, learner: Learner, now: datetime) -> None:
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
        _, due_total, _ = await self._store.due_cards(learner.platform, learner.user_id, now, due_before(now, learner.tz), 0)
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
