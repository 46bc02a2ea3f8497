"""Starting the personal review once: what a second Start, or `/quiz daily` again, does.

The reminder's Start (`dy:start`) and `/quiz daily` may come twice: a double click, a click the
platform delivers again, or the learner asking again while the review runs. None of them replaces a
running review: it is shown again (its current item, with working controls, as `/quiz current`
shows it). A running quiz that is not a review is not stopped unasked: the learner is asked first,
as `/quiz start` asks (Resume, or Start new: `dy:start:<that quiz's id>`, which replaces only that
quiz). The very same click again (its interaction key) never starts anything: it gets the review it
started, running or ended. Presses for one learner are taken one at a time in this process, so two
at once open one review.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.core.flow import Flow, running_prompt
from bot.core.gate import Gate
from bot.core.i18n import _
from bot.core.model import Actor, Owner, Session, amended
from bot.core.replies import Message, Reply, Text

from . import actions as dx

KEYS_KEPT = 1_000  # the clicks that started a review, remembered in this process (a platform's redelivery is quick)

OpenReview = Callable[[], Awaitable[Reply]]  # opens today's review (stopping the owner's running session)


class ReviewDoor:
    """Let one review in per learner: show a running one again, ask before replacing a quiz."""

    def __init__(self, *, gate: Gate, flow: Flow, daily_filter: str) -> None:
        self._gate = gate
        self._flow = flow
        self._daily = daily_filter
        self._started: dict[str, str] = {}  # a click's key -> the review session it opened

    async def enter(self, actor: Actor, open_review: OpenReview, *, key: str | None = None, replacing: str = "") -> Reply:
        """Open today's review, unless one runs (shown again) or a quiz runs that `replacing` does not name (asked first)."""
        owner = Owner.user(actor)
        async with self._gate.editing(f"daily-review:{owner.platform}:{owner.scope}:{owner.id}"):
            if key is not None and key in self._started:
                started = await self._gate.get(self._started[key])
                if started is not None:
                    return await self._again(actor, started)
            running = await self._running(actor, owner)
            if running is not None and running.filters.get(self._daily):
                return await self._again(actor, running)
            if running is not None and running.id != replacing:
                return _ask(running)
            reply = await open_review()
            opened = next((m.session_id for m in reply.messages if m.kind == "item" and m.session_id), None)
            if key is not None and opened is not None:
                self._started[key] = opened
                if len(self._started) > KEYS_KEPT:
                    del self._started[next(iter(self._started))]  # the oldest: a dict keeps insertion order
            return reply

    async def _running(self, actor: Actor, owner: Owner) -> Session | None:
        """The learner's running session here with an item to answer (one gone stale is marked expired first)."""
        active = await self._gate.active(owner)
        if active is None or active.current is None:
            return None
        async with self._gate.editing(active.id):
            session = await self._gate.load(actor, active.id)
        return session if session.status == "active" and session.current is not None else None

    async def _again(self, actor: Actor, session: Session) -> Reply:
        """The review shown again: its current item while it runs, else its summary (nothing new starts)."""
        if session.status == "active" and session.current is not None:
            note = Message(kind="notice", parts=(Text(_("Your review is already running: here is where you are.")),))
            current = await self._flow.current(session)
            return amended(current, messages=(note, *current.messages), anchor=session.anchor, private=True)
        summary = await self._flow.summary(session, stopped=session.status != "finished")
        return Reply(messages=(summary,), private=True)


def _ask(session: Session) -> Reply:
    """Ask before the review replaces a running quiz, as `/quiz start` asks."""
    return Reply(messages=(running_prompt(session, dx.make(dx.START_REVIEW, session.id)),), private=True)

