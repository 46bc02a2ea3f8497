"""The pack catalogue: which packs exist and are enabled where, with a short cache."""

from __future__ import annotations

import time

from .model import ImportReport, PackInfo
from .packs import Pack
from .ports import Repository

CACHE_SECONDS = 30.0  # packs change rarely; another process's change shows within this time


class Catalogue:
    """Packs as the quiz sees them; every change made through here clears the cache at once."""

    def __init__(self, repository: Repository, *, cache_seconds: float = CACHE_SECONDS) -> None:
        self._repo = repository
        self._ttl = cache_seconds
        self._packs: dict[str, tuple[float, Pack | None]] = {}
        self._listings: dict[str, tuple[float, list[PackInfo]]] = {}

    async def pack(self, pack_id: str) -> Pack | None:
        cached = self._packs.get(pack_id)
        now = time.monotonic()
        if cached is not None and now - cached[0] < self._ttl:
            return cached[1]
        pack = await self._repo.get_pack(pack_id)
        self._packs[pack_id] = (now, pack)
        return pack

    async def enabled(self, scope: str) -> list[PackInfo]:
        """The packs enabled in a server or workspace."""
        cached = self._listings.get(scope)
        now = time.monotonic()
        if cached is not None and now - cached[0] < self._ttl:
            return cached[1]
        infos = [p for p in await self._repo.list_packs(scope) if p.enabled]
        self._listings[scope] = (now, infos)
        return infos

    async def listing(self, scope: str | None = None) -> list[PackInfo]:
        """Every stored pack; with a scope, `enabled` says whether it is enabled there."""
        return await self._repo.list_packs(scope)

    async def pack_names(self, scope: str) -> list[str]:
        return [p.id for p in await self.enabled(scope)]

    async def topic_names(self, scope: str, pack_id: str | None = None) -> list[str]:
        names: list[str] = []
        for info in await self.enabled(scope):
            if pack_id and info.id != pack_id:
                continue
            names.extend(t for t, _ in info.topics if t not in names)
        return names

    async def topic_titles(self) -> dict[str, str]:
        """`pack/topic` -> the topic's title, for every stored pack."""
        titles: dict[str, str] = {}
        for info in await self._repo.list_packs():
            titles.update({f"{info.id}/{topic}": title for topic, title in info.topics})
        return titles

    async def import_pack(self, pack: Pack, *, force: bool = False, by: str | None = None) -> ImportReport:
        """Store a pack; `by` is the server or workspace loading it (None: the operator), see `Repository`."""
        report = await self._repo.import_pack(pack, force=force, by=by)
        self.forget(pack.pack)
        return report

    async def owners(self) -> dict[str, str | None]:
        """Each stored pack's owner (None: the operator), read now: it decides who may change the pack."""
        return await self._repo.pack_owners()

    async def set_enabled(self, scope: str, pack_id: str, enabled: bool) -> None:
        await self._repo.set_pack_enabled(scope, pack_id, enabled)
        self._listings.pop(scope, None)

    async def remove(self, pack_id: str, *, by: str | None = None) -> bool:
        removed = await self._repo.delete_pack(pack_id, by=by)
        self.forget(pack_id)
        return removed

    def forget(self, pack_id: str) -> None:
        self._packs.pop(pack_id, None)
        self._listings.clear()
