"""Daily practice through the quiz service's one entry: typed commands, the review as a quiz, leeches, menus on a post."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from bot.core import QuizService
from bot.core import commands as cm
from bot.core import requests as rq
from bot.core.daily import actions as dx
from bot.core.daily.cards import LEECH_FAILURES
from bot.core.errors import QuizError
from bot.core.model import Actor
from bot.core.packs import load_path
from bot.core.replies import Button, Message, Reply
from bot.storage import SqlRepository
from tests.daily.support import FakePoster, add_cards
from tests.daily.wired import Wired, wire
from tests.fakes import SHORT_PACK, FakeClock, LocalRunner

ADMIN = Actor("discord", "g1", "ada", "Ada", is_admin=True, channel_id="c1")
ANN = Actor("discord", "g1", "ann", "Ann", channel_id="c1")
BO = Actor("discord", "g1", "bo", "Bo", channel_id="c1")

MENUS_PACK = """\
pack: menus
title: Menus
version: 1
questions:
  - id: pick-all
    type: choice
    multiple: true
    shuffle: false
    prompt: Which are tensors' dtypes?
    choices:
      - {text: "`float32`", correct: true}
      - {text: "`int64`", correct: true}
      - {text: "`text`"}
"""

@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("daily", rq.DailyReview()),
        ("review", rq.DailyReview()),
        (
            "daily set <#C0STUDY|study> time:09:00 tz:Europe/Berlin demo basics reveal:8",
            rq.DailySet(time="09:00", timezone="Europe/Berlin", channel_id="C0STUDY", pack="demo", topic="basics", reveal_after_hours="8"),
        ),
        ("daily set time:9:05 timezone:UTC", rq.DailySet(time="9:05", timezone="UTC")),
        ("daily show", rq.DailyShow()),
        ("daily off channel:<#123456789>", rq.DailyOff("123456789")),
        ("daily now", rq.DailyNow()),
        ("daily settings", rq.DailySettings()),
        ("daily settings reviews:30 new:3 timezone:Asia/Tokyo packs:demo,study", rq.DailySettings(30, 3, "Asia/Tokyo", ("demo", "study"))),
        ("remind time:08:00 timezone:Europe/Berlin", rq.Remind("08:00", "Europe/Berlin")),
        ("remind 08:00 Europe/Berlin", rq.Remind("08:00", "Europe/Berlin")),
        ("remind off", rq.RemindOff()),
    ],
)
def test_typed_daily_commands(text: str, expected: rq.Request) -> None:
    assert cm.parse(text) == expected


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("daily later", "is not part of"),
        ("daily set time:09:00", "needs `timezone:`"),
        ("daily set time:09:00 timezone:UTC colour:red", "`colour` is not an option"),
        ("daily set channel:#study time:09:00 timezone:UTC", "as a mention"),
        ("daily settings reviews:lots", "must be a whole number"),
        ("daily show extra", "takes at most a channel"),
        ("remind", "time:08:00 timezone:Europe/Berlin"),
        ("review now", "takes no arguments"),
    ],
)
def test_typed_daily_commands_that_are_wrong_say_what_to_write(text: str, problem: str) -> None:
    parsed = cm.parse(text)
    assert isinstance(parsed, cm.Usage) and problem in parsed.problem


@pytest.fixture
def db_url(any_url: str) -> str:
    """Both databases: on PostgreSQL a review's answer is one statement with its day's count and failures."""
    return any_url


@pytest.fixture
async def wired(repository: SqlRepository, clock: FakeClock, runner: LocalRunner, tmp_path: Path) -> Wired:
    built = await wire(repository, clock, runner, tmp_path)
    menus = tmp_path / "menus.yaml"
    menus.write_text(MENUS_PACK, encoding="utf-8")
    await built.service.import_pack(load_path(menus).pack)
    typed = tmp_path / "typed.yaml"
    typed.write_text(SHORT_PACK, encoding="utf-8")
    await built.service.import_pack(load_path(typed).pack)
    return built


def buttons(reply: Reply) -> list[Button]:
    return [c for m in reply.messages for c in m.controls() if isinstance(c, Button)]


def item_of(reply: Reply) -> Message:
    return next(m for m in reply.messages if m.kind == "item")


async def test_the_review_is_a_quiz_of_the_due_cards_then_new_items(wired: Wired, repository: SqlRepository, clock: FakeClock) -> None:
    service = wired.service
    nothing = await service.handle(ANN, rq.DailyReview())
    assert "Nothing is due for today" in nothing.messages[0].text()
    await add_cards(repository, "discord", "ann", ["q-choice"], clock.now() - timedelta(hours=2))
    await service.handle(ANN, rq.DailySettings(new=1))
    reply = await service.handle(ANN, rq.DailyReview())
    assert reply.private and reply.messages[0].text() == "1 review and 1 new item today, about 1 minute."
    first = item_of(reply)
    assert first.title == "Question 1 of 2" and "Which flag makes PyTorch track" in first.text()
    right = next(b for b in first.controls() if isinstance(b, Button) and b.text == "`requires_grad=True`")
    after = await service.handle(ANN, rq.Act(right.action))
    assert after.update is not None and "Correct" in after.update.text() and item_of(after).title == "Question 2 of 2"
    learner = await wired.daily.learner(ANN)
    assert learner.streak.current == 1
    stats = await service.handle(ANN, rq.Stats())
    daily = stats.messages[-1]
    assert daily.title == "Daily practice" and ("Due today", "0") in daily.parts[0].items  # type: ignore[union-attr]


async def test_a_card_failed_eight_times_leaves_the_review_until_reset(wired: Wired, repository: SqlRepository, clock: FakeClock) -> None:
    service = wired.service
    await add_cards(repository, "discord", "ann", ["q-choice"], clock.now() - timedelta(hours=2))
    store = wired.scheduler._store
    await store.save_card_failures("discord", "ann", ("demo", "q-choice"), LEECH_FAILURES - 1, False)
    await service.handle(ANN, rq.DailySettings(new=0))
    first = item_of(await service.handle(ANN, rq.DailyReview()))
    wrong = next(b for b in first.controls() if isinstance(b, Button) and b.text == "`track=True`")
    failed = await service.handle(ANN, rq.Act(wrong.action))
    leech = failed.messages[-1]
    assert leech.title == "Leech" and "failed 8 times" in leech.text()
    [reset] = buttons(Reply(messages=(leech,)))
    assert reset.action == dx.make(dx.RESET_LEECH, "demo/q-choice")

    clock.advance(days=3)  # due again, but a leech is not in the review
    assert "Nothing is due" in (await service.handle(ANN, rq.DailyReview())).messages[0].text()
    stats = (await service.handle(ANN, rq.Stats())).messages[-1]
    assert "`demo/q-choice`" in stats.text() and [b.action for b in buttons(Reply(messages=(stats,)))] == [reset.action]
    done = await service.handle(ANN, rq.Act(reset.action))
    assert "back in your daily review" in done.messages[0].text()
    back = await service.handle(ANN, rq.DailyReview())
    assert item_of(back).title == "Question 1 of 1"
    with pytest.raises(QuizError):
        await service.handle(ANN, rq.Act("dy:unleech:nonsense"))


async def test_select_all_on_a_post_is_picked_per_member_then_checked(wired: Wired, clock: FakeClock) -> None:
    service = wired.service
    poster = FakePoster()
    await wired.posters.add("discord", poster)
    await service.handle(ADMIN, rq.DailySet(time="11:00", timezone="UTC", pack="menus"))
    posted = await service.handle(ADMIN, rq.DailyNow())
    assert "Today's question is posted." in posted.messages[0].text()
    [post] = await wired.scheduler._store.open_posts("discord", "c1")
    [(_, channel, shown)] = poster.of("post")
    assert channel == "c1" and shown.title is not None and shown.title.startswith("Daily question")
    assert service.daily is not None and await service.daily.owns(post.id) and not await service.daily.owns("nope")
    assert {c.action for c in shown.controls()} >= {f"dp:{post.id}:0:m", f"dp:{post.id}:0:k"}
    menu = f"qz:{post.id}:0:m"  # as a post made before daily posts had their own prefix: they keep working
    check = f"qz:{post.id}:0:k"
    # Ann picks A and C, then changes her mind to A and B; Bo's picks are his own.
    assert (await service.handle(ANN, rq.Act(menu, ("0", "2")))).messages == ()
    await service.handle(BO, rq.Act(menu, ("2",)))
    await service.handle(ANN, rq.Act(menu, ("0", "1")))
    ann = await service.handle(ANN, rq.Act(check))
    assert ann.private and "Right!" in ann.messages[0].text()
    bo = await service.handle(BO, rq.Act(check))
    assert bo.private and "last attempt" in bo.messages[0].text()
    with pytest.raises(QuizError, match="has no Skip or Stop"):
        await service.handle(ANN, rq.Act(f"qz:{post.id}:0:s"))
    progress = await service.handle(ANN, rq.Stats())
    assert "1** attempt ·" in progress.messages[0].text()
    assert (await service.handle(ADMIN, rq.DailyNow())).messages[0].text() == "Today's question was already posted in this channel."
    clock.advance(days=1, hours=3)  # past 11:00 the next day, when the next question goes up
    with pytest.raises(QuizError, match=r"This question closed\. The answer: "):
        await service.handle(BO, rq.Act(check))


async def test_daily_set_needs_a_channel_and_the_terminal_has_none(wired: Wired) -> None:
    nowhere = Actor("console", "local", "you", "you", is_admin=True)
    with pytest.raises(QuizError, match="Name the channel"):
        await wired.service.handle(nowhere, rq.DailySet(time="09:00", timezone="UTC"))


async def test_a_short_answer_on_a_post_goes_through_the_answer_form(wired: Wired) -> None:
    service = wired.service
    await wired.posters.add("discord", FakePoster())
    await service.handle(ADMIN, rq.DailySet(time="11:00", timezone="UTC", pack="typed"))
    await service.handle(ADMIN, rq.DailyNow())
    [post] = await wired.scheduler._store.open_posts("discord", "c1")
    opened = await service.handle(ANN, rq.Act(f"qz:{post.id}:0:a"))
    assert opened.form is not None and opened.form.action.startswith(f"dp:{post.id}:0:")
    wrong = await service.handle(ANN, rq.Act(opened.form.action, ("7",)))
    assert wrong.private and "2 attempts left" in wrong.messages[0].text()
    right = await service.handle(ANN, rq.Act(opened.form.action, ("6",)))
    assert "Right!" in right.messages[0].text()
    hint = await service.handle(BO, rq.Act(f"qz:{post.id}:0:h"))
    assert hint.private and "There is no hint" in hint.messages[0].text()


async def test_a_service_without_daily_practice_says_so(repository: SqlRepository, clock: FakeClock) -> None:
    plain = QuizService(repository=repository, runner=None, clock=clock)
    with pytest.raises(QuizError, match="not set up"):
        await plain.handle(ANN, rq.DailyReview())
    with pytest.raises(QuizError, match="has expired"):
        await plain.handle(ANN, rq.Act("qz:S4vlELzOSEW3:0:c:0"))  # no quiz and no daily post: an old click
