"""`/quiz my-data export|delete` on Discord: a JSON file of everything kept, and deletion after a confirmation."""

from __future__ import annotations

import copy
import json
import logging
from typing import Any

import pytest

from bot.storage.privacy import PrivacyStore

from . import payloads as p
from .conftest import Answer, BotRunner, Harness


@pytest.fixture
async def bot(start_bot: BotRunner) -> Harness:
    harness = await start_bot.start()
    harness.service.my_data.store = PrivacyStore(start_bot.opened[-1][1].engine)  # as bot/app.py wires it
    return harness


def user_option(user: p.User) -> dict[str, Any]:
    return {"options": [{"name": "user", "type": 6, "value": user.id}], "resolved": {"users": {user.id: user.json()}}}


async def my_data(bot: Harness, actor: p.User, verb: str, target: p.User | None = None) -> Answer:
    extra = user_option(target) if target is not None else {"options": None, "resolved": None}
    return await bot.command(actor, verb, extra["options"], group="my-data", resolved=extra["resolved"])


def exported(answer: Answer) -> dict[str, Any]:
    files = [f for call in answer.calls for f in call.files]
    assert len(files) == 1, f"expected one file, got {[name for name, _ in files]}"
    name, data = files[0]
    assert name.startswith("quizbot-data-discord-") and name.endswith(".json")
    document: dict[str, Any] = json.loads(data)
    return document


async def practise(bot: Harness, user: p.User) -> None:
    start = await bot.command(user, "start", [p.option("pack", "demo")])
    await bot.command(user, "skip")
    assert "Question 1 of" in start.text()
    await bot.command(user, "hint")


async def test_a_learner_exports_their_data_as_a_file(bot: Harness) -> None:
    await practise(bot, p.ALICE)
    answer = await my_data(bot, p.ALICE, "export")
    assert answer.kind == 4 and answer.data["flags"] & 64  # only the learner sees it
    document = exported(answer)
    assert document["user_id"] == p.ALICE.id and document["platform"] == "discord"
    sessions = document["tables"]["sessions"]
    assert sessions and all(row["owner_id"] == p.ALICE.id for row in sessions)
    assert "Everything kept about you" in answer.text()


async def test_only_admins_export_or_delete_someone_else(bot: Harness) -> None:
    await practise(bot, p.ALICE)
    refused = await my_data(bot, p.BOB, "export", p.ALICE)
    assert "Only admins may export or delete another person's data." in refused.text()
    assert not [f for call in refused.calls for f in call.files]
    theirs = exported(await my_data(bot, p.ADMIN, "export", p.ALICE))
    assert theirs["user_id"] == p.ALICE.id and theirs["tables"]["sessions"]
    ask = await my_data(bot, p.ADMIN, "delete", p.ALICE)
    assert "Alice's" in ask.text()
    done = await bot.click(p.ADMIN, ask.stored()[-1], "Delete everything")
    assert "The learner's data was deleted" in done.text()
    assert exported(await my_data(bot, p.ALICE, "export"))["tables"] == {}


async def test_delete_asks_first_keep_changes_nothing_and_the_log_has_no_content(
    bot: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    await practise(bot, p.ALICE)
    await practise(bot, p.BOB)
    ask = await my_data(bot, p.ALICE, "delete")
    assert "cannot be undone" in ask.text()
    message = copy.deepcopy(ask.stored()[-1])  # as it was shown: a click edits the stored one
    kept = await bot.click(p.ALICE, message, "Keep it")
    assert "Nothing was deleted" in kept.text()
    assert exported(await my_data(bot, p.ALICE, "export"))["tables"]["sessions"]
    with caplog.at_level(logging.INFO, logger="quizbot.privacy"):
        done = await bot.click(p.ALICE, message, "Delete everything")
    assert "Your data was deleted" in done.text()
    assert exported(await my_data(bot, p.ALICE, "export"))["tables"] == {}
    assert exported(await my_data(bot, p.BOB, "export"))["tables"]["sessions"]  # Bob's stays
    lines = [r.getMessage() for r in caplog.records if r.name == "quizbot.privacy"]
    assert any(f"deleted the data of discord:{p.ALICE.id}" in line for line in lines)
    assert not any("demo" in line or "{" in line for line in lines)  # who and how many, never what
    current = await bot.command(p.ALICE, "current")
    assert "no quiz running" in current.text()


async def test_the_chosen_language_is_exported_and_deleted_with_the_learners_data(bot: Harness) -> None:
    chosen = await bot.command(p.ALICE, "language", [p.option("code", "es")])
    assert "Tus respuestas ahora están en español." in chosen.text()
    await bot.command(p.BOB, "language", [p.option("code", "de")])
    answer = await my_data(bot, p.ALICE, "export")
    assert "Todo lo que se guarda sobre ti: 1 fila en 1 tabla." in answer.text()
    rows = exported(answer)["tables"]["settings"]
    assert rows == [{"key": f"discord:language:{p.ALICE.id}", "value": "es"}]  # Bob's choice is not hers
    ask = await my_data(bot, p.ALICE, "delete")
    done = await bot.click(p.ALICE, ask.stored()[-1], "Borrar todo")
    assert "Se borraron tus datos (1 fila)." in done.text()
    after = await bot.command(p.ALICE, "current")
    assert "You have no quiz running." in after.text()  # her client is English, and her choice is gone
    assert "settings" in exported(await my_data(bot, p.BOB, "export"))["tables"]
