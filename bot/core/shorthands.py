"""Shorthands over `QuizService.handle` for tests, scripts and the command line: one call per request."""

from __future__ import annotations

from typing import Any

from . import requests as rq
from .catalogue import Catalogue
from .gate import Gate
from .model import Actor, ImportReport, Owner, PackInfo, Session
from .packs import Pack
from .render import help_message
from .replies import Reply


class Shorthands:
    """Mixed into `QuizService`: each method builds one request (or reads one thing) and returns the answer."""

    gate: Gate
    catalogue: Catalogue

    async def handle(self, actor: Actor, request: rq.Request) -> Reply:
        raise NotImplementedError

    async def start(self, actor: Actor, **options: Any) -> Reply:
        """Start a quiz, stopping any running one without asking."""
        options.setdefault("replace", True)
        return await self.handle(actor, rq.Start(**options))

    async def act(self, actor: Actor, action: str, values: tuple[str, ...] | list[str] = (), *, key: str | None = None) -> Reply:
        return await self.handle(actor, rq.Act(action, tuple(values), key))

    async def submit_text(self, actor: Actor, text: str, *, session_id: str | None = None, code_only: bool = False) -> Reply:
        return await self.handle(actor, rq.Submit(text, code_only, session_id))

    async def answer_form(self, actor: Actor) -> Reply:
        return await self.handle(actor, rq.OpenAnswer())

    async def hint(self, actor: Actor) -> Reply:
        return await self.handle(actor, rq.Hint())

    async def skip(self, actor: Actor) -> Reply:
        return await self.handle(actor, rq.Skip())

    async def stop(self, actor: Actor) -> Reply:
        return await self.handle(actor, rq.Stop())

    async def current(self, actor: Actor) -> Reply:
        return await self.handle(actor, rq.Current())

    async def stats(self, actor: Actor, *, user_id: str | None = None, name: str | None = None) -> Reply:
        return await self.handle(actor, rq.Stats(user_id, name))

    async def packs(self, actor: Actor) -> Reply:
        return await self.handle(actor, rq.Packs())

    def help(self) -> Reply:
        return Reply(messages=(help_message(),))

    async def run_code(self, actor: Actor, text: str) -> Reply:
        return await self.handle(actor, rq.RunCode(text))

    async def load_pack(self, actor: Actor, filename: str, data: bytes, *, force: bool = False) -> Reply:
        return await self.handle(actor, rq.PackLoad(filename, data, force))

    async def set_enabled(self, actor: Actor, pack_id: str, enabled: bool) -> Reply:
        return await self.handle(actor, rq.PackEnable(pack_id, enabled))

    async def session(self, session_id: str) -> Session | None:
        return await self.gate.get(session_id)

    async def active_session(self, actor: Actor) -> Session | None:
        return await self.gate.active(Owner.user(actor))

    async def import_pack(self, pack: Pack, *, force: bool = False) -> ImportReport:
        """Store a pack read at start or by `quizbot pack import` (the composition root and the CLI)."""
        return await self.catalogue.import_pack(pack, force=force)

    async def enabled_packs(self, scope: str) -> list[PackInfo]:
        return await self.catalogue.enabled(scope)

    async def enabled_packs_all(self) -> list[PackInfo]:
        """Every stored pack, whatever any scope's settings say."""
        return await self.catalogue.listing()

    async def pack(self, pack_id: str) -> Pack | None:
        return await self.catalogue.pack(pack_id)
