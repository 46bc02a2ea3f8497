"""Pack administration from the chat, and who may do it."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from bot.core.i18n import _, ngettext, number, pgettext

from . import actions as ax
from . import requests as rq
from .catalogue import Catalogue
from .dispatch import NOT_OURS, Dispatcher, Unclaimed
from .errors import NotAllowed, PackInvalid, Problem, QuizError, UnknownName, place_word
from .importing import UPLOAD_SUFFIXES, PackNotTheirs, PendingPacks, pack_owner
from .model import Actor, ImportReport
from .packs import LoadedPack, load_bytes
from .packs.proof import Proof, count_jobs, passing_part, proof_of
from .packs.proofcache import ProofCache
from .ports import CodeRunner
from .replies import Button, Message, Reply, Text, Tone, notice, outcome

log = logging.getLogger(__name__)

Progress = Callable[[str], Awaitable[None]]
PROGRESS_EVERY_S = 2.0  # edit the progress note at most this often


class Admins:
    """An admin is whoever the platform says (Manage Server, workspace admin) or the operator named."""

    def __init__(self, extra: frozenset[str] = frozenset()) -> None:
        self._extra = extra

    def allows(self, actor: Actor) -> bool:
        return actor.is_admin or actor.key in self._extra

    def require(self, actor: Actor, what: str) -> None:
        if not self.allows(actor):
            raise NotAllowed(what, in_dm=actor.scope.startswith("dm:") or actor.scope == "dm", platform=actor.platform)

    def is_operator(self, actor: Actor) -> bool:
        """Named in QUIZBOT_ADMINS by whoever runs the bot (more than a server's admin)."""
        return actor.key in self._extra


class PackAdmin:
    """Load, enable, disable and remove packs; its confirmations carry `pk:` (before, `qz:-:`)."""

    VERBS = frozenset({ax.REMOVE_PACK, ax.CANCEL, ax.LOAD_CONVERTED, ax.DROP_CONVERTED, ax.LOAD_PASSING})

    def __init__(
        self,
        *,
        catalogue: Catalogue,
        admins: Admins,
        runner: CodeRunner | None,
        pending: PendingPacks | None = None,
        proofs: ProofCache | None = None,
    ) -> None:
        self._catalogue = catalogue
        self._admins = admins
        self._runner = runner
        self._pending = pending
        self._proofs = proofs  # None: every proof runs (nothing remembers what was proven)

    def register(self, dispatcher: Dispatcher) -> None:
        dispatcher.request(rq.PackLoad, self.on_load)
        dispatcher.request(rq.PackEnable, self.on_enable)
        dispatcher.request(rq.PackRemove, self.on_remove)
        dispatcher.action(ax.PACK_PREFIX, self.on_confirm)
        dispatcher.also(ax.PREFIX, self.on_confirm)

    async def on_load(self, actor: Actor, request: rq.PackLoad) -> Reply:
        return await self.load(
            actor, request.filename, request.data, force=request.force, unproven=request.unproven, progress=request.progress
        )

    async def on_enable(self, actor: Actor, request: rq.PackEnable) -> Reply:
        return await self.set_enabled(actor, request.pack, request.enabled)

    async def on_remove(self, actor: Actor, request: rq.PackRemove) -> Reply:
        return await self.remove(actor, request.pack, confirmed=request.confirmed)

    async def on_confirm(self, actor: Actor, request: rq.Act) -> Reply:
        """An admin's answer to a confirmation: remove the pack, load or drop a converted one, keep."""
        action = ax.parse(request.action, prefix=None)
        if action is None or action.session_id != ax.NO_SESSION or action.verb not in self.VERBS:
            raise Unclaimed()
        # The prompt is edited into what was done, its buttons gone; a click on a stale copy is told why.
        if action.verb == ax.REMOVE_PACK:
            return outcome(await self.remove(actor, action.argument, confirmed=True))
        if action.verb in (ax.LOAD_CONVERTED, ax.LOAD_PASSING):
            return outcome(await self.load_converted(actor, action.argument, passing=action.verb == ax.LOAD_PASSING))
        if action.verb == ax.DROP_CONVERTED:
            return outcome(await self.cancel_converted(actor, action.argument))
        self._admins.require(actor, _("remove packs"))
        await self._still_there(action.argument)
        return outcome(notice(_("Nothing was changed: `{pack}` stays.").format(pack=action.argument)))

    async def load(
        self,
        actor: Actor,
        filename: str,
        data: bytes,
        *,
        force: bool = False,
        unproven: bool = False,
        progress: Progress | None = None,
        skip_failing: bool = False,
    ) -> Reply:
        """Read, prove and store a pack; a pack that fails anything changes nothing.

        Another tool's file (Moodle XML, GIFT, ...) is converted and previewed first, with Load and Cancel.
        `skip_failing` stores the questions that pass their proof and lists the others.
        """
        self._admins.require(actor, _("load packs"))
        # The importers (1.3 MB of modules) are loaded with the first pack an admin uploads.
        from .convert import is_native_pack

        if self._pending is not None and not is_native_pack(filename, data):
            return await self._preview(actor, filename, data, force=force, progress=progress)
        if unproven and not self._admins.is_operator(actor):
            raise NotAllowed(_("load a pack without proving it (operators named in `QUIZBOT_ADMINS`)"), platform=actor.platform)
        loaded = await asyncio.to_thread(load_bytes, filename, data)
        await self._may_change(actor, loaded.pack.pack)  # before the proof, which may take minutes
        left_out: dict[str, tuple[Problem, ...]] = {}
        if not unproven:
            found = await self.proof(loaded, progress)
            if not found.ok and not skip_failing:
                raise PackInvalid(list(found.problems))
            loaded, left_out = passing_part(loaded, found), found.failing
        report = await self._catalogue.import_pack(loaded.pack, force=force, by=pack_owner(actor))  # checked again there
        if unproven:  # said once it is stored: a refused store stores nothing
            log.warning("pack %s v%s stored unproven by %s", loaded.pack.pack, loaded.pack.version, actor.key)
        text = report_text(report)
        if left_out:
            text += "\n" + left_out_text(left_out, data, len(loaded.pack.questions))
        parts = (Text(text),)
        return Reply(messages=(Message(kind="admin", title=_("Pack loaded"), parts=parts, tone=Tone.SUCCESS),))

    async def prove(self, loaded: LoadedPack, progress: Progress | None = None) -> None:
        """Run every key in the sandbox (`pack validate --run`); raise PackInvalid with each problem."""
        found = await self.proof(loaded, progress)
        if not found.ok:
            raise PackInvalid(list(found.problems))

    async def proof(self, loaded: LoadedPack, progress: Progress | None = None) -> Proof:
        """Run every key in the sandbox, or recall the proof of this very content; return what failed."""
        total = count_jobs(loaded)
        if total == 0:
            return Proof()
        if self._runner is None:
            raise QuizError(_("This pack has keys to prove by running them, and the sandbox is not configured here."))
        done = 0
        last = 0.0

        def step() -> None:
            nonlocal done
            done += 1

        async def report() -> None:
            nonlocal last
            while progress is not None:
                await asyncio.sleep(0.2)
                now = time.monotonic()
                if now - last >= PROGRESS_EVERY_S:
                    last = now
                    await progress(
                        "⏳ " + _("Proving `{pack}`: {done} of {total} keys run…").format(pack=loaded.pack.pack, done=number(done), total=number(total))
                    )

        reporter = asyncio.create_task(report())
        try:
            if self._proofs is not None:
                return await self._proofs.proof(loaded, self._runner, on_step=step)
            return await proof_of(loaded, self._runner, on_step=step)
        finally:
            reporter.cancel()

    async def _preview(
        self, actor: Actor, filename: str, data: bytes, *, force: bool, progress: Progress | None = None
    ) -> Reply:
        assert self._pending is not None
        if not filename.lower().endswith(UPLOAD_SUFFIXES):
            known = ", ".join(f"`{s}`" for s in UPLOAD_SUFFIXES)
            raise QuizError(_("`{file}` is not a file I can load; send one of {known}.").format(file=filename, known=known))
        from .convert import FORMAT_NAMES, UnknownFormat, convert_bytes

        try:
            conversion = await asyncio.to_thread(convert_bytes, filename, data)
        except UnknownFormat as exc:  # its text names the command line's `--format`, which the chat has not
            formats = ", ".join(_(name) for name in FORMAT_NAMES.values())
            raise QuizError(
                _(
                    "`{file}` is neither a pack (a `.yaml` file with `pack:` and `questions:` at the top, or a `.zip` "
                    "of a pack folder) nor a quiz file I can convert ({formats})."
                ).format(file=filename, formats=formats)
            ) from exc
        preview = Text(conversion.preview(problems=5))
        if not conversion.ok or conversion.loaded is None:
            message = Message(kind="admin", title=_("Nothing to load"), parts=(preview,), tone=Tone.WARNING)
            return Reply(messages=(message,))
        pack_id = str(conversion.pack["pack"])
        await self._may_change(actor, pack_id)  # refused now, not after the preview's Load
        zipped = conversion.zip_bytes()
        found = None
        if self._runner is not None:  # proven now, so failing questions show here (the Load finds the proof kept)
            found = await self.proof(conversion.loaded, progress)
        passing = len(found.passing(conversion.loaded)) if found is not None and not found.whole_pack else 0
        if found is not None and not found.ok:
            preview = Text(preview.markdown + "\n" + failing_text(found, zipped, len(conversion.loaded.pack.questions)))
            if not passing:
                message = Message(kind="admin", title=_("Nothing to load"), parts=(preview,), tone=Tone.WARNING)
                return Reply(messages=(message,))
        key = await self._pending.put(actor, f"{pack_id}.zip", zipped, force=force)
        yes = Button(ax.admin(ax.LOAD_CONVERTED, key, prefix=ax.PACK_PREFIX), pgettext("button", "Load {pack}").format(pack=pack_id), "primary", role="confirm")
        if found is not None and not found.ok:
            yes = Button(ax.admin(ax.LOAD_PASSING, key, prefix=ax.PACK_PREFIX), pgettext("button", "Load the {n} that pass").format(n=passing), "primary", role="confirm")
        no = Button(ax.admin(ax.DROP_CONVERTED, key, prefix=ax.PACK_PREFIX), pgettext("button", "Cancel"), role="cancel")
        note = Text(_("Nothing is stored until you press Load; this preview expires in an hour."))
        message = Message(kind="admin", title=_("Load this pack?"), parts=(preview, note), rows=((yes, no),))
        return Reply(messages=(message,))

    async def load_converted(self, actor: Actor, key: str, *, passing: bool = False) -> Reply:
        """Load the pack a preview showed, through the same checks as any pack file (`passing`: what passes)."""
        self._admins.require(actor, _("load packs"))
        if self._pending is None:
            raise QuizError(_(NOT_OURS))
        pending = await self._pending.get(actor, key)
        try:
            reply = await self.load(actor, pending.filename, pending.data, force=pending.force, skip_failing=passing)
        except PackInvalid as exc:  # name the uploaded file's lines, not the .zip it was converted into
            from .convert import in_source

            raise PackInvalid(in_source(exc.problems, pending.data)) from None
        await self._pending.drop(key)
        return reply

    async def cancel_converted(self, actor: Actor, key: str) -> Reply:
        """Forget a previewed pack; nothing is stored."""
        self._admins.require(actor, _("load packs"))
        if self._pending is None:
            raise QuizError(_(NOT_OURS))
        await self._pending.get(actor, key)
        await self._pending.drop(key)
        return notice(_("Nothing was loaded; the converted pack was discarded."))

    async def set_enabled(self, actor: Actor, pack_id: str, enabled: bool) -> Reply:
        self._admins.require(actor, _("enable or disable packs"))
        await self._known(actor, pack_id)
        await self._catalogue.set_enabled(actor.scope, pack_id, enabled)
        text = _("Pack `{pack}` is enabled here.") if enabled else _("Pack `{pack}` is disabled here.")
        return notice(text.format(pack=pack_id), tone=Tone.SUCCESS)

    async def remove(self, actor: Actor, pack_id: str, *, confirmed: bool) -> Reply:
        """Remove a pack everywhere, after a confirmation; learners' history stays."""
        self._admins.require(actor, _("remove packs"))
        if confirmed:
            await self._still_there(pack_id)
        else:
            await self._known(actor, pack_id)
        await self._may_change(actor, pack_id, removing=True)
        if not confirmed:
            yes = Button(ax.admin(ax.REMOVE_PACK, pack_id, prefix=ax.PACK_PREFIX), pgettext("button", "Remove {pack}").format(pack=pack_id), "danger", role="confirm")
            no = Button(ax.admin(ax.CANCEL, pack_id, prefix=ax.PACK_PREFIX), pgettext("button", "Keep it"), role="cancel")
            text = _(
                "Remove the pack `{pack}` from every {place} this bot serves? Its questions leave every quiz; "
                "what learners answered stays in their history and stats."
            ).format(pack=pack_id, place=place_word(actor.platform))
            message = Message(kind="admin", title=_("Remove a pack?"), parts=(Text(text),), rows=((yes, no),), tone=Tone.WARNING)
            return Reply(messages=(message,))
        await self._catalogue.remove(pack_id, by=pack_owner(actor))  # the owner checked again, in the delete
        return notice(_("Pack `{pack}` was removed. Learners' history of it is kept.").format(pack=pack_id), tone=Tone.SUCCESS)

    async def _still_there(self, pack_id: str) -> None:
        """Refuse an answer to a removal prompt whose pack is gone (removed by that prompt or another)."""
        if pack_id not in [p.id for p in await self._catalogue.listing()]:
            raise QuizError(
                _("The pack `{pack}` is not loaded any more (it was removed already); nothing was changed.").format(pack=pack_id)
            )

    async def _may_change(self, actor: Actor, pack_id: str, *, removing: bool = False) -> None:
        """Refuse, before anything runs or is asked, a pack that another server or workspace, or the operator, owns.

        Storage checks it again in the write itself (`Repository.import_pack`): this is the early word.
        """
        by = pack_owner(actor)
        owners = await self._catalogue.owners()
        if by is not None and pack_id in owners and owners[pack_id] != by:
            raise PackNotTheirs(pack_id, by, removing=removing, owner=owners[pack_id])

    async def _known(self, actor: Actor, pack_id: str) -> None:
        """Refuse an id no pack has, naming the packs seen here (not another server's, until switched on here)."""
        if pack_id not in [p.id for p in await self._catalogue.listing()]:
            raise UnknownName("pack", pack_id, [p.id for p in await self._catalogue.listing(actor.scope)])


MAX_LISTED = 10  # failing questions named in a chat message; the rest are counted


def failing_text(found: Proof, data: bytes, total: int) -> str:
    """Say which questions failed their proof and why, at the uploaded file's lines."""
    head = "**" + ngettext(
        "{failed} of {n} question failed the proof:", "{failed} of {n} questions failed the proof:", total
    ).format(failed=number(len(found.failing)), n=number(total)) + "**"
    return head + "\n" + _listed(found.failing, data)


def left_out_text(failing: dict[str, tuple[Problem, ...]], data: bytes, loaded: int) -> str:
    """Say which questions were left out of a partial load, and why."""
    left = ngettext("{n} question", "{n} questions", len(failing)).format(n=number(len(failing)))
    text = _("Loaded the {loaded} that pass; left out {questions} that failed the proof:").format(loaded=number(loaded), questions=left)
    return text + "\n" + _listed(failing, data)


def _listed(failing: dict[str, tuple[Problem, ...]], data: bytes) -> str:
    from .convert import in_source

    lines = []
    for problems in list(failing.values())[:MAX_LISTED]:
        first = in_source(list(problems[:1]), data)[0]
        lines.append(f"- {first}" + (" (" + _("and {n} more").format(n=len(problems) - 1) + ")" if len(problems) > 1 else ""))
    if len(failing) > MAX_LISTED:
        lines.append("- ... " + _("and {n} more").format(n=len(failing) - MAX_LISTED))
    return "\n".join(lines)


def report_text(report: ImportReport) -> str:
    text = report.summary()
    if report.removed:
        text += "\n" + _("Removed:") + " " + ", ".join(f"`{r}`" for r in report.removed[:20])
    return text
