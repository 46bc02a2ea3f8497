"""Issue 20, defect 3: a second process taking over the same delivery never replaces the first one's work row."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.core.work import GRADE, Work
from tests.daily.support import Stores

NOW = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


def work(process: str, *, started: datetime = NOW) -> Work:
    return Work(
        id=f"{process}-row", platform="slack", user_id="u1", item="s1:0", kind=GRADE, title="Q",
        process=process, started_at=started, deadline=started + timedelta(seconds=30),
    )


async def test_another_process_live_row_is_kept_and_the_second_begin_says_so(stores: Stores) -> None:
    log = stores.repo.work
    assert await log.begin(work("a")) is True
    # The same delivery reached process b (a Slack retry): its begin must not take a's row away,
    # or a's answer (stored with a's row) would be refused as "the bot restarted".
    assert await log.begin(work("b")) is False
    assert [w.id for w in await log.all()] == ["a-row"]
    # The same process answering the item again replaces its own row; an overdue row may be replaced.
    assert await log.begin(work("a")) is True
    late = NOW + timedelta(minutes=5)
    assert await log.begin(work("b", started=late)) is True
    assert [w.process for w in await log.all()] == ["b"]
