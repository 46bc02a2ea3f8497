"""Read a typed command (`start pytorch-autograd topic:leaves`, `pack enable x`) into a request.

Slack's one `/quiz` slash command and the terminal both type commands as text; `parse` is the one
entry that reads them (it hands `daily ...` and `remind ...` to `daily_commands.py`). A problem
comes back as `Usage`, whose text says what to write instead. `Usage`, `PackLoadAsked`, `Parsed`
and `shown` are defined in `command_results.py` and importable from here.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.core.i18n import _

from . import requests as rq
from .command_results import PackLoadAsked as PackLoadAsked
from .command_results import Parsed as Parsed
from .command_results import Usage as Usage
from .command_results import read_options
from .command_results import shown as shown
from .daily_commands import daily, remind
from .packs import DIFFICULTIES
from .replies import cmd, opt

SUBCOMMANDS = (
    "start", "answer", "current", "hint", "skip", "stop", "run", "stats", "packs", "help", "pack", "daily", "review",
    "remind", "my-data", "report", "language",
)
MY_DATA_ACTIONS = ("export", "delete")
SOCIAL_SUBCOMMANDS = ("race", "leaderboard", "privacy")
RACE_KEYS = ("pack", "topic", "difficulty", "rounds", "seconds")
PERIOD_WORDS = ("week", "month", "all")
PACK_ACTIONS = ("load", "enable", "disable", "remove")
START_KEYS = ("pack", "topic", "difficulty", "count", "language")
NO_ARGUMENTS = ("answer", "current", "hint", "skip", "stop", "help", "review")


def parse(text: str, *, user_of: Callable[[str], str | None] = lambda word: None) -> Parsed:
    """Read one command; `user_of` turns a platform mention into a user id (or None)."""
    text = text.strip()
    head = text.split(None, 1)[0] if text else ""  # any whitespace ends it: `run` then a new line and code
    if not head:
        return rq.Help()
    name = head.lower()
    rest = text[len(head) :].strip()
    words = tuple(rest.split())
    if name in SOCIAL_SUBCOMMANDS:
        return social(name, words)
    if name not in SUBCOMMANDS:
        return Usage(_("`{word}` is not a command; {help} lists them.").format(word=shown(head), help=cmd("help")))
    if name in NO_ARGUMENTS and words:
        return Usage(_("{command} takes no arguments.").format(command=cmd(name)))
    if name == "start":
        return start(words)
    if name == "run":
        return rq.RunCode(rest)  # empty: the front end opens a form for the code
    if name == "stats":
        if len(words) > 1:
            return Usage(_("{stats} takes at most one user, as a mention.").format(stats=cmd("stats")))
        if words:
            user = user_of(words[0])
            if user is None:
                return Usage(_("Name the user as a mention, as in {stats} @someone.").format(stats=cmd("stats")))
            return rq.Stats(user_id=user)
        return rq.Stats()
    if name == "pack":
        return _pack(words)
    if name == "daily":
        return daily(words)
    if name == "remind":
        return remind(words)
    if name == "my-data":
        return _my_data(words, user_of)
    if name == "language":
        return language(words)
    if name == "packs":
        if len(words) > 1:
            return Usage(_("{packs} takes a language at most, as in {packs} `es`.").format(packs=cmd("packs")))
        return rq.Packs(language=words[0].removeprefix("language:") if words else None)
    if name == "report":
        return report(words)
    simple: dict[str, rq.Request] = {
        "answer": rq.OpenAnswer(),
        "current": rq.Current(),
        "hint": rq.Hint(),
        "skip": rq.Skip(),
        "stop": rq.Stop(),
        "help": rq.Help(),
        "review": rq.DailyReview(),
    }
    return simple[name]


def _pack(words: tuple[str, ...]) -> Parsed:
    if not words or words[0].lower() not in PACK_ACTIONS:
        return Usage(
            _("Use {load}, {enable} `<pack>`, {disable} `<pack>` or {remove} `<pack>`.").format(
                load=cmd("pack load"), enable=cmd("pack enable"), disable=cmd("pack disable"), remove=cmd("pack remove")
            )
        )
    action = words[0].lower()
    if action == "load":
        return PackLoadAsked(force=any(w.lower() in ("force", "--force", "force:true") for w in words[1:]))
    if len(words) != 2:
        return Usage(_("Name one pack: {command} `<pack>`.").format(command=cmd("pack " + action)))
    if action == "remove":
        return rq.PackRemove(words[1])
    return rq.PackEnable(words[1], enabled=action == "enable")


def _my_data(words: tuple[str, ...], user_of: Callable[[str], str | None]) -> Parsed:
    """`my-data export|delete [user:<mention>]`: the user part is for admins acting for someone else."""
    if not words or words[0].lower() not in MY_DATA_ACTIONS or len(words) > 2:
        return Usage(
            _("Use {export} or {delete}; admins may add a user: `user:@someone`.").format(
                export=cmd("my-data export"), delete=cmd("my-data delete")
            )
        )
    user: str | None = None
    if len(words) == 2:
        word = words[1]
        if word.lower().startswith("user:"):
            word = word[5:]
        user = user_of(word)
        if user is None:
            return Usage(
                _("Name the user as a mention, as in {command} `user:@someone`.").format(command=cmd("my-data " + words[0].lower()))
            )
    if words[0].lower() == "export":
        return rq.MyDataExport(user_id=user)
    return rq.MyDataDelete(user_id=user)


REPORT_KEYS = ("pack", "topic", "since")
_SINCE_WORD = re.compile(r"^\d{4}[-/.]\S*$|^\d{1,4}d$", re.IGNORECASE)  # a day, or a number of days back


def report(words: tuple[str, ...] | list[str]) -> rq.Report | Usage:
    """Read `report [pack] [topic] [since]`: a word that looks like a day (or `30d`) is `since`; or name each."""
    options: dict[str, str] = {}
    positional: list[str] = []
    for word in words:
        key, sep, value = word.partition(":")
        if sep and key.lower() in REPORT_KEYS:
            if not value:
                return Usage(_("`{key}:` needs a value, as in `since:2026-11-01`.").format(key=shown(key)))
            options[key.lower()] = value
        elif sep:
            return Usage(
                _("`{key}` is not an option of {report}; use `pack:`, `topic:` or `since:`.").format(key=shown(key), report=cmd("report"))
            )
        elif _SINCE_WORD.match(word) and "since" not in options:
            options["since"] = word
        else:
            positional.append(word)
    if len(positional) > 2:
        return Usage(
            _("{report} takes `[pack] [topic] [since]`, as in {report} `pytorch-basics since:2026-11-01`.").format(report=cmd("report"))
        )
    for key, value in zip(("pack", "topic"), positional, strict=False):
        options.setdefault(key, value)
    return rq.Report(pack=options.get("pack"), topic=options.get("topic"), since=options.get("since"))


def start(words: tuple[str, ...] | list[str]) -> rq.Start | Usage:
    """Read `[pack] [topic] [difficulty] [count]` in that order, or `pack:`, `topic:`, `difficulty:`, `count:` by name.

    In place, a difficulty is one of its words (`easy`) and a count a number, after the names.
    """
    parsed = read_options(
        words,
        START_KEYS,
        needs_value=lambda key, name: _("`{key}:` needs a value, as in `{key}:{example}`.").format(key=key, example=_example(name)),
        not_an_option=lambda key: _(
            "`{key}` is not an option of {start}; use `pack:`, `topic:`, `difficulty:`, `count:` or `language:`."
        ).format(key=shown(key), start=cmd("start")),
    )
    if isinstance(parsed, Usage):
        return parsed
    options, positional = parsed
    in_place = _in_place(positional)
    if in_place is None:
        return Usage(
            _(
                "{start} takes `[pack] [topic] [difficulty] [count]` in that order, as in {start} `pytorch-autograd backward easy 5`;"
                " or name each: `topic:`, `difficulty:`, `count:`."
            ).format(start=cmd("start"))
        )
    for key, value in in_place.items():
        options.setdefault(key, value)
    count = options.get("count")
    number = None if count is None else _whole(count)
    if isinstance(number, Usage):
        return number
    return rq.Start(
        pack=options.get("pack"),
        topic=options.get("topic"),
        difficulty=options.get("difficulty"),
        count=number,
        language=options.get("language"),
    )


def _in_place(words: list[str]) -> dict[str, str] | None:
    """The pack, topic, difficulty and count written without names, in that order (each may be left out); None: not so."""
    slots = ("pack", "topic", "difficulty", "count")
    found: dict[str, str] = {}
    at = 0  # the first slot still open
    for word in words:
        if _is_number(word):
            slot = 3
        elif word.lower() in DIFFICULTIES:
            slot, word = 2, word.lower()
        elif at < 2:
            slot = at  # a name: the pack, then the topic
        else:
            return None  # a name after three (or after the difficulty or count)
        if slot < at:
            return None  # this slot is filled, or one after it is
        found[slots[slot]] = word
        at = slot + 1
    return found


def _is_number(word: str) -> bool:
    """A whole number as typed: digits (any script's decimal digits, as `int` reads them), after a sign or not."""
    digits = word[1:] if word[:1] in "+-" else word
    return digits.isdecimal()


def _whole(word: str) -> int | Usage:
    """The count as a number; the range is the core's to check (`count:-3` is out of range, not no number)."""
    if not _is_number(word):
        return Usage(_("`{key}` must be a whole number; you gave `{value}`.").format(key="count", value=shown(word)))
    if len(word.lstrip("+-").lstrip("0")) > 9:  # out of range whatever it is, and too long for `int` past 4,300 digits
        return Usage(
            _("{option} must be between 1 and {most}; you gave {count}.").format(option=opt("count"), most=rq.MAX_COUNT, count=shown(word))
        )
    return int(word)


def social(name: str, words: tuple[str, ...]) -> Parsed:
    """Read `race ...`, `race stop`, `leaderboard [week|month|all] [pack]`, `privacy leaderboard on|off`."""
    if name == "race":
        if words and words[0].lower() == "stop":
            return rq.RaceStop() if len(words) == 1 else Usage(_("{command} takes no arguments.").format(command=cmd("race stop")))
        if words and words[0].lower() == "start":  # as Discord writes it: `/quiz race start`
            words = words[1:]
        return race(words)
    if name == "leaderboard":
        period = pack = None
        for word in words:
            if word.lower() in PERIOD_WORDS and period is None:
                period = word.lower()
            elif pack is None:
                pack = word.removeprefix("pack:")
            else:
                return Usage(
                    _("{leaderboard} takes a period (`week`, `month` or `all`) and a pack at most.").format(leaderboard=cmd("leaderboard"))
                )
        return rq.Leaderboard(period=period, pack=pack)
    lowered = [w.lower() for w in words]
    if len(lowered) != 2 or lowered[0] != "leaderboard" or lowered[1] not in ("on", "off"):
        return Usage(
            _("Use {off} to hide yourself, {on} to show up again.").format(
                off=cmd("privacy leaderboard off"), on=cmd("privacy leaderboard on")
            )
        )
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
                return Usage(_("`{key}:` needs a value.").format(key=shown(key)))
            options[key.lower()] = value
        elif sep:
            return Usage(
                _("`{key}` is not an option of {race}; use `pack:`, `topic:`, `difficulty:`, `rounds:` or `seconds:`.").format(
                    key=shown(key), race=cmd("race")
                )
            )
        elif word.isdigit():
            numbers.append(word)
        elif word.lower() in DIFFICULTIES and "difficulty" not in options:
            options["difficulty"] = word.lower()
        else:
            names.append(word)
    if len(names) > 2 or len(numbers) > 2:
        return Usage(
            _("{race} takes `[pack] [topic] [difficulty] [rounds] [seconds]`, as in {race} `pytorch-basics 5 20`.").format(race=cmd("race"))
        )
    for key, value in zip(("pack", "topic"), names, strict=False):
        options.setdefault(key, value)
    for key, value in zip(("rounds", "seconds"), numbers, strict=False):
        options.setdefault(key, value)
    for key in ("rounds", "seconds"):
        if key in options and not options[key].isdecimal():  # isdigit() takes `²`, which int() refuses
            return Usage(_("`{key}` must be a whole number; you gave `{value}`.").format(key=key, value=shown(options[key])))
    return rq.RaceStart(
        pack=options.get("pack"),
        topic=options.get("topic"),
        difficulty=options.get("difficulty"),
        rounds=int(options["rounds"]) if "rounds" in options else None,
        seconds=int(options["seconds"]) if "seconds" in options else None,
    )


def language(words: tuple[str, ...]) -> Parsed:
    """Read `language [code]` (the learner's) and `language server [code]` (the server's default, admins)."""
    server = bool(words) and words[0].lower() == "server"
    rest = words[1:] if server else words
    if len(rest) > 1:
        return Usage(
            _("Use {language} `<code>` or {server} `<code>`, with `en`, `es`, `de` or `auto`.").format(
                language=cmd("language"), server=cmd("language server")
            )
        )
    return rq.Language(code=rest[0].lower() if rest else None, server=server)


def _example(key: str) -> str:
    return {"pack": "pytorch-autograd", "topic": "backward", "difficulty": "easy", "count": "5", "language": "es"}[key]
