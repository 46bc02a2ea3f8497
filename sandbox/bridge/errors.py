"""Exceptions across the bridge: described as data by the side that raised them, rebuilt by the other.

On the grader's side a control-flow exception of the learner's (``StopIteration``, ``SystemExit``
...) or an exception group arrives as a ``RemoteControlFlow`` (a ``RuntimeError`` naming it), so it
can neither end the test's iteration quietly nor end the grader.
"""

from __future__ import annotations

import builtins
import contextlib
from typing import TYPE_CHECKING, Any

from .decode import Decoder
from .encode import Encoder
from .shapes import CONTROL_FLOW, ErrorFields, RemoteControlFlow, clip

if TYPE_CHECKING:
    from .rpc import Peer


def describe(peer: Peer, exc: BaseException) -> ErrorFields:
    """Return an exception as data, with the learner's line when it happened in their file."""
    from traceback import extract_tb

    fields: ErrorFields = {
        "type": type(exc).__name__[:200],
        "bases": [c.__name__ for c in type(exc).__mro__ if c.__module__ == "builtins"][:20],
        "message": clip(_safe_str(exc)),
        "line": None,
        "col": None,
        "source": None,
    }
    if isinstance(exc, SystemExit):
        code = exc.code
        fields["exit"] = code if isinstance(code, (int, str, type(None))) else _safe_str(code)
    try:
        fields["args"] = Encoder(peer, strict=True).encode(tuple(exc.args))
    except Exception:
        fields["args"] = None
    if isinstance(exc, SyntaxError) and exc.filename in (peer.user_path, None):
        fields["message"] = clip(str(exc.msg))
        fields["line"] = exc.lineno
        fields["col"] = exc.offset
        fields["source"] = (exc.text or "").rstrip("\r\n")[:400] or None
        return fields
    for summary in extract_tb(exc.__traceback__):
        if summary.filename == peer.user_path:
            fields["line"] = summary.lineno
            colno = getattr(summary, "colno", None)
            fields["col"] = colno + 1 if isinstance(colno, int) else None
            fields["source"] = (summary.line or "")[:400] or None
    if fields["source"] is not None and isinstance(fields["line"], int):
        fields["source"] = _source_line(peer.user_path, fields["line"]) or fields["source"]
    return fields


def rebuild(peer: Peer, fields: ErrorFields) -> BaseException:
    """Return a local exception standing for one raised on the other side (grader side)."""
    name = str(fields.get("type") or "Exception")[:200]
    message = clip(str(fields.get("message") or ""))
    base: type[BaseException] = Exception
    for candidate in fields.get("bases") or []:
        found = getattr(builtins, str(candidate), None)
        if isinstance(found, type) and issubclass(found, BaseException):
            base = found
            break
    args: Any = None
    with contextlib.suppress(Exception):
        args = Decoder(peer, strict=True).decode(fields.get("args"))
    exc: BaseException
    control = next(
        (getattr(builtins, n) for n in CONTROL_FLOW if issubclass(base, getattr(builtins, n))), None
    )
    if not peer.learner and (control is not None or issubclass(base, BaseExceptionGroup)):
        # Rebuilt faithfully, a StopIteration would quietly end the test's map() or generator,
        # and a SystemExit or KeyboardInterrupt would end the grader: a plain error names it.
        exc = RemoteControlFlow(name if control is None else control.__name__, message)
    elif getattr(builtins, name, None) is base:
        exc = _make_exception(base, args, message, fields)
    else:
        try:  # type() refuses some names (a NUL, a lone surrogate): then a plain error names it
            cls = type(name, (base,), {"__module__": "user_code", "__str__": lambda self: message})
            exc = cls(*args) if isinstance(args, tuple) else cls(message)
        except Exception:
            exc = RuntimeError(f"{name}: {message}" if message else name)
    line = fields.get("line")
    if isinstance(line, int) and 0 < line < 100_000:
        exc = _raised_at(exc, peer.user_path, line)
    return exc


def _safe_str(exc: object) -> str:
    try:
        return str(exc)
    except BaseException:  # a learner's __str__ may raise anything, SystemExit too
        return ""


def _source_line(path: str, line: int) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for n, text in enumerate(fh, 1):
                if n == line:
                    return text.rstrip("\r\n")[:400]
    except OSError:
        return None
    return None


def _make_exception(base: type[BaseException], args: Any, message: str, fields: ErrorFields) -> BaseException:
    if base is SystemExit:
        return SystemExit(fields.get("exit"))
    if base is SyntaxError or issubclass(base, SyntaxError):
        line = fields.get("line")
        return base(message, ("user_code.py", line, fields.get("col"), fields.get("source"), None, None))
    try:
        exc = base(*args) if isinstance(args, tuple) else base(message)
        if _safe_str(exc) != message:
            exc = base(message)
    except Exception:
        return RuntimeError(f"{base.__name__}: {message}" if message else base.__name__)
    return exc


def _raised_at(exc: BaseException, path: str, line: int) -> BaseException:
    """Return ``exc`` with a traceback whose last frame is line ``line`` of the learner's file."""
    code = compile("\n" * (line - 1) + "raise __sandbox_exc__", path, "exec", dont_inherit=True)
    try:
        exec(code, {"__sandbox_exc__": exc})  # noqa: S102 - our own one-line raise, placed at the learner's line
    except BaseException as raised:
        return raised
    return exc
