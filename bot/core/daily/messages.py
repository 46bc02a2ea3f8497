"""The neutral messages of daily practice, for each adapter to render like any other reply."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from zoneinfo import ZoneInfo

from bot.core import actions as ax
from bot.core.items import Make, kind_of
from bot.core.model import ItemState, Owner, Session
from bot.core.packs.models import AnyQuestion, Pack
from bot.core.render import correct_answer_text, item_message
from bot.core.replies import Button, Control, Fields, Message, Text, Tone, cmd

from . import actions as dx
from .channel import DailyPost, MemberAnswer, Tally
from .queue import DailyQueue, minutes_for
from .reminders import Reminder, reminder_text
from .schedule import Schedule
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


def _channel_rows(message: Message) -> tuple[tuple[Control, ...], ...]:
    rows = []
    for row in message.rows:
        kept = tuple(
            dx.post_control(c) for c in row if (a := ax.parse(c.action)) is None or a.verb not in _NOT_IN_A_CHANNEL
        )
        if kept:
            rows.append(kept)
    return tuple(rows)


def post_message(post: DailyPost, pack: Pack, question: AnyQuestion, counts: Tally) -> Message:
    """Render the day's post: the item with its controls, and the live tally below."""
    item = item_message(_as_session(post), 0, pack, question)
    item = replace(item, rows=_channel_rows(item))
    topic = pack.topic_title(question.topic)
    title = f"Daily question · {post.day.isoformat()}" + (f" · {topic}" if topic else "")
    note = Text("_Answer privately with the controls below; one scored answer each._")
    if kind_of(question).form(question, Make(post.id, 0)) is not None:
        note = Text(
            "_Answer privately with the controls below; one scored answer each. A code block sent in this "
            "post's thread counts too: everyone can read it, only you see its feedback._"
        )
    return replace(item, title=title, parts=(*item.parts, note), footer=counts.text(), session_id=post.id)


def closed_post_message(post: DailyPost, pack: Pack, question: AnyQuestion, counts: Tally) -> Message:
    """Render the post once revealed: controls disabled, the tally final."""
    item = item_message(_as_session(post), 0, pack, question, final=True)
    item = replace(item, rows=_channel_rows(item))
    title = f"Daily question · {post.day.isoformat()} · closed"
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
    parts.append(Fields((("Right first", names or "nobody this time"), ("Tally", counts.text()))))
    return Message(
        kind="notice", parts=tuple(parts), title=f"Daily question · {post.day.isoformat()} · the answer",
        tone=Tone.SUCCESS, session_id=post.id,
    )


def answer_feedback(answer: MemberAnswer, *, attempts_left: int, detail: str = "") -> Message:
    """Render a member's private feedback on the daily question."""
    if answer.done and answer.correct:
        text, tone = "Right! Your answer is counted; the tally is updated.", Tone.SUCCESS
    elif answer.done:
        text, tone = "Not quite, and that was your last attempt. The answer shows at reveal time.", Tone.FAILURE
    else:
        tries = "attempt" if attempts_left == 1 else "attempts"
        text, tone = f"Not quite. {attempts_left} {tries} left.", Tone.FAILURE
    parts = (Text(detail), Text(text)) if detail else (Text(text),)
    return Message(kind="feedback", parts=parts, tone=tone)


def schedule_message(schedule: Schedule, *, now: datetime) -> Message:
    """Describe a channel's schedule for `/quiz daily show` and after `/quiz daily set`."""
    reveal = (
        f"{schedule.reveal_after_hours:g} h after posting"
        if schedule.reveal_after_hours is not None
        else "when the next question is posted"
    )
    state = "paused: " + (schedule.pause_reason or "") if schedule.paused else "on"
    fields = [
        ("Channel", f"<#{schedule.channel_id}>"),
        ("Time", f"{schedule.at_text} {schedule.zone}"),
        ("Packs", ", ".join(f"`{p}`" for p in schedule.packs) or "every enabled pack"),
        ("Topic", schedule.topic or "any"),
        ("Difficulty", schedule.difficulty or "any"),
        ("Reveal", reveal),
        ("State", state),
    ]
    if schedule.next_at is not None and not schedule.paused:
        fields.append(("Next post", local_text(schedule.next_at, schedule.tz)))
    return Message(kind="admin", parts=(Fields(tuple(fields)),), title="Daily question")


def paused_message(schedule: Schedule) -> Message:
    """Tell the admin who set a schedule that it paused, and why."""
    return Message(
        kind="admin",
        title="Daily question paused",
        tone=Tone.WARNING,
        parts=(
            Text(
                f"The daily question for <#{schedule.channel_id}> is paused: {schedule.pause_reason}. "
                f"Fix it, then set the schedule again with {cmd('daily set')}."
            ),
        ),
    )


def local_text(instant: datetime, zone: ZoneInfo) -> str:
    """Write an instant in a zone for people: `Thu 3 Dec 18:00 (Europe/Berlin)`."""
    local = instant.astimezone(zone)
    return f"{local:%a} {local.day} {local:%b %H:%M} ({zone.key})"


def queue_message(queue: DailyQueue, zone: ZoneInfo) -> Message:
    """Introduce today's review, or say when the next card is due."""
    if queue.empty:
        later = (
            f"Your next card is due {local_text(queue.next_due, zone)}."
            if queue.next_due is not None
            else f"Start a quiz with {cmd('start')} to get cards to review."
        )
        return Message(kind="notice", parts=(Text(f"Nothing is due for today. {later}"),), title="Daily review")
    reviews, new = len(queue.reviews), len(queue.new)
    minutes = minutes_for(reviews + new)
    text = (
        f"{reviews} review{'s' if reviews != 1 else ''} and {new} new item{'s' if new != 1 else ''} today, "
        f"about {minutes} minute{'s' if minutes != 1 else ''}."
    )
    return Message(kind="notice", parts=(Text(text),), title="Daily review")


def reminder_message(due: int) -> Message:
    """The reminder DM: how much is due, and a Start button."""
    return Message(
        kind="notice",
        title="Daily review",
        parts=(Text(reminder_text(due) + "."),),
        rows=((Button(dx.make(dx.START_REVIEW), "Start", "primary"),),),
    )


def daily_stats_fields(
    streak: Streak, *, due: int, leeches: Sequence[tuple[str, str]], reminder: Reminder | None
) -> Fields:
    """Streak, due count, leeches and the reminder's state, for `/quiz stats`."""
    items = [
        ("Streak", f"{_days(streak.current)} (longest {streak.longest})"),
        ("Streak freezes", str(streak.freezes)),
        ("Due today", str(due)),
        ("Leeches", ", ".join(f"`{p}/{q}`" for p, q in leeches) or "none"),
    ]
    if reminder is not None:
        if reminder.stopped:
            state = "stopped: direct messages failed twice (open your DMs, then set /quiz remind again)"
        else:
            state = f"{reminder.at:%H:%M} {reminder.zone}"
        items.append(("Reminder", state))
    return Fields(tuple(items))


def _days(n: int) -> str:
    return f"{n} day" if n == 1 else f"{n} days"
