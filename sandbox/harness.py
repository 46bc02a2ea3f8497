"""The grading harness: the job processes' side of a job; reports over a channel of its own.

A plain run executes ``user_code.py`` as ``__main__`` in the job process. A graded run has two
processes: the learner process (:func:`serve_learner`) runs the learner's file as the module
``user_code`` and answers requests; the grader process (:func:`run_job`) loads the test module,
where ``user_code`` is a stand-in that asks the learner process (see ``bridge``), and runs each
test with unittest. Only the grader holds the results descriptor: every message goes there as one
JSON line carrying the job's nonce; stdout and stderr are only output. What a learner reads of an
error or a test (its fields, its one line) is worded in ``_feedback``.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.machinery
import importlib.util
import io
import json
import os
import sys
import traceback
import types
import unittest

from . import _rootfs, _testprep, bridge, program
from ._feedback import (
    _Recorder,
    clip,
    describe,
    display_name,
    error_fields,
    note_custom_message,
    one_line,
    out_of_memory,
    print_user_traceback,
    text_of,
)
from ._fixtures import Fixtures, run_test
from ._hooks import hook_output
from ._messages import JobSpec, PreparedTest, ResultOp
from ._usermodule import TEST_MODULE, USER_MODULE, UserFinder, UserLoader

WORKDIR = "/sandbox"

_TestCase = unittest.TestCase


def prepare_template() -> None:
    """Warm unittest; call once in the template before forking."""

    class _Warm(unittest.TestCase):
        def test_it(self) -> None:
            self.assertEqual(1, 1)

    suite = unittest.defaultTestLoader.loadTestsFromTestCase(_Warm)
    unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)


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
    small exercise while the process waits for its job moves most of those copies off the clock
    (only in workers prepared on an idle pool: ``Template.idle``; it costs CPU of its own).
    """
    namespace: dict[str, object] = {}
    exec(compile(_REHEARSAL, "<rehearsal>", "exec", dont_inherit=True), namespace)  # noqa: S102
    json.dumps({"n": "0" * 32, "op": "test", "i": 0, "name": "x", "passed": True, "message": ""})
    traceback.extract_tb(None)
    io.StringIO().write(str(namespace.get("text")))


def refresh_finders(workdir: str) -> None:
    """``importlib.invalidate_caches()`` where a job can change something: its writable directories.

    The import system's finders were cached by the template, for directories a job only reads (and a
    finder re-reads a directory whose mtime changed anyway); resetting every one of them (about 170)
    cost a job process 2 ms of page copies. Negative and relative entries go, as there.
    """
    roots = (workdir, _rootfs.JOB_TMP, _rootfs.JOB_SHM)
    cache = sys.path_importer_cache
    for path, finder in list(cache.items()):
        if finder is None or not os.path.isabs(path):
            del cache[path]
        elif path in roots or path.startswith(tuple(r + "/" for r in roots)):
            invalidate = getattr(finder, "invalidate_caches", None)  # not every finder has it
            if invalidate is not None:
                invalidate()


class _Channel:
    def __init__(self, fd: int, nonce: str) -> None:
        self._fd = fd
        self._nonce = nonce

    def send(self, kind: ResultOp, **fields: object) -> None:
        line = json.dumps({"n": self._nonce, "op": kind, **fields}, ensure_ascii=True) + "\n"
        data = line.encode()
        try:
            while data:
                data = data[os.write(self._fd, data) :]
        except OSError:
            pass  # the supervisor went away or the submission closed the channel: nothing counts


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()


def run_job(job: JobSpec, result_fd: int, learner: tuple[int, int] | None = None) -> int:
    """Run one job in the current (isolated) process; return the exit status.

    A plain run executes the code here. A graded run needs ``learner``, the descriptors to and
    from the learner process (write, read): the code runs there, the tests here.
    """
    channel = _Channel(result_fd, str(job["nonce"]))
    workdir = str(job.get("workdir") or WORKDIR)
    user_path = os.path.join(workdir, "user_code.py")
    test_path = os.path.join(workdir, "test_code.py")
    code: str = job["code"]
    test: str | None = job.get("test")
    with open(user_path, "w", encoding="utf-8") as fh:
        fh.write(code)  # the test is never written where the learner's process could read it
    import atexit

    atexit._clear()  # the template's exit handlers are not the job's: it leaves by os._exit
    try:
        if test is None:
            if learner is not None:
                bridge.close_quietly(*learner)  # the learner process is not needed: it ends
            sys.path.insert(0, workdir)
            sys.argv = [user_path]
            refresh_finders(workdir)
            hook_output(workdir)
            return _plain(code, user_path, workdir, channel)
        if learner is None:
            raise RuntimeError("a graded job needs a learner process")
        # The grader imports nothing from the work dir (the learner could write there).
        sys.path[:] = [p for p in sys.path if p and not p.startswith((workdir, "/tmp"))]  # noqa: S108
        hook_output(workdir)
        peer = bridge.Peer(learner[1], learner[0], learner=False, user_path=user_path)
        wall_s, ends = job.get("wall_s"), job.get("ends")
        if isinstance(wall_s, (int, float)) and isinstance(ends, (int, float)) and wall_s > 0:
            # The grader stops waiting for the learner a little before the job's wall limit, so a
            # submission that runs long fails its tests (with this message) instead of timing out.
            peer.deadline = ends - min(1.0, max(0.3, 0.1 * wall_s))
            peer.overdue_text = f"{bridge.OVERDUE} ({wall_s:g} s)"
        return _graded(code, test, job.get("prepared"), user_path, test_path, channel, peer)
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
        channel.send("exit", code=status if isinstance(status, int) else 1, text=clip(text_of(status)))
        channel.send("done", exit=1)
        return status if isinstance(status, int) and 0 < status < 256 else 1
    except BaseException as exc:
        _flush()
        if out_of_memory(exc):
            channel.send("memory")
            return 1
        print_user_traceback(exc, workdir)
        channel.send("error", where="user", **describe(exc, user_path, code))
        channel.send("done", exit=1)
        return 1
    _flush()
    channel.send("done", exit=0)
    return 0


def _load_tests(source: str, prepared: PreparedTest | None, test_path: str) -> list[unittest.TestCase]:
    module = types.ModuleType(TEST_MODULE)
    module.__file__ = test_path
    sys.modules[TEST_MODULE] = module
    compiled = _testprep.code_object(prepared, source, test_path)
    exec(compiled, module.__dict__)  # noqa: S102 - the pack's own test module
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


def _graded(
    code: str,
    test_source: str,
    prepared: PreparedTest | None,
    user_path: str,
    test_path: str,
    channel: _Channel,
    peer: bridge.Peer,
) -> int:
    """Grade in this process (the grader); the learner's code runs only in the learner process."""
    # A program test (CodeRunner-style, see sandbox/program.py): the learner process loads a stand-in
    # that runs the learner's file as __main__ once per case, on the test's request, never on import.
    if prepared is None:
        prepared = _testprep.prepare(test_source)  # a caller without the bot's side (tests)
    loaded_code = program.learner_stub(code, user_path) if prepared["program"] else code
    loader = UserLoader(peer, loaded_code, user_path)
    sys.meta_path.insert(0, UserFinder(loader))
    sys.modules.pop(USER_MODULE, None)
    unittest.TestCase._formatMessage = note_custom_message  # type: ignore[method-assign,assignment]
    reply: bridge.Reply
    load: bridge.Request = {"op": "load", "code": loaded_code}
    shared = prepared["classes"]
    if shared is not None:
        load["classes"] = shared
        peer.shared_test_classes = frozenset(prepared.get("shared") or ())
    try:
        reply = peer.request(load)
    except bridge.PeerGone:
        # The learner's process ended or garbled the conversation while loading: the tests run,
        # and each fails on its first question to it.
        reply = {"op": "reply", "ok": True}
    out = reply.get("out")
    if isinstance(out, str) and out:
        with contextlib.suppress(Exception):
            sys.stdout.write(out)
    if not reply.get("ok"):
        _flush()
        fields = reply.get("exc") or {}
        info = error_fields(fields, code)
        if info["type"] == "MemoryError" or (
            info["type"] == "RuntimeError" and "can't allocate memory" in info["message"]
        ):
            channel.send("memory")
            return 1
        if info["type"] == "SystemExit":
            status = fields.get("exit") if isinstance(fields, dict) else None
            info["message"] = f"your code called exit({status if status is not None else ''})"
        channel.send("error", where="user", **info)
        channel.send("done", exit=1)
        return 0
    module = loader.create_module(importlib.machinery.ModuleSpec(USER_MODULE, loader))
    module.__spec__ = importlib.machinery.ModuleSpec(USER_MODULE, loader, origin=user_path)
    module.__file__ = user_path
    module.__loader__ = loader
    sys.modules[USER_MODULE] = module
    try:
        tests = _load_tests(test_source, prepared, test_path)
    except BaseException as exc:
        _flush()
        info = describe(exc, user_path)
        if info["line"] is None:
            info = {"type": type(exc).__name__, "message": clip(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__),
                    "line": None, "col": None, "source": None}  # fmt: skip
        channel.send("error", where="test", **info)
        channel.send("done", exit=1)
        return 0
    channel.send("plan", tests=[clip(t.id()) for t in tests])
    fixtures = Fixtures()  # setUpClass, setUpModule and their tear-downs, as a suite runs them
    for index, test in enumerate(tests):
        recorder = _Recorder(user_path)
        original = getattr(test, "_testMethodName", "")
        try:
            if fixtures.before(test, recorder, recorder.problems):
                run_test(test, recorder)
        except bridge.PeerGone as exc:
            recorder.problems.append(str(exc))
        except BaseException as exc:  # e.g. SystemExit raised outside the test method
            recorder.problems.append(one_line(f"{type(exc).__name__}: {exc}"))
        fixtures.after(tests[index + 1] if index + 1 < len(tests) else None, recorder, recorder.problems)
        message = "; ".join(recorder.problems)
        channel.send(
            "test",
            i=index,
            name=display_name(test, original),
            passed=recorder.passed,
            message=one_line(message),
        )
        if recorder.memory:  # after its line: the test that ran out of memory says where
            channel.send("memory")
            return 1
    _flush()
    channel.send("done", exit=0)
    return 0


def serve_learner(read_fd: int, write_fd: int, workdir: str) -> int:
    """Run the learner process: answer the grader's requests until it goes away."""
    import atexit

    atexit._clear()
    user_path = os.path.join(workdir, "user_code.py")
    sys.path.insert(0, workdir)
    sys.argv = [user_path]
    refresh_finders(workdir)
    hook_output(workdir)
    peer = bridge.Peer(read_fd, write_fd, learner=True, user_path=user_path)

    def report(exc: BaseException) -> None:
        _flush()
        print_user_traceback(exc, workdir)

    peer.on_error = report
    try:
        peer.serve_forever()
    except SystemExit:
        pass
    finally:
        _flush()
    return 0
