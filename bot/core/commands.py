"""Read a typed command (`start pytorch-autograd topic:leaves`, `pack enable x`) into a request.

Slack's one `/quiz` slash command and the terminal both type commands as text; this is the one
place that reads them. A problem comes back as `Usage`, whose text says what to write instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import requests as rq
from .replies import cmd

SUBCOMMANDS = ("start", "answer", "current", "hint", "skip", "stop", "run", "stats", "packs", "help", "pack", "my-data")
MY_DATA_ACTIONS = ("export", "delete")
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
    if name == "my-data":
        return _my_data(words, user_of)
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


def _my_data(words: tuple[str, ...], user_of: Callable[[str], str | None]) -> Parsed:
    """`my-data export|delete [user:<mention>]`: the user part is for admins acting for someone else."""
    if not words or words[0].lower() not in MY_DATA_ACTIONS or len(words) > 2:
        return Usage(f"Use {cmd('my-data export')} or {cmd('my-data delete')}; admins may add a user: `user:@someone`.")
    user: str | None = None
    if len(words) == 2:
        word = words[1]
        if word.lower().startswith("user:"):
            word = word[5:]
        user = user_of(word)
        if user is None:
            return Usage(f"Name the user as a mention, as in {cmd('my-data ' + words[0].lower())} `user:@someone`.")
    if words[0].lower() == "export":
        return rq.MyDataExport(user_id=user)
    return rq.MyDataDelete(user_id=user)


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


def _example(key: str) -> str:
    return {"pack": "pytorch-autograd", "topic": "backward", "difficulty": "easy", "count": "5"}[key]


def shown(word: str) -> str:
    """A word the person typed, safe to quote back in a code span."""
    return word.replace("`", "'")[:40]
