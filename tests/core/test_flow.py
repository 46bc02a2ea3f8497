"""The quiz flow over the in-memory repository: the core's rules without a database or a platform."""

from __future__ import annotations

import json
import random

import pytest

from bot.core import Actor, BadSubmission, NoActiveQuiz, NotAllowed, QuizError, QuizService
from bot.core import requests as rq
from bot.core.importing import pack_owner
from bot.core.packs import load_path
from bot.core.ports import RunOutcome, RunRequest
from bot.core.replies import Button, Message, Reply
from tests.conftest import DEMO_PACK
from tests.fakes import FakeClock
from tests.memory_repo import MemoryRepository

ANN = Actor("discord", "guild-1", "ann", "Ann")
ANN_ELSEWHERE = Actor("discord", "guild-2", "ann", "Ann")
ANN_DM = Actor("discord", "dm", "ann", "Ann")
ADMIN = Actor("discord", "guild-1", "boss", "Boss", is_admin=True)


class ScriptedRunner:
    """A sandbox port that answers with the outcome the test chose."""

    max_code_bytes = 200

    def __init__(self, outcome: RunOutcome) -> None:
        self.outcome = outcome
        self.requests: list[RunRequest] = []

    async def run(self, request: RunRequest) -> RunOutcome:
        self.requests.append(request)
        return self.outcome

    async def close(self) -> None:
        return None


@pytest.fixture
def repo() -> MemoryRepository:
    return MemoryRepository()


@pytest.fixture
def runner() -> ScriptedRunner:
    return ScriptedRunner(RunOutcome(status="passed", tests=(("It works.", True, ""),)))


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def core(repo: MemoryRepository, runner: ScriptedRunner, clock: FakeClock) -> QuizService:
    service = QuizService(repository=repo, runner=runner, clock=clock, rng=random.Random(3))
    await service.import_pack(load_path(DEMO_PACK).pack)
    return service


def feedback(reply: Reply) -> str:
    """What the learner sees about their answer: it is shown in the item's own message."""
    assert reply.update is not None, reply
    return reply.update.text()


def item_of(reply: Reply) -> Message:
    return next(m for m in reply.messages if m.kind == "item")


def by_role(message: Message, role: str, label: str | None = None) -> Button:
    return next(
        c for c in message.controls() if isinstance(c, Button) and c.role == role and (label is None or c.label == label)
    )


async def test_a_chosen_question_starts_a_one_item_quiz(core: QuizService) -> None:
    reply = await core.handle(ANN, rq.Start(pack="demo", question="q-blanks"))
    item = item_of(reply)
    assert item.title == "Question 1 of 1" and "Complete the code so it prints 8." in item.text()
    with pytest.raises(QuizError, match="There is no question `nope`"):
        await core.handle(ANN, rq.Start(pack="demo", question="nope", replace=True))


async def test_start_with_a_quiz_running_offers_resume_then_keeps_the_old_quiz(core: QuizService) -> None:
    await core.handle(ANN, rq.Start(pack="demo", question="q-choice"))
    asked = await core.handle(ANN, rq.Start(pack="demo", question="q-short"))
    prompt = asked.messages[0]
    assert "You have a quiz running: question 1 of 1" in prompt.text()
    resumed = await core.handle(ANN, rq.Act(by_role(prompt, "resume").action))
    assert "Which flag makes PyTorch track" in item_of(resumed).text()
    fresh = await core.handle(ANN, rq.Act(by_role(prompt, "restart").action))
    assert "What does this print?" in item_of(fresh).text()  # the options asked for, not the old quiz's


async def test_a_click_delivered_twice_is_recorded_once(core: QuizService, repo: MemoryRepository) -> None:
    await core.handle(ANN, rq.Start(pack="demo", question="q-short"))
    form = await core.handle(ANN, rq.OpenAnswer())
    assert form.form is not None
    submit = rq.Act(form.form.action, ("five",), key="interaction-1")
    first = await core.handle(ANN, submit)
    assert "Not quite" in feedback(first)
    repeat = await core.handle(ANN, submit)  # the same interaction again: nothing more recorded, nothing shown
    assert repeat.messages == () and repeat.update is None and repeat.form is None
    assert [a.key for a in repo.attempts] == ["interaction-1"]
    again = await core.handle(ANN, rq.Act(form.form.action, ("6",), key="interaction-2"))
    assert "Correct" in feedback(again) and len(repo.attempts) == 2


async def test_code_sent_by_dm_answers_the_newest_quiz_in_any_server(
    core: QuizService, runner: ScriptedRunner, clock: FakeClock
) -> None:
    await core.handle(ANN_ELSEWHERE, rq.Start(pack="demo", question="q-choice"))
    clock.advance(minutes=1)
    await core.handle(ANN, rq.Start(pack="demo", question="q-code"))
    reply = await core.handle(ANN_DM, rq.Submit("```python\ntotal = 55\nprint(total)\n```", code_only=True))
    assert "Correct" in feedback(reply)
    assert runner.requests[-1].code == "total = 55\nprint(total)"
    with pytest.raises(NoActiveQuiz):
        await core.handle(Actor("discord", "dm", "zed"), rq.Submit("```x = 1```", code_only=True))


async def test_a_syntax_error_costs_no_attempt_and_says_the_line_once(core: QuizService, runner: ScriptedRunner) -> None:
    await core.handle(ANN, rq.Start(pack="demo", question="q-code"))
    runner.outcome = RunOutcome(status="error", error_text="SyntaxError: invalid syntax", error_line=2, error_col=7)
    reply = await core.handle(ANN, rq.Submit("```python\ntotal = 1\nprint(total\n```"))
    text = reply.messages[0].text()
    assert text.count("SyntaxError") == 1 and "2 | print(total" in text and "did not count as an attempt" in text
    assert "💡" not in text and reply.update is None
    current = item_of(await core.handle(ANN, rq.Current()))
    assert "3 attempts left" in (current.footer or "")


async def test_code_over_the_sandbox_limit_is_refused_before_it_runs(core: QuizService, runner: ScriptedRunner) -> None:
    await core.handle(ANN, rq.Start(pack="demo", question="q-code"))
    with pytest.raises(BadSubmission, match="the limit is 0 KiB"):
        await core.handle(ANN, rq.Submit("```python\n" + "x = 1\n" * 100 + "```"))
    assert runner.requests == []


async def test_answering_a_button_item_by_form_points_at_current(core: QuizService) -> None:
    await core.handle(ANN, rq.Start(pack="demo", question="q-choice"))
    with pytest.raises(BadSubmission, match="⟦current⟧"):
        await core.handle(ANN, rq.OpenAnswer())


async def test_removing_a_pack_asks_first_and_keeps_history(core: QuizService, repo: MemoryRepository) -> None:
    repo.owners["demo"] = pack_owner(ADMIN)  # loaded from this server: its admin may remove it (not the operator's)
    await core.handle(ANN, rq.Start(pack="demo", question="q-choice"))
    item = item_of(await core.handle(ANN, rq.Current()))
    await core.handle(ANN, rq.Act(by_role(item, "choice", "A").action))
    with pytest.raises(NotAllowed, match="QUIZBOT_ADMINS"):
        await core.handle(ANN, rq.PackRemove("demo"))
    asked = await core.handle(ADMIN, rq.PackRemove("demo"))
    assert "demo" in repo.packs
    confirm = by_role(asked.messages[0], "confirm")
    done = await core.handle(ADMIN, rq.Act(confirm.action))
    assert done.update is not None and not done.messages  # the prompt itself becomes the outcome
    assert "was removed" in done.update.text() and not done.update.rows and "demo" not in repo.packs
    assert len(repo.attempts) == 1  # what Ann answered stays
    with pytest.raises(QuizError, match="removed already"):  # a stale copy of the prompt, pressed again
        await core.handle(ADMIN, rq.Act(confirm.action))
    with pytest.raises(QuizError, match="removed already"):
        await core.handle(ADMIN, rq.Act(by_role(asked.messages[0], "cancel").action))


async def test_admin_commands_in_a_dm_say_where_they_work(core: QuizService) -> None:
    with pytest.raises(NotAllowed, match="not in a direct message"):
        await core.handle(ANN_DM, rq.PackEnable("demo", False))


async def test_summary_names_questions_by_title_or_first_words(core: QuizService) -> None:
    await core.handle(ANN, rq.Start(pack="demo", question="q-short"))
    reply = await core.handle(ANN, rq.Stop())
    summary = reply.messages[-1]
    assert "What does this print?" in summary.text() and "q-short" not in summary.text()
    assert "0 of 1 right" in summary.text() and "0 of 1 point" in summary.text()


async def test_every_request_type_has_a_handler(core: QuizService) -> None:
    kinds = rq.Request.__args__  # type: ignore[attr-defined]
    assert [k for k in kinds if k is not rq.Act and not core.dispatcher.handles(k)] == []  # Act goes by its prefix


async def test_run_shows_an_error_once_with_the_line_and_a_caret(core: QuizService, runner: ScriptedRunner) -> None:
    traceback = 'Traceback (most recent call last):\n  File "user_code.py", line 2\n    1/0\nZeroDivisionError: division by zero\n'
    runner.outcome = RunOutcome(
        status="error",
        stderr=traceback,
        message="ZeroDivisionError at line 2, column 1: division by zero",
        error_text="ZeroDivisionError: division by zero",
        error_line=2,
        error_col=1,
    )
    reply = await core.handle(ANN, rq.RunCode("x = 1\n1/0"))
    text = reply.messages[0].text()
    assert text.count("ZeroDivisionError") == 1 and "Traceback" not in text
    assert "2 | 1/0\n    ^" in text


async def test_an_answered_items_card_leaves_the_session_and_moves_on_in_the_reviews(
    core: QuizService, repo: MemoryRepository, clock: FakeClock
) -> None:
    stored: list[str] = []
    for _ in range(2):  # the second quiz's item starts from the card the first one stored
        before = set(repo.sessions)
        await core.handle(ANN, rq.Start(pack="demo", question="q-choice"))
        (sid,) = set(repo.sessions) - before
        carried = repo.sessions[sid].items[0].card
        item = item_of(await core.handle(ANN, rq.Current()))
        await core.handle(ANN, rq.Act(by_role(item, "choice", "A").action))  # right: the item is done
        assert repo.sessions[sid].items[0].done and repo.sessions[sid].items[0].card is None
        stored.append(repo.cards["discord", "ann", "demo", "q-choice"].card)
        clock.advance(days=3)
    assert carried == stored[0]  # the card the session carried was the stored one, and grading moved it
    assert json.loads(stored[1])["stability"] > json.loads(stored[0])["stability"]
