"""Run the front ends: every configured platform in one process, or the console.

On SIGTERM or SIGINT the bot stops taking new work, lets what is in flight finish and deliver its
replies (for up to QUIZBOT_SHUTDOWN_GRACE_S), then closes the platforms, the sandbox and the database.
What could not finish is cancelled and marked abandoned: the learner's next request is told to send
it again (see bot.core.work).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
import time
from typing import Any

from .app import App, build
from .core.errors import DatabaseFault
from .core.faults import FaultLog
from .loop import settle_gc
from .metrics import health_app, runner_ready, start_health_server
from .settings import Settings
from .shutdown import Drain, finish_work

log = logging.getLogger("quizbot")

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


async def run_front_ends(settings: Settings, which: list[str] | None, *, slack_port: int | None = None) -> int:
    if which is None:
        which = [name for name, on in (("discord", settings.discord_enabled), ("slack", settings.slack_enabled)) if on]
        which = which or ["console"]
    if "discord" in which and not settings.discord_enabled:
        print("DISCORD_TOKEN is not set: see docs/admins/discord.md.", file=sys.stderr)
        return 2
    if "slack" in which and not settings.slack_enabled:
        print(
            "Slack needs SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (HTTP) or SLACK_APP_TOKEN (Socket Mode): see docs/admins/slack.md.",
            file=sys.stderr,
        )
        return 2
    # Chat front ends keep time for races (resumed here, stopped with it); the terminal has no channels.
    # The scheduler takes only the daily jobs of the platforms run here: another process runs the others.
    async with build(settings, live="console" not in which, platforms=which) as app:
        await adopt_unfinished(app)
        if "console" in which:
            from .adapters.console import run_console

            return await run_console(app.service)
        # What start-up made lives for the whole run: frozen out of the collector's sight, and young
        # collections rarer (bench/core_bench.py does the same unless --python-gc).
        settle_gc()
        app.platforms.expect(which)  # /readyz: ready once each of these is connected
        drain = Drain()
        app.service.use(drain)
        beating = keep_alive(app)
        tasks: list[asyncio.Task[None]] = []
        if "discord" in which:
            from .adapters.discord import run_discord

            tasks.append(asyncio.create_task(run_discord(app, settings), name="discord"))
        if "slack" in which:
            from .adapters.slack import run_slack

            tasks.append(asyncio.create_task(run_slack(app, settings, port=slack_port or settings.slack_port), name="slack"))
        health = None
        if settings.metrics_port is not None:
            health = await start_health_server(
                health_app(app.metrics, readiness_checks(app)), settings.metrics_host, settings.metrics_port
            )
        log.info("QuizBot running: %s", ", ".join(which))
        starter = start_scheduler(app, settings, which)
        try:
            await _serve_until_stopped(tasks, drain, settings.shutdown_grace_s)
        finally:
            await abandon_unfinished(app, drain)
            if beating is not None:
                beating.cancel()
            if starter is not None:
                starter.cancel()
            if app.scheduler is not None:
                await app.scheduler.close()
            if health is not None:
                await health.cleanup()
    return 0


async def adopt_unfinished(app: App) -> None:
    """On SQLite, the database's only process: work earlier processes left unfinished is abandoned at once.

    On PostgreSQL other processes may still be grading theirs: a killed one's rows wait for their deadline.
    """
    if app.service.work is None or not app.repository.db.sqlite:
        return
    try:
        await app.service.work.adopt()
    except Exception:  # their rows then count as abandoned once their deadline passes
        log.exception("could not mark the unfinished work of earlier processes abandoned")


def keep_alive(app: App) -> asyncio.Task[None] | None:
    """On PostgreSQL, beat every QUIZBOT_HEARTBEAT_S: a killed process's work is then told to its learners by another."""
    if app.service.work is None or app.repository.db.sqlite:
        return None
    return asyncio.create_task(app.service.work.keep_alive(app.settings.heartbeat_s), name="quizbot-heartbeat")


async def abandon_unfinished(app: App, drain: Drain) -> None:
    """Cancel the requests still in the core and mark their work abandoned, before the sandbox and database close."""
    drain.start()
    cancelled = await drain.cancel()
    if cancelled:
        log.warning("%d request(s) still running were cancelled", cancelled)
    if app.service.work is None:
        return
    try:
        await app.service.work.abandon()
    except Exception:  # their rows then count as abandoned once their deadline passes
        log.exception("could not mark the unfinished work abandoned")


def start_scheduler(app: App, settings: Settings, which: list[str]) -> asyncio.Task[None] | None:
    """Start the daily scheduler once every front end of this process can post (QUIZBOT_SCHEDULER=on)."""
    scheduler = app.scheduler
    if settings.scheduler == "off" or scheduler is None:
        return None

    async def when_ready() -> None:
        await app.posters.wait_for(which)
        scheduler.start()
        log.info("daily practice scheduler running")

    return asyncio.create_task(when_ready(), name="quizbot-scheduler-start")


async def _serve_until_stopped(tasks: list[asyncio.Task[None]], drain: Drain, grace_s: float) -> None:
    """Wait for a stop signal or a front end's end; then drain and stop the front ends."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, stop.set)
    stopper = asyncio.create_task(stop.wait(), name="stop-signal")
    try:
        waiting: set[asyncio.Task[Any]] = {*tasks, stopper}
        while True:  # a front end that ends cleanly leaves the others running; one that fails stops all
            done, waiting = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            if stopper in done or waiting == {stopper} or any(_failed(t) for t in done):
                break
        started = time.monotonic()
        if stopper in done:
            log.warning("stopping: no new work; finishing what is in flight (up to %.0f s)", grace_s)
            # what outlives the grace is cancelled then: its learners are told on their next request
            if not await finish_work(drain, grace_s) and (cancelled := await drain.cancel()):
                log.warning("%d request(s) still running after %.0f s were cancelled", cancelled, grace_s)
        for task in tasks:
            task.cancel()  # each front end stops listening, then waits for its own deliveries
        left = max(0.5, grace_s - (time.monotonic() - started))
        _, late = await asyncio.wait(tasks, timeout=left)
        for task in late:
            log.warning("front end %s did not stop in time", task.get_name())
        for task in tasks:
            if _failed(task):
                task.result()  # raises the front end's error
    finally:
        stopper.cancel()
        for sig in STOP_SIGNALS:
            loop.remove_signal_handler(sig)


def _failed(task: asyncio.Task[Any]) -> bool:
    return task.done() and not task.cancelled() and task.exception() is not None


def readiness_checks(app: App) -> dict[str, Any]:
    """Return /readyz's checks: the database takes a write, every front end is connected, the sandbox takes jobs."""
    from .storage import check_writable

    faults = getattr(app.service, "faults", None) or FaultLog()

    async def database() -> str | None:
        try:
            await check_writable(app.repository.engine, app.settings.database_url, wait=1.0)
        except DatabaseFault as fault:  # full, read-only, busy or unavailable: one line per kind per interval
            faults.fault(fault, "checking readiness")
            return fault.kind
        except Exception as exc:  # StorageError says what is wrong, in one line without secrets
            log.warning("readiness: %s", exc)
            return "not writable"
        return None

    async def sandbox() -> str | None:
        if app.runner is None:
            return "no sandbox"
        if await runner_ready(app.runner):
            return None
        # The local pool says where it stands (starting, failed, stopped: never "starting" while stopping).
        state = getattr(getattr(app.runner, "inner", app.runner), "state", None)
        return state if isinstance(state, str) else "not ready"

    return {"database": database, "platforms": app.platforms.problem, "sandbox": sandbox}
