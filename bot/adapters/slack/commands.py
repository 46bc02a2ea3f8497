"""Parse the text of the one `/quiz` slash command: the first word picks the subcommand."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SUBCOMMANDS = ("start", "answer", "hint", "skip", "stop", "run", "stats", "packs", "help", "pack")
PACK_ACTIONS = ("load", "enable", "disable")
START_KEYS = ("pack", "topic", "difficulty", "count")

# With "Escape channels, users, and links" on, Slack sends a mention as <@U123|name>.
_HEAD = re.compile(r"\s*(\S*)\s?(.*)", re.S)
_MENTION = re.compile(r"^<@([A-Z0-9]+)(?:\|[^>]*)?>$")


@dataclass(frozen=True)
class Command:
    """One parsed `/quiz` invocation."""

    name: str
    words: tuple[str, ...] = ()
    rest: str = ""  # the raw text after the subcommand (code for `run`)
    options: dict[str, str | int] = field(default_factory=dict)


@dataclass(frozen=True)
class Usage:
    """The text could not be understood; `problem` says why, in Markdown."""

    problem: str


def parse_command(text: str) -> Command | Usage:
    """Split `/quiz` text into a subcommand and its arguments."""
    match = _HEAD.match(text)
    head, rest = (match.group(1), match.group(2)) if match else ("", "")
    name = head.lower()
    if not name:
        return Command("help")
    if name not in SUBCOMMANDS:
        return Usage(f"`{_shown(head)}` is not a `/quiz` subcommand.")
    words = tuple(rest.split())
    if name == "start":
        return _start(words, rest)
    if name == "pack":
        if not words or words[0].lower() not in PACK_ACTIONS:
            return Usage("Use `/quiz pack load`, `/quiz pack enable <pack>` or `/quiz pack disable <pack>`.")
        action = words[0].lower()
        if action != "load" and len(words) != 2:
            return Usage(f"Name one pack: `/quiz pack {action} <pack>`.")
        return Command("pack", (action, *words[1:]), rest)
    if name == "stats" and len(words) > 1:
        return Usage("`/quiz stats` takes at most one user, as a mention: `/quiz stats @someone`.")
    if name in ("answer", "hint", "skip", "stop", "packs", "help") and words:
        return Usage(f"`/quiz {name}` takes no arguments.")
    return Command(name, words, rest)


def mentioned_user(word: str) -> str | None:
    """Return the user id in a Slack mention such as `<@U123|ada>`."""
    match = _MENTION.match(word)
    return match.group(1) if match else None


def _start(words: tuple[str, ...], rest: str) -> Command | Usage:
    options: dict[str, str | int] = {}
    positional: list[str] = []
    for word in words:
        key, sep, value = word.partition(":")
        if not sep:
            key, sep, value = word.partition("=")
        if sep and key.lower() in START_KEYS:
            if not value:
                return Usage(f"`{key}:` needs a value, as in `{key}:{_example(key.lower())}`.")
            options[key.lower()] = value
        elif sep and not word.startswith("<"):
            return Usage(f"`{_shown(key)}` is not an option of `/quiz start`; use `pack:`, `topic:`, `difficulty:` or `count:`.")
        else:
            positional.append(word)
    for key, value in zip(("pack", "topic"), positional, strict=False):
        options.setdefault(key, value)
    if len(positional) > 2:
        return Usage("`/quiz start` takes a pack and a topic at most; add `difficulty:` and `count:` by name.")
    count = options.get("count")
    if count is not None:
        if not str(count).isdigit():
            return Usage(f"`count` must be a whole number; you gave `{_shown(str(count))}`.")
        options["count"] = int(count)
    return Command("start", words, rest, options)


def _example(key: str) -> str:
    return {"pack": "pytorch-autograd", "topic": "backward", "difficulty": "easy", "count": "5"}[key]


def _shown(word: str) -> str:
    return word.replace("`", "'")[:40]
