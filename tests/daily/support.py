"""Helpers for the daily-practice tests: databases, an in-memory Poster, review cards."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import asyncpg
from fsrs import State
from sqlalchemy import insert, select

from bot.core.daily.channel import DailyPost
from bot.core.daily.ports import PostAccess
from bot.core.packs import load_path
from bot.core.replies import Message
from bot.core.review import review
from bot.scheduler import DeliveryFailed
from bot.storage import DailyRepository, SqlRepository, open_repository
from bot.storage import tables as t

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"
DEMO_PACK = Path(__file__).parents[1] / "fixtures" / "packs" / "demo"


@asynccontextmanager
async def postgres_url() -> AsyncIterator[str]:
    """Yield the URL of a new, empty PostgreSQL database, dropped afterwards."""
    name = f"quizbot_daily_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(PG_ADMIN)
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}"
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


@dataclass
class Stores:
    repo: SqlRepository
    daily: DailyRepository

    async def close(self) -> None:
        await self.repo.close()


async def open_stores(url: str, *, with_pack: bool = True) -> Stores:
    repo = await open_repository(url)
    if with_pack:
        await repo.import_pack(load_path(DEMO_PACK).pack)
    return Stores(repo, DailyRepository.beside(repo))


@dataclass
class FakePoster:
    """The platforms, in memory: records every call; fails channels and users named in `broken`."""

    broken: set[str] = field(default_factory=set)
    calls: list[tuple[str, str, Message]] = field(default_factory=list)  # (kind, channel or user, message)
    refs: int = 0

    def _check(self, where: str) -> None:
        if where in self.broken:
            raise DeliveryFailed(f"{where} refused the message")

    async def post_item(self, post: DailyPost, message: Message) -> str:
        self._check(post.channel_id)
        self.refs += 1
        self.calls.append(("post", post.channel_id, message))
        return f"msg-{self.refs}"

    async def edit_post(self, post: DailyPost, message: Message) -> None:
        self._check(post.channel_id)
        assert post.message_ref is not None and post.message_ref.startswith("msg-")
        self.calls.append(("edit", post.channel_id, message))

    async def post_reveal(self, post: DailyPost, message: Message) -> None:
        self._check(post.channel_id)
        self.calls.append(("reveal", post.channel_id, message))

    async def send_dm(self, platform: str, user_id: str, message: Message) -> None:
        self._check(user_id)
        self.calls.append(("dm", user_id, message))

    async def can_post(self, platform: str, channel_id: str) -> PostAccess:
        """What `/quiz daily set` is told (`ChannelCheck`): a channel in `broken` refuses the bot."""
        return PostAccess(f"{channel_id} refuses the bot's messages.") if channel_id in self.broken else PostAccess()

    def of(self, kind: str) -> list[tuple[str, str, Message]]:
        return [c for c in self.calls if c[0] == kind]


async def add_cards(
    repo: SqlRepository, platform: str, user_id: str, questions: list[str], due: datetime, *, step: timedelta = timedelta(0)
) -> None:
    """Give the learner a review card for each demo question, due at `due` (+ step each).

    Each card is in FSRS's Review state (days apart), as a card due days after its last answer is.
    """
    rows = []
    for i, q in enumerate(questions):
        card, _ = review(None, correct=True, hinted=False, at=due - timedelta(days=3))
        at = due + step * i
        data = json.loads(card)
        data["due"] = at.isoformat()
        data["state"], data["step"] = State.Review.value, None
        rows.append(
            {
                "platform": platform, "user_id": user_id, "pack_id": "demo", "question_id": q,
                "card": json.dumps(data), "due": at, "correct": True, "answers": 1,
            }
        )
    async with repo.engine.begin() as c:
        await c.execute(insert(t.reviews), rows)
        # A made-up question id (r0, r1, ...) stands for a question of a loaded pack: only those are due.
        known = {r.question_id for r in await c.execute(select(t.questions.c.question_id).where(t.questions.c.pack_id == "demo"))}
        made_up = [
            {"pack_id": "demo", "question_id": q, "type": "short", "topic": None, "difficulty": "easy", "digest": "-"}
            for q in dict.fromkeys(questions) if q not in known
        ]
        if made_up:
            await c.execute(insert(t.questions), made_up)
