"""The session gate: one change at a time per session, only by its owner, never after it expired."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from bot.core.i18n import N_, _

from .errors import NoActiveQuiz, NotYourQuiz, QuizError, QuizExpired, SaveConflict
from .model import Actor, Anchor, Attempt, Owner, Session
from .ports import Clock, Conflict, Repository, WorkTaken
from .review import Review

MAX_LOCKS = 10_000
# How long after an answer's save its reply (the grade and what follows) may still be on its way from
# the process that saved it: a click on the answered item in that time, in any process, only puts the
# grade in place. Later (after a restart, say), it is taken as a click whose reply was lost.
HANDOFF = timedelta(seconds=5)


class Missing(QuizExpired):
    """No session has this id (it may name something else, such as a channel's daily post)."""

    def __init__(self) -> None:
        super().__init__("expired")


LATE_GRADE = N_("This grade came after you were told the bot restarted, so it is not counted: please send the answer again.")


class Gate:
    """Load, check and save sessions; a save that lost a race becomes `SaveConflict` (a `StaleAction`)."""

    def __init__(self, repository: Repository, clock: Clock, *, ttl: timedelta) -> None:
        self._repo = repository
        self._clock = clock
        self._ttl = ttl
        self._locks: dict[str, asyncio.Lock] = {}
        self._handed: dict[str, int] = {}  # session -> the item whose answer's reply this process handed over

    def handed(self, session_id: str, position: int) -> None:
        """Note that this process gave a front end the reply to item `position`'s answer (its grade and what follows)."""
        self._handed.pop(session_id, None)
        self._handed[session_id] = position
        if len(self._handed) > MAX_LOCKS:
            del self._handed[next(iter(self._handed))]  # the oldest: a dict keeps insertion order

    def reply_on_its_way(self, session: Session, position: int) -> bool:
        """Whether the reply to item `position`'s answer (its grade and what follows) is shown or on its way.

        It is when this process handed it over, or when the session was saved less than `HANDOFF`
        ago (by another process, maybe, whose reply is in flight: two quick clicks delivered to two
        processes). Otherwise (after a restart, or in another process later) a click on an answered
        item is taken as one whose reply was lost, and what follows is shown again.
        """
        if self._handed.get(session.id, -1) >= position:
            return True
        return self._clock.now() - session.updated_at < HANDOFF

    def editing(self, session_id: str) -> asyncio.Lock:
        """The session's lock, to hold with `async with` (the repository hands out copies: a change that fails half-way is never seen).

        The lock itself, not a context manager around it: every click takes it, and a generator-based
        manager cost more than the lock.
        """
        return self._lock(session_id)

    def _lock(self, session_id: str) -> asyncio.Lock:
        lock = self._locks.get(session_id)
        if lock is None:
            if len(self._locks) > MAX_LOCKS:
                self._locks = {k: v for k, v in self._locks.items() if v.locked()}
            lock = self._locks[session_id] = asyncio.Lock()
        return lock

    async def get(self, session_id: str) -> Session | None:
        return await self._repo.get_session(session_id)

    async def recent(self, session_id: str, position: int | None = None) -> Session | None:
        """A guess at the stored session, for a save that checks its version (see `Repository.recent_session`)."""
        return await self._repo.recent_session(session_id, position)

    async def active(self, owner: Owner) -> Session | None:
        return await self._repo.active_session(owner)

    async def find(self, actor: Actor, session_id: str | None = None) -> Session:
        """The named session, or the actor's active quiz in this place."""
        if session_id is not None:
            session = await self._repo.get_session(session_id)
            if session is None:
                raise Missing()
            return session
        session = await self._repo.active_session(Owner.user(actor))
        if session is None:
            raise NoActiveQuiz()
        return session

    async def for_code(self, actor: Actor) -> Session:
        """The quiz a code message answers: the actor's active quiz here, else their newest elsewhere."""
        here = await self._repo.active_session(Owner.user(actor))
        if here is not None:
            return here
        sessions = await self._repo.active_sessions_of(actor.platform, actor.user_id)
        if not sessions:
            raise NoActiveQuiz()
        return max(sessions, key=lambda s: s.updated_at)

    async def load(self, actor: Actor, session_id: str, *, guess_at: int | None = None) -> Session:
        """Load a session for a change by `actor`: it must exist and be theirs (or their channel's).

        With `guess_at`, a guess (`recent`) for a click on that item: only for a change whose save
        checks the version, and whose refusals are made again on a fresh load.
        """
        if guess_at is None:
            session = await self._repo.get_session(session_id)
        else:
            session = await self._repo.recent_session(session_id, guess_at)
        if session is None:
            raise Missing()
        owner = session.owner
        if owner.platform != actor.platform or (owner.kind == "user" and owner.id != actor.user_id):
            raise NotYourQuiz(session.started_by_name)
        if session.status == "active" and self._clock.now() - session.updated_at > self._ttl:
            session.status = "expired"
            await self.save(session)
        return session

    @staticmethod
    def require_active(session: Session) -> None:
        if session.status != "active":
            raise QuizExpired(session.status, session.id)

    async def create(self, session: Session) -> None:
        await self._repo.create_session(session)

    async def save_anchor_at(self, session_id: str, position: int | None, anchor: Anchor) -> bool:
        """Save the anchor without a read where storage can (`Repository.save_anchor_at`); False: read and `save_anchor`."""
        return await self._repo.save_anchor_at(session_id, position, anchor)

    async def save_anchor(self, session: Session) -> None:
        """Save a session whose only change is its anchor (it may be stored a moment later: `Repository.save_anchor`)."""
        try:
            await self._repo.save_anchor(session)
        except Conflict as exc:
            raise SaveConflict() from exc

    async def save(self, session: Session, attempt: Attempt | None = None, card: Review | None = None) -> None:
        try:
            await self._repo.save_session(session, attempt, card)
        except WorkTaken as exc:  # not worth a retry: the learner was told this answer was lost
            raise QuizError(_(LATE_GRADE)) from exc
        except Conflict as exc:
            raise SaveConflict() from exc


