"""The grading harness: runs inside the job process, reports over a channel of its own.

A plain run executes ``user_code.py`` as ``__main__``. A graded run imports it as the module
``user_code`` (so errors at import time point at the learner's line), then loads the test module
from the source it was given and runs each test with unittest. Every message goes to the results
descriptor as one JSON line carrying the job's nonce; stdout and stderr are only output.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import json
import os
import sys
import traceback
import types
import unittest
from typing import Any

from ._guard import Guard, Tampered, harden_assertions

WORKDIR = "/sandbox"
USER_MODULE = "user_code"
TEST_MODULE = "test_code"
_MAX_TEXT = 2000

_guard = Guard()
_run_test = unittest.TestCase.run
_TestCase = unittest.TestCase


def prepare_template() -> None:
    """Warm unittest and take the guard's snapshots; call once in the template before forking."""
    harden_assertions(_guard)

    class _Warm(unittest.TestCase):
        def test_it(self) -> None:
            self.assertEqual(1, 1)

    suite = unittest.defaultTestLoader.loadTestsFromTestCase(_Warm)
    unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)
    _guard.snapshot()


_REHEARSAL = """
import torch
w = torch.rand(1, 3, requires_grad=True)
x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
loss = ((w @ x - torch.zeros(1, 2)) ** 2).mean()
loss.backward()
text = str(w.grad) + repr(loss) + format(loss.item(), ".3f")
ok = torch.allclose(x.float(), x) and w.shape == (1, 3) and hasattr(w, "grad")
"""


def rehearse() -> None:
    """Walk the usual paths once in a fresh job process, so its first-touch page copies happen early.

    Each job process is a fork of the template: the first write to any page copies it. Running a
    small exercise while the process waits for its job moves most of those copies off the clock.
    """
    namespace: dict[str, Any] = {}
    exec(compile(_REHEARSAL, "<rehearsal>", "exec", dont_inherit=True), namespace)  # noqa: S102
    json.dumps({"n": "0" * 32, "k": "test", "i": 0, "name": "x", "passed": True, "message": ""})
    traceback.extract_tb(None)
    io.StringIO().write(str(namespace.get("text")))


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_TEXT else text[: _MAX_TEXT - 1] + "…"


class _Channel:
    def __init__(self, fd: int, nonce: str) -> None:
        self._fd = fd
        self._nonce = nonce

    def send(self, kind: str, **fields: Any) -> None:
        line = json.dumps({"n": self._nonce, "k": kind, **fields}, ensure_ascii=True) + "\n"
        data = line.encode()
        try:
            while data:
                data = data[os.write(self._fd, data) :]
        except OSError:
            pass  # the supervisor went away or the submission closed the channel: nothing counts


def _user_position(tb: types.TracebackType | None, user_path: str) -> tuple[int | None, int | None]:
    line: int | None = None
    col: int | None = None
    for summary in traceback.extract_tb(tb):
        if summary.filename == user_path:
            line = summary.lineno
            colno = getattr(summary, "colno", None)
            col = colno + 1 if isinstance(colno, int) else None
    return line, col


def _describe(exc: BaseException, user_path: str) -> dict[str, Any]:
    """Return the learner-facing error fields of an exception."""
    if isinstance(exc, SyntaxError) and (exc.filename == user_path or exc.filename is None):
        return {
            "type": type(exc).__name__,
            "message": _clip(str(exc.msg)),
            "line": exc.lineno,
            "col": exc.offset,
        }
    line, col = _user_position(exc.__traceback__, user_path)
    return {"type": type(exc).__name__, "message": _clip(str(exc)), "line": line, "col": col}


def _print_user_traceback(exc: BaseException, workdir: str) -> None:
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


def _out_of_memory(exc: BaseException | None) -> bool:
    """Return True for Python's MemoryError and torch's failed allocations."""
    if isinstance(exc, MemoryError):
        return True
    return isinstance(exc, RuntimeError) and "can't allocate memory" in str(exc)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()


def run_job(job: dict[str, Any], result_fd: int) -> int:
    """Run one job in the current (isolated) process; return the exit status."""
    channel = _Channel(result_fd, str(job["nonce"]))
    workdir = str(job.get("workdir") or WORKDIR)
    user_path = os.path.join(workdir, "user_code.py")
    test_path = os.path.join(workdir, "test_code.py")
    code: str = job["code"]
    test: str | None = job.get("test")
    with open(user_path, "w", encoding="utf-8") as fh:
        fh.write(code)
    if test is not None:
        with open(test_path, "w", encoding="utf-8") as fh:
            fh.write(test)
    import atexit

    atexit._clear()  # the template's exit handlers are not the job's: it leaves by os._exit
    sys.path.insert(0, workdir)
    sys.argv = [user_path]
    importlib.invalidate_caches()
    try:
        if test is None:
            return _plain(code, user_path, workdir, channel)
        return _graded(test, user_path, test_path, workdir, channel)
    finally:
        _flush()


def _finish_script() -> None:
    """Do what the interpreter does at the end of a script: join threads, run atexit functions."""
    import atexit
    import threading

    shutdown = getattr(threading, "_shutdown", None)
    if callable(shutdown):
        shutdown()
    atexit._run_exitfuncs()


def _plain(code: str, user_path: str, workdir: str, channel: _Channel) -> int:
    module = types.ModuleType("__main__")
    module.__file__ = user_path
    module.__builtins__ = __builtins__  # type: ignore[attr-defined]
    sys.modules["__main__"] = module
    try:
        compiled = compile(code, user_path, "exec", dont_inherit=True)
        exec(compiled, module.__dict__)  # noqa: S102 - running the learner's code is the point
        _finish_script()
    except SystemExit as exc:
        status = exc.code
        _flush()  # the supervisor ends the job as soon as it reads "done"
        if status is None or status == 0:
            channel.send("done", exit=0)
            return 0
        channel.send("exit", code=status if isinstance(status, int) else 1, text=_clip(str(status)))
        channel.send("done", exit=1)
        return status if isinstance(status, int) and 0 < status < 256 else 1
    except BaseException as exc:
        _flush()
        if _out_of_memory(exc):
            channel.send("memory")
            return 1
        _print_user_traceback(exc, workdir)
        channel.send("error", where="user", **_describe(exc, user_path))
        channel.send("done", exit=1)
        return 1
    _flush()
    channel.send("done", exit=0)
    return 0


def _load_tests(source: str, test_path: str) -> list[unittest.TestCase]:
    module = types.ModuleType(TEST_MODULE)
    module.__file__ = test_path
    sys.modules[TEST_MODULE] = module
    _guard.allow_test_code = True
    try:
        compiled = compile(source, test_path, "exec", dont_inherit=True)
    finally:
        _guard.allow_test_code = False
    exec(compiled, module.__dict__)  # noqa: S102 - the pack's own test module
    _guard.trust_module(module)
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    tests: list[unittest.TestCase] = []

    def flatten(item: unittest.TestSuite | unittest.TestCase) -> None:
        if isinstance(item, _TestCase):
            tests.append(item)
        elif isinstance(item, unittest.TestSuite):
            for sub in item:
                flatten(sub)

    flatten(suite)
    return tests


class _Recorder(unittest.TestResult):
    """Collect one test's outcome with the exception objects, not formatted tracebacks."""

    def __init__(self, user_path: str) -> None:
        super().__init__()
        self.user_path = user_path
        self.ok = False
        self.problems: list[str] = []
        self.memory = False

    def _note(self, err: Any, failure: bool) -> None:
        exc = err[1] if isinstance(err, tuple) and len(err) == 3 else None
        if _out_of_memory(exc):
            self.memory = True
        if exc is None:
            self.problems.append("the test failed")
        elif failure:
            self.problems.append(_clip(str(exc)) or "the test failed")
        else:
            line, _ = _user_position(exc.__traceback__, self.user_path)
            where = f" (line {line} of your code)" if line is not None else ""
            text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            self.problems.append(_clip(text + where))

    def addSuccess(self, test: unittest.TestCase) -> None:
        self.ok = True

    def addFailure(self, test: unittest.TestCase, err: Any) -> None:
        self._note(err, True)

    def addError(self, test: unittest.TestCase, err: Any) -> None:
        self._note(err, False)

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        self.problems.append(_clip(f"skipped: {reason}"))

    def addExpectedFailure(self, test: unittest.TestCase, err: Any) -> None:
        self.ok = True

    def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:
        self.problems.append("unexpected success")

    def addSubTest(self, test: unittest.TestCase, subtest: unittest.TestCase, err: Any) -> None:
        if err is not None:
            self._note(err, issubclass(err[0], test.failureException))

    @property
    def passed(self) -> bool:
        return self.ok and not self.problems


def _graded(test_source: str, user_path: str, test_path: str, workdir: str, channel: _Channel) -> int:
    _guard.install(workdir, test_path)
    try:
        importlib.import_module(USER_MODULE)
    except BaseException as exc:
        _flush()
        if _out_of_memory(exc):
            channel.send("memory")
            return 1
        _print_user_traceback(exc, workdir)
        info = _describe(exc, user_path)
        if isinstance(exc, SystemExit):
            info["message"] = f"your code called exit({exc.code if exc.code is not None else ''})"
        channel.send("error", where="user", **info)
        channel.send("done", exit=1)
        return 0
    changed = _guard.changes()
    if changed:
        channel.send("tamper", what=_clip(", ".join(changed)))
        channel.send("done", exit=1)
        return 0
    try:
        tests = _load_tests(test_source, test_path)
    except BaseException as exc:
        _flush()
        info = _describe(exc, user_path)
        if info["line"] is None:
            info = {"type": type(exc).__name__, "message": _clip(f"the test file failed to load: {exc}"),
                    "line": None, "col": None}  # fmt: skip
        channel.send("error", where="test", **info)
        channel.send("done", exit=1)
        return 0
    channel.send("plan", tests=[_clip(t.id()) for t in tests])
    for index, test in enumerate(tests):
        recorder = _Recorder(user_path)
        try:
            _run_test(test, recorder)
        except Tampered as exc:
            recorder.problems.append(str(exc))
        except BaseException as exc:  # e.g. SystemExit raised outside the test method
            recorder.problems.append(_clip(f"{type(exc).__name__}: {exc}"))
        changed = _guard.changes() + _guard.shadowed(test)
        if recorder.memory:
            channel.send("memory")
            return 1
        name = getattr(test, "_testMethodName", test.id())
        if changed:
            channel.send("tamper", what=_clip(", ".join(changed)))
            channel.send(
                "test", i=index, name=_clip(str(name)), passed=False, message="the grader was modified"
            )
            break
        message = "; ".join(recorder.problems)
        channel.send("test", i=index, name=_clip(str(name)), passed=recorder.passed, message=message)
    _flush()
    channel.send("done", exit=0)
    return 0
