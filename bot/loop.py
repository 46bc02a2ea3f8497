"""The event loop the bot runs on: uvloop where it is installed, asyncio's own with QUIZBOT_UVLOOP=off.

uvloop runs the same asyncio code on libuv, with the loop, its sockets and its timers in C: a
click's many small reads and writes (the platform's request, the database's round trips, the
Web API calls) cost the bot process less CPU. It is optional: without it, or switched off, the
bot runs on asyncio's loop unchanged.
"""

from __future__ import annotations

import asyncio
import ctypes
import gc
import importlib
import os
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def loop_factory(use_uvloop: bool) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop constructor when asked for and installed; None (asyncio's default loop) otherwise."""
    if not use_uvloop:
        return None
    try:
        uvloop = importlib.import_module("uvloop")
    except ImportError:  # not on this platform (uvloop has no Windows build): asyncio's loop
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


# How long a thread holding the GIL runs before one waiting for it may take it (Python's default: 5 ms).
SWITCH_INTERVAL_S = 0.001


MALLOC_ARENAS = 2  # glibc's malloc arenas for all the bot's threads (its default: up to 8 a core)
_M_ARENA_MAX = -8  # glibc's mallopt parameter for that cap


def limit_malloc_arenas() -> bool:
    """Cap glibc's malloc arenas at MALLOC_ARENAS, unless MALLOC_ARENA_MAX is set; whether this capped them.

    Every thread that allocates gets a malloc arena of its own while there are fewer than eight a core
    (aiosqlite runs each SQLite connection on a thread of its own), and memory freed in an arena is
    kept there for that arena's next allocations. Slack on SQLite, one process flat out for 90 s
    (bench/platform_bench.py, two pairs): RSS 144 and 144 MB with two arenas against 151 and 152,
    and CPU per answer 1.49 and 1.53 ms against 1.47 and 1.49. `run` calls it before the loop starts
    any thread. Without glibc (musl has no arenas to cap) nothing changes.
    """
    if os.environ.get("MALLOC_ARENA_MAX") or not sys.platform.startswith("linux"):
        return False  # the operator's choice, or not glibc's malloc
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_ARENA_MAX, MALLOC_ARENAS))


def run(main: Coroutine[Any, Any, T], *, use_uvloop: bool) -> T:
    """Run `main` to completion on a new loop (as asyncio.run does), uvloop's when `use_uvloop`.

    glibc's malloc arenas are capped first (`limit_malloc_arenas`).

    The GIL is handed over every `SWITCH_INTERVAL_S` to a thread that waits for it. SQLite's thread
    (aiosqlite) lets go of the GIL for each step of a statement and must take it back to go on;
    with the loop busy, each taking back waited up to Python's 5 ms, and the group commit's
    transaction, which every answer waits for, waited with it. In bench/core_bench.py flat out, a
    pre-check read's time on that thread fell from about 3.1 ms to 0.9 (0.2 ms of it CPU).
    """
    limit_malloc_arenas()
    before = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    try:
        with asyncio.Runner(loop_factory=loop_factory(use_uvloop)) as runner:
            return runner.run(main)
    finally:
        sys.setswitchinterval(before)


YOUNG_OBJECTS = 20_000  # allocations between young collections (Python's default is 700)


def settle_gc() -> None:
    """Tune the garbage collector for a bot that has started: what start-up made is frozen, collections rarer.

    What start-up made (packs, modules, the pool's client) lives for the whole run: frozen, it is out
    of every full collection's sight. A young collection walks every container made since the last
    one that is still alive, and under load most of those are clicks in flight (their coroutine
    frames, sessions and replies): collected every 700 allocations (Python's default) or 5,000, they
    were walked and promoted again and again, then freed by reference counting anyway. Every 20,000,
    most are gone before a collection comes: in bench/core_bench.py flat out, the collector's CPU per
    answer fell from about 60 µs (5,000; about 90 at 700) to about 9 µs, in pauses of about 12 ms
    every 1,500 answers.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_OBJECTS, 10, 10)
