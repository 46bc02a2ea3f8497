"""Everything kept about one learner: export it as JSON-able data, or delete it in one transaction.

Kept about a learner (PLATFORM:USER_ID): their attempts, their review cards, the quizzes they own,
the settings whose key names them (`PLATFORM:...:USER_ID`), and their id and display name in
channel quizzes they started (those quizzes are shared, so deleting only blanks the name).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import and_, delete, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.core.model import Session

from . import tables as t
from .base import Database
from .codec import session_data, session_from_row

DELETED = "deleted"  # what replaces a deleted learner's id and name in a shared channel quiz


class LearnerData:
    """Export and delete one learner's data."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def export(self, platform: str, user_id: str) -> dict[str, Any]:
        """Return every row kept about the learner, as plain JSON-able values."""
        a, r = t.attempts.c, t.reviews.c
        async with self._db.read() as c:
            attempts = await c.execute(
                select(t.attempts).where(and_(a.platform == platform, a.user_id == user_id)).order_by(a.at, a.id)
            )
            cards = await c.execute(
                select(t.reviews).where(and_(r.platform == platform, r.user_id == user_id)).order_by(r.pack_id, r.question_id)
            )
            owned, started = await _sessions(c, platform, user_id)
            settings = await c.execute(select(t.settings).where(_settings_of(platform, user_id)).order_by(t.settings.c.key))
            return {
                "learner": f"{platform}:{user_id}",
                "attempts": [
                    {
                        "scope": row.scope,
                        "pack": row.pack_id,
                        "question": row.question_id,
                        "topic": row.topic,
                        "answer": row.answer,
                        "correct": bool(row.correct),
                        "points": row.points,
                        "at": _iso(row.at),
                        "quiz": row.session_id,
                        "action": row.key,
                    }
                    for row in attempts
                ],
                "review_cards": [
                    {
                        "pack": row.pack_id,
                        "question": row.question_id,
                        "card": _json_or_text(row.card),
                        "due": _iso(row.due),
                        "last_correct": bool(row.correct),
                        "graded_answers": row.answers,
                    }
                    for row in cards
                ],
                "quizzes": [_session_export(s) for s in owned],
                "channel_quizzes_started": [_session_export(s) for s in started],
                "settings": {row.key: row.value for row in settings},
            }

    async def delete(self, platform: str, user_id: str) -> dict[str, int]:
        """Delete the learner's rows and blank their name in shared quizzes; return how many of each."""
        a, r, s = t.attempts.c, t.reviews.c, t.sessions.c
        async with self._db.write() as c:
            attempts = await c.execute(delete(t.attempts).where(and_(a.platform == platform, a.user_id == user_id)))
            cards = await c.execute(delete(t.reviews).where(and_(r.platform == platform, r.user_id == user_id)))
            owned, started = await _sessions(c, platform, user_id)
            if owned:
                await c.execute(delete(t.sessions).where(s.id.in_([o.id for o in owned])))
            for session in started:
                session.started_by = session.started_by_name = DELETED
                await c.execute(
                    update(t.sessions)
                    .where(s.id == session.id)
                    .values(data=session_data(session), version=s.version + 1)  # a cached copy becomes stale
                )
            settings = await c.execute(delete(t.settings).where(_settings_of(platform, user_id)))
        return {
            "attempts": attempts.rowcount,
            "review_cards": cards.rowcount,
            "quizzes": len(owned),
            "channel_quizzes_anonymised": len(started),
            "settings": settings.rowcount,
        }


async def _sessions(c: AsyncConnection, platform: str, user_id: str) -> tuple[list[Session], list[Session]]:
    """Return the learner's own quizzes, and the channel quizzes they started."""
    s = t.sessions.c
    owned_rows = await c.execute(
        select(t.sessions)
        .where(and_(s.platform == platform, s.owner_kind == "user", s.owner_id == user_id))
        .order_by(s.created_at)
    )
    owned = [session_from_row(dict(row._mapping)) for row in owned_rows]
    channel_rows = await c.execute(
        select(t.sessions).where(and_(s.platform == platform, s.owner_kind == "channel")).order_by(s.created_at)
    )
    started = [x for x in (session_from_row(dict(row._mapping)) for row in channel_rows) if x.started_by == user_id]
    return owned, started


def _settings_of(platform: str, user_id: str) -> Any:
    key = t.settings.c.key
    return and_(key.startswith(f"{platform}:", autoescape=True), key.endswith(f":{user_id}", autoescape=True))


def _session_export(session: Session) -> dict[str, Any]:
    return {
        "id": session.id,
        "scope": session.owner.scope,
        "owner": f"{session.owner.kind}:{session.owner.id}",
        "status": session.status,
        "position": session.position,
        "created_at": _iso(session.created_at),
        "updated_at": _iso(session.updated_at),
        "filters": session.filters,
        "items": [item.to_json() for item in session.items],
    }


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text
