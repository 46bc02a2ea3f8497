"""Markdown as Discord shows it: the core's command names spelt as slash commands, in the reader's language.

The `/quiz` tree's names (commands, options, choices) are translated here too: Discord shows each
name in the client's language (`name_localizations`, sent at sync by the translator in `api.py`) and
still sends the English name in every interaction, so handlers route by
the English names. Replies name commands with `cmd("start")`; `spelt` writes them as the reader's
client shows them (`/quiz empezar`). A name Discord would refuse (not lowercase, a space, longer
than 32) is not sent: the English name stays.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from bot.core.i18n import NC_, current, pgettext, use_locale
from bot.core.replies import spell_commands

COMMAND, OPTION, CHOICE = "command", "option", "choice"  # the catalog's contexts

# Every name in the tree, marked for the catalog (tests/discord/test_language.py checks that each
# name synced has its Spanish and German localization, and that they are valid and unique).
NAMES = (
    NC_("command", "pack"), NC_("command", "my-data"), NC_("command", "race"), NC_("command", "start"),
    NC_("command", "answer"), NC_("command", "current"), NC_("command", "hint"), NC_("command", "skip"),
    NC_("command", "stop"), NC_("command", "run"), NC_("command", "stats"), NC_("command", "packs"),
    NC_("command", "language"), NC_("command", "help"), NC_("command", "load"), NC_("command", "enable"),
    NC_("command", "disable"), NC_("command", "remove"), NC_("command", "export"), NC_("command", "delete"),
    NC_("command", "report"), NC_("command", "leaderboard"), NC_("command", "privacy"), NC_("command", "daily"),
    NC_("command", "remind"),
    NC_("option", "pack"), NC_("option", "topic"), NC_("option", "difficulty"), NC_("option", "count"),
    NC_("option", "language"), NC_("option", "code"), NC_("option", "file"), NC_("option", "user"),
    NC_("option", "server"), NC_("option", "force"), NC_("option", "since"), NC_("option", "rounds"),
    NC_("option", "seconds"), NC_("option", "period"), NC_("option", "leaderboard"), NC_("option", "action"),
    NC_("option", "channel"), NC_("option", "time"), NC_("option", "timezone"), NC_("option", "reveal_after_hours"),
    NC_("option", "reviews"), NC_("option", "new"),
    NC_("choice", "easy"), NC_("choice", "medium"), NC_("choice", "hard"), NC_("choice", "week"),
    NC_("choice", "month"), NC_("choice", "all"), NC_("choice", "set"), NC_("choice", "show"), NC_("choice", "off"),
    NC_("choice", "now"), NC_("choice", "settings"), NC_("choice", "on"),
)
MAX_NAME = 32
# Options whose values are choices (a reply's `action:set` is shown as the client shows the choice).
CHOICE_OPTIONS = frozenset({"action", "leaderboard", "difficulty", "period"})


def valid_name(name: str) -> bool:
    """Say whether Discord takes `name` as a command or option name (lowercase, no spaces, 1-32)."""
    return (
        1 <= len(name) <= MAX_NAME
        and name == name.lower()
        and all(ch.isalnum() or ch in "-_" or _is_mark(ch) for ch in name)
    )


def _is_mark(ch: str) -> bool:
    return unicodedata.category(ch).startswith("M")  # the vowel signs of Devanagari and Thai


def localized(context: str, name: str, code: str) -> str | None:
    """The name in language `code`, or None when it stays English (no translation, or not a valid name)."""
    with use_locale(code):
        translated = pgettext(context, name)
    if translated == name or (context != CHOICE and not valid_name(translated)):
        return None
    return translated


def spelt(spelling: str) -> str:
    """Write `daily action:set` as the reader's client shows it (`diario acción:configurar` in Spanish)."""
    return _spelt(spelling, current())


@lru_cache(maxsize=256)
def _spelt(spelling: str, code: str) -> str:
    words = []
    for word in spelling.split(" "):
        option, colon, value = word.partition(":")
        if not colon:
            words.append(localized(COMMAND, word, code) or word)
            continue
        shown = localized(CHOICE, value, code) if option in CHOICE_OPTIONS else None
        words.append(f"{localized(OPTION, option, code) or option}:{shown or value}")
    return " ".join(words)


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
    return spell_commands(
        markdown,
        lambda name: f"`/quiz {spelt(DISCORD_SPELLING.get(name, name))}`",
        lambda name: f"`{localized(OPTION, name, current()) or name}`",  # as the client shows the option
    )


def fence(code: str, language: str = "python") -> str:
    """Put code in a fenced block that its own backticks cannot close."""
    safe = code.replace("```", "``\u200b`").rstrip("\n")
    lang = "" if language in ("text", "") else language
    return f"```{lang}\n{safe}\n```"


def plain(markdown: str) -> str:
    """Return Markdown as a button label shows it: without backticks and emphasis marks."""
    return " ".join(markdown.replace("`", "").replace("**", "").replace("__", "").split())
