"""The neutral messages of daily practice, for each adapter to render like any other reply."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from zoneinfo import ZoneInfo

from babel.dates import format_datetime

from bot.core import actions as ax
from bot.core.i18n import _, current, ngettext, number, pgettext
from bot.core.items import Make, kind_of
from bot.core.model import ItemState, Owner, Session
from bot.core.packs.models import AnyQuestion, Pack
from bot.core.render import correct_answer_text, difficulty_name, item_message
from bot.core.replies import Button, Control, Fields, Message, Text, Tone, cmd

from . import actions as dx
from .channel import DailyPost, MemberAnswer, Tally
from .pauses import pause_text
from .queue import DailyQueue, minutes_for
from .reminders import Reminder, reminder_text
from .schedule import Schedule
from .shown import post_version, tagged
from .streak import Streak


def _as_session(post: DailyPost) -> Session:
    """Dress the post as a one-item channel session, so it renders like any quiz item."""
    return Session(
        id=post.id,
        owner=Owner(post.platform, post.scope, "channel", post.channel_id),
        started_by="",
        started_by_name="",
        items=[ItemState(post.pack, post.question)],
    )


_NOT_IN_A_CHANNEL = {ax.SKIP, ax.STOP, ax.RESTART}  # a member cannot skip or stop the channel's question


def _channel_rows(message: Message, version: str = "") -> tuple[tuple[Control, ...], ...]:
    """The post's controls: no Skip or Stop, the post's prefix, positions tagged with `version` (`shown`)."""
    rows = []
    for row in message.rows:
        kept = tuple(
            tagged(dx.post_control(c), version) for c in row if (a := ax.parse(c.action)) is None or a.verb not in _NOT_IN_A_CHANNEL
        )
        if kept:
            rows.append(kept)
    return tuple(rows)


def post_message(post: DailyPost, pack: Pack, question: AnyQuestion, counts: Tally) -> Message:
    """Render the day's post: the item with its controls, and the live tally below."""
    item = item_message(_as_session(post), 0, pack, question)
    item = replace(item, rows=_channel_rows(item, post_version(question)))
    topic = pack.topic_title(question.topic)
    title = post_title(post) + (f" · {topic}" if topic else "")
    note = Text(_("_Answer privately with the controls below; one scored answer each._"))
    if kind_of(question).form(question, Make(post.id, 0)) is not None:
        note = Text(
            _(
                "_Answer privately with the controls below; one scored answer each. A code block sent in this "
                "post's thread counts too: everyone can read it, only you see its feedback._"
            )
        )
    return replace(item, title=title, parts=(*item.parts, note), footer=counts.text(), session_id=post.id)


def closed_post_message(post: DailyPost, pack: Pack, question: AnyQuestion, counts: Tally) -> Message:
    """Render the post once revealed: controls disabled, the tally final."""
    item = item_message(_as_session(post), 0, pack, question, final=True)
    item = replace(item, rows=_channel_rows(item))
    title = post_title(post) + " · " + _("closed")
    return replace(item, title=title, footer=counts.text(), session_id=post.id)


def reveal_message(post: DailyPost, question: AnyQuestion, counts: Tally, first: Sequence[MemberAnswer]) -> Message:
    """Render the reveal: the answer, the explanation, who got it right first, the final tally."""
    parts: list[Text | Fields] = []
    answer = correct_answer_text(question)
    if answer:
        parts.append(Text(answer))
    if question.explanation:
        parts.append(Text(question.explanation))
    names = ", ".join(a.name or a.user_id for a in first)
    parts.append(Fields(((_("Right first"), names or _("nobody this time")), (_("Tally"), counts.text()))))
    return Message(
        kind="notice", parts=tuple(parts), title=post_title(post) + " · " + _("the answer"),
        tone=Tone.SUCCESS, session_id=post.id,
    )


def answer_feedback(answer: MemberAnswer, *, attempts_left: int, detail: str = "") -> Message:
    """Render a member's private feedback on the daily question."""
    if answer.done and answer.correct:
        text, tone = _("Right! Your answer is counted; the tally is updated."), Tone.SUCCESS
    elif answer.done:
        text, tone = _("Not quite, and that was your last attempt. The answer shows at reveal time."), Tone.FAILURE
    else:
        left = ngettext("Not quite. {n} attempt left.", "Not quite. {n} attempts left.", attempts_left)
        text, tone = left.format(n=number(attempts_left)), Tone.FAILURE
    parts = (Text(detail), Text(text)) if detail else (Text(text),)
    return Message(kind="feedback", parts=parts, tone=tone)


def schedule_message(schedule: Schedule, *, now: datetime) -> Message:
    """Describe a channel's schedule for `/quiz daily show` and after `/quiz daily set`."""
    reveal = (
        _("{hours} h after posting").format(hours=f"{schedule.reveal_after_hours:g}")
        if schedule.reveal_after_hours is not None
        else _("when the next question is posted")
    )
    state = _("paused: {reason}").format(reason=pause_text(schedule.pause_reason)) if schedule.paused else _("on")
    fields = [
        (_("Channel"), f"<#{schedule.channel_id}>"),
        (_("Time"), f"{schedule.at_text} {schedule.zone}"),
        (_("Packs"), ", ".join(f"`{p}`" for p in schedule.packs) or _("every enabled pack")),
        (_("Topic"), schedule.topic or _("any")),
        (_("Difficulty"), difficulty_name(schedule.difficulty) if schedule.difficulty else _("any")),
        (_("Reveal"), reveal),
        (_("State"), state),
    ]
    if schedule.next_at is not None and not schedule.paused:
        fields.append((_("Next post"), local_text(schedule.next_at, schedule.tz)))
    return Message(kind="admin", parts=(Fields(tuple(fields)),), title=_("Daily question"))


def paused_message(schedule: Schedule) -> Message:
    """Tell the admin who set a schedule that it paused, and why."""
    return Message(
        kind="admin",
        title=_("Daily question paused"),
        tone=Tone.WARNING,
        parts=(
            Text(
                _("The daily question for {channel} is paused: {reason}. Fix it, then set the schedule again with {set}.").format(
                    channel=f"<#{schedule.channel_id}>", reason=pause_text(schedule.pause_reason), set=cmd("daily set")
                )
            ),
        ),
    )


def local_text(instant: datetime, zone: ZoneInfo) -> str:
    """Write an instant in a zone for people: `Thu 3 Dec 18:00 (Europe/Berlin)`."""
    local = instant.astimezone(zone)
    return f"{format_datetime(local, 'EEE d MMM HH:mm', locale=current())} ({zone.key})"


def queue_message(queue: DailyQueue, zone: ZoneInfo) -> Message:
    """Introduce today's review, or say when the next card is due."""
    if queue.empty and queue.due_total > 0:  # cards are due, but today's cap of reviews is used up
        text = ngettext(
            "You have done today's reviews: {n} more card is due, over your daily cap. It waits for tomorrow, "
            "or raise the cap with {settings} `reviews:<number>`.",
            "You have done today's reviews: {n} more cards are due, over your daily cap. They wait for tomorrow, "
            "or raise the cap with {settings} `reviews:<number>`.",
            queue.due_total,
        ).format(n=number(queue.due_total), settings=cmd("daily settings"))
        return Message(kind="notice", parts=(Text(text),), title=_("Daily review"))
    if queue.empty:
        later = (
            _("Your next card is due {when}.").format(when=local_text(queue.next_due, zone))
            if queue.next_due is not None
            else _("Start a quiz with {start} to get cards to review.").format(start=cmd("start"))
        )
        text = _("Nothing is due for today.") + " " + later
        return Message(kind="notice", parts=(Text(text),), title=_("Daily review"))
    reviews, new = len(queue.reviews), len(queue.new)
    minutes = minutes_for(reviews + new)
    text = _("{reviews} and {new} today, {minutes}.").format(
        reviews=ngettext("{n} review", "{n} reviews", reviews).format(n=number(reviews)),
        new=ngettext("{n} new item", "{n} new items", new).format(n=number(new)),
        minutes=ngettext("about {n} minute", "about {n} minutes", minutes).format(n=number(minutes)),
    )
    return Message(kind="notice", parts=(Text(text),), title=_("Daily review"))


def reminder_message(due: int) -> Message:
    """The reminder DM: how much is due, and a Start button."""
    return Message(
        kind="notice",
        title=_("Daily review"),
        parts=(Text(reminder_text(due) + "."),),
        rows=((Button(dx.make(dx.START_REVIEW), pgettext("button", "Start"), "primary"),),),
    )


def daily_stats_fields(
    streak: Streak, *, due: int, leeches: Sequence[tuple[str, str]], reminder: Reminder | None
) -> Fields:
    """Streak, due count, leeches and the reminder's state, for `/quiz stats`."""
    items = [
        (_("Streak"), _("{days} (longest {longest})").format(days=_days(streak.current), longest=number(streak.longest))),
        (_("Streak freezes"), number(streak.freezes)),
        (_("Due today"), number(due)),
        (_("Leeches"), ", ".join(f"`{p}/{q}`" for p, q in leeches) or _("none")),
    ]
    if reminder is not None:
        if reminder.stopped:
            state = _("stopped: direct messages failed twice (open your DMs, then set {remind} again)").format(
                remind="/quiz remind"
            )
        else:
            state = f"{reminder.at:%H:%M} {reminder.zone}"
        items.append((_("Reminder"), state))
    return Fields(tuple(items))


def _days(n: int) -> str:
    return ngettext("{n} day", "{n} days", n).format(n=number(n))


def post_title(post: DailyPost) -> str:
    """The post's title: the day written as a date stamp (year-month-day), the same in every language."""
    return _("Daily question · {day}").format(day=post.day.isoformat())
