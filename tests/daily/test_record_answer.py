"""A scored daily channel answer is stored like a quiz answer: an attempt and the review card (both databases)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.core.answer import AnswerWrite
from bot.core.model import Attempt
from bot.core.review import Review, review
from tests.daily.support import Stores

AT = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


def attempt(correct: bool, at: datetime) -> Attempt:
    return Attempt(
        platform="discord", scope="g1", user_id="u1", pack="demo", question="q-choice", topic="basics",
        answer="A. `requires_grad=True`" if correct else "B. `track=True`", correct=correct,
        points=1 if correct else 0, at=at, session_id=None,
    )


async def test_an_answer_outside_a_session_counts_in_progress_and_review(stores: Stores) -> None:
    repo = stores.repo
    card, due = review(None, correct=False, hinted=False, at=AT)
    await repo.write_answer(AnswerWrite(attempt=attempt(False, AT), card=Review("discord", "u1", "demo", "q-choice", card, due, False)))
    history = await repo.history("discord", "u1", ["demo"])
    seen = history[("demo", "q-choice")]
    assert seen.attempts == 1 and not seen.last_correct and seen.card == card and seen.due == due
    stats = await repo.user_stats("discord", "u1", AT + timedelta(days=1))
    assert (stats.attempts, stats.correct, stats.due) == (1, 0, 1)  # wrong: due again well within a day

    # A second answer the next day moves the same card on (one row per learner and question).
    later = AT + timedelta(days=1)
    card2, due2 = review(card, correct=True, hinted=False, at=later)
    await repo.write_answer(AnswerWrite(attempt=attempt(True, later), card=Review("discord", "u1", "demo", "q-choice", card2, due2, True)))
    seen = (await repo.history("discord", "u1", ["demo"]))[("demo", "q-choice")]
    assert seen.attempts == 2 and seen.last_correct and seen.card == card2 and seen.due == due2 > later
    cards = await stores.daily.cards("discord", "u1")
    assert cards == [("demo", "q-choice", card2)]
    assert await repo.history("discord", "someone-else", ["demo"]) == {}
