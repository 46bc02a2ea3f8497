"""What reading a typed command gives back: a request, a `Usage` or a `PackLoadAsked` (`Parsed`).

`shown` quotes a typed word back inside a `Usage` text. Every reader of typed commands
(`commands.py`, `daily_commands.py`) returns these; `commands` re-exports them.
"""

from __future__ import annotations

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
