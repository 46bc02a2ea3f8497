"""A class whose item statistics are known by hand, stored in a real database (SQLite or PostgreSQL).

Twenty learners u00..u19 answer 20 anchor items: learner i is right on anchor j when j < 20 - i,
so the ranking by share right is u00 first and u19 last (ties broken by id), the upper 27% group is
u00..u04 and the lower one u15..u19 (27% of 20 is 5.4: five each). Then:

- `perfect`: u00..u09 right, u10..u19 wrong (and right on a second attempt): facility 0.5,
  discrimination +1, median attempts to right 1.5.
- `reversed`: u10..u19 right: facility 0.5, discrimination -1 (flagged).
- `guessed`: right for u00-u02, u05-u08 and u15-u17: facility 0.5, upper 3/5 and lower 3/5: 0.
- `dead`: u00..u14 pick the key, u15..u19 `Wrong one`, nobody `Never picked`.
- `rival`: u00..u05 pick the key, u06..u18 `Tempting`, u19 `Rare`: the wrong option beats the key.
- `six`: a short answer; u00..u09 `6`, u10..u15 `5`, u16-u17 ` Five ` and `five`, u18-u19 `7`.

Every attempt is 10 s after the one before in the learner's quiz (the first 10 s after it began).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from bot.core.packs import load_bytes
from bot.storage import SqlRepository, open_repository
from bot.storage import tables as t
from tests.storage.conftest import _pg_database

NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
LEARNERS = [f"u{i:02d}" for i in range(20)]
ANCHORS = 20


def _choice(qid: str, options: list[str]) -> dict[str, object]:
    return {
        "id": qid,
        "type": "choice",
        "topic": "core" if not qid.startswith("a") else "anchors",
        "prompt": f"Question {qid}?",
        "choices": [{"text": o, **({"correct": True} if i == 0 else {})} for i, o in enumerate(options)],
    }


def pack_yaml() -> bytes:
    questions = [_choice(f"a{j:02d}", ["Right", "Wrong"]) for j in range(ANCHORS)]
    questions += [
        _choice("perfect", ["Key", "Other"]),
        _choice("reversed", ["Key", "Other"]),
        _choice("guessed", ["Key", "Other"]),
        _choice("dead", ["Key", "Wrong one", "Never picked"]),
        _choice("rival", ["Key", "Tempting", "Rare"]),
        {"id": "six", "type": "short", "topic": "core", "prompt": "Two times three?", "accept": ["6"]},
    ]
    doc = {
        "pack": "stats-class",
        "title": "Statistics class",
        "version": 1,
        "topics": [{"id": "anchors", "title": "Anchors"}, {"id": "core", "title": "Core"}],
        "questions": questions,
    }
    return yaml.safe_dump(doc, sort_keys=False).encode()


def answers_of(i: int) -> list[tuple[str, str, bool]]:
    """(question, stored answer, right) for learner i, in the order answered."""
    out: list[tuple[str, str, bool]] = []
    for j in range(ANCHORS):
        right = j < ANCHORS - i
        out.append((f"a{j:02d}", "A. Right" if right else "B. Wrong", right))
    out.append(("perfect", "A. Key" if i < 10 else "B. Other", i < 10))
    out.append(("reversed", "A. Key" if i >= 10 else "B. Other", i >= 10))
    guessed = i in (0, 1, 2, 5, 6, 7, 8, 15, 16, 17)
    out.append(("guessed", "B. Key" if guessed else "A. Other", guessed))
    out.append(("dead", "C. Key" if i < 15 else "A. Wrong one", i < 15))
    rival = "A. Key" if i < 6 else "B. Tempting" if i < 19 else "C. Rare"
    out.append(("rival", rival, i < 6))
    six = "6" if i < 10 else "5" if i < 16 else " Five " if i == 16 else "five" if i == 17 else "7"
    out.append(("six", six, i < 10))
    if i >= 10:
        out.append(("perfect", "A. Key", True))  # a second try, right: not a first attempt
    return out


async def fill(repository: SqlRepository) -> None:
    loaded = load_bytes("stats-class.yaml", pack_yaml())
    await repository.import_pack(loaded.pack)
    sessions, attempts, reviews = [], [], []
    for i, user in enumerate(LEARNERS):
        began = NOW - timedelta(days=10 if user == "u19" else 2)
        sid = f"s{i:02d}"
        sessions.append(
            {"id": sid, "platform": "discord", "scope": "guild1", "owner_kind": "user", "owner_id": user, "status": "done",
             "position": 0, "data": "{}", "created_at": began, "updated_at": began, "version": 1}
        )
        for k, (question, answer, right) in enumerate(answers_of(i), start=1):
            attempts.append(
                {"platform": "discord", "scope": "guild1", "user_id": user, "pack_id": "stats-class", "question_id": question,
                 "topic": "anchors" if question.startswith("a") else "core", "answer": answer, "correct": right,
                 "points": int(right), "at": began + timedelta(seconds=10 * k), "session_id": sid,
                 "key": f"{user}-{k}"}
            )
    for user, stability, due in (("u00", 30.0, NOW + timedelta(days=20)), ("u18", 2.0, NOW - timedelta(days=1)),
                                 ("u19", 2.0, NOW - timedelta(days=1))):
        reviews.append(
            {"platform": "discord", "user_id": user, "pack_id": "stats-class", "question_id": "perfect",
             "card": f'{{"stability": {stability}}}', "due": due, "correct": True, "answers": 1}
        )
    async with repository.db.write() as c:
        await c.execute(t.sessions.insert(), sessions)
        await c.execute(t.attempts.insert(), attempts)
        await c.execute(t.reviews.insert(), reviews)


async def filled_repository(
    kind: str, tmp_path: Path, fill_with: Callable[[SqlRepository], Awaitable[None]]
) -> AsyncIterator[SqlRepository]:
    """A repository on a fresh SQLite file or PostgreSQL database (`kind`), filled by `fill_with`, closed after."""
    if kind == "sqlite":
        repository = await open_repository(f"sqlite+aiosqlite:///{tmp_path / 'r.db'}")
        await fill_with(repository)
        yield repository
        await repository.close()
        return
    async for url in _pg_database():
        repository = await open_repository(url)
        await fill_with(repository)
        yield repository
        await repository.close()


@pytest.fixture(params=["sqlite", "postgresql"])
async def class_repo(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[SqlRepository]:
    async for repository in filled_repository(request.param, tmp_path, fill):
        yield repository
