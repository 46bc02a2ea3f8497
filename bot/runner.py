"""Run the front ends: every configured platform in one process, or the console."""

from __future__ import annotations

import asyncio
import logging
import sys

from .app import App, build
from .settings import Settings

log = logging.getLogger("quizbot")


async def run_front_ends(settings: Settings, which: list[str] | None, *, slack_port: int | None = None) -> int:
    if which is None:
        which = [name for name, on in (("discord", settings.discord_enabled), ("slack", settings.slack_enabled)) if on]
        which = which or ["console"]
    if "discord" in which and not settings.discord_enabled:
        print("DISCORD_TOKEN is not set: see the README, section Discord.", file=sys.stderr)
        return 2
    if "slack" in which and not settings.slack_enabled:
        print(
            "Slack needs SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (HTTP) or SLACK_APP_TOKEN (Socket Mode): see the README.",
            file=sys.stderr,
        )
        return 2
    # Chat front ends keep time for races (resumed here, stopped with it); the terminal has no channels.
    async with build(settings, live="console" not in which) as app:
        tasks = []
        if "console" in which:
            from .adapters.console import run_console

            return await run_console(app.service)
        if "discord" in which:
            from .adapters.discord import run_discord

            tasks.append(asyncio.create_task(run_discord(app, settings), name="discord"))
        if "slack" in which:
            from .adapters.slack import run_slack

            tasks.append(asyncio.create_task(run_slack(app, settings, port=slack_port or settings.slack_port), name="slack"))
        log.info("QuizBot running: %s", ", ".join(which))
        starter = start_scheduler(app, settings, which)
        try:
            done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        finally:
            if starter is not None:
                starter.cancel()
            if app.scheduler is not None:
                await app.scheduler.close()
        for task in pending:
            task.cancel()
        for task in done:
            task.result()
    return 0


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
