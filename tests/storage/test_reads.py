"""The stores' reads on PostgreSQL: one round trip a statement, no BEGIN and ROLLBACK around them.

asyncpg's own query log on every pooled connection shows the transactions SQLAlchemy opens (its
BEGIN, and the COMMIT or ROLLBACK that ends it) and the statements run on asyncpg itself; those
SQLAlchemy prepares are not logged.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import date
from typing import Any

import pytest
from sqlalchemy import event, insert

from bot.storage import SqlRepository, open_repository
from bot.storage import tables as t
from bot.storage.daily import DailyRepository
from bot.storage.privacy import TABLES, PrivacyStore
from bot.storage.social import SocialStore
from tests.storage import clicks


@pytest.fixture
async def repo(pg_url: str) -> AsyncIterator[SqlRepository]:
    repository = await open_repository(pg_url)
    await repository.create_session(clicks.new_session("s1", "ann", 3))
    await clicks.click(repository, "s1", 0, "k1")  # Ann has a review card and an attempt
    async with repository.engine.begin() as c:  # of a question a loaded pack holds (only those are due)
        await c.execute(
            insert(t.questions).values(pack_id="demo", question_id="q0", type="choice", topic=None, difficulty="easy", digest="-")
        )
    yield repository
    await repository.close()


def _server_log(repo: SqlRepository) -> list[str]:
    """The statements asyncpg logs on the pool's connections from now on, each its first word."""
    sent: list[str] = []
    logged: set[int] = set()

    def log(record: Any) -> None:
        sent.append(record.query.split()[0].rstrip(";").upper())

    def checkout(_dbapi: Any, record: Any, _proxy: Any) -> None:
        driver = record.driver_connection
        if id(driver) not in logged:
            logged.add(id(driver))
            driver.add_query_logger(log)

    event.listen(repo.engine.sync_engine.pool, "checkout", checkout)
    return sent


async def test_daily_race_and_privacy_reads_send_only_their_selects(repo: SqlRepository) -> None:
    daily, social = DailyRepository.beside(repo), SocialStore.beside(repo)
    privacy = PrivacyStore(repo.engine)
    sent = _server_log(repo)
    assert (await daily.get_learner("discord", "ann")).user_id == "ann"
    assert await daily.day_count("discord", "ann", date(2000, 1, 1)) is not None
    cards, total, _later = await daily.due_cards("discord", "ann", clicks.AT.replace(year=2100), clicks.AT.replace(year=2100), 10)
    assert total == 1 and len(cards) == 1
    assert await daily.member_answer("no-post", "ann") is None
    assert await social.get_race("no-race") is None
    exported = await privacy.export_user("discord", "ann")
    assert len(exported["attempts"]) == 1 and len(TABLES) > 1
    await asyncio.sleep(0)  # asyncpg calls its loggers soon after each statement
    assert not {"BEGIN", "COMMIT", "ROLLBACK"} & set(sent), sent  # each read was its own transaction
    learner = await daily.get_learner("discord", "ann")
    await asyncio.sleep(0)
    before = len(sent)
    await daily.save_learner(learner)  # a write: its transaction is logged
    await asyncio.sleep(0)
    assert sent[before:] == ["BEGIN", "COMMIT"]
