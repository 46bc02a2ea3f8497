"""Read the text of the one `/quiz` slash command with the core's command reader.

Only what is Slack's own lives here: a user named as a mention (`<@U123|ada>`).
"""

from __future__ import annotations

import re

from bot.core import commands

# With "Escape channels, users, and links" on, Slack sends a mention as <@U123|name>.
_MENTION = re.compile(r"^<@([A-Z0-9]+)(?:\|[^>]*)?>$")


def mentioned_user(word: str) -> str | None:
    """Return the user id in a Slack mention such as `<@U123|ada>`."""
    match = _MENTION.match(word)
    return match.group(1) if match else None


def parse(text: str) -> commands.Parsed:
    """Read `/quiz` text: the first word picks the subcommand."""
    return commands.parse(text, user_of=mentioned_user)
