"""The Slack fixtures (fake Web API, signed requests) for the operations tests."""

from tests.slack.conftest import fake, open_slack

__all__ = ["fake", "open_slack"]
