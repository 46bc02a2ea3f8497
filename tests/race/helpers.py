"""Packs and people for the race tests."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg

from bot.core import Actor
from bot.core.packs import Pack

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"


def member(name: str, *, admin: bool = False, channel: str = "chan-1", platform: str = "discord") -> Actor:
    return Actor(platform, "guild-1", name.lower(), name, is_admin=admin, channel_id=channel)


def race_pack(choices: int = 6, *, pack_id: str = "race-pack", others: bool = True) -> Pack:
    """A pack with `choices` single-choice items (answer: the first choice) and, with `others`,
    one select-all, one blanks, one short and one code item."""
    questions: list[dict[str, Any]] = [
        {
            "id": f"c{i}",
            "type": "choice",
            "topic": "tensors",
            "prompt": f"Question {i}?",
            "explanation": f"Because {i}.",
            "shuffle": False,
            "choices": [{"text": f"right {i}", "correct": True}, {"text": f"wrong {i}"}, {"text": f"other {i}"}],
        }
        for i in range(choices)
    ]
    questions += [] if not others else [
        {
            "id": "multi",
            "type": "choice",
            "topic": "tensors",
            "multiple": True,
            "shuffle": False,
            "prompt": "Pick the numbers.",
            "choices": [{"text": "1", "correct": True}, {"text": "2", "correct": True}, {"text": "'x'"}],
        },
        {
            "id": "blank",
            "type": "blanks",
            "topic": "autograd",
            "prompt": "Fill in.",
            "code": "x = {{1}}\n{{2}}(x)\n",
            "options": ["4", "print", "len"],
            "answers": {1: "4", 2: "print"},
        },
        {"id": "short", "type": "short", "topic": "autograd", "prompt": "2 + 4?", "accept": ["6"]},
        {"id": "code", "type": "code", "topic": "autograd", "prompt": "Write code.", "solution": "x = 1\n"},
    ]
    return Pack.model_validate(
        {
            "pack": pack_id,
            "title": "Race pack",
            "version": 1,
            "topics": [{"id": "tensors", "title": "Tensors"}, {"id": "autograd", "title": "Autograd"}],
            "questions": questions,
        }
    )


def blanks_pack() -> Pack:
    """Three blanks items: `x = {{1}}` / `{{2}}(x)` with answers 4 and print."""
    return Pack.model_validate(
        {
            "pack": "blanks-only",
            "title": "Blanks",
            "version": 1,
            "questions": [
                {
                    "id": f"b{i}",
                    "type": "blanks",
                    "prompt": "Fill in.",
                    "code": "x = {{1}}\n{{2}}(x)\n",
                    "options": ["4", "print", "len"],
                    "answers": {1: "4", 2: "print"},
                }
                for i in range(3)
            ],
        }
    )


@asynccontextmanager
async def postgres_url() -> AsyncIterator[str]:
    """A throwaway database on the local PostgreSQL server."""
    name = f"quizbot_race_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(PG_ADMIN)
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}"
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
