"""Find the code in what a learner sends: fenced blocks as every client writes them.

Accepted shapes: a fence on its own line with or without a language (```` ```python ````, ```` ```py ````,
```` ``` ````), code right after the opening fence (```` ```import torch ````, as Slack sends it), the
closing fence at the end of the last code line, fences in the middle of a sentence, and a block
whose closing fence is missing. A block tagged with another language is refused by name.

A Python language word (`python`, `py`, `python3`, `py3`, any case) alone on the block's first line is
not code either: Slack's composer keeps the word a learner types after ```` ``` ```` as the block's
first line, so a bare fence followed by that line loses the line too.
"""

from __future__ import annotations

import re
import warnings
from functools import lru_cache

from bot.core.errors import BadSubmission
from bot.core.i18n import _, number

PYTHON_TAGS = frozenset({"python", "py", "python3", "py3", "pycon", "ipython"})
OTHER_TAGS = frozenset(
    {"js", "javascript", "ts", "typescript", "java", "c", "cpp", "c++", "cs", "csharp", "go", "rust", "rs", "ruby",
     "rb", "php", "bash", "sh", "shell", "zsh", "console", "sql", "json", "yaml", "yml", "html", "css", "kotlin",
     "swift", "r", "julia", "lua", "perl", "scala", "haskell"}
)
_BLOCK = re.compile(r"```(.*?)(?:```|\Z)", re.S)
_TAG = re.compile(r"[ \t]*([A-Za-z0-9_+#-]+)[ \t]*(?:\r?\n|\Z)")
_WORD_LINE = re.compile(r"[ \t]*(?:\r?\n)?[ \t]*(?:python3?|py3?)[ \t]*(?:\r?\n|\Z)", re.I)
DEFAULT_LIMIT = 64 * 1024


def extract(text: str) -> str | None:
    """Return the code of the first fenced block, or None when the text has no fence."""
    match = _BLOCK.search(text)
    if match is None:
        return None
    body = match.group(1)
    tag = _TAG.match(body)
    if tag is not None:
        word = tag.group(1).lower()
        if word in PYTHON_TAGS or word in ("text", "txt", "plain"):
            body = body[tag.end() :]
        elif word in OTHER_TAGS:
            raise BadSubmission(_("That block is marked `{word}`; send Python in a code block that starts with ```python.").format(word=word))
    body = _drop_word_line(body)
    if body.startswith("\r\n"):
        body = body[2:]
    elif body.startswith("\n"):
        body = body[1:]
    return body.rstrip("\n").rstrip(" \t") if body.strip() else ""


def _drop_word_line(body: str) -> str:
    """Drop a first line holding only a Python language word: a line no Python program starts with."""
    line = _WORD_LINE.match(body)
    return body[line.end() :] if line is not None else body


def code_of(text: str) -> str:
    """Return the code in a message or form: the fenced block when there is one, else the text."""
    block = extract(text)
    return block if block is not None else text


def check(code: str, *, limit: int | None = None) -> str:
    """Refuse code that is empty, over the sandbox's size limit or plainly not Python text; return it
    without a leading byte order mark (an editor's marker of the text's encoding, never code: Python
    refuses the character)."""
    limit = limit or DEFAULT_LIMIT
    code = code.removeprefix("\ufeff")
    if not code.strip():
        raise BadSubmission(_("The code is empty. Send your solution in a code block that starts with ```python."))
    size = len(code.encode("utf-8"))
    if size > limit:
        raise BadSubmission(
            _("The code is {size} KiB; the limit is {limit} KiB.").format(size=number(size / 1024), limit=number(limit // 1024))
        )
    if "\x00" in code:
        raise BadSubmission(_("The code contains a NUL byte; send plain Python text."))
    return code


@lru_cache(maxsize=4)  # the decision and the report ask about the same answer
def parses(code: str) -> bool:
    """Say whether Python compiles the code (it is compiled, never run).

    The sandbox's word that the code raised SyntaxError cannot tell code that does not parse from code
    that raises one itself, or a class of its own by that name; this can. `check` bounds the code's size
    first (the sandbox's limit); nesting too deep for the parser is code that does not parse.
    """
    try:
        with warnings.catch_warnings():  # "invalid escape sequence" and the like: the learner's, not the bot's log
            warnings.simplefilter("ignore")
            compile(code, "<answer>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # ValueError: a NUL byte
        return False
    return True
