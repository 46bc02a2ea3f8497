"""The side benchmarks still run to the end with this code: each at its smallest, its own check printed.

They are not tests of speed (no figure is asserted); a benchmark that reaches into the code's
internals breaks silently when those change, and this is where that shows.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, *args], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize("bench", ["bench/race_bench.py", "bench/race_platform_bench.py"])
def test_a_race_benchmark_stores_each_answer_once_in_arrival_order(bench: str) -> None:
    out = _run(bench, "--members", "4")
    assert "each answer stored once: True; numbered in arrival order: True" in out


def test_the_daily_answers_benchmark_measures_both_databases() -> None:
    out = _run("bench/daily_answers_bench.py", "--learners", "3", "--blocks", "1")
    medians = out.split("medians of 1 blocks:")[1]
    assert "sqlite: daily" in medians and "postgresql: daily" in medians


def test_a_benchmark_of_alternating_blocks_refuses_a_single_block() -> None:
    done = subprocess.run(
        [sys.executable, "bench/first_attempts_bench.py", "--blocks", "1"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 2 and "--blocks must be at least 2" in done.stderr


def test_the_sqlite_read_benchmark_reads_the_same_row_both_ways() -> None:
    out = _run("bench/sqlite_read_bench.py", "--reads", "10", "--blocks", "1")  # it asserts the two reads agree first
    assert "medians, CPU µs per read: through SQLAlchemy" in out and "on the driver / through SQLAlchemy: " in out
