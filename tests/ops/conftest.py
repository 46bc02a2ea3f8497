"""The Slack and Discord fixtures (fake platforms) for the operations tests; bot processes cleaned up."""

from collections.abc import Iterator

import pytest

from tests.discord.conftest import fake as fake_discord
from tests.ops.services import BotProcess
from tests.slack.conftest import fake, open_slack
from tests.storage.conftest import pg_url

__all__ = ["fake", "fake_discord", "open_slack", "pg_url", "processes"]


@pytest.fixture
def processes() -> Iterator[list[BotProcess]]:
    """Bot processes a test starts: each is killed (its whole process group) when the test ends, passed or not."""
    started: list[BotProcess] = []
    yield started
    for process in started:
        process.kill()
        process.stop()
