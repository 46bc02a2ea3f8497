"""What people look at: progress, the packs here. Neutral messages built from stored facts."""

from __future__ import annotations

from functools import partial

from bot.core.i18n import _, ngettext, number, same_language

from . import queries as q
from . import requests as rq
from .catalogue import Catalogue
from .dispatch import Dispatcher
from .model import Actor, PackInfo
from .ports import Clock, Repository
from .replies import Fields, Message, Reply, Text, cmd, notice
from .review import due_before
from .stats import stats_message
from .words import shown


class Views:
    def __init__(self, *, repository: Repository, catalogue: Catalogue, clock: Clock) -> None:
        self._repo = repository
        self._catalogue = catalogue
        self._clock = clock

    def register(self, dispatcher: Dispatcher) -> None:
        dispatcher.request(rq.Stats, self.on_stats)
        dispatcher.request(rq.Packs, self.on_packs)
        dispatcher.query(q.PackNames, self.pack_names)
        dispatcher.query(q.ListedPackNames, self.listed_pack_names)
        dispatcher.query(q.TopicNames, self.topic_names)
        dispatcher.query(q.PackList, self.pack_list)

    async def pack_names(self, query: q.PackNames) -> list[str]:
        return await self._catalogue.pack_names(query.scope)

    async def listed_pack_names(self, query: q.ListedPackNames) -> list[str]:
        return [p.id for p in await self._catalogue.listing(query.scope)]

    async def topic_names(self, query: q.TopicNames) -> list[str]:
        return await self._catalogue.topic_names(query.scope, query.pack)

    async def pack_list(self, query: q.PackList) -> list[PackInfo]:
        if query.scope is None:
            return await self._catalogue.listing()
        return await self._catalogue.enabled(query.scope)

    async def on_stats(self, actor: Actor, request: rq.Stats) -> Reply:
        return await self.stats(actor, user_id=request.user_id, name=request.name)

    async def on_packs(self, actor: Actor, request: rq.Packs) -> Reply:
        return await self.packs(actor, language=request.language)

    async def stats(self, actor: Actor, *, user_id: str | None = None, name: str | None = None) -> Reply:
        uid = user_id or actor.user_id
        now = self._clock.now()
        data = await self._repo.user_stats(actor.platform, uid, now, due_by=partial(due_before, now))
        titles = await self._catalogue.topic_titles()
        who = name or (actor.mention if uid == actor.user_id else uid)
        return Reply(messages=(stats_message(who, data, titles, now),))

    async def packs(self, actor: Actor, *, language: str | None = None) -> Reply:
        infos = await self._catalogue.listing(actor.scope)
        if not infos:
            return notice(_("No packs are loaded. An admin can load one with {load}.").format(load=cmd("pack load")))
        if language is not None:
            infos = [info for info in infos if same_language(info.language, language)]
            if not infos:
                return notice(_("No pack here is written in `{language}`.").format(language=shown(language).replace("`", "'")))
        rows = []
        for info in infos:
            state = "" if info.enabled else " " + _("(disabled here)")
            topics = ", ".join(f"`{t}`" for t, _title in info.topics) or "—"
            questions = ngettext("{n} question", "{n} questions", info.questions).format(n=number(info.questions))
            language = f" · {info.language}" if info.language else ""
            about = f"`{info.id}` v{info.version} · {questions}{language}\n" + _("Topics: {topics}").format(topics=topics)
            rows.append((f"{info.title}{state}", about))
        intro = Text(_("Start one with {start} `<pack>`.").format(start=cmd("start")))
        return Reply(messages=(Message(kind="packs", title=_("Packs"), parts=(intro, Fields(tuple(rows)))),))
