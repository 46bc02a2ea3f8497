"""Class and module fixtures for tests the grader runs one at a time.

The grader runs each test on a result of its own (one line each), not through a suite, so the
fixtures a suite would run around them (``setUpModule``, ``setUpClass``, ``tearDownClass``,
``tearDownModule`` and their cleanups) are run here, with unittest's own suite code, on the
result of the test they belong to: a set-up that fails fails every test it guards (each with its
message), a tear-down that fails fails the last test before it. Each test runs by its class's own
``run``, so an ``IsolatedAsyncioTestCase`` gets its event loop.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import unittest

from ._feedback import one_line


class Fixtures:
    """The suite's fixture state across tests run one at a time, in the order loaded."""

    def __init__(self) -> None:
        self._suite = unittest.TestSuite()
        self._previous: type | None = None
        self._module_failed = False
        self._failed: dict[object, list[str]] = {}  # what a failed set-up said, by class or module

    def _enter(self, result: unittest.TestResult) -> None:
        result._previousTestClass = self._previous  # type: ignore[attr-defined]
        result._moduleSetUpFailed = self._module_failed  # type: ignore[attr-defined]

    def _leave(self, result: unittest.TestResult) -> None:
        self._module_failed = bool(getattr(result, "_moduleSetUpFailed", False))

    def before(self, test: unittest.TestCase, result: unittest.TestResult, problems: list[str]) -> bool:
        """Set up what ``test`` needs; return False (its line noted in ``problems``) if it must not run."""
        cls = type(test)
        self._enter(result)
        try:
            self._suite._handleModuleFixture(test, result)  # type: ignore[attr-defined]
            self._leave(result)
            if self._module_failed:
                self._failed.setdefault(cls.__module__, list(problems) or ["setUpModule failed"])
            else:
                self._suite._handleClassSetUp(test, result)  # type: ignore[attr-defined]
        except BaseException as exc:  # a fixture raising past unittest (SystemExit ...)
            problems.append(one_line(f"{type(exc).__name__}: {exc}"))
            with contextlib.suppress(Exception):
                cls._classSetupFailed = True  # type: ignore[attr-defined]
        if getattr(cls, "_classSetupFailed", False) and cls is not self._previous:
            self._failed[cls] = list(problems) or ["setUpClass failed"]
        self._previous = cls
        said = self._failed.get(cls.__module__) if self._module_failed else None
        if said is None and getattr(cls, "_classSetupFailed", False):
            said = self._failed.get(cls, ["setUpClass failed"])
        if said is None:
            return True
        if not problems:
            problems.extend(said)
        return False

    def after(self, following: unittest.TestCase | None, result: unittest.TestResult, problems: list[str]) -> None:
        """Tear down what the test just run leaves behind before ``following`` (None: the last test)."""
        self._enter(result)
        try:
            self._suite._tearDownPreviousClass(following, result)  # type: ignore[attr-defined]
            if following is None:
                self._suite._handleModuleTearDown(result)  # type: ignore[attr-defined]
        except BaseException as exc:
            problems.append(one_line(f"{type(exc).__name__}: {exc}"))


def run_test(test: unittest.TestCase, result: unittest.TestResult) -> None:
    """Run one test by its class's ``run`` (an ``IsolatedAsyncioTestCase`` makes its event loop there)."""
    async_case = sys.modules.get("unittest.async_case")  # not imported for a test that does not use it
    if async_case is not None and isinstance(test, async_case.IsolatedAsyncioTestCase):
        # Its loop runs in asyncio's debug mode, whose notes (a step slower than 0.1 s ...) would
        # reach the job's output naming the test file and the grader's library paths.
        logging.getLogger("asyncio").disabled = True
    type(test).run(test, result)
