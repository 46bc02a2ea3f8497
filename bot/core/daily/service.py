"""Daily practice for the adapters: one method per command, a neutral reply out.

Here: the channel schedule, the personal review and its leeches, the learner's settings,
reminders, the daily stats. Answering a channel's daily post is `answering.py`'s
(`PostAnswering`): its methods are handed out as the service's own (`DailyService.answer_post`).
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta

from bot.core.answer import AnswerWrite, Leech, PracticeDay
from bot.core.errors import NotAllowed, UnknownName, place_word
from bot.core.faults import FaultLog
from bot.core.i18n import _, number
from bot.core.model import Actor
from bot.core.packs.models import Pack
from bot.core.ports import Clock
from bot.core.progress import is_mastered, streak_on
from bot.core.replies import Fields, Message, Reply, Text, Tone, cmd, notice
from bot.core.review import due_before

from . import actions as dx
from .answering import MAX_ID, PostAnswering
from .cards import LEECH_FAILURES
from .errors import BadSetting, CantPost, NoSchedule
from .learner import Learner
from .messages import daily_stats_fields, queue_message, schedule_message
from .ports import ChannelCheck, DailyStore, Packs, PostAccess
from .queue import Caps, DailyQueue, build_queue, review_day
from .reminders import Reminder
from .rotation import ItemKey
from .schedule import Schedule, check_filters, in_direct_message, parse_reveal_hours, parse_time, parse_zone
from .timing import local_day, next_run, occurrence

log = logging.getLogger(__name__)
CHECK_SECONDS = 5.0  # how long `/quiz daily set` waits for the platform to say whether the bot can post


class DailyService:
    """Schedules, the daily question's answers, the personal review, reminders, streaks."""

    def __init__(
        self,
        *,
        store: DailyStore,
        packs: Packs,
        clock: Clock,
        admins: frozenset[str] = frozenset(),
        wake: Callable[[], None] | None = None,
        faults: FaultLog | None = None,
        channels: ChannelCheck | None = None,
    ) -> None:
        self._store = store
        self._channels = channels  # asked by `/quiz daily set` (the platforms' posters); None: nothing is asked
        self._packs = packs
        self._clock = clock
        self._admins = admins
        self._wake = wake or (lambda: None)  # tells this process's scheduler that a job changed
        # Answering the daily post (answering.py). Its bound methods are the service's attributes:
        # `service.answer_post(...)` calls `PostAnswering.answer_post` itself, no call in between.
        answering = PostAnswering(
            store=store, packs=packs, clock=clock, wake=self._wake,
            faults=faults or FaultLog(),  # what fails after an answer's commit is logged, not raised
        )  # fmt: skip
        self.answering = answering
        self.post, self.post_at, self.open_post = answering.post, answering.post_at, answering.open_post
        self.answer_post, self.hint_post, self.select = answering.answer_post, answering.hint_post, answering.select
        self.member_answer = answering.member_answer

    async def _access(self, platform: str, channel_id: str) -> PostAccess:
        if self._channels is None:
            return PostAccess()
        try:
            return await asyncio.wait_for(self._channels.can_post(platform, channel_id), CHECK_SECONDS)
        except TimeoutError:
            log.warning("%s did not say within %.0f s whether the bot can post in a channel", platform, CHECK_SECONDS)
        except Exception:  # the check is advice: a failing one never blocks the setting
            log.exception("could not check whether the bot can post in a %s channel", platform)
        return PostAccess(checked=False)

    def is_admin(self, actor: Actor) -> bool:
        return actor.is_admin or actor.key in self._admins

    # ------------------------------------------------------------ channel schedule

    async def set_schedule(
        self,
        actor: Actor,
        *,
        channel_id: str,
        time: str,
        timezone: str,
        pack: str | None = None,
        topic: str | None = None,
        difficulty: str | None = None,
        reveal_after_hours: float | str | None = None,
    ) -> Reply:
        """Set (or replace) the channel's daily question; admins only."""
        if not self.is_admin(actor):
            in_dm = in_direct_message(actor.platform, actor.scope, channel_id)  # nobody is an admin in a DM: say so
            raise NotAllowed(_("set the channel's daily question"), in_dm=in_dm, platform=actor.platform)
        if not channel_id or len(channel_id) > MAX_ID:
            raise BadSetting(_("That channel id is not one the bot can use."))
        if in_direct_message(actor.platform, actor.scope, channel_id):
            raise BadSetting(
                _("The daily question is posted in a channel, not in a direct message: use {set} in that channel.").format(
                    set=cmd("daily set")
                )
            )
        previous = await self._store.get_schedule(actor.platform, channel_id)
        kept = previous if previous is not None and previous.scope == actor.scope else None  # what a blank option keeps
        if kept is None and not (time.strip() and timezone.strip()):  # Discord's `time` and `timezone` are optional
            raise BadSetting(
                _("Give the time and the time zone of the daily question, as in {set} `time:09:30 timezone:Europe/Berlin`.").format(
                    set=cmd("daily set")
                )
            )
        at = parse_time(time) if time.strip() or kept is None else kept.at
        zone = parse_zone(timezone if timezone.strip() or kept is None else kept.zone)
        hours = parse_reveal_hours(reveal_after_hours)
        packs = (pack,) if pack else ()
        check_filters(packs, topic, difficulty)
        enabled = [p for p in await self._packs.list_packs(actor.scope) if p.enabled]
        if pack and pack not in {p.id for p in enabled}:
            raise UnknownName("pack", pack, [p.id for p in enabled])
        if topic:
            chosen = [p for p in enabled if not pack or p.id == pack]
            topics = sorted({t for p in chosen for t, _title in p.topics})
            if topic not in topics:
                raise UnknownName("topic", topic, topics)
        now = self._clock.now()
        today = local_day(now, zone)
        # Set after today's time: the first post is tomorrow's, not one right now.
        last_day = today if occurrence(today, at, zone) <= now else today - timedelta(days=1)
        if previous is not None and previous.scope != actor.scope:
            # A channel shared with another server or workspace: its schedule is its admins' to change.
            raise BadSetting(
                _("{channel} has a daily question set by another {place}; only its admins can change it.").format(
                    channel=f"<#{channel_id}>", place=place_word(actor.platform)
                )
            )
        if previous is not None and previous.last_day is not None and previous.last_day >= today:
            last_day = max(last_day, previous.last_day)
        access = await self._access(actor.platform, channel_id)
        if access.problem is not None:
            raise CantPost(channel_id, access.problem)
        _day, next_at = next_run(at, zone, now, last_day)
        schedule = Schedule(
            platform=actor.platform,
            scope=actor.scope,
            channel_id=channel_id,
            at=at,
            zone=zone.key,
            packs=packs,
            topic=topic or None,
            difficulty=difficulty or None,
            reveal_after_hours=hours,
            set_by=actor.user_id,
            last_day=last_day,
            cycle=previous.cycle if previous is not None else 0,
            next_at=next_at,
        )
        await self._store.save_schedule(schedule)
        self._wake()
        message = replace(schedule_message(schedule, now=now), tone=Tone.SUCCESS, title=_("Daily question set"))
        if not access.checked:
            unchecked = _(
                "I could not check that I can post in {channel}. If the first question does not appear there,"
                " check that the bot can see the channel and send messages in it, then use {set} again."
            ).format(channel=f"<#{channel_id}>", set=cmd("daily set"))
            message = replace(message, parts=(*message.parts, Text(unchecked)), tone=Tone.WARNING)
        return Reply(messages=(message,))

    async def show_schedule(self, actor: Actor, *, channel_id: str | None = None) -> Reply:
        """Show the channel's schedule, or every schedule of the server when no channel is named."""
        now = self._clock.now()
        if channel_id is not None:
            schedule = await self._store.get_schedule(actor.platform, channel_id)
            if schedule is None or schedule.scope != actor.scope:
                raise NoSchedule()
            return Reply(messages=(schedule_message(schedule, now=now),))
        schedules = await self._store.list_schedules(actor.platform, actor.scope)
        if not schedules:
            raise NoSchedule()
        return Reply(messages=tuple(schedule_message(s, now=now) for s in schedules))

    async def turn_off(self, actor: Actor, *, channel_id: str) -> Reply:
        """Remove the channel's daily question; admins only. Posts already made keep working."""
        if not self.is_admin(actor):
            in_dm = in_direct_message(actor.platform, actor.scope, channel_id)
            raise NotAllowed(_("turn off the channel's daily question"), in_dm=in_dm, platform=actor.platform)
        schedule = await self._store.get_schedule(actor.platform, channel_id)
        if schedule is None or schedule.scope != actor.scope:
            raise NoSchedule()
        await self._store.delete_schedule(actor.platform, channel_id)
        self._wake()
        return notice(_("The daily question for {channel} is off.").format(channel=f"<#{channel_id}>"), tone=Tone.SUCCESS)

    # ------------------------------------------------------------ personal review

    async def learner(self, actor: Actor) -> Learner:
        return await self._store.get_learner(actor.platform, actor.user_id)

    async def review_queue(self, actor: Actor) -> DailyQueue:
        """Return today's review: due cards most overdue first, then new items, within the caps."""
        learner = await self.learner(actor)
        now = self._clock.now()
        day = review_day(now, learner.tz)
        done = await self._store.day_count(actor.platform, actor.user_id, day)
        room = max(learner.caps.reviews - done.reviews, 0)
        due, due_total, next_due = await self._store.due_cards(actor.platform, actor.user_id, now, due_before(now, learner.tz), room)
        packs = learner.packs or tuple(await self._store.practised_packs(actor.platform, actor.user_id))
        new_room = max(learner.caps.new - done.new, 0)
        new = await self._store.new_items(actor.platform, actor.user_id, packs, new_room) if new_room else []
        queue = build_queue(due, new, now=now, zone=learner.tz, caps=learner.caps, done=done, next_due=next_due)
        return replace(queue, due_total=due_total)

    async def review_intro(self, actor: Actor) -> tuple[DailyQueue, Reply]:
        """Return the queue and the message that opens it (or says when the next card is due)."""
        learner = await self.learner(actor)
        queue = await self.review_queue(actor)
        return queue, Reply(messages=(queue_message(queue, learner.tz),))

    async def review_parts(
        self, platform: str, user_id: str, item: ItemKey, unit: AnswerWrite, *, new: bool
    ) -> tuple[AnswerWrite, bool]:
        """Add a daily-review answer's bookkeeping to its unit of work: the day's count, failures toward a leech.

        Returns the unit and whether this answer made the card a leech. The FSRS card itself is
        moved by `bot.core.answer` like any answer's.
        """
        correct = unit.attempt is not None and unit.attempt.correct
        failures, suspended = await self._store.card_failures(platform, user_id, item)
        failed = failures + (0 if correct else 1)
        leech = failed >= LEECH_FAILURES
        change = None
        if failed != failures or (leech and not suspended):
            change = Leech(item[0], item[1], failed, suspended or leech)
        day = PracticeDay(platform, user_id, self._clock.now(), reviews=0 if new else 1, new=1 if new else 0)
        return replace(unit, day=day, leech=change), leech and not suspended

    async def reset_leech(self, actor: Actor, item: ItemKey) -> Reply:
        """Put a leech back into the daily review with its failures forgotten."""
        _failed, suspended = await self._store.card_failures(actor.platform, actor.user_id, item)
        if not suspended:
            return notice(_("`{item}` is not a leech.").format(item=f"{item[0]}/{item[1]}"))
        await self._store.save_card_failures(actor.platform, actor.user_id, item, 0, False)
        return notice(_("`{item}` is back in your daily review.").format(item=f"{item[0]}/{item[1]}"), tone=Tone.SUCCESS)

    async def reset_leech_by_digest(self, actor: Actor, digest: str) -> Reply:
        """Reset the learner's leech whose Reset button names it by its digest (`actions.reset_leech`)."""
        cards = [(pack, question) for pack, question, _card in await self._store.cards(actor.platform, actor.user_id)]
        for item in [*await self.leeches(actor), *cards]:  # a card no longer a leech (pressed twice) is named as such
            if dx.leech_digest(*item) == digest:
                return await self.reset_leech(actor, item)
        return notice(_("That item is not a leech any more: it is in your daily review."))

    async def leeches(self, actor: Actor) -> list[ItemKey]:
        """Return the learner's leeches (cards suspended from the daily review)."""
        return await self._store.leeches(actor.platform, actor.user_id)

    async def settings(
        self,
        actor: Actor,
        *,
        reviews: int | None = None,
        new: int | None = None,
        timezone: str | None = None,
        packs: tuple[str, ...] | None = None,
    ) -> Reply:
        """Change (or just show, with no arguments) the learner's caps, time zone and packs."""
        learner = await self.learner(actor)
        changed = learner
        if reviews is not None or new is not None:
            changed = replace(
                changed,
                caps=Caps(
                    reviews=learner.caps.reviews if reviews is None else reviews,
                    new=learner.caps.new if new is None else new,
                ),
            )
        if timezone is not None:
            changed = replace(changed, zone=parse_zone(timezone).key)
        if packs is not None:
            check_filters(packs, None, None)
            known = {p.id for p in await self._packs.list_packs(actor.scope) if p.enabled}
            for p in packs:
                if p not in known:
                    raise UnknownName("pack", p, sorted(known))
            changed = replace(changed, packs=packs)
        if changed != learner:
            await self._store.save_learner(changed)
        fields = Fields(
            (
                (_("Reviews a day"), number(changed.caps.reviews)),
                (_("New items a day"), number(changed.caps.new)),
                (_("Time zone"), changed.zone),
                (_("Day starts"), "04:00"),
                (_("Packs"), ", ".join(f"`{p}`" for p in changed.packs) or _("the packs you have practised")),
            )
        )
        title = _("Daily review settings saved") if changed != learner else _("Daily review settings")
        return Reply(messages=(Message(kind="notice", title=title, parts=(fields,)),))

    # ------------------------------------------------------------ reminders

    async def remind(self, actor: Actor, *, time: str, timezone: str) -> Reply:
        """Turn on the daily reminder DM at `time` in `timezone` (it also becomes the learner's zone; none: theirs)."""
        at = parse_time(time)
        learner = await self.learner(actor)
        zone = parse_zone(timezone if timezone.strip() else learner.zone)  # Discord's `timezone` is optional
        now = self._clock.now()
        today = local_day(now, zone)
        last_day = today if occurrence(today, at, zone) <= now else today - timedelta(days=1)
        _day, next_at = next_run(at, zone, now, last_day)
        reminder = Reminder(at=at, zone=zone.key, last_day=last_day, next_at=next_at)
        await self._store.save_learner(replace(learner, zone=zone.key, reminder=reminder))
        self._wake()
        return notice(
            _(
                "You will get a direct message at {time} ({zone}) on days when reviews are due. Turn it off with {off}."
            ).format(time=f"{at:%H:%M}", zone=zone.key, off=cmd("remind off")),
            tone=Tone.SUCCESS,
            title=_("Reminder on"),
        )

    async def remind_off(self, actor: Actor) -> Reply:
        learner = await self.learner(actor)
        if learner.reminder is None:
            return notice(_("You have no reminder."))
        await self._store.save_learner(replace(learner, reminder=None))
        self._wake()
        return notice(_("Reminder off."), tone=Tone.SUCCESS)

    # ------------------------------------------------------------ stats

    async def stats(self, actor: Actor, *, user_id: str | None = None) -> Fields:
        """Return the daily part of `/quiz stats`: streak, due today, leeches, reminder state."""
        who = user_id or actor.user_id
        learner = await self._store.get_learner(actor.platform, who)
        now = self._clock.now()
        streak = streak_on(learner.streak, now, learner.tz)
        _cards, due_total, _more = await self._store.due_cards(actor.platform, who, now, due_before(now, learner.tz), 0)
        leeches = await self._store.leeches(actor.platform, who)
        # The reminder (its hour and time zone) is the learner's own: someone else's stats leave it out.
        reminder = learner.reminder if who == actor.user_id else None
        return daily_stats_fields(streak, due=due_total, leeches=leeches, reminder=reminder)

    async def mastered(self, actor: Actor, *, user_id: str | None = None) -> dict[tuple[str, str], int]:
        """Count mastered items (stability above 21 days) per (pack, topic title)."""
        counts: Counter[tuple[str, str]] = Counter()
        packs: dict[str, Pack | None] = {}
        for pack_id, question_id, card in await self._store.cards(actor.platform, user_id or actor.user_id):
            if not is_mastered(card):
                continue
            if pack_id not in packs:
                packs[pack_id] = await self._packs.get_pack(pack_id)
            pack = packs[pack_id]
            question = pack.question(question_id) if pack is not None else None
            if pack is None or question is None:
                continue  # a removed pack's or question's card stays in history: not counted, as on the picture
            counts[(pack_id, pack.topic_title(question.topic))] += 1
        return dict(counts)

