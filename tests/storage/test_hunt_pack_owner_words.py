"""Hunt: the database's own refusal (the write's transaction) names the place as the early check does.

A Slack workspace's write over a Discord server's pack is refused in the write; the refusal says a
server or workspace loaded it, not "another workspace" (one Slack install has no other workspace).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.core.importing import PackNotTheirs
from bot.storage import SqlRepository, open_repository
from tests.storage.test_pack_owners import pack_of


@pytest.fixture
async def repo(any_url: str) -> AsyncIterator[SqlRepository]:
    repository = await open_repository(any_url)
    yield repository
    await repository.close()


async def test_the_writes_refusal_names_a_server_for_another_platforms_pack(repo: SqlRepository) -> None:
    await repo.import_pack(pack_of("algebra", 1, "a"), by="discord:guild-a")
    with pytest.raises(PackNotTheirs) as loading:
        await repo.import_pack(pack_of("algebra", 2, "a"), by="slack:T0A")
    with pytest.raises(PackNotTheirs) as removing:
        await repo.delete_pack("algebra", by="slack:T0A")
    for refused in (loading.value, removing.value):
        assert "another workspace" not in str(refused) and "by another server or workspace" in str(refused), refused
    with pytest.raises(PackNotTheirs, match="not this server's: it was loaded by the operator or another server"):
        await repo.import_pack(pack_of("algebra", 2, "a"), by="discord:guild-b")  # the same platform: its words
