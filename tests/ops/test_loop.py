"""The event loop: uvloop by default where it is installed, asyncio's own with QUIZBOT_UVLOOP=off."""

from __future__ import annotations

import asyncio
import sys

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
