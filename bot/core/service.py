"""QuizService: the one entry into the core for every user action on every platform."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import timedelta

from . import actions as ax
from . import render
from .errors import (
    BadSubmission,
    NoActiveQuiz,
    NotAllowed,
    NotYourQuiz,
    QuizError,
    QuizExpired,
    StaleAction,
    UnknownName,
)
from .grading import check_code, extract_code, grade_blanks, grade_choice, grade_short
from .model import Actor, Attempt, ImportReport, ItemState, Owner, PackInfo, Session, new_session_id
from .packs import (
    DIFFICULTIES,
    AnyQuestion,
    BlanksQuestion,
    ChoiceQuestion,
    CodeQuestion,
    Pack,
    ShortQuestion,
    load_bytes,
)
from .ports import Clock, CodeRunner, Conflict, Repository, RunOutcome, RunRequest
from .replies import Button, InputRequest, Message, Reply, Text, Tone, notice
from .review import Review, review
from .stats import stats_message

DEFAULT_COUNT = 10
MAX_COUNT = 50
PACK_CACHE_SECONDS = 30.0


class QuizService:
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
    ) -> None:
        self._repo = repository
        self._runner = runner
        self._clock = clock
        self._admins = admins
        self._rng = rng or random.Random()
        self._ttl = session_ttl
        # Packs change rarely; other processes' changes show within PACK_CACHE_SECONDS.
        self._packs: dict[str, tuple[float, Pack | None]] = {}
        self._listings: dict[str, tuple[float, list[PackInfo]]] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    # ----------------------------------------------------------------- packs

    async def pack(self, pack_id: str) -> Pack | None:
        cached = self._packs.get(pack_id)
        now = time.monotonic()
        if cached is not None and now - cached[0] < PACK_CACHE_SECONDS:
            return cached[1]
        pack = await self._repo.get_pack(pack_id)
        self._packs[pack_id] = (now, pack)
        return pack

    async def enabled_packs(self, scope: str) -> list[PackInfo]:
        cached = self._listings.get(scope)
        now = time.monotonic()
        if cached is not None and now - cached[0] < PACK_CACHE_SECONDS:
            return cached[1]
        infos = [p for p in await self._repo.list_packs(scope) if p.enabled]
        self._listings[scope] = (now, infos)
        return infos

    async def enabled_packs_all(self) -> list[PackInfo]:
        """Every stored pack, whatever any scope's settings say."""
        return await self._repo.list_packs()

    async def pack_names(self, scope: str) -> list[str]:
        """Names for autocomplete."""
        return [p.id for p in await self.enabled_packs(scope)]

    async def topic_names(self, scope: str, pack_id: str | None = None) -> list[str]:
        names: list[str] = []
        for info in await self.enabled_packs(scope):
            if pack_id and info.id != pack_id:
                continue
            names.extend(t for t, _ in info.topics if t not in names)
        return names

    # ----------------------------------------------------------------- quiz

    async def start(
        self,
        actor: Actor,
        *,
        pack: str | None = None,
        topic: str | None = None,
        difficulty: str | None = None,
        count: int | None = None,
        owner: Owner | None = None,
    ) -> Reply:
        """Start a quiz: wrong and unseen items first, then the rest, up to `count`."""
        enabled = await self.enabled_packs(actor.scope)
        if not enabled:
            raise QuizError("No packs are enabled here. An admin can load one with `/quiz pack load`.")
        names = [p.id for p in enabled]
        if pack is not None and pack not in names:
            raise UnknownName("pack", pack, names)
        chosen = [p for p in enabled if pack is None or p.id == pack]
        if difficulty is not None and difficulty not in DIFFICULTIES:
            raise UnknownName("difficulty", difficulty, DIFFICULTIES)
        if count is None:
            count = DEFAULT_COUNT
        if not 1 <= count <= MAX_COUNT:
            raise QuizError(f"`count` must be between 1 and {MAX_COUNT}; you gave {count}.")
        packs = [p for p in [await self.pack(info.id) for info in chosen] if p is not None]
        if topic is not None:
            topics = sorted({q.topic for p in packs for q in p.questions if q.topic} | {t.id for p in packs for t in p.topics})
            if topic not in topics:
                raise UnknownName("topic", topic, topics)
        candidates = [
            (p, q)
            for p in packs
            for q in p.questions
            if (topic is None or q.topic == topic) and (difficulty is None or q.difficulty == difficulty)
        ]
        if not candidates:
            raise QuizError("No questions match those filters. Try fewer filters, or `/quiz packs` to see what exists.")
        history = await self._repo.history(actor.platform, actor.user_id, [p.pack for p in packs])
        now = self._clock.now()

        def rank(pair: tuple[Pack, AnyQuestion]) -> int:
            seen = history.get((pair[0].pack, pair[1].id))
            if seen is None:
                return 0
            if not seen.last_correct:
                return 1
            if seen.due is not None and seen.due <= now:
                return 2
            return 3

        self._rng.shuffle(candidates)
        candidates.sort(key=rank)
        picked = candidates[:count]
        items = []
        for p, q in picked:
            seen = history.get((p.pack, q.id))
            item = ItemState(pack=p.pack, question=q.id, card=seen.card if seen else None)
            if isinstance(q, ChoiceQuestion):
                item.order = list(range(len(q.choices)))
                if q.shuffle:
                    self._rng.shuffle(item.order)
            items.append(item)
        owner = owner or Owner.user(actor)
        messages: list[Message] = []
        previous = await self._repo.active_session(owner)
        if previous is not None:
            previous.status = "stopped"
            previous.updated_at = now
            await self._save(previous)
            messages.append(Message(kind="notice", parts=(Text("Your previous quiz was stopped; a new one starts."),)))
        session = Session(
            id=new_session_id(),
            owner=owner,
            started_by=actor.user_id,
            started_by_name=actor.mention,
            items=items,
            created_at=now,
            updated_at=now,
            filters={"pack": pack, "topic": topic, "difficulty": difficulty, "count": count},
        )
        await self._repo.create_session(session)
        first_pack, first_question = picked[0]
        messages.append(render.item_message(session, 0, first_pack, first_question))
        return Reply(messages=tuple(messages), private=owner.kind == "user")

    async def act(self, actor: Actor, action: str, values: Sequence[str] = ()) -> Reply:
        """Handle a click, a menu choice or a form submission named by an action id."""
        parsed = ax.parse(action)
        if parsed is None:
            raise QuizError("That button is not one of this bot's.")
        async with self._editing(parsed.session_id):
            session = await self._session_for(actor, parsed.session_id)
            if parsed.verb == ax.RESTART:
                f = session.filters
                return await self.start(
                    actor, pack=f.get("pack"), topic=f.get("topic"), difficulty=f.get("difficulty"), count=f.get("count")
                )
            self._check_active(session)
            if parsed.position != session.position:
                raise StaleAction()
            return await self._on_item(actor, session, parsed, list(values))

    async def submit_text(self, actor: Actor, text: str, *, session_id: str | None = None, code_only: bool = False) -> Reply:
        """Answer the current item with free text: a message, a code block, a file or console input.

        With `code_only`, text without a fenced block is ignored unless the item expects code
        (a chat message that is just talk must not count as a wrong answer).
        """
        session = await self._find_session(actor, session_id)
        async with self._editing(session.id):
            session = await self._session_for(actor, session.id)
            self._check_active(session)
            item = session.current
            assert item is not None
            _, question = await self._question(item)
            if isinstance(question, CodeQuestion):
                code = extract_code(text)
                verb = ax.CODE_FORM
                value = code if code is not None else text
            elif isinstance(question, ShortQuestion):
                if code_only:
                    raise BadSubmission("The current question wants a short answer: press Answer or use `/quiz answer`.")
                verb, value = ax.SHORT_FORM, text
            else:
                raise BadSubmission("The current question is answered with its buttons or menus, not a message.")
            parsed = ax.Action(session.id, session.position, verb)
            return await self._on_item(actor, session, parsed, [value])

    async def answer_form(self, actor: Actor) -> Reply:
        """`/quiz answer`: the form for the current short or code item."""
        session = await self._find_session(actor, None)
        return await self.act(actor, ax.make(session.id, session.position, ax.ANSWER))

    async def hint(self, actor: Actor) -> Reply:
        session = await self._find_session(actor, None)
        return await self.act(actor, ax.make(session.id, session.position, ax.HINT))

    async def skip(self, actor: Actor) -> Reply:
        session = await self._find_session(actor, None)
        return await self.act(actor, ax.make(session.id, session.position, ax.SKIP))

    async def stop(self, actor: Actor) -> Reply:
        session = await self._find_session(actor, None)
        return await self.act(actor, ax.make(session.id, session.position, ax.STOP))

    async def current(self, actor: Actor) -> Reply:
        """Show the current item again (after a restart, or when the message scrolled away)."""
        session = await self._find_session(actor, None)
        item = session.current
        assert item is not None
        pack, question = await self._question(item)
        return Reply(messages=(render.item_message(session, session.position, pack, question),))

    async def session(self, session_id: str) -> Session | None:
        return await self._repo.get_session(session_id)

    async def active_session(self, actor: Actor) -> Session | None:
        return await self._repo.active_session(Owner.user(actor))

    async def set_anchor(self, session_id: str, **anchor: str) -> None:
        """Remember where the quiz lives on the platform (a thread, a message to update)."""
        async with self._editing(session_id):
            session = await self._repo.get_session(session_id)
            if session is None:
                return
            session.anchor.update(anchor)
            await self._save(session)

    # ----------------------------------------------------------------- views

    async def stats(self, actor: Actor, *, user_id: str | None = None, name: str | None = None) -> Reply:
        uid = user_id or actor.user_id
        data = await self._repo.user_stats(actor.platform, uid, self._clock.now())
        titles: dict[str, str] = {}
        for info in await self._repo.list_packs():
            pack = await self.pack(info.id)
            if pack is not None:
                titles.update({f"{pack.pack}/{t.id}": t.title for t in pack.topics})
        who = name or (actor.mention if uid == actor.user_id else uid)
        return Reply(messages=(stats_message(who, data, titles, self._clock.now()),))

    async def packs(self, actor: Actor) -> Reply:
        infos = await self._repo.list_packs(actor.scope)
        if not infos:
            return notice("No packs are loaded. An admin can load one with `/quiz pack load`.")
        lines = []
        for info in infos:
            state = "" if info.enabled else " _(disabled here)_"
            topics = ", ".join(f"`{t}`" for t, _ in info.topics) or "—"
            lines.append(f"**{info.title}** — `{info.id}` v{info.version}, {info.questions} questions{state}\nTopics: {topics}")
        return Reply(messages=(Message(kind="packs", title="Packs", parts=(Text("\n\n".join(lines)),)),))

    def help(self) -> Reply:
        return Reply(messages=(render.help_message(),))

    async def run_code(self, actor: Actor, text: str) -> Reply:
        """`/quiz run`: run a snippet and show its output."""
        code = extract_code(text)
        code = check_code(code if code is not None else text)
        outcome = await self._run(RunRequest(code=code, owner=actor.key))
        tone = Tone.SUCCESS if outcome.status == "passed" else Tone.FAILURE
        parts = tuple(render.run_report(outcome, graded=False))
        return Reply(messages=(Message(kind="run", title="Run", parts=parts, tone=tone),), slow=True)

    # ----------------------------------------------------------------- admin

    def is_admin(self, actor: Actor) -> bool:
        return actor.is_admin or actor.key in self._admins

    async def load_pack(self, actor: Actor, filename: str, data: bytes, *, force: bool = False) -> Reply:
        if not self.is_admin(actor):
            raise NotAllowed("load packs")
        loaded = await asyncio.to_thread(load_bytes, filename, data)
        report = await self.import_pack(loaded.pack, force=force)
        return Reply(messages=(Message(kind="admin", title="Pack loaded", parts=(Text(_report_text(report)),), tone=Tone.SUCCESS),))

    async def import_pack(self, pack: Pack, *, force: bool = False) -> ImportReport:
        report = await self._repo.import_pack(pack, force=force)
        self._packs.pop(pack.pack, None)
        self._listings.clear()
        return report

    async def set_enabled(self, actor: Actor, pack_id: str, enabled: bool) -> Reply:
        if not self.is_admin(actor):
            raise NotAllowed("enable or disable packs")
        names = [p.id for p in await self._repo.list_packs()]
        if pack_id not in names:
            raise UnknownName("pack", pack_id, names)
        await self._repo.set_pack_enabled(actor.scope, pack_id, enabled)
        self._listings.pop(actor.scope, None)
        word = "enabled" if enabled else "disabled"
        return notice(f"Pack `{pack_id}` is {word} here.", tone=Tone.SUCCESS)

    # ----------------------------------------------------------------- internals

    @asynccontextmanager
    async def _editing(self, session_id: str) -> AsyncIterator[None]:
        """Hold the session's lock (the repository hands out copies: a change that fails half-way is never seen)."""
        async with self._lock(session_id):
            yield

    def _lock(self, session_id: str) -> asyncio.Lock:
        lock = self._locks.get(session_id)
        if lock is None:
            if len(self._locks) > 10_000:
                self._locks = {k: v for k, v in self._locks.items() if v.locked()}
            lock = self._locks[session_id] = asyncio.Lock()
        return lock

    async def _find_session(self, actor: Actor, session_id: str | None) -> Session:
        if session_id is not None:
            session = await self._repo.get_session(session_id)
            if session is None:
                raise QuizExpired("expired")
            return session
        session = await self._repo.active_session(Owner.user(actor))
        if session is None:
            raise NoActiveQuiz()
        return session

    async def _session_for(self, actor: Actor, session_id: str) -> Session:
        session = await self._repo.get_session(session_id)
        if session is None:
            raise QuizExpired("expired")
        owner = session.owner
        if owner.platform != actor.platform or (owner.kind == "user" and owner.id != actor.user_id):
            raise NotYourQuiz(session.started_by_name)
        if session.status == "active" and self._clock.now() - session.updated_at > self._ttl:
            session.status = "expired"
            await self._save(session)
        return session

    def _check_active(self, session: Session) -> None:
        if session.status != "active":
            raise QuizExpired(session.status, session.id)

    async def _question(self, item: ItemState) -> tuple[Pack, AnyQuestion]:
        pack = await self.pack(item.pack)
        question = pack.question(item.question) if pack else None
        if pack is None or question is None:
            raise QuizError("This question was removed from its pack. Use `/quiz skip` to move on.")
        return pack, question

    async def _save(self, session: Session, attempt: Attempt | None = None, card: Review | None = None) -> None:
        try:
            await self._repo.save_session(session, attempt, card)
        except Conflict as exc:
            raise StaleAction() from exc

    async def _run(self, request: RunRequest) -> RunOutcome:
        if self._runner is None:
            raise QuizError("Code can't be run here: the sandbox is not configured.")
        return await self._runner.run(request)

    async def _on_item(self, actor: Actor, session: Session, action: ax.Action, values: list[str]) -> Reply:
        item = session.current
        assert item is not None
        if action.verb == ax.SKIP and (await self.pack(item.pack)) is None:
            return await self._advance(session, item, None, None, skipped=True)
        pack, question = await self._question(item)
        verb = action.verb
        if verb == ax.HINT:
            item.hinted = True
            session.updated_at = self._clock.now()
            await self._save(session)
            text = question.hint or "This question has no hint."
            return Reply(messages=(Message(kind="notice", title="Hint", parts=(Text(f"💡 {text}"),)),))
        if verb == ax.SKIP:
            return await self._advance(session, item, pack, question, skipped=True)
        if verb == ax.STOP:
            session.status = "stopped"
            session.updated_at = self._clock.now()
            await self._save(session)
            return Reply(messages=(await self._summary(session, stopped=True),))
        if verb == ax.ANSWER:
            if isinstance(question, ShortQuestion):
                form = InputRequest(ax.make(session.id, session.position, ax.SHORT_FORM), "Your answer", "Answer", "short", max_length=500)
                return Reply(form=form)
            if isinstance(question, CodeQuestion):
                form = InputRequest(
                    ax.make(session.id, session.position, ax.CODE_FORM),
                    "Your code",
                    "Python code",
                    "code",
                    initial=question.starter,
                )
                return Reply(form=form)
            raise BadSubmission("This question is answered with its buttons or menus.")
        if isinstance(question, ChoiceQuestion):
            return await self._choice(session, item, pack, question, verb, action.argument, values)
        if isinstance(question, BlanksQuestion):
            return await self._blanks(session, item, pack, question, verb, action.argument, values)
        if isinstance(question, ShortQuestion) and verb == ax.SHORT_FORM:
            answer = (values[0] if values else "").strip()
            if not answer:
                raise BadSubmission("The answer is empty.")
            if len(answer) > 500:
                raise BadSubmission("That answer is longer than 500 characters; a short answer is a word, a number or a line.")
            return await self._graded(session, item, pack, question, grade_short(question, answer), answer, ())
        if isinstance(question, CodeQuestion) and verb in (ax.CODE_FORM, ax.SHORT_FORM):
            text = values[0] if values else ""
            block = extract_code(text)
            code = check_code(block if block is not None else text)
            return await self._code(actor, session, item, pack, question, code)
        raise StaleAction()

    async def _choice(
        self, session: Session, item: ItemState, pack: Pack, q: ChoiceQuestion, verb: str, arg: str, values: list[str]
    ) -> Reply:
        order = render.display_order(q, item)
        if verb == ax.MULTI and q.multiple:
            picked = {int(v) for v in values if v.isdigit() and int(v) < len(order)}
            item.selections = dict.fromkeys(sorted(picked), 1)
            session.updated_at = self._clock.now()
            await self._save(session)
            return Reply(update=render.item_message(session, session.position, pack, q))
        if verb == ax.CHECK and q.multiple:
            if not item.selections:
                raise BadSubmission("Select at least one choice, then press Check.")
            shown = sorted(item.selections)
        elif verb == ax.CHOOSE:
            raw = arg or (values[0] if values else "")
            if not raw.isdigit() or int(raw) >= len(order):
                raise BadSubmission("That choice does not exist.")
            shown = [int(raw)]
            if q.multiple:
                item.selections = {shown[0]: 1}
        else:
            raise StaleAction()
        original = [order[s] for s in shown]
        item.last_answer = str(shown[0]) if not q.multiple else None
        correct = grade_choice(q, original)
        feedback = [q.choices[o].feedback for o in original if q.choices[o].feedback and not q.choices[o].correct]
        answer = ", ".join(render.letter(s) + ". " + q.choices[order[s]].text for s in shown)
        return await self._graded(session, item, pack, q, correct, answer, tuple(f for f in feedback if f))

    async def _blanks(
        self, session: Session, item: ItemState, pack: Pack, q: BlanksQuestion, verb: str, arg: str, values: list[str]
    ) -> Reply:
        if verb == ax.BLANK:
            if not arg.isdigit() or int(arg) not in q.blanks():
                raise BadSubmission("That blank does not exist.")
            if not values or not values[0].isdigit() or int(values[0]) >= len(q.options):
                raise BadSubmission("That option does not exist.")
            item.selections[int(arg)] = int(values[0])
            session.updated_at = self._clock.now()
            await self._save(session)
            return Reply(update=render.item_message(session, session.position, pack, q))
        if verb != ax.CHECK:
            raise StaleAction()
        missing = [n for n in q.blanks() if n not in item.selections]
        if missing:
            raise BadSubmission("Fill every blank first: " + ", ".join(f"[{n}]" for n in missing) + " still empty.")
        per_blank = grade_blanks(q, item.selections)
        answer = ", ".join(f"{n}={q.options[item.selections[n]]}" for n in q.blanks())
        detail = " · ".join(f"[{n}] {'✅' if ok else '❌'}" for n, ok in per_blank.items())
        return await self._graded(session, item, pack, q, all(per_blank.values()), answer, (detail,))

    async def _code(
        self, actor: Actor, session: Session, item: ItemState, pack: Pack, q: CodeQuestion, code: str
    ) -> Reply:
        limits = q.limits
        outcome = await self._run(
            RunRequest(
                code=code,
                test=q.test,
                owner=actor.key,
                time_s=limits.time_s if limits else None,
                memory_mb=limits.memory_mb if limits else None,
            )
        )
        if outcome.status == "rejected":
            return Reply(messages=(Message(kind="feedback", parts=tuple(render.run_report(outcome, graded=True)), tone=Tone.WARNING),), slow=True)
        report = render.run_report(outcome, graded=True)
        reply = await self._graded(session, item, pack, q, outcome.status == "passed", code, (), report=report)
        return replace(reply, slow=True)

    async def _graded(
        self,
        session: Session,
        item: ItemState,
        pack: Pack,
        question: AnyQuestion,
        correct: bool,
        answer: str,
        feedback: tuple[str, ...],
        *,
        report: Sequence[Text | object] = (),
    ) -> Reply:
        now = self._clock.now()
        item.attempts += 1
        final = correct or item.attempts >= question.max_attempts()
        attempt = Attempt(
            platform=session.owner.platform,
            scope=session.owner.scope,
            user_id=session.started_by,
            pack=pack.pack,
            question=question.id,
            topic=question.topic,
            answer=answer[:4000],
            correct=correct,
            points=question.points if correct else 0,
            at=now,
            session_id=session.id,
        )
        card: Review | None = None
        if final:
            card_json, due = review(item.card, correct=correct, hinted=item.hinted, at=now)
            card = Review(session.owner.platform, session.started_by, pack.pack, question.id, card_json, due, correct)
        parts: list[object] = list(report)
        if correct:
            tone, head = Tone.SUCCESS, "✅ **Correct!**"
        else:
            tone, head = Tone.FAILURE, "❌ **Not quite.**"
        parts.insert(0, Text(head))
        parts.extend(Text(f) for f in feedback)
        if not final:
            left = question.max_attempts() - item.attempts
            hint = f"💡 {question.hint}\n" if question.hint else ""
            item.hinted = item.hinted or bool(question.hint)
            parts.append(Text(f"{hint}{left} attempt{'s' if left != 1 else ''} left."))
        else:
            if not correct and not isinstance(question, CodeQuestion):
                parts.append(Text(render.correct_answer_text(question)))
            if question.explanation:
                parts.append(Text(f"📘 {question.explanation}"))
        if not final:
            session.updated_at = now
            await self._save(session, attempt)
            update = render.item_message(session, session.position, pack, question)
            fb = Message(kind="feedback", parts=tuple(parts), tone=tone, session_id=session.id)  # type: ignore[arg-type]
            return Reply(messages=(fb,), update=update)
        item.done, item.correct = True, correct
        item.points = question.points if correct else 0
        return await self._advance(session, item, pack, question, attempt=attempt, card=card, feedback=tuple(parts), tone=tone)

    async def _advance(
        self,
        session: Session,
        item: ItemState,
        pack: Pack | None,
        question: AnyQuestion | None,
        *,
        skipped: bool = False,
        attempt: Attempt | None = None,
        card: Review | None = None,
        feedback: tuple[object, ...] = (),
        tone: Tone = Tone.INFO,
    ) -> Reply:
        index = session.position
        if skipped:
            item.done, item.skipped = True, True
            parts: list[object] = [Text("⏭️ Skipped.")]
            if question is not None:
                if not isinstance(question, CodeQuestion):
                    parts.append(Text(render.correct_answer_text(question)))
                if question.explanation:
                    parts.append(Text(f"📘 {question.explanation}"))
            feedback = tuple(parts)
        session.position += 1
        session.updated_at = self._clock.now()
        if session.position >= len(session.items):
            session.status = "finished"
        await self._save(session, attempt, card)
        update = render.item_message(session, index, pack, question, final=True) if pack and question else None
        messages: list[Message] = [Message(kind="feedback", parts=feedback, tone=tone, session_id=session.id)]  # type: ignore[arg-type]
        if session.status == "finished":
            messages.append(await self._summary(session, stopped=False))
        else:
            nxt = session.current
            assert nxt is not None
            try:
                next_pack, next_question = await self._question(nxt)
                messages.append(render.item_message(session, session.position, next_pack, next_question))
            except QuizError as exc:
                messages.append(Message(kind="notice", parts=(Text(str(exc)),), tone=Tone.WARNING))
        return Reply(messages=tuple(messages), update=update, private=session.owner.kind == "user")

    async def _summary(self, session: Session, *, stopped: bool) -> Message:
        questions = []
        for item in session.items:
            pack = await self.pack(item.pack)
            questions.append((pack, pack.question(item.question) if pack else None))
        return render.summary_message(session, questions, stopped=stopped)


def _report_text(report: ImportReport) -> str:
    text = report.summary()
    if report.removed:
        text += "\nRemoved: " + ", ".join(f"`{r}`" for r in report.removed[:20])
    return text


def error_reply(exc: QuizError) -> Reply:
    """Turn a core error into the private note the person sees; an ended quiz offers a new one."""
    tone = Tone.WARNING
    if isinstance(exc, NotYourQuiz | NotAllowed):
        tone = Tone.ERROR
    reply = notice(str(exc), tone=tone)
    if isinstance(exc, QuizExpired) and exc.session_id:
        again = Button(ax.make(exc.session_id, 0, ax.RESTART), "New quiz", "primary")
        reply = Reply(messages=(replace(reply.messages[0], rows=((again,),)),))
    return reply
