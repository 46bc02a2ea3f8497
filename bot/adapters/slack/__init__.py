"""The Slack front end (slack-bolt, async): `/quiz`, Block Kit quiz messages, modals, code answers, Home.

app.py      the Bolt app, its HTTP server (or Socket Mode) and the listeners' wiring
inbound.py  every request becomes one core request; per-learner order; the reply goes to `deliver`
strays.py   requests that do not fit: clicks and forms no listener takes, payloads not shaped as Slack's
commands.py the `/quiz` text, read by the core's command reader; Slack mentions
origin.py   who acted and where: team, user, channel, thread, response URL
deliver.py  one path for replies: the quiz's thread or DM, or only to the person
posts.py    the scheduler's posts: the daily question, its tally and reveal, reminders' DMs
render.py   neutral messages -> Block Kit blocks and modal views
markup.py   Markdown -> Slack mrkdwn; commands spelt as `/quiz ...`
limits.py   Slack's sizes and counts
api.py      the Web API as the bot uses it, with retries and file downloads
"""

from .api import Place, SlackApi, SlackCallFailed, make_client
from .app import build_bolt_app, run_slack, slack_front_end, web_app
from .inbound import Inbound

__all__ = [
    "Inbound",
    "Place",
    "SlackApi",
    "SlackCallFailed",
    "build_bolt_app",
    "make_client",
    "run_slack",
    "slack_front_end",
    "web_app",
]
