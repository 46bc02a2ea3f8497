"""Markdown as Discord shows it: the core's command names spelt as slash commands."""

from __future__ import annotations

from bot.core.replies import spell_commands

from .names import spelt

# Core command names that Discord's command tree spells differently (a group, an option).
DISCORD_SPELLING = {
    "race": "race start",
    "privacy leaderboard off": "privacy leaderboard:off",
    "privacy leaderboard on": "privacy leaderboard:on",
    "daily set": "daily action:set",
    "daily settings": "daily action:settings",
    "daily show": "daily action:show",
    "daily off": "daily action:off",
    "daily now": "daily action:now",
    "remind off": "remind time:off",
    "language server": "language server:True",
}


def spell(markdown: str) -> str:
    """`⟦start⟧` -> `/quiz start` (`/quiz empezar` in Spanish: as the client shows it), as a code span to copy."""
    return spell_commands(markdown, lambda name: f"`/quiz {spelt(DISCORD_SPELLING.get(name, name))}`")


def fence(code: str, language: str = "python") -> str:
    """Put code in a fenced block that its own backticks cannot close."""
    safe = code.replace("```", "``\u200b`").rstrip("\n")
    lang = "" if language in ("text", "") else language
    return f"```{lang}\n{safe}\n```"


def plain(markdown: str) -> str:
    """Return Markdown as a button label shows it: without backticks and emphasis marks."""
    return " ".join(markdown.replace("`", "").replace("**", "").replace("__", "").split())
