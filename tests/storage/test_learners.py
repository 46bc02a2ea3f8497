"""A learner's data: exported whole, deleted whole, and the `quizbot user` command over both."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from bot.core import Actor, QuizService
from bot.core.model import Owner
from bot.core.packs import load_path
from bot.storage import SqlRepository, open_repository
from tests.conftest import DEMO_PACK
from tests.fakes import FakeClock, LocalRunner
from tests.storage import clicks

ANN = Actor("discord", "guild-1", "ann", "Ann")
BOB = Actor("discord", "guild-1", "bob", "Bob")


async def _practise(repo: SqlRepository, actor: Actor) -> None:
    """Do a whole quiz (wrong short answers until the item ends, skips elsewhere), then start another."""
    service = QuizService(repository=repo, runner=LocalRunner(), clock=FakeClock(), rng=random.Random(3))
    await service.import_pack(load_path(DEMO_PACK).pack, force=True)
    await service.start(actor, pack="demo", count=10)
    while (session := await service.active_session(actor)) is not None:
        if session.items[session.position].question == "q-short":
            await service.submit_text(actor, "not a number")
        else:
            await service.skip(actor)
    await service.start(actor, pack="demo", count=2)  # one quiz still active


async def _fill(repo: SqlRepository) -> None:
    await _practise(repo, ANN)
    await _practise(repo, BOB)
    race = clicks.new_session("race", "ann", 2)
    race.owner = Owner("discord", "guild-1", "channel", "c1")
    race.started_by_name = "Ann"
    await repo.create_session(race)
    await repo.set_setting("discord:quiz:ann", "session-1")
    await repo.set_setting("discord:quiz:bob", "session-2")
    await repo.set_setting("discord:commands:ann-app", "digest")  # not about a learner


async def test_export_holds_everything_about_the_learner_and_nothing_else(any_url: str) -> None:
    repo = await open_repository(any_url)
    try:
        await _fill(repo)
        data = await repo.export_learner("discord", "ann")
        json.dumps(data)  # JSON-able as it is
        assert data["learner"] == "discord:ann"
        stats = await repo.user_stats("discord", "ann", FakeClock().now())
        assert len(data["attempts"]) == stats.attempts > 0
        assert {a["answer"] for a in data["attempts"]} == {"not a number"}
        assert len(data["review_cards"]) >= 1 and all(isinstance(c["card"], dict) for c in data["review_cards"])
        assert len(data["quizzes"]) == 2 and all(q["owner"] == "user:ann" for q in data["quizzes"])
        assert [q["id"] for q in data["channel_quizzes_started"]] == ["race"]
        assert data["settings"] == {"discord:quiz:ann": "session-1"}
        assert "bob" not in json.dumps(data)
    finally:
        await repo.close()


async def test_delete_removes_the_learner_in_one_go_and_keeps_the_others(any_url: str) -> None:
    repo = await open_repository(any_url)
    try:
        await _fill(repo)
        bob_before = await repo.export_learner("discord", "bob")
        assert await repo.active_session(Owner.user(ANN)) is not None
        counts = await repo.delete_learner("discord", "ann")
        assert counts["attempts"] > 0 and counts["quizzes"] == 2 and counts["settings"] == 1
        assert counts["channel_quizzes_anonymised"] == 1
        left = await repo.export_learner("discord", "ann")
        assert (left["attempts"], left["review_cards"], left["quizzes"], left["channel_quizzes_started"], left["settings"]) == (
            [], [], [], [], {}
        )
        assert await repo.active_session(Owner.user(ANN)) is None
        race = await repo.get_session("race")
        assert race is not None and (race.started_by, race.started_by_name) == ("deleted", "deleted")
        assert await repo.export_learner("discord", "bob") == bob_before
        assert await repo.get_setting("discord:commands:ann-app") == "digest"
        assert (await repo.user_stats("discord", "ann", FakeClock().now())).attempts == 0
    finally:
        await repo.close()


def _quizbot(url: str, folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QUIZBOT_DATABASE_URL": url}
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", "user", *args],
        cwd=folder, env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )


async def test_quizbot_user_export_and_delete(any_url: str, tmp_path: Path) -> None:
    repo = await open_repository(any_url)
    try:
        await _fill(repo)
        expected: dict[str, Any] = await repo.export_learner("discord", "ann")
    finally:
        await repo.close()
    out = tmp_path / "ann.json"
    done = await asyncio.to_thread(_quizbot, any_url, tmp_path, "export", "discord:ann", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text()) == expected

    refused = await asyncio.to_thread(_quizbot, any_url, tmp_path, "delete", "discord:ann")
    assert refused.returncode == 1 and "--yes" in refused.stderr
    bad = await asyncio.to_thread(_quizbot, any_url, tmp_path, "delete", "ann", "--yes")
    assert bad.returncode == 2 and "PLATFORM:ID" in bad.stderr
    deleted = await asyncio.to_thread(_quizbot, any_url, tmp_path, "delete", "discord:ann", "--yes")
    assert deleted.returncode == 0, deleted.stderr
    assert f"{len(expected['attempts'])} attempts" in deleted.stdout

    repo = await open_repository(any_url)
    try:
        assert (await repo.export_learner("discord", "ann"))["attempts"] == []
        assert (await repo.export_learner("discord", "bob"))["attempts"] != []
    finally:
        await repo.close()
