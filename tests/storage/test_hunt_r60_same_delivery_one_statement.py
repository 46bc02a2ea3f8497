"""Two processes grade one delivery (a Slack retry reached the other); the second to store is refused quietly.

The first to store settles every row of unfinished work for the item, the other process's included.
The other's save then finds its row gone. In a transaction that is "already recorded" (the attempt's
key is stored: checked first); in PostgreSQL's one statement it was "the row was taken", which the
learner reads as "This grade came after you were told the bot restarted ... send it again" beside
the grade the first process showed: a false note, seen in a full suite run.
"""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from bot.core.answer import AnswerWrite, PracticeDay
from bot.core.model import Session
from bot.core.ports import Conflict, WorkTaken
from bot.storage import open_repository
from tests.storage import clicks
from tests.storage.test_unfinished_work import AT, work


async def test_the_second_store_of_one_delivery_is_already_recorded_not_a_late_grade(pg_url: str) -> None:
    first, second = await open_repository(pg_url), await open_repository(pg_url, migrate=False)
    try:
        await first.create_session(clicks.new_session("s1", "ann", 3))
        await second.work.begin(work(1, user="ann", item="s1:0", process="second"))  # it holds the item's row
        read = await second.get_session("s1")
        assert read is not None
        by_second = copy.deepcopy(read)  # read before the first stored: both grade the same delivery

        def unit(session: Session, work_id: str | None) -> AnswerWrite:
            s = copy.deepcopy(session)
            answered = replace(clicks.attempt(s, "k1"), work=work_id)
            return AnswerWrite(session=s, attempt=answered, card=clicks.card(s), day=PracticeDay("discord", "ann", AT), settles="s1:0")

        await first.write_answer(unit(read, None))  # untracked here: it settles the second's row
        assert await first.work.all() == []
        with pytest.raises(Conflict) as refused:
            await second.write_answer(unit(by_second, "w1"))
        assert not isinstance(refused.value, WorkTaken), refused.value
    finally:
        await first.close()
        await second.close()
