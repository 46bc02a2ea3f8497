"""Text sent under a channel's daily post (its thread, a reply): found from the platform message, graded as its form."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

import pytest

from bot.core import requests as rq
from bot.core.daily.channel import DailyPost
from bot.core.daily.schedule import Schedule
from bot.core.errors import QuizError
from bot.core.model import Actor
from bot.core.packs import load_path
from bot.storage import SqlRepository
from tests.daily.support import FakePoster, Stores
from tests.daily.wired import Wired, wire
from tests.fakes import SHORT_PACK, FakeClock, LocalRunner

ADMIN = Actor("discord", "g1", "ada", "Ada", is_admin=True, channel_id="c1")
ANN = Actor("discord", "g1", "ann", "Ann", channel_id="c1")
BO = Actor("discord", "g1", "bo", "Bo", channel_id="c1")
T0 = datetime(2026, 6, 1, 7, 0, tzinfo=UTC)

@pytest.fixture
async def wired(repository: SqlRepository, clock: FakeClock, runner: LocalRunner, tmp_path: Path) -> Wired:
    built = await wire(repository, clock, runner, tmp_path)
    typed = tmp_path / "typed.yaml"
    typed.write_text(SHORT_PACK, encoding="utf-8")
    await built.service.import_pack(load_path(typed).pack)
    await built.posters.add("discord", FakePoster())
    return built


async def post_today(wired: Wired, pack: str, channel: str = "c1") -> DailyPost:
    await wired.service.handle(ADMIN, rq.DailySet(time="11:00", timezone="UTC", pack=pack, channel_id=channel))
    await wired.service.handle(ADMIN, rq.DailyNow(channel_id=channel))
    [post] = await wired.scheduler._store.open_posts("discord", channel)
    return post


async def test_the_post_is_found_from_its_platform_message_in_its_own_channel(wired: Wired) -> None:
    post = await post_today(wired, "typed")
    assert wired.service.daily is not None

    async def post_at(platform: str, ref: str, channel: str | None) -> str | None:
        assert wired.service.daily is not None
        found = await wired.service.daily.daily.post_at(platform, ref, channel)
        return found.id if found is not None else None

    assert post.message_ref == "msg-1"  # what FakePoster returned for the message it posted
    assert await post_at("discord", "msg-1", "c1") == post.id
    assert await post_at("discord", "msg-1", None) == post.id  # a thread that only knows its id
    assert await post_at("discord", "msg-1", "c2") is None
    assert await post_at("slack", "msg-1", "c1") is None
    assert await post_at("discord", "msg-2", None) is None
    assert await post_at("discord", "x" * 500, None) is None


async def test_a_short_answer_is_the_code_blocks_content(wired: Wired, runner: LocalRunner) -> None:
    post = await post_today(wired, "typed")
    told: list[str] = []

    async def progress(text: str) -> None:
        told.append(text)

    wrong = await wired.service.handle(ANN, rq.Submit("```\n7\n```", code_only=True, session_id=post.id, progress=progress))
    assert wrong.private and "Not quite. 2 attempts left." in wrong.messages[0].text()
    assert wrong.messages[0].title == f"Daily question · {post.day.isoformat()}"  # says what it is about, in a DM too
    right = await wired.service.handle(ANN, rq.Submit("is it\n```text\n 6 \n```", code_only=True, session_id=post.id))
    assert "Right!" in right.messages[0].text()
    assert told == [] and runner.requests == []  # nothing runs for a short answer: no "running" note
    mine = await wired.daily.member_answer(post.id, ANN.user_id)
    assert mine is not None and (mine.attempts, mine.done, mine.correct) == (2, True, True)
    with pytest.raises(QuizError, match="already answered"):
        await wired.service.handle(ANN, rq.Submit("```6```", code_only=True, session_id=post.id))
    with pytest.raises(QuizError, match="marked `js`"):
        await wired.service.handle(BO, rq.Submit("```js\n6\n```", code_only=True, session_id=post.id))
    assert await wired.daily.member_answer(post.id, BO.user_id) is None  # a refused block is no attempt


async def test_a_block_under_a_choice_or_a_closed_post_gets_the_forms_note(wired: Wired, clock: FakeClock) -> None:
    choice = await post_today(wired, "study")
    with pytest.raises(QuizError, match=r"^This question is answered with its buttons or menus\.$"):
        await wired.service.handle(ANN, rq.Submit("```python\nx = 1\n```", code_only=True, session_id=choice.id))
    clock.advance(days=1, hours=3)  # past the next day's 11:00, when this one closes
    with pytest.raises(QuizError, match=r"This question closed\. The answer: `requires_grad=True`"):
        await wired.service.handle(ANN, rq.Submit("```python\nx = 1\n```", code_only=True, session_id=choice.id))
    assert await wired.daily.member_answer(choice.id, ANN.user_id) is None


async def test_post_at_finds_posted_posts_only_on_both_databases(stores: Stores) -> None:
    d = stores.daily
    schedule = Schedule(
        platform="slack", scope="T1", channel_id="C1", at=time(9, 0), zone="UTC", packs=("demo",), set_by="admin",
        last_day=date(2026, 5, 31), next_at=T0,
    )
    await d.save_schedule(schedule)
    post = DailyPost("p1", "slack", "T1", "C1", date(2026, 6, 1), "demo", "q-choice", T0, T0 + timedelta(hours=6))
    await d.claim_post(schedule, post, cycle=0, next_at=T0)
    assert await d.post_at("slack", "1700000000.000100", "C1") is None  # claimed, not posted yet
    await d.mark_post("p1", status="posted", message_ref="1700000000.000100")
    found = await d.post_at("slack", "1700000000.000100", "C1")
    assert found is not None and found.id == "p1"
    assert await d.post_at("slack", "1700000000.000100", "C2") is None  # Slack's ts is unique per channel only
    assert await d.post_at("discord", "1700000000.000100") is None


async def test_a_delivery_counted_once_even_when_it_arrives_twice(wired: Wired) -> None:
    """The same platform delivery (same key) read again, as by a second process, uses no attempt."""
    post = await post_today(wired, "typed")
    first = await wired.service.handle(ANN, rq.Submit("```\n7\n```", code_only=True, session_id=post.id, key="m-1"))
    assert "2 attempts left" in first.messages[0].text()
    with pytest.raises(QuizError, match="already counted"):
        await wired.service.handle(ANN, rq.Submit("```\n7\n```", code_only=True, session_id=post.id, key="m-1"))
    mine = await wired.daily.member_answer(post.id, ANN.user_id)
    assert mine is not None and mine.attempts == 1
    right = await wired.service.handle(ANN, rq.Submit("```\n6\n```", code_only=True, session_id=post.id, key="m-2"))
    assert "Right!" in right.messages[0].text()
    with pytest.raises(QuizError, match="already answered"):
        await wired.service.handle(ANN, rq.Submit("```\n6\n```", code_only=True, session_id=post.id, key="m-2"))
