"""What a learner reads of a job: errors, tracebacks and each test's one line.

An error is reported as fields (type, message, line and column in the learner's file, and the text
of that line, for a caret under the column), never as the grader's traceback; a plain run's
traceback goes through the learner's files only, as Python would print it for their script. Each
test gives one line: its name (a new ``_testMethodName``, else its docstring's first line), and
when it failed the test's own message, or the first line of unittest's, or the exception in the
learner's code with its line. ``_Recorder`` collects one test's outcome for that line.
"""

from __future__ import annotations

import contextlib
import sys
import traceback
import types
import unittest
from typing import Any

from . import bridge
from .result import ErrorDict

_MAX_TEXT = 2000


def clip(text: str) -> str:
    return text if len(text) <= _MAX_TEXT else text[: _MAX_TEXT - 1] + "…"


def _user_position(tb: types.TracebackType | None, user_path: str) -> tuple[int | None, int | None]:
    line: int | None = None
    col: int | None = None
    for summary in traceback.extract_tb(tb):
        if summary.filename == user_path:
            line = summary.lineno
            colno = getattr(summary, "colno", None)
            col = colno + 1 if isinstance(colno, int) else None
    return line, col


def text_of(value: object) -> str:
    """Return ``str(value)``, or "" when the learner's ``__str__`` raises (even SystemExit)."""
    try:
        return str(value)
    except BaseException:
        return ""


def describe(exc: BaseException, user_path: str, code: str = "") -> ErrorDict:
    """Return the learner-facing error fields of an exception, with the text of the learner's line."""
    if isinstance(exc, SyntaxError) and (exc.filename == user_path or exc.filename is None):
        line, col = exc.lineno, exc.offset
        message = clip(text_of(exc.msg))
    else:
        line, col = _user_position(exc.__traceback__, user_path)
        message = clip(text_of(exc))
    lines = code.splitlines()
    source = lines[line - 1] if isinstance(line, int) and 0 < line <= len(lines) else None
    return {"type": type(exc).__name__, "message": message, "line": line, "col": col,
            "source": clip(source) if source else None}  # fmt: skip


def print_user_traceback(exc: BaseException, workdir: str) -> None:
    """Print a traceback through the learner's files only, as Python would for their script."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith(workdir + "/")]
    lines = ["Traceback (most recent call last):\n"] if frames else []
    lines += traceback.format_list(frames)
    lines += traceback.format_exception_only(type(exc), exc)
    text = "".join(lines).replace(workdir + "/", "")
    try:
        sys.stderr.write(text)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def out_of_memory(exc: BaseException | None) -> bool:
    """Return True for Python's MemoryError and torch's failed allocations."""
    if isinstance(exc, MemoryError):
        return True
    return isinstance(exc, RuntimeError) and "can't allocate memory" in text_of(exc)


_MAX_LINE = 600
_CUSTOM_MESSAGE = "_sandbox_message"


def note_custom_message(self: unittest.TestCase, msg: Any, standard: str) -> str:
    """Stand in for unittest's message formatting, noting the test's own message when it gave one."""
    text = _format_message(self, msg, standard)
    with contextlib.suppress(Exception):
        self.__dict__[_CUSTOM_MESSAGE] = (None if msg is None else str(msg), text)
    return text


_format_message = unittest.TestCase._formatMessage


def one_line(text: str, limit: int = _MAX_LINE) -> str:
    """Return ``text`` on one line (its lines joined by a space), capped at ``limit``."""
    lines = text.splitlines()  # every line break Python knows: "\r", "\u2028", "\x0b" ... not only "\n"
    flat = " ".join(line.strip() for line in lines if line.strip()) if lines != [text] and text else text
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def failure_line(test: unittest.TestCase, exc: BaseException | None) -> str:
    """Return the line a learner reads for a failed assertion.

    For an assertion that formatted its message: the test's own message when it gave one (the
    text unittest puts after " : "), else the first line of unittest's standard message
    ("(2, 3) != (2, 5)") without the diff below it. For ``fail(msg)`` or a raised
    AssertionError: its text.
    """
    text = str(exc) if exc is not None else ""
    noted = test.__dict__.get(_CUSTOM_MESSAGE)
    if isinstance(noted, tuple) and len(noted) == 2 and noted[1] == text:
        custom, _ = noted
        if isinstance(custom, str) and custom.strip():
            return one_line(custom)
        first = text.strip().split("\n", 1)[0]
        return one_line(first) or "the test failed"
    return one_line(text.strip()) or "the test failed"


def display_name(test: unittest.TestCase, original: str) -> str:
    """Return the name a learner reads: the test's new name, else its docstring's first line."""
    name = getattr(test, "_testMethodName", original)
    if not isinstance(name, str):
        name = str(name)
    if name == original:
        with contextlib.suppress(Exception):
            doc = test.shortDescription()
            if isinstance(doc, str) and doc.strip():
                return one_line(doc)
    return one_line(name, _MAX_TEXT)


def raised_text(exc: BaseException) -> str:
    """Return "Type: message" for an exception a test met; for the learner's exit or interrupt (a
    ``RemoteControlFlow`` of the bridge's own), what their code did: "your code called exit(3)"."""
    if isinstance(exc, bridge.RemoteControlFlow):
        text = text_of(exc)
        if exc.kind == "SystemExit":
            status = text.partition(": ")[2] if ": " in text else ""
            return f"your code called exit({'' if status == 'None' else status})"
        return text
    text = text_of(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class _Recorder(unittest.TestResult):
    """Collect one test's outcome with the exception objects, not formatted tracebacks."""

    def __init__(self, user_path: str) -> None:
        super().__init__()
        self.user_path = user_path
        self.ok = False
        self.problems: list[str] = []
        self.memory = False

    def _note(self, test: unittest.TestCase, err: Any, failure: bool) -> None:
        exc = err[1] if isinstance(err, tuple) and len(err) == 3 else None
        if out_of_memory(exc):
            self.memory = True
        if isinstance(exc, bridge.PeerGone):
            self.problems.append(str(exc))
        elif exc is None:
            self.problems.append("the test failed")
        elif failure:
            self.problems.append(failure_line(test, exc))
        else:
            line, _ = _user_position(exc.__traceback__, self.user_path)
            where = f" (line {line} of your code)" if line is not None else ""
            self.problems.append(one_line(raised_text(exc) + where))

    def addSuccess(self, test: unittest.TestCase) -> None:
        self.ok = True

    def addFailure(self, test: unittest.TestCase, err: Any) -> None:
        self._note(test, err, True)

    def addError(self, test: unittest.TestCase, err: Any) -> None:
        self._note(test, err, False)

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        self.problems.append(one_line(f"skipped: {reason}"))

    def addExpectedFailure(self, test: unittest.TestCase, err: Any) -> None:
        self.ok = True

    def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:
        self.problems.append("unexpected success")

    def addSubTest(self, test: unittest.TestCase, subtest: unittest.TestCase, err: Any) -> None:
        if err is not None:
            self._note(test, err, issubclass(err[0], test.failureException))

    @property
    def passed(self) -> bool:
        return self.ok and not self.problems


def error_fields(fields: object, code: str) -> ErrorDict:
    """Return the learner-facing error of a failed load, with the offending line's text."""
    info = fields if isinstance(fields, dict) else {}
    line = info.get("line") if type(info.get("line")) is int else None
    col = info.get("col") if type(info.get("col")) is int else None
    source = info.get("source") if isinstance(info.get("source"), str) else None
    if line is not None and 0 < line <= code.count("\n") + 1:
        source = code.splitlines()[line - 1] if line <= len(code.splitlines()) else source
    return {
        "type": clip(str(info.get("type") or "Error")),
        "message": clip(str(info.get("message") or "")),
        "line": line,
        "col": col,
        "source": clip(source) if source else None,
    }
