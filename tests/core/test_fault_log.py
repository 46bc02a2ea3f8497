"""The fault log: one line per kind of failure per interval, and the next line counts the repeats."""

from __future__ import annotations

import logging

import pytest

from bot.core.errors import DatabaseFault
from bot.core.faults import FaultLog


def test_one_line_per_kind_per_interval_then_the_count_of_repeats(caplog: pytest.LogCaptureFixture) -> None:
    now = [0.0]
    faults = FaultLog(interval=30.0, clock=lambda: now[0])
    counted: list[str] = []
    faults.count_with(lambda fault: counted.append(fault.kind))
    caplog.set_level(logging.INFO, logger="quizbot.faults")
    for second in range(20):
        now[0] = float(second)
        faults.fault(DatabaseFault("full", "The disk is full."), "answering Act")
        faults.fault(DatabaseFault("busy", "The database is locked."), "answering Act")
    now[0] = 31.0
    faults.fault(DatabaseFault("full", "The disk is full."), "answering Act")
    assert [r.getMessage() for r in caplog.records] == [
        "database full while answering Act: The disk is full.",
        "database busy while answering Act: The database is locked.",
        "database full while answering Act: The disk is full. (19 more like it in the last 31 s)",
    ]
    assert len(counted) == 41  # every fault is counted (the metrics), logged or not


def test_a_failure_after_a_commit_is_logged_with_its_traceback_once_and_swallowed(caplog: pytest.LogCaptureFixture) -> None:
    faults = FaultLog(clock=lambda: 0.0)
    for _ in range(3):
        with faults.after_commit("counting an answer"):
            raise RuntimeError("the registry broke")
    assert len(caplog.records) == 1 and caplog.records[0].exc_info is not None
    assert caplog.records[0].getMessage() == "RuntimeError while counting an answer: the registry broke"
