"""Read the typed daily commands: `daily ...` (schedule, review, settings) and `remind ...`.

`commands.parse` hands these two commands here. Also here: the reader of named options the two
share (`key:value`, with aliases such as `tz:`) and of channel mentions (`<#C123|study>`).
"""

from __future__ import annotations

import re

from bot.core.i18n import _

from . import requests as rq
from .command_results import Parsed, Usage, read_options, shown
from .replies import cmd

DAILY_ACTIONS = ("set", "show", "off", "now", "settings")
DAILY_SET_KEYS = ("channel", "time", "timezone", "pack", "topic", "difficulty", "reveal_after_hours")
DAILY_SETTINGS_KEYS = ("reviews", "new", "timezone", "packs")
REMIND_KEYS = ("time", "timezone")
KEY_ALIASES = {"tz": "timezone", "zone": "timezone", "reveal": "reveal_after_hours", "channel_id": "channel"}
# A channel as the platforms write a mention: Slack `<#C123|name>`, Discord `<#123>`; or a bare id.
_CHANNEL = re.compile(r"^<#([A-Za-z0-9]{1,40})(?:\|[^>]{0,100})?>$|^([A-Z0-9]{6,40}|[0-9]{6,40})$")


def channel_id_of(word: str) -> str | None:
    """Return the channel id in a channel mention (`<#C123|study>`, `<#123>`) or a bare id."""
    match = _CHANNEL.match(word.strip())
    return (match.group(1) or match.group(2)) if match else None


def _options(
    words: tuple[str, ...], keys: tuple[str, ...], command: str
) -> tuple[dict[str, str], list[str]] | Usage:
    """Split `key:value` words (by the keys given, or their aliases) from positional words (times among them)."""
    return read_options(
        words,
        keys,
        aliases=KEY_ALIASES,
        times=True,
        needs_value=lambda key, _name: _("`{key}:` needs a value.").format(key=shown(key)),
        not_an_option=lambda key: _("`{key}` is not an option of {command}; use {listed}.").format(
            key=shown(key), command=cmd(command), listed=", ".join(f"`{k}:`" for k in keys)
        ),
    )


def _channel_option(options: dict[str, str], positional: list[str]) -> str | Usage | None:
    """Return the channel named (`channel:` or a mention among the words), None when none is."""
    named = options.get("channel")
    if named is None:
        mentions = [w for w in positional if w.startswith("<#")]
        if not mentions:
            return None
        named = mentions[0]
        positional.remove(named)
    found = channel_id_of(named)
    if found is None:
        return Usage(
            _("Name the channel as a mention (`#channel`); `{word}` is not one.").format(word=shown(named))
        )
    return found


def daily(words: tuple[str, ...]) -> Parsed:
    """Read `daily`, `daily set|show|off|now [channel]` and `daily settings ...`."""
    if not words:
        return rq.DailyReview()
    action = words[0].lower()
    if action not in DAILY_ACTIONS:
        listed = ", ".join(cmd(f"daily {a}") for a in DAILY_ACTIONS)
        return Usage(
            _("`{word}` is not part of {daily}; use {daily} alone, or {listed}.").format(
                word=shown(words[0]), daily=cmd("daily"), listed=listed
            )
        )
    rest = words[1:]
    if action == "settings":
        return _daily_settings(rest)
    keys = DAILY_SET_KEYS if action == "set" else ("channel",)
    parsed = _options(rest, keys, f"daily {action}")
    if isinstance(parsed, Usage):
        return parsed
    options, positional = parsed
    channel = _channel_option(options, positional)
    if isinstance(channel, Usage):
        return channel
    if action != "set":
        if positional:
            return Usage(
                _("{command} takes at most a channel, as a mention.").format(command=cmd("daily " + action))
            )
        simple: dict[str, type[rq.DailyShow | rq.DailyOff | rq.DailyNow]] = {
            "show": rq.DailyShow,
            "off": rq.DailyOff,
            "now": rq.DailyNow,
        }
        return simple[action](channel_id=channel)
    if len(positional) > 3:
        return Usage(
            _("{set} takes a pack, a topic and a difficulty at most; name the rest.").format(
                set=cmd("daily set")
            )
        )
    for key, value in zip(("pack", "topic", "difficulty"), positional, strict=False):
        options.setdefault(key, value)
    missing = [k for k in ("time", "timezone") if k not in options]
    if missing:
        needs = (
            _("{set} needs `{key}:`, as in `time:09:00 timezone:Europe/Berlin`.").format(
                set=cmd("daily set"), key=missing[0]
            )
            if len(missing) == 1
            else _("{set} needs `time:` and `timezone:`, as in `time:09:00 timezone:Europe/Berlin`.").format(
                set=cmd("daily set")
            )
        )
        return Usage(needs)
    return rq.DailySet(
        time=options["time"],
        timezone=options["timezone"],
        channel_id=channel,
        pack=options.get("pack"),
        topic=options.get("topic"),
        difficulty=options.get("difficulty"),
        reveal_after_hours=options.get("reveal_after_hours"),
    )


def _daily_settings(words: tuple[str, ...]) -> Parsed:
    parsed = _options(words, DAILY_SETTINGS_KEYS, "daily settings")
    if isinstance(parsed, Usage):
        return parsed
    options, positional = parsed
    if positional:
        return Usage(
            _("Name each setting of {settings}, as in `reviews:30 new:3 timezone:Europe/Berlin`.").format(
                settings=cmd("daily settings")
            )
        )
    numbers: dict[str, int] = {}
    for key in ("reviews", "new"):
        value = options.get(key)
        if value is not None:
            if not value.isdigit() or len(value) > 4:
                return Usage(
                    _("`{key}` must be a whole number; you gave `{value}`.").format(
                        key=key, value=shown(value)
                    )
                )
            numbers[key] = int(value)
    packs = options.get("packs")
    return rq.DailySettings(
        reviews=numbers.get("reviews"),
        new=numbers.get("new"),
        timezone=options.get("timezone"),
        packs=tuple(p for p in packs.split(",") if p) if packs is not None else None,
    )


def remind(words: tuple[str, ...]) -> Parsed:
    """Read `remind time:<HH:MM> timezone:<IANA>` (or the two words in order) and `remind off`."""
    if len(words) == 1 and words[0].lower() == "off":
        return rq.RemindOff()
    parsed = _options(words, REMIND_KEYS, "remind")
    if isinstance(parsed, Usage):
        return parsed
    options, positional = parsed
    if len(positional) > 2:
        return Usage(_remind_usage())
    for key, value in zip(("time", "timezone"), positional, strict=False):
        options.setdefault(key, value)
    if "time" not in options or "timezone" not in options:
        return Usage(_remind_usage())
    return rq.Remind(time=options["time"], timezone=options["timezone"])


def _remind_usage() -> str:
    return _("Use {remind} `time:08:00 timezone:Europe/Berlin`, or {off}.").format(
        remind=cmd("remind"), off=cmd("remind off")
    )
