"""What reading a typed command gives back: a request, a `Usage` or a `PackLoadAsked` (`Parsed`).

`shown` quotes a typed word back inside a `Usage` text; `read_options` splits named options
(`key:value`) from the other words. Every reader of typed commands (`commands.py`,
`daily_commands.py`) returns these; `commands` re-exports them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from . import requests as rq


@dataclass(frozen=True)
class Usage:
    """The text could not be understood; `problem` says why, in Markdown."""

    problem: str


@dataclass(frozen=True)
class PackLoadAsked:
    """`pack load` without a file: the front end asks for one (a form, an attachment)."""

    force: bool = False


Parsed = rq.Request | Usage | PackLoadAsked


def shown(word: str) -> str:
    """A word the person typed, safe to quote back in a code span."""
    return word.replace("`", "'")[:40]


def read_options(
    words: Iterable[str],
    keys: tuple[str, ...],
    *,
    needs_value: Callable[[str, str], str],
    not_an_option: Callable[[str], str],
    aliases: Mapping[str, str] | None = None,
    times: bool = False,
) -> tuple[dict[str, str], list[str]] | Usage:
    """Split `key:value` (or `key=value`) words naming one of `keys` from the other words, in order.

    `aliases` maps another name (lower case) to a key. A word with `:` or `=` that names no key is a
    `Usage` (`not_an_option(key)`), unless it is a mention (`<#C1|x>`) or, with `times`, a time such
    as `09:00`; an empty value is one too (`needs_value(key as typed, key)`).
    """
    options: dict[str, str] = {}
    positional: list[str] = []
    for word in words:
        key, sep, value = word.partition(":")
        if not sep:
            key, sep, value = word.partition("=")
        name = key.lower()
        if aliases is not None:
            name = aliases.get(name, name)
        if sep and name in keys:
            if not value:
                return Usage(needs_value(key, name))
            options[name] = value
        elif sep and not word.startswith("<") and not (times and key.isdigit()):
            return Usage(not_an_option(key))
        else:
            positional.append(word)
    return options, positional
