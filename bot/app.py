"""The composition root: settings -> storage, sandbox client, core service, front ends."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING

from .core import CodeRunner, QuizService, SystemClock
from .core.answer import Answers
from .core.daily import DailyService
from .core.race import Outbox, RaceService, SocialService
from .core.report.service import Reports
from .core.work import Unfinished
from .metrics import (
    MeteredRunner,
    Metrics,
    Platforms,
    Timing,
    count_answer,
    count_faults,
    watch_active_quizzes,
)
from .scheduler import PlatformPosters, Scheduler
from .settings import TOML_FILE, Settings, SettingsError, describe_invalid, sandbox_overrides
from .shipped import load_shipped_packs
from .storage import SqlRepository, open_repository
from .storage.daily import DailyRepository
from .storage.privacy import PrivacyStore
from .storage.reports import ReportStore
from .storage.social import SocialStore

if TYPE_CHECKING:
    from sandbox import SandboxConfig

log = logging.getLogger("quizbot")


@dataclass
class App:
    settings: Settings
    repository: SqlRepository
    service: QuizService
    runner: CodeRunner | None
    outbox: Outbox | None = None  # where each front end attaches its race publisher
    # Daily practice: front ends add their poster; `quizbot run` starts the scheduler (QUIZBOT_SCHEDULER).
    posters: PlatformPosters = field(default_factory=lambda: PlatformPosters({}))
    scheduler: Scheduler | None = None
    metrics: Metrics = field(default_factory=Metrics)
    platforms: Platforms = field(default_factory=Platforms)  # each front end attaches its connection (/readyz)


def make_runner(start: bool = True, settings: Settings | None = None) -> CodeRunner | None:
    """Build the sandbox client; None when the sandbox package cannot be used here.

    With QUIZBOT_SANDBOX_URLS the jobs go to those sandbox services (and to a local pool only when
    QUIZBOT_SANDBOX_FALLBACK=local); without it, to the in-process pool as always.
    """
    try:
        from .sandbox_client import SandboxRunner

        config = sandbox_config()
    except ImportError:  # pragma: no cover - the sandbox ships with the bot
        log.exception("the sandbox could not be loaded; code items are disabled")
        return None
    urls = settings.sandbox_urls if settings is not None else []
    if not urls:
        local = SandboxRunner(config)
        if start:
            local.start_soon()
        return local
    from .sandbox_remote import RemoteRunner

    assert settings is not None
    token = settings.sandbox_token.get_secret_value() if settings.sandbox_token is not None else ""
    if not token:
        log.warning("QUIZBOT_SANDBOX_URLS is set without QUIZBOT_SANDBOX_TOKEN: the services will refuse every job")
    fallback = None
    if settings.sandbox_fallback == "local":
        fallback = SandboxRunner(config)
        if start:
            fallback.start_soon()
    return RemoteRunner(urls, token, max_code_bytes=config.code_bytes, wall_s=config.wall_s, fallback=fallback)


def sandbox_config() -> SandboxConfig:
    """The sandbox's settings (QUIZBOT_SANDBOX_*, the [sandbox] table of quizbot.toml); SettingsError naming a bad one."""
    from pydantic import ValidationError

    from sandbox import SandboxConfig

    overrides = sandbox_overrides()
    try:
        return SandboxConfig(**overrides)
    except ValidationError as exc:
        in_file = {key.lower() for key in overrides}

        def name(key: str) -> str:
            return f"[sandbox] {key} in {TOML_FILE}" if key.lower() in in_file else f"QUIZBOT_SANDBOX_{key.upper()}"

        raise SettingsError(describe_invalid(exc, name)) from None


def server_zone(daily_store: DailyRepository) -> Callable[[str, str], Awaitable[str | None]]:
    """A server's time zone for leaderboard weeks: the one its daily question is set in (UTC when none)."""

    async def zone(platform: str, scope: str) -> str | None:
        schedules = await daily_store.list_schedules(platform, scope)
        active = [s for s in schedules if not s.paused] or schedules
        return active[0].zone if active else None

    return zone


@asynccontextmanager
async def build(
    settings: Settings,
    *,
    sandbox: bool = True,
    shipped_packs: bool = True,
    live: bool = False,
    platforms: Iterable[str] | None = None,
) -> AsyncIterator[App]:
    """Open everything the bot needs and close it again, in order.

    `sandbox=False` leaves code items without a runner (the CLI's pack commands); `shipped_packs=False`
    does not import the configured pack folders (an operator managing packs by hand). `live=True`
    (the running bot) keeps time for races: it resumes the stored ones and closes rounds on time.
    `platforms` are the front ends this process runs: its scheduler takes only their daily jobs (and
    `/quiz daily now` refuses the others), so processes running different platforms can share a database.
    """
    repository = await open_repository(
        settings.database_url, db_timeout=settings.database_timeout_seconds, migrate_apart=live
    )
    metrics = Metrics()
    faults = repository.faults  # one log line per kind of database failure per interval, for the whole process
    count_faults(faults, metrics)
    plain = make_runner(settings=settings) if sandbox else None
    runner = MeteredRunner(plain, metrics) if plain is not None else None
    clock = SystemClock()
    admins = frozenset(settings.admins)
    store = SocialStore.beside(repository)
    outbox = Outbox()
    answers = Answers(log=repository, counted=count_answer(metrics), faults=faults)  # where every graded answer is recorded
    races = RaceService(
        repository=repository, store=store, clock=clock, publish=outbox, admins=admins, timers=live, answers=answers,
        platforms=platforms,
    )
    posters = PlatformPosters({})
    daily_store = DailyRepository.beside(repository)
    scheduler = Scheduler(
        store=daily_store,
        packs=repository,
        clock=clock,
        poster=posters,
        admins=admins,
        platforms=platforms,
        on_lag=metrics.scheduler_lag.set,
        faults=faults,
    )
    daily = DailyService(
        store=daily_store, packs=repository, clock=clock, admins=admins, wake=scheduler.wake, faults=faults, channels=posters
    )
    service = QuizService(
        repository=repository,
        runner=runner,
        clock=clock,
        admins=admins,
        session_ttl=timedelta(hours=settings.session_ttl_hours),
        races=races,
        social=SocialService(store=store, clock=clock, zone_for=server_zone(daily_store)),
        daily=daily,
        answers=answers,
        post_now=scheduler.post_now,
        personal_data=PrivacyStore(repository.engine),
        work=Unfinished(repository.work, clock, faults=faults),
        pending=repository.pending,
        reports=Reports(ReportStore(repository.db)),
        faults=faults,
    )
    service.use(Timing(metrics))
    watch_active_quizzes(metrics, repository.engine, clock, timedelta(hours=settings.session_ttl_hours))
    try:
        if shipped_packs:
            await load_shipped_packs(service, settings.packs, store=repository, runner=runner)
        if live:
            resumed = await races.resume()
            if resumed:
                log.info("resumed %d running race(s)", len(resumed))
        yield App(
            settings=settings,
            repository=repository,
            service=service,
            runner=runner,
            outbox=outbox,
            posters=posters,
            scheduler=scheduler,
            metrics=metrics,
        )
    finally:
        await races.aclose()
        await scheduler.close()
        if runner is not None:
            await runner.close()
        await repository.close()
