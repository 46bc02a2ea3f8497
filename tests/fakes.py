"""Test doubles for the core's ports: a clock that only moves when told, and a code runner.

LocalRunner runs code in a plain subprocess with unittest, without any isolation: it stands in
for the sandbox port in front-end tests whose code never imports torch. The sandbox itself is
tested in tests/sandbox with the real thing.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.core.ports import RunOutcome, RunRequest
from sandbox.program import is_program_test, learner_stub

HARNESS = r"""
import json, sys, unittest
sys.path.insert(0, ".")
suite = unittest.defaultTestLoader.loadTestsFromName("test_module")
out = []
class R(unittest.TextTestResult):
    def addSuccess(self, t): super().addSuccess(t); out.append([t._testMethodName, True, ""])
    def addFailure(self, t, e): super().addFailure(t, e); out.append([t._testMethodName, False, str(e[1])])
    def addError(self, t, e): super().addError(t, e); out.append([t._testMethodName, False, repr(e[1])])
unittest.TextTestRunner(resultclass=R, stream=open("/dev/null", "w")).run(suite)
json.dump(out, open("result.json", "w"))
"""


# A one-question pack with a short answer ("6"), for tests that need a typed answer.
SHORT_PACK = """\
pack: typed
title: Typed
version: 1
questions:
  - id: add
    type: short
    prompt: "What does `print(2 + 4)` print?"
    accept: ["6"]
"""


class FakeClock:
    def __init__(self, start: datetime | None = None) -> None:
        self.current = start or datetime(2026, 12, 1, 9, 0, tzinfo=UTC)

    def now(self) -> datetime:
        return self.current

    def advance(self, **kwargs: float) -> None:
        self.current += timedelta(**kwargs)


class LocalRunner:
    max_code_bytes = 64 * 1024

    def __init__(self) -> None:
        self.requests: list[RunRequest] = []

    async def close(self) -> None:
        return None

    async def run(self, request: RunRequest) -> RunOutcome:
        self.requests.append(request)
        started = time.monotonic()
        with tempfile.TemporaryDirectory() as folder:
            work = Path(folder)
            code = request.code
            if request.test is not None and is_program_test(request.test):
                # As the sandbox does for `# sandbox: program` tests: `user_code` only runs the file on request.
                code = learner_stub(code, str(work / "user_code.py"))
            (work / "user_code.py").write_text(code)
            if request.test is not None:
                (work / "test_module.py").write_text(request.test)
                argv = [sys.executable, "-c", HARNESS]
            else:
                argv = [sys.executable, "user_code.py"]
            process = await asyncio.create_subprocess_exec(
                *argv, cwd=work, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
            )
            try:
                stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=request.time_s or 10)
            except TimeoutError:
                process.kill()
                await process.wait()
                return RunOutcome(status="timeout", message="Time limit")
            wall = int((time.monotonic() - started) * 1000)
            if request.test is None:
                status = "passed" if process.returncode == 0 else "error"
                return RunOutcome(status=status, stdout=stdout.decode(), stderr=stderr.decode(), wall_ms=wall)
            result = work / "result.json"
            tests = tuple((n, ok, m) for n, ok, m in json.loads(result.read_text())) if result.exists() else ()
            passed = bool(tests) and all(ok for _, ok, _ in tests)
            return RunOutcome(
                status="passed" if passed else "failed",
                tests=tests,
                stdout=stdout.decode(),
                stderr=stderr.decode(),
                wall_ms=wall,
            )
