"""Read a typed command (`start pytorch-autograd topic:leaves`, `pack enable x`) into a request.

Slack's one `/quiz` slash command and the terminal both type commands as text; this is the one
place that reads them. A problem comes back as `Usage`, whose text says what to write instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import requests as rq
from .packs import DIFFICULTIES
from .replies import cmd

SUBCOMMANDS = ("start", "answer", "current", "hint", "skip", "stop", "run", "stats", "packs", "help", "pack")
SOCIAL_SUBCOMMANDS = ("race", "leaderboard", "privacy")
RACE_KEYS = ("pack", "topic", "difficulty", "rounds", "seconds")
PERIOD_WORDS = ("week", "month", "all")
PACK_ACTIONS = ("load", "enable", "disable", "remove")
START_KEYS = ("pack", "topic", "difficulty", "count")
NO_ARGUMENTS = ("answer", "current", "hint", "skip", "stop", "packs", "help")


@dataclass(frozen=True)
class Usage:
    """The text could not be understood; `problem` says why, in Markdown."""

    problem: str


@dataclass(frozen=True)
class PackLoadAsked:
    """`pack load` without a file: the front end asks for one (a form, an attachment)."""

    force: bool = False


Parsed = rq.Request | Usage | PackLoadAsked


def parse(text: str, *, user_of: Callable[[str], str | None] = lambda word: None) -> Parsed:
    """Read one command; `user_of` turns a platform mention into a user id (or None)."""
    head, _, rest = text.strip().partition(" ")
    if not head:
        return rq.Help()
    name = head.lower()
    rest = rest.strip()
    words = tuple(rest.split())
    if name in SOCIAL_SUBCOMMANDS:
        return social(name, words)
    if name not in SUBCOMMANDS:
        return Usage(f"`{shown(head)}` is not a command; {cmd('help')} lists them.")
    if name in NO_ARGUMENTS and words:
        return Usage(f"{cmd(name)} takes no arguments.")
    if name == "start":
        return start(words)
    if name == "run":
        return rq.RunCode(rest)  # empty: the front end opens a form for the code
    if name == "stats":
        if len(words) > 1:
            return Usage(f"{cmd('stats')} takes at most one user, as a mention.")
        if words:
            user = user_of(words[0])
            if user is None:
                return Usage(f"Name the user as a mention, as in {cmd('stats')} @someone.")
            return rq.Stats(user_id=user)
        return rq.Stats()
    if name == "pack":
        return _pack(words)
    simple: dict[str, rq.Request] = {
        "answer": rq.OpenAnswer(),
        "current": rq.Current(),
        "hint": rq.Hint(),
        "skip": rq.Skip(),
        "stop": rq.Stop(),
        "packs": rq.Packs(),
        "help": rq.Help(),
    }
    return simple[name]


def _pack(words: tuple[str, ...]) -> Parsed:
    if not words or words[0].lower() not in PACK_ACTIONS:
        return Usage(f"Use {cmd('pack load')}, {cmd('pack enable')} `<pack>`, {cmd('pack disable')} `<pack>` or {cmd('pack remove')} `<pack>`.")
    action = words[0].lower()
    if action == "load":
        return PackLoadAsked(force=any(w.lower() in ("force", "--force", "force:true") for w in words[1:]))
    if len(words) != 2:
        return Usage(f"Name one pack: {cmd('pack ' + action)} `<pack>`.")
    if action == "remove":
        return rq.PackRemove(words[1])
    return rq.PackEnable(words[1], enabled=action == "enable")


def start(words: tuple[str, ...] | list[str]) -> rq.Start | Usage:
    """Read `[pack] [topic]` in order and `pack:`, `topic:`, `difficulty:`, `count:` by name."""
    options: dict[str, str] = {}
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
            return Usage(f"`{shown(key)}` is not an option of {cmd('start')}; use `pack:`, `topic:`, `difficulty:` or `count:`.")
        else:
            positional.append(word)
    if len(positional) > 2:
        return Usage(f"{cmd('start')} takes a pack and a topic at most; add `difficulty:` and `count:` by name.")
    for key, value in zip(("pack", "topic"), positional, strict=False):
        options.setdefault(key, value)
    count = options.get("count")
    if count is not None and not count.isdigit():
        return Usage(f"`count` must be a whole number; you gave `{shown(count)}`.")
    return rq.Start(
        pack=options.get("pack"),
        topic=options.get("topic"),
        difficulty=options.get("difficulty"),
        count=int(count) if count is not None else None,
    )


def social(name: str, words: tuple[str, ...]) -> Parsed:
    """Read `race ...`, `race stop`, `leaderboard [week|month|all] [pack]`, `privacy leaderboard on|off`."""
    if name == "race":
        if words and words[0].lower() == "stop":
            return rq.RaceStop() if len(words) == 1 else Usage(f"{cmd('race stop')} takes no arguments.")
        return race(words)
    if name == "leaderboard":
        period = pack = None
        for word in words:
            if word.lower() in PERIOD_WORDS and period is None:
                period = word.lower()
            elif pack is None:
                pack = word.removeprefix("pack:")
            else:
                return Usage(f"{cmd('leaderboard')} takes a period (`week`, `month` or `all`) and a pack at most.")
        return rq.Leaderboard(period=period, pack=pack)
    lowered = [w.lower() for w in words]
    if len(lowered) != 2 or lowered[0] != "leaderboard" or lowered[1] not in ("on", "off"):
        return Usage(f"Use {cmd('privacy leaderboard off')} to hide yourself, {cmd('privacy leaderboard on')} to show up again.")
    return rq.Privacy(visible=lowered[1] == "on")


def race(words: tuple[str, ...] | list[str]) -> rq.RaceStart | Usage:
    """Read `[pack] [topic] [difficulty] [rounds] [seconds]`: numbers are rounds then seconds, in order.

    `pack:`, `topic:`, `difficulty:`, `rounds:` and `seconds:` may be named instead.
    """
    options: dict[str, str] = {}
    names: list[str] = []
    numbers: list[str] = []
    for word in words:
        key, sep, value = word.partition(":")
        if sep and key.lower() in RACE_KEYS:
            if not value:
                return Usage(f"`{shown(key)}:` needs a value.")
            options[key.lower()] = value
        elif sep:
            return Usage(f"`{shown(key)}` is not an option of {cmd('race')}; use `pack:`, `topic:`, `difficulty:`, `rounds:` or `seconds:`.")
        elif word.isdigit():
            numbers.append(word)
        elif word.lower() in DIFFICULTIES and "difficulty" not in options:
            options["difficulty"] = word.lower()
        else:
            names.append(word)
    if len(names) > 2 or len(numbers) > 2:
        return Usage(f"{cmd('race')} takes `[pack] [topic] [difficulty] [rounds] [seconds]`, as in {cmd('race')} `pytorch-basics 5 20`.")
    for key, value in zip(("pack", "topic"), names, strict=False):
        options.setdefault(key, value)
    for key, value in zip(("rounds", "seconds"), numbers, strict=False):
        options.setdefault(key, value)
    for key in ("rounds", "seconds"):
        if key in options and not options[key].isdigit():
            return Usage(f"`{key}` must be a whole number; you gave `{shown(options[key])}`.")
    return rq.RaceStart(
        pack=options.get("pack"),
        topic=options.get("topic"),
        difficulty=options.get("difficulty"),
        rounds=int(options["rounds"]) if "rounds" in options else None,
        seconds=int(options["seconds"]) if "seconds" in options else None,
    )


def _example(key: str) -> str:
    return {"pack": "pytorch-autograd", "topic": "backward", "difficulty": "easy", "count": "5"}[key]


def shown(word: str) -> str:
    """A word the person typed, safe to quote back in a code span."""
    return word.replace("`", "'")[:40]
