"""`/quiz report [pack] [topic] [since]` in the dispatcher: an admin's item analysis of one pack, here.

The reply is one message: the summary (flagged items first), the facility/discrimination chart and
two CSV files (every item; the class, one row per learner). Only admins may ask (the guard of pack
loading); the learners it names are mentioned as the platform shows them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from bot.core import requests as rq
from bot.core.admin import Admins
from bot.core.catalogue import Catalogue
from bot.core.dispatch import Dispatcher
from bot.core.errors import QuizError, UnknownName
from bot.core.i18n import N_, _
from bot.core.model import Actor
from bot.core.packs import Pack
from bot.core.ports import Clock
from bot.core.replies import Message, Reply, cmd

from .model import Filters
from .service import Reports, report_parts

NOT_SET_UP = N_("Reports are not set up in this process; the operator can run `quizbot report`.")
MAX_DAYS_BACK = 3660
_DAYS = re.compile(r"^(\d{1,4})d$", re.IGNORECASE)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def read_since(text: str | None, now: datetime) -> datetime | None:
    """Read `since` as typed: a day (`YYYY-MM-DD`, UTC) or a number of days back (`7d`); raise QuizError."""
    if text is None or not text.strip():
        return None
    word = text.strip()
    days = _DAYS.match(word)
    if days is not None:
        count = int(days.group(1))
        if not 1 <= count <= MAX_DAYS_BACK:
            raise QuizError(
                _("`since:{word}`: give between 1 and {most} days, as in `since:30d`.").format(word=word[:12], most=MAX_DAYS_BACK)
            )
        return now - timedelta(days=count)
    try:
        if not _DATE.match(word):
            raise ValueError(word)
        day = datetime.fromisoformat(word).replace(tzinfo=UTC)
    except ValueError:
        shown = word.replace("`", "'")[:20]
        raise QuizError(
            _("`{word}` is not a date: write `since:YYYY-MM-DD` (as in `since:2026-11-01`) or `since:30d`.").format(word=shown)
        ) from None
    if day > now:
        raise QuizError(_("`since:{word}` is in the future: nothing would be counted.").format(word=word))
    return day


def mention_for(platform: str) -> Callable[[str, str], str]:
    """How the summary names a learner: a mention on Discord and Slack (both read `<@id>`), else the id."""

    def mention(learner_platform: str, user_id: str) -> str:
        return f"<@{user_id}>" if learner_platform == platform and platform in ("discord", "slack") else user_id

    return mention


class ReportDesk:
    """Answer `report` for admins: the pack's report in this server or workspace."""

    def __init__(self, *, catalogue: Catalogue, admins: Admins, clock: Clock, reports: Reports | None = None) -> None:
        self._catalogue = catalogue
        self._admins = admins
        self._clock = clock
        self.reports = reports  # set by whoever opens the database (bot/app.py)

    def register(self, dispatcher: Dispatcher) -> None:
        dispatcher.request(rq.Report, self.on_report)

    async def on_report(self, actor: Actor, request: rq.Report) -> Reply:
        self._admins.require(actor, _("see reports"))
        if self.reports is None:
            raise QuizError(_(NOT_SET_UP))
        now = self._clock.now()
        in_dm = actor.scope == "dm" or actor.scope.startswith("dm:")
        pack = await self._pack(actor, request.pack, in_dm=in_dm)
        topics = sorted({q.topic for q in pack.questions if q.topic})
        if request.topic is not None and request.topic not in topics:
            raise UnknownName("topic", request.topic, topics)
        filters = Filters(
            pack=pack.pack,
            topic=request.topic,
            since=read_since(request.since, now),
            scope=None if in_dm else actor.scope,  # an operator asking in a DM: every server
            platform=actor.platform,
        )
        report = await self.reports.report(pack, filters, now=now)
        parts = await report_parts(report, mention_for(actor.platform))
        return Reply(messages=(Message(kind="admin", title=_("Report: {title}").format(title=pack.title), parts=parts),))

    async def _pack(self, actor: Actor, name: str | None, *, in_dm: bool) -> Pack:
        # The packs listed here (an operator in a DM: every one); another server's pack is not reported on here.
        known = [p.id for p in await self._catalogue.listing(None if in_dm else actor.scope)]
        if name is None:
            here = known if in_dm else [p.id for p in await self._catalogue.enabled(actor.scope)]
            if len(here) != 1:
                listed = ", ".join(f"`{p}`" for p in here) or _("none")
                raise QuizError(
                    _("Name the pack: {report} `<pack> [topic] [since]`. Packs here: {listed}.").format(report=cmd("report"), listed=listed)
                )
            name = here[0]
        pack = await self._catalogue.pack(name) if name in known else None
        if pack is None:
            raise UnknownName("pack", name, known)
        return pack
