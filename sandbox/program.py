"""Run the learner's file as a whole program, CodeRunner-style: as ``__main__``, with a given stdin.

A test module that holds the line ``# sandbox: program`` grades a program rather than a module:
the learner process does not import the learner's file; it holds a :class:`Program` instead, and
the test asks it, through the bridge, to run the file once per test case::

    run = user_code.run_program("3 4\\n")          # -> {"stdout": "7\\n", "stderr": "", "exit": 0, ...}

Each run is a fresh child of the learner process (forked, so nothing one case leaves behind is seen
by the next), with its standard input, output and error on memory files: ``input()``,
``sys.stdin.read()``, ``open(0)`` and ``os.write(1, ...)`` all behave as in a real run. The child
closes every other descriptor first, the bridge's pipes included, so the program cannot talk to the
grader; what comes back is plain data (strings and numbers), and the expected output never leaves
the grader. This module runs in the learner process only; the grader uses :func:`is_program_test`
and :func:`learner_stub`.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import re
import resource
import signal
import sys
import traceback
import types
from typing import Any

MARKER = re.compile(r"^#\s*sandbox:\s*program\s*$", re.M)
MAX_STDOUT = 1 << 20  # what the grader is sent of a run's standard output, in bytes
MAX_STDERR = 64 << 10
MAX_STDIN = 8 << 20


def is_program_test(test_source: str) -> bool:
    """Return True when the test module grades a whole program (it holds ``# sandbox: program``)."""
    return MARKER.search(test_source) is not None


def learner_stub(code: str, user_path: str) -> str:
    """Return the module the learner process loads as ``user_code`` in place of the learner's file."""
    return f"from sandbox.program import Program as _Program\nrun_program = _Program({code!r}, {user_path!r}).run\n"


class Program:
    """The learner's file, compiled once (a syntax error surfaces at load), run on demand."""

    def __init__(self, source: str, path: str) -> None:
        compile(source, path, "exec", dont_inherit=True)
        self._source = source
        self._path = path

    def run(self, stdin: str = "", after: str = "", echo_input: bool = False) -> dict[str, Any]:
        """Run the file (followed by ``after``, a case's test code) as ``__main__`` fed ``stdin``.

        Return ``stdout`` and ``stderr`` (decoded as UTF-8, cut at a budget, ``truncated`` says so),
        ``exit`` (the exit status; minus the signal number when a signal ended it) and ``signal``
        (that signal's name, else None). ``echo_input`` makes ``input()`` print the line it read, as
        CodeRunner's ``python3_w_input`` questions do.
        """
        if not isinstance(stdin, str) or not isinstance(after, str) or len(stdin) > MAX_STDIN:
            raise ValueError("run_program takes the standard input and the test code as text")
        source = self._source if not after else self._source.rstrip("\n") + "\n" + after
        fds: list[int] = []
        try:
            for stream in ("stdin", "stdout", "stderr"):
                fds.append(os.memfd_create(stream))
            _write_all(fds[0], stdin.encode("utf-8", "surrogateescape"))
            os.lseek(fds[0], 0, os.SEEK_SET)
            _flush_std()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child leaves by os._exit, measured by the tests' outcomes
                status = 70
                try:
                    status = _child(fds, source, self._path, bool(echo_input))
                finally:
                    os._exit(status)
            _, raw = os.waitpid(pid, 0)
            out = os.pread(fds[1], MAX_STDOUT + 1, 0)
            err = os.pread(fds[2], MAX_STDERR + 1, 0)
        finally:
            for fd in fds:
                with contextlib.suppress(OSError):
                    os.close(fd)
        code = os.waitstatus_to_exitcode(raw)
        name = None
        if code < 0:
            with contextlib.suppress(ValueError):
                name = signal.Signals(-code).name
        return {
            "stdout": out[:MAX_STDOUT].decode("utf-8", "replace"),
            "stderr": err[:MAX_STDERR].decode("utf-8", "replace"),
            "exit": code,
            "signal": name,
            "truncated": len(out) > MAX_STDOUT or len(err) > MAX_STDERR,
        }


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _flush_std() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


def _child(fds: list[int], source: str, path: str, echo: bool) -> int:
    """Become the program: descriptors 0-2 on the memory files, nothing else open, run the file."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    os.closerange(3, soft if 0 < soft < (1 << 20) else 65536)  # the bridge's pipes among them
    streams = {
        "stdin": open(0, encoding="utf-8", closefd=False),  # noqa: SIM115
        "stdout": open(1, "w", encoding="utf-8", closefd=False),  # noqa: SIM115
        "stderr": open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False),  # noqa: SIM115
    }
    for name, stream in streams.items():  # sys.__stdout__ too: a script may write there
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__builtins__ = builtins  # type: ignore[attr-defined]
    if echo:
        module.__dict__["input"] = _echoing_input
    sys.modules["__main__"] = module
    sys.argv = [path]
    status = 0
    try:
        compiled = compile(source, path, "exec", dont_inherit=True)
        exec(compiled, module.__dict__)  # noqa: S102 - this child exists to run the learner's program
        _finish_script()
    except SystemExit as exc:
        status = _exit_status(exc.code)
    except BaseException as exc:
        _print_traceback(exc, path)
        status = 1
    _flush_std()
    return status


def _echoing_input(prompt: object = "") -> str:
    """Read a line as ``input()`` does and print it, as CodeRunner's python3_w_input template does."""
    line = builtins.input(prompt)
    print(line)
    return line


def _finish_script() -> None:
    import atexit
    import threading

    shutdown = getattr(threading, "_shutdown", None)
    if callable(shutdown):
        shutdown()
    atexit._run_exitfuncs()


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    with contextlib.suppress(Exception):
        print(code, file=sys.stderr)
    return 1


def _print_traceback(exc: BaseException, path: str) -> None:
    """Print the traceback through the learner's file only, as Python would for a script."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == path]
    lines = ["Traceback (most recent call last):\n"] if frames else []
    lines += traceback.format_list(frames)
    lines += traceback.format_exception_only(type(exc), exc)
    text = "".join(lines).replace(os.path.dirname(path) + "/", "")
    with contextlib.suppress(Exception):
        sys.stderr.write(text)

