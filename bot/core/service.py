"""QuizService: the one entry into the core. Front ends call `handle(actor, request)` and `ask(query)`.

The service builds the features and lets each register what it answers with the dispatcher
(`dispatch.py`): request types, the prefix of its controls' action ids, queries. It knows no
request by name. Where each rule lives:

- `quiz.py`        a personal quiz: start, clicks on items (`qz:`), text answers, run code
- `starting.py`    a new quiz: which items it asks (then opened by the flow)
- `flow.py`, `gate.py`  a quiz from its first item to summary; loading, locking and saving sessions
- `views.py`       stats and the pack list, the pack names front ends complete
- `admin.py`       who is an admin; loading, enabling and removing packs (`pk:`)
- `privacy.py`     my-data export and delete (`md:`)
- `report/routes.py` an admin's item analysis and class progress (`report`)
- `race/routes.py` races (`rc:`), leaderboards and the stats picture
- `daily/routes.py` daily practice: its commands, its posts (`dp:`), its buttons (`dy:`)
- `notices.py`     middleware: work a restart dropped, told before the next reply
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import TypeVar

from bot.core.i18n import _

from . import requests as rq
from .admin import Admins, PackAdmin
from .answer import Answers
from .catalogue import Catalogue
from .daily import DailyService
from .daily import routes as daily_routes
from .daily.handlers import DailyDesk, PostNow
from .dispatch import Dispatcher, Middleware
from .faults import FaultLog, Faults
from .flow import Flow
from .gate import Gate
from .importing import PendingPacks, PendingStore
from .locale import Locales
from .model import Actor
from .notices import UnfinishedNotices
from .packs.proofcache import ProofCache
from .ports import Clock, CodeRunner, Repository
from .privacy import MyData, PersonalData
from .queries import Query
from .quiz import QuizDesk
from .race import RaceService, SocialService
from .race import routes as race_routes
from .refusals import error_reply as error_reply  # where front ends have always found it
from .replies import Reply
from .report.routes import ReportDesk
from .report.service import Reports
from .shorthands import Shorthands
from .starting import Starter
from .views import Views
from .work import Unfinished

T = TypeVar("T")


class QuizService(Shorthands):
    """Quizzes, answers, progress and pack administration, independent of any chat platform."""

    def __init__(
        self,
        *,
        repository: Repository,
        runner: CodeRunner | None,
        clock: Clock,
        admins: frozenset[str] = frozenset(),
        rng: random.Random | None = None,
        session_ttl: timedelta = timedelta(hours=24),
        races: RaceService | None = None,
        social: SocialService | None = None,
        daily: DailyService | None = None,
        answers: Answers | None = None,
        post_now: PostNow | None = None,
        personal_data: PersonalData | None = None,
        work: Unfinished | None = None,
        pending: PendingStore | None = None,
        reports: Reports | None = None,
        faults: FaultLog | None = None,
    ) -> None:
        self._repo = repository
        self.faults = faults or (answers.faults if answers is not None else FaultLog())
        self.work = work  # None: work in progress is not recorded (nothing tells of work a restart dropped)
        self.races = races  # None: this process has no race store (races are refused politely)
        self.catalogue = Catalogue(repository)
        self.gate = Gate(repository, clock, ttl=session_ttl)
        self.admins = Admins(admins)
        rng = rng or random.Random()
        flow = Flow(
            repository=repository, catalogue=self.catalogue, gate=self.gate, clock=clock, runner=runner, work=work,
            answers=answers or Answers(log=repository, faults=self.faults), faults=self.faults,
        )  # fmt: skip
        self.answers = flow.answers  # every graded answer is recorded through it (bot.core.answer)
        starter = Starter(flow=flow, repository=repository, catalogue=self.catalogue, clock=clock, rng=rng)
        self.quiz = QuizDesk(flow=flow, starter=starter, gate=self.gate, runner=runner, work=work)
        self.pack_admin = PackAdmin(
            catalogue=self.catalogue, admins=self.admins, runner=runner,
            pending=PendingPacks(pending, clock) if pending is not None else None,
            proofs=ProofCache(repository, clock),
        )
        self.my_data = MyData(repository=repository, clock=clock, admins=self.admins, store=personal_data)
        self.reports = ReportDesk(catalogue=self.catalogue, admins=self.admins, clock=clock, reports=reports)
        self.daily: DailyDesk | None = None
        if daily is not None:
            self.daily = DailyDesk(
                daily=daily, repository=repository, catalogue=self.catalogue, gate=self.gate,
                clock=clock, runner=runner, rng=rng, flow=flow, post_now=post_now,
            )  # fmt: skip
            flow.review_parts = self.daily.review_parts
        self.dispatcher = Dispatcher()
        self.quiz.register(self.dispatcher)
        Views(repository=repository, catalogue=self.catalogue, clock=clock).register(self.dispatcher)
        self.pack_admin.register(self.dispatcher)
        self.my_data.register(self.dispatcher)
        self.reports.register(self.dispatcher)
        race_routes.register(self.dispatcher, races, social)
        daily_routes.register(self.dispatcher, self.daily, self.quiz)
        self.use(Faults(self.faults))  # innermost: the notices and the metrics see the person's `Unavailable`
        if work is not None:
            self.use(UnfinishedNotices(work))
        self.locales = Locales(repository, self.admins)  # outside the notices: they too are in the learner's language
        self.locales.register(self.dispatcher)
        self.my_data.forgetting.append(self.locales.forget)

    def use(self, middleware: Middleware) -> None:
        """Run `middleware` around every request, outside those added before (metrics timing, a shutdown's drain)."""
        self.dispatcher.use(middleware)

    async def handle(self, actor: Actor, request: rq.Request) -> Reply:
        """Answer one user action. Raise QuizError (and its children) for what the person must fix."""
        return await self.dispatcher.dispatch(actor, request)

    async def ask(self, query: Query[T]) -> T:
        """Answer a front end's query (names to complete, where a quiz lives); see `bot.core.queries`."""
        answer: T = await self.faults.asked(query, lambda: self.dispatcher.ask(query))
        return answer

    # ----------------------------------------------------------------- named guards for front ends

    def is_admin(self, actor: Actor) -> bool:
        """Say whether the operator named this person an admin (no need to ask the platform)."""
        return self.admins.allows(actor)

    def may_load_packs(self, actor: Actor) -> None:
        """Refuse (NotAllowed) before a front end downloads a pack file for someone who may not load it."""
        self.admins.require(actor, _("load packs"))  # in the language the front end set (the platform's guess)
