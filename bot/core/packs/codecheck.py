"""Compile the Python a pack holds, without running it: a code item's test, solution and starter.

A syntax error is reported where the author wrote it: at its line and column in the test or
solution file the pack names, or, for a block written inside pack.yaml, at pack.yaml's line of
the block plus the line within it. Nothing is executed: `compile()` only parses and builds code
objects.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Mapping

from bot.core.errors import Problem
from bot.core.i18n import M_

from . import yamlpos
from .models import AnyQuestion

# The fields that hold Python source in any question type that has them (the code type today).
PYTHON_FIELDS = ("test", "solution", "starter")
_INDENT_INDICATOR = re.compile(r"[|>][+-]?([1-9])")

Origins = Mapping[tuple[int, str], tuple[str, str]]  # (question index, field) -> (file shown, field it was named by)


def syntax_problems(
    questions: Iterable[tuple[int, AnyQuestion]], pos: yamlpos.Positions, shown: str, text: str, origins: Origins
) -> list[Problem]:
    """Return a problem for each test, solution and starter that does not compile.

    `origins` says which fields were read from a file beside the pack (and the name of that file as
    problems show it); the others were written inline in `text`, the pack file shown as `shown`.
    """
    lines = text.splitlines()
    problems: list[Problem] = []
    for i, q in questions:
        for key in PYTHON_FIELDS:
            source = getattr(q, key, None)
            if not isinstance(source, str) or not source.strip():
                continue
            error = compile_error(source)
            if error is None:
                continue
            line, col, detail = error
            origin = origins.get((i, key))
            if origin is not None:
                file, named_by = origin
                where = f"questions[{i}] (id `{q.id}`).{named_by}"
            else:
                file, where = shown, f"questions[{i}] (id `{q.id}`).{key}"
                line, col = _inline_at(lines, pos.value(("questions", i, key)), line, col)
            problems.append(Problem(file, line, col, M_("{where}: syntax error: {detail}", where=where, detail=detail)))
    return problems


def compile_error(source: str) -> tuple[int, int, str] | None:
    """Compile `source` (never run it); return the 1-based line, column and message of its error, if any."""
    try:
        with warnings.catch_warnings():  # an invalid escape or `is 1` is the sandbox's business, not a syntax error
            warnings.simplefilter("ignore")
            compile(source, "<pack>", "exec", dont_inherit=True)
    except SyntaxError as exc:  # IndentationError and TabError too
        return exc.lineno or 1, max(exc.offset or 1, 1), exc.msg
    except ValueError:  # a NUL character, in Python before 3.12
        line = source.count("\n", 0, source.find("\0")) + 1
        return line, 1, M_("a NUL character (\\0) in the code")
    except RecursionError:
        return 1, 1, M_("nested too deeply to compile")
    return None


def _inline_at(lines: list[str], mark: yamlpos.Mark, line: int, col: int) -> yamlpos.Mark:
    """Place a line and column of an inline block on the pack file.

    A block scalar (`|` or `>`) starts on the line after its indicator, indented by its first
    non-blank line (or by its indentation indicator): the place is exact for `|`. A value on one
    line gets its column added to the value's. Other values are placed at their start.
    """
    at_line, at_col = mark
    head = lines[at_line - 1] if 0 < at_line <= len(lines) else ""
    indicator = head[at_col - 1 : at_col]
    if indicator in ("|", ">"):
        explicit = _INDENT_INDICATOR.match(head, at_col - 1)
        if explicit:
            indent = len(head) - len(head.lstrip(" ")) + int(explicit.group(1))
        else:
            body = next((text for text in lines[at_line:] if text.strip()), "")
            indent = len(body) - len(body.lstrip(" "))
        return at_line + line, indent + col
    if line == 1:
        return at_line, at_col + col - (0 if indicator in ("'", '"') else 1)
    return at_line, at_col
