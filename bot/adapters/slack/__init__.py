"""The Slack front end: `/quiz`, Block Kit quiz messages, modals, code answers and the Home tab."""

from .api import Place, SlackApi, SlackCallFailed, make_client
from .front import SlackFrontEnd
from .server import build_bolt_app, run_slack, slack_front_end, web_app

__all__ = [
    "Place",
    "SlackApi",
    "SlackCallFailed",
    "SlackFrontEnd",
    "build_bolt_app",
    "make_client",
    "run_slack",
    "slack_front_end",
    "web_app",
]
