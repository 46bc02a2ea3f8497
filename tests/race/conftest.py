"""Races over a real repository and SocialStore, a fake clock, and a publisher that keeps posts."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest

from bot.core import QuizService
from bot.core.race import ChannelPost, RaceService
from bot.storage import SqlRepository
from bot.storage.social import SocialStore
from tests.fakes import FakeClock

from .helpers import race_pack


@dataclass
class Posts:
    posts: list[ChannelPost] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    async def __call__(self, post: ChannelPost) -> None:
        self.posts.append(post)
        self.arrived.set()


@pytest.fixture
def posts() -> Posts:
    return Posts()


@pytest.fixture
async def store(repository: SqlRepository) -> SocialStore:
    quiz = QuizService(repository=repository, runner=None, clock=FakeClock())
    await quiz.import_pack(race_pack())
    return SocialStore.beside(repository)


@pytest.fixture
async def races(repository: SqlRepository, store: SocialStore, clock: FakeClock, posts: Posts) -> AsyncIterator[RaceService]:
    service = RaceService(
        repository=repository, store=store, clock=clock, publish=posts, rng=random.Random(3), timers=False,
        admins=frozenset({"discord:root"}),
    )
    yield service
    await service.aclose()
