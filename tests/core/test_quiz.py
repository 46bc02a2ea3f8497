"""The quiz rules, through QuizService over a real SQLite file."""

from __future__ import annotations

import random

import pytest

from bot.core import (
    Actor,
    NoActiveQuiz,
    NotYourQuiz,
    PackRefused,
    QuizError,
    QuizExpired,
    QuizService,
    StaleAction,
    UnknownName,
    error_reply,
)
from bot.core import actions as ax
from bot.core.packs import load_path
from bot.core.replies import Button, Message, Reply, Select
from bot.storage import SqlRepository, open_repository
from tests.conftest import DEMO_PACK
from tests.fakes import FakeClock, LocalRunner

ANN = Actor("console", "local", "ann", "Ann")
BOB = Actor("console", "local", "bob", "Bob")


def feedback(reply: Reply) -> str:
    """What the learner sees about their answer: it is shown in the item's own message."""
    assert reply.update is not None, reply
    return reply.update.text()


def item_of(reply: Reply) -> Message:
    items = [m for m in reply.messages if m.kind == "item"]
    assert items, [m.kind for m in reply.messages]
    return items[-1]


def button(message: Message, label: str) -> Button:
    return next(c for c in message.controls() if isinstance(c, Button) and c.label == label)


async def start_on(service: QuizService, qid: str, actor: Actor = ANN) -> Message:
    """Start a one-item quiz on question `qid` of the demo pack."""
    return item_of(await service.start(actor, pack="demo", question=qid))


async def test_choice_right_answer_explains_and_finishes(service: QuizService) -> None:
    item = await start_on(service, "q-choice")
    assert item.title == "Question 1 of 1"
    reply = await service.act(ANN, button(item, "A").action)
    assert "Correct" in feedback(reply) and "records operations for autograd" in feedback(reply)
    assert reply.update is not None and all(c.disabled for c in reply.update.controls())
    assert "✅" in reply.update.text()
    summary = reply.messages[-1]
    assert summary.kind == "summary" and "1 of 1 right" in summary.text()


async def test_wrong_choice_shows_its_feedback_and_the_answer(service: QuizService) -> None:
    item = await start_on(service, "q-choice")
    reply = await service.act(ANN, button(item, "B").action)
    text = feedback(reply)
    assert "Not quite" in text and "There is no `track` argument." in text
    assert "The answer: `requires_grad=True`" in text
    assert reply.update is not None
    styles = {c.label: c.style for c in reply.update.controls() if isinstance(c, Button)}
    assert styles == {"A": "success", "B": "danger"}


async def test_short_answer_gets_hint_then_explanation_after_last_attempt(service: QuizService) -> None:
    item = await start_on(service, "q-short")
    form = await service.act(ANN, button(item, "Answer").action)
    assert form.form is not None and form.form.kind == "short"
    first = await service.act(ANN, form.form.action, ["five"])
    assert "Add the numbers." in feedback(first) and "2 attempts left" in feedback(first)
    second = await service.act(ANN, form.form.action, ["  7 "])
    assert "1 attempt left" in feedback(second)
    third = await service.act(ANN, form.form.action, ["8"])
    text = feedback(third)
    assert "The answer: `6`" in text and "2 + 4 is 6." in text
    assert third.messages[-1].kind == "summary"


@pytest.mark.parametrize("answer", ["6", " 6 ", "6.0", "6e0"])
async def test_short_answer_accepts_text_and_numbers(service: QuizService, answer: str) -> None:
    await start_on(service, "q-short")
    reply = await service.submit_text(ANN, answer)
    assert "Correct" in feedback(reply)


async def test_blanks_keep_selections_and_grade_each_blank(service: QuizService) -> None:
    item = await start_on(service, "q-blanks")
    menus = [c for c in item.controls() if isinstance(c, Select)]
    assert [m.placeholder for m in menus] == ["Blank 1", "Blank 2"]
    with pytest.raises(QuizError, match=r"\[1\], \[2\] still empty"):
        await service.act(ANN, button(item, "Check").action)
    options = [o.label for o in menus[0].options]
    await service.act(ANN, menus[0].action, [str(options.index("A. 4"))])
    update = (await service.act(ANN, menus[1].action, [str(options.index("B. 2"))])).update
    assert update is not None and "[1: 4]" in update.text() and "[2: 2]" in update.text()
    wrong = await service.act(ANN, button(item, "Check").action)
    assert "[1] ✅ · [2] ❌" in feedback(wrong)
    await service.act(ANN, menus[1].action, [str(options.index("C. print"))])
    right = await service.act(ANN, button(item, "Check").action)
    assert "Correct" in feedback(right)


async def test_select_all_that_apply(service: QuizService) -> None:
    item = await start_on(service, "q-multi")
    menu = next(c for c in item.controls() if isinstance(c, Select))
    assert menu.max_values == 3
    await service.act(ANN, menu.action, ["0"])
    partial = await service.act(ANN, button(item, "Check").action)
    assert "Not quite" in feedback(partial)
    assert "The answer: `1`; `2.5`" in feedback(partial)
    assert partial.messages[-1].kind == "summary"  # one attempt by default for choice items


async def test_code_item_graded_by_its_tests(service: QuizService, runner: LocalRunner) -> None:
    await start_on(service, "q-code")
    failed = await service.submit_text(ANN, "```python\ntotal = 50\nprint(total)\n```")
    text = feedback(failed)
    assert "0 of 2 tests passed" in text and "❌ `total` must be 55." in text and "Print `total`." in text
    passed = await service.submit_text(ANN, "```py\ntotal = sum(range(1, 11))\nprint(total)\n```")
    assert "2 of 2 tests passed" in feedback(passed)
    assert runner.requests[-1].owner == "console:ann"


async def test_code_block_in_another_language_is_refused(service: QuizService) -> None:
    await start_on(service, "q-code")
    with pytest.raises(QuizError, match="marked `js`"):
        await service.submit_text(ANN, "```js\nlet total = 55\n```")


async def test_unknown_names_list_what_exists(service: QuizService) -> None:
    with pytest.raises(UnknownName, match=r"no pack `nope`. Available: `demo`"):
        await service.start(ANN, pack="nope")
    with pytest.raises(UnknownName, match=r"no topic `grads`. Available: `basics`"):
        await service.start(ANN, topic="grads")
    with pytest.raises(UnknownName, match=r"`easy`, `medium`, `hard`"):
        await service.start(ANN, difficulty="brutal")
    with pytest.raises(QuizError, match="between 1 and 50"):
        await service.start(ANN, count=0)
    assert await service.active_session(ANN) is None


async def test_unseen_and_wrong_items_come_first(service: QuizService) -> None:
    item = await start_on(service, "q-choice")
    await service.act(ANN, button(item, "A").action)  # right: goes to the back of the queue
    await start_on(service, "q-short")
    await service.submit_text(ANN, "7")
    await service.submit_text(ANN, "7")
    await service.submit_text(ANN, "7")  # wrong three times: comes first after the unseen ones
    await service.start(ANN, pack="demo", count=4)
    session = await service.active_session(ANN)
    assert session is not None
    order = [i.question for i in session.items]
    assert "q-choice" not in order
    assert order[-1] == "q-short" and set(order[:3]) == {"q-blanks", "q-multi", "q-code"}


async def test_strangers_and_stale_clicks(service: QuizService, repository: SqlRepository, runner: LocalRunner, clock: FakeClock) -> None:
    item = await start_on(service, "q-choice")
    with pytest.raises(NotYourQuiz, match="belongs to Ann"):
        await service.act(BOB, button(item, "A").action)
    answered = await service.act(ANN, button(item, "A").action)
    # A second click on the answered item (a quick double click): the answer as it was stored, not a
    # bare refusal; what followed (the summary) was handed over with the first reply, so not again.
    again = await service.act(ANN, button(item, "B").action)
    assert again.update is not None and answered.update is not None
    assert again.update.text() == answered.update.text()  # "Correct!" and the explanation, as first shown
    assert all(getattr(c, "disabled", False) for c in again.update.controls())
    assert [m.kind for m in answered.messages] == ["summary"] and again.messages == ()
    # In another process at once, the first reply may still be on its way there: the grade in place only.
    other = QuizService(repository=repository, runner=runner, clock=clock)
    racing = await other.act(ANN, button(item, "B").action)
    assert racing.update is not None and racing.update.text() == answered.update.text() and racing.messages == ()
    # Later, in a process that did not hand the first reply over (it died with the one that did): the summary too.
    clock.advance(seconds=20)
    lost = await other.act(ANN, button(item, "B").action)
    assert [m.kind for m in lost.messages] == ["summary"] and "1 of 1 right" in lost.messages[0].text()


async def test_stale_position(service: QuizService, repository: SqlRepository, runner: LocalRunner, clock: FakeClock) -> None:
    reply = await service.start(ANN, pack="demo", count=3)
    first = item_of(reply)
    await service.skip(ANN)
    any_control = first.controls()[0]
    again = await service.act(ANN, any_control.action, ["0"])  # the skipped item: how it ended; the current one was shown
    assert again.update is not None and "Skipped." in again.update.text()
    assert again.messages == ()
    clock.advance(seconds=20)
    lost = await QuizService(repository=repository, runner=runner, clock=clock).act(ANN, any_control.action, ["0"])  # after a restart: the current one again
    assert [m.title for m in lost.messages] == ["Question 2 of 3"]
    ahead = ax.make(first.session_id or "", 2, ax.HINT)  # an item not reached yet
    with pytest.raises(StaleAction):
        await service.act(ANN, ahead)


async def test_expired_quiz_says_so(service: QuizService, clock: FakeClock) -> None:
    item = await start_on(service, "q-choice")
    clock.advance(hours=25)
    with pytest.raises(QuizExpired, match="has expired") as caught:
        await service.act(ANN, button(item, "A").action)
    offer = error_reply(caught.value).messages[0]
    again = await service.act(ANN, button(offer, "New quiz").action)
    assert item_of(again).title == "Question 1 of 1"
    await service.stop(ANN)
    with pytest.raises(NoActiveQuiz):
        await service.hint(ANN)


async def test_stop_gives_a_summary_and_new_quiz_button(service: QuizService) -> None:
    await service.start(ANN, pack="demo", count=3)
    reply = await service.stop(ANN)
    summary = reply.messages[-1]
    assert summary.title == "Quiz stopped" and "0 of 3 right" in summary.text()
    restart = button(summary, "New quiz")
    assert ax.parse(restart.action).verb == ax.RESTART  # type: ignore[union-attr]
    again = await service.act(ANN, restart.action)
    assert item_of(again).title == "Question 1 of 3"


async def test_hint_command(service: QuizService) -> None:
    await start_on(service, "q-short")
    reply = await service.hint(ANN)
    assert "Add the numbers." in reply.messages[0].text()


async def test_starting_again_stops_the_previous_quiz(service: QuizService) -> None:
    await service.start(ANN, pack="demo", count=2)
    first = await service.active_session(ANN)
    reply = await service.start(ANN, pack="demo", count=2)
    assert "previous quiz was stopped" in reply.messages[0].text()
    assert (await service.session(first.id)).status == "stopped"  # type: ignore[union-attr]


async def test_stats_show_attempts_topics_and_streak(service: QuizService, clock: FakeClock) -> None:
    item = await start_on(service, "q-choice")
    await service.act(ANN, button(item, "A").action)
    clock.advance(days=1)
    await start_on(service, "q-short")
    await service.submit_text(ANN, "five")
    stats = (await service.stats(ANN)).messages[0]
    text = stats.text()
    assert "**2** attempts" in text and "**50%** right" in text and "streak **2** days" in text
    assert "demo · Basics: 1/2 (50%)" in text
    assert "Due for review" in text


async def test_stats_last_practice_is_the_practice_day_not_the_utc_date(service: QuizService, clock: FakeClock) -> None:
    """An answer at 01:59 UTC counts for the day before (days roll over at 04:00): stats say that day."""
    from datetime import UTC, date, datetime

    from bot.core import i18n

    clock.current = datetime(2026, 12, 7, 1, 59, tzinfo=UTC)
    item = await start_on(service, "q-choice")
    await service.act(ANN, button(item, "A").action)
    text = (await service.stats(ANN)).messages[0].text()
    assert f"last practice {i18n.day(date(2026, 12, 6))}" in text, text
    assert i18n.day(date(2026, 12, 7)) not in text, text


async def test_pack_update_keeps_progress_and_refuses_old_versions(service: QuizService) -> None:
    item = await start_on(service, "q-choice")
    await service.act(ANN, button(item, "A").action)
    pack = load_path(DEMO_PACK).pack
    with pytest.raises(PackRefused, match="already at version 1"):
        await service.import_pack(pack)
    trimmed = pack.model_copy(update={"version": 2, "questions": pack.questions[:2]})
    report = await service.import_pack(trimmed)
    assert report.previous_version == 1 and set(report.removed) == {"q-short", "q-multi", "q-code"}
    text = (await service.stats(ANN)).messages[0].text()
    assert "**1** attempt ·" in text


async def test_restart_mid_quiz_loses_nothing(db_url: str, clock: FakeClock) -> None:
    repo = await open_repository(db_url)
    service = QuizService(repository=repo, runner=LocalRunner(), clock=clock, rng=random.Random(3))
    await service.import_pack(load_path(DEMO_PACK).pack)
    reply = await service.start(ANN, pack="demo", count=5)
    session = await service.active_session(ANN)
    assert session is not None
    first_item = item_of(reply)
    await service.hint(ANN)
    await service.skip(ANN)
    await repo.close()

    clock.advance(seconds=30)  # the restart
    repo2 = await open_repository(db_url)
    service2 = QuizService(repository=repo2, runner=LocalRunner(), clock=clock)
    resumed = await service2.current(ANN)
    again = await service2.active_session(ANN)
    assert again is not None and again.id == session.id and again.position == 1
    assert again.items[0].skipped and again.items[0].hinted
    assert item_of(resumed).title == "Question 2 of 5"
    # the first item's buttons still answer: how it ended (skipped), then the current item
    old = await service2.act(ANN, first_item.controls()[0].action, ["0"])
    assert old.update is not None and "Skipped." in old.update.text()
    assert [m.title for m in old.messages] == ["Question 2 of 5"]
    await repo2.close()


async def test_only_admins_load_packs(service: QuizService) -> None:
    with pytest.raises(QuizError, match="Only admins may load packs"):
        await service.load_pack(ANN, "x.yaml", b"pack: x")
    root = Actor("console", "local", "root")
    reply = await service.set_enabled(root, "demo", False)
    assert "disabled" in reply.messages[0].text()
    with pytest.raises(QuizError, match="No packs are enabled here"):
        await service.start(ANN)
