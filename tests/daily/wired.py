"""Build the daily-practice parts as the composition root does, for the front-end tests."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from bot.core import QuizService
from bot.core.daily import DailyService
from bot.core.packs import load_path
from bot.scheduler import PlatformPosters, Scheduler
from bot.storage import DailyRepository, SqlRepository
from tests.fakes import FakeClock, LocalRunner

DEMO_PACK = Path(__file__).parents[1] / "fixtures" / "packs" / "demo"

# One choice question with two attempts, so every channel post is the same known item.
STUDY_PACK = """\
pack: study
title: Study pack
version: 1
topics:
  - {id: grad, title: Gradients}
questions:
  - id: flag
    type: choice
    topic: grad
    difficulty: easy
    attempts: 2
    prompt: Which flag makes PyTorch record operations for autograd?
    hint: It is a keyword argument of torch.tensor.
    explanation: "`requires_grad=True` turns recording on."
    shuffle: false
    choices:
      - {text: "`requires_grad=True`", correct: true}
      - {text: "`track=True`", feedback: "There is no `track` argument."}
"""


@dataclass
class Wired:
    service: QuizService
    daily: DailyService
    scheduler: Scheduler
    posters: PlatformPosters


async def wire(
    repository: SqlRepository, clock: FakeClock, runner: LocalRunner, tmp_path: Path, *, admins: frozenset[str] = frozenset()
) -> Wired:
    """Return the quiz service with daily practice, the scheduler and its posters (none added yet)."""
    posters = PlatformPosters({})
    store = DailyRepository.beside(repository)
    scheduler = Scheduler(store=store, packs=repository, clock=clock, poster=posters, admins=admins)
    daily = DailyService(store=store, packs=repository, clock=clock, admins=admins, wake=scheduler.wake, channels=posters)
    service = QuizService(
        repository=repository, runner=runner, clock=clock, rng=random.Random(7), admins=admins,
        daily=daily, post_now=scheduler.post_now,
    )
    if not await repository.list_packs():
        study = tmp_path / "study.yaml"
        study.write_text(STUDY_PACK, encoding="utf-8")
        await service.import_pack(load_path(DEMO_PACK).pack)
        await service.import_pack(load_path(study).pack)
    return Wired(service, daily, scheduler, posters)
