"""The Slack and Discord fixtures (fake platforms) for the operations tests."""

from tests.discord.conftest import fake as fake_discord
from tests.slack.conftest import fake, open_slack

__all__ = ["fake", "fake_discord", "open_slack"]
