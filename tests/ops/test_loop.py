"""The event loop: uvloop by default where it is installed, asyncio's own with QUIZBOT_UVLOOP=off."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
import uvloop

from bot.loop import SWITCH_INTERVAL_S, run
from bot.settings import Settings


async def _loop_type() -> type:
    return type(asyncio.get_running_loop())


def test_the_bot_runs_on_uvloop_when_asked() -> None:
    assert issubclass(run(_loop_type(), use_uvloop=True), uvloop.Loop)


def test_off_runs_on_asyncios_own_loop() -> None:
    kind = run(_loop_type(), use_uvloop=False)
    assert not issubclass(kind, uvloop.Loop) and issubclass(kind, asyncio.BaseEventLoop)


async def _switch_interval() -> float:
    return sys.getswitchinterval()


def test_threads_waiting_for_the_gil_get_it_sooner_while_the_loop_runs() -> None:
    before = sys.getswitchinterval()
    assert before > SWITCH_INTERVAL_S  # Python's default is 5 ms
    assert run(_switch_interval(), use_uvloop=True) == SWITCH_INTERVAL_S
    assert sys.getswitchinterval() == before  # given back when the loop ends


@pytest.mark.parametrize(("value", "expected"), [(None, True), ("off", False), ("false", False), ("on", True)])
def test_the_setting(monkeypatch: pytest.MonkeyPatch, value: str | None, expected: bool) -> None:
    if value is None:
        monkeypatch.delenv("QUIZBOT_UVLOOP", raising=False)
    else:
        monkeypatch.setenv("QUIZBOT_UVLOOP", value)
    assert Settings().uvloop is expected


ROOT = Path(__file__).resolve().parents[2]
_ARENAS = """
import ctypes, os, sys, threading
from bot.loop import run

async def threads_allocating() -> None:
    ready, done = threading.Barrier(7), threading.Event()
    def hold() -> None:
        kept = [bytearray(100_000) for _ in range(20)]  # malloc's heap, below its mmap threshold
        ready.wait()
        done.wait()
        del kept
    workers = [threading.Thread(target=hold) for _ in range(6)]
    for w in workers:
        w.start()
    ready.wait()  # six threads alive at once, each having allocated
    os.write(2, b"--\\n")
    ctypes.CDLL(None).malloc_stats()  # one "Arena N:" block per arena, on standard error
    done.set()
    for w in workers:
        w.join()

run(threads_allocating(), use_uvloop=True)
"""


@pytest.mark.parametrize(("operator", "most"), [(None, 2), ("8", 8)])
def test_the_bots_threads_share_two_malloc_arenas_unless_the_operator_says(operator: str | None, most: int) -> None:
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    if operator is not None:
        env["MALLOC_ARENA_MAX"] = operator  # glibc reads it at start: this process's cap, left alone
    done = subprocess.run([sys.executable, "-c", _ARENAS], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    arenas = done.stderr.split("--\n", 1)[1].count("Arena ")
    assert 1 <= arenas <= most
    if operator is not None:
        assert arenas >= 3  # seven threads had arenas of their own, up to the operator's eight
