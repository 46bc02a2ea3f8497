"""What people look at: progress, the packs here. Neutral messages built from stored facts."""

from __future__ import annotations

from .catalogue import Catalogue
from .model import Actor
from .ports import Clock, Repository
from .replies import Fields, Message, Reply, Text, cmd, notice
from .stats import stats_message


class Views:
    def __init__(self, *, repository: Repository, catalogue: Catalogue, clock: Clock) -> None:
        self._repo = repository
        self._catalogue = catalogue
        self._clock = clock

    async def stats(self, actor: Actor, *, user_id: str | None = None, name: str | None = None) -> Reply:
        uid = user_id or actor.user_id
        now = self._clock.now()
        data = await self._repo.user_stats(actor.platform, uid, now)
        titles = await self._catalogue.topic_titles()
        who = name or (actor.mention if uid == actor.user_id else uid)
        return Reply(messages=(stats_message(who, data, titles, now),))

    async def packs(self, actor: Actor) -> Reply:
        infos = await self._catalogue.listing(actor.scope)
        if not infos:
            return notice(f"No packs are loaded. An admin can load one with {cmd('pack load')}.")
        rows = []
        for info in infos:
            state = "" if info.enabled else " (disabled here)"
            topics = ", ".join(f"`{t}`" for t, _ in info.topics) or "—"
            questions = f"{info.questions} question{'s' if info.questions != 1 else ''}"
            rows.append((f"{info.title}{state}", f"`{info.id}` v{info.version} · {questions}\nTopics: {topics}"))
        intro = Text(f"Start one with {cmd('start')} `<pack>`.")
        return Reply(messages=(Message(kind="packs", title="Packs", parts=(intro, Fields(tuple(rows)))),))
