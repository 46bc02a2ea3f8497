"""RaceService over a real SQLite database and a fake clock: what each step shows and stores."""

from __future__ import annotations

import asyncio

import pytest

from bot.core import Actor, QuizError, QuizService
from bot.core.packs import BlanksQuestion, ChoiceQuestion, ShortQuestion
from bot.core.race import (
    AlreadyAnswered,
    BadRaceOption,
    NotEnoughItems,
    NotRaceStarter,
    Race,
    RaceRunning,
    RaceService,
    RoundClosed,
    is_race_action,
)
from bot.core.race import actions as rx
from bot.core.replies import Button, Fields, Select
from bot.storage import SqlRepository, open_repository
from bot.storage.social import SocialStore
from tests.fakes import FakeClock

from .conftest import Posts
from .helpers import blanks_pack, member, race_pack

ANN, BOB, CAT = member("Ann"), member("Bob"), member("Cat")


async def current(store: SocialStore) -> Race:
    race = await store.running_race("discord", "guild-1", "chan-1")
    assert race is not None
    return race


async def answer(races: RaceService, repo: SqlRepository, actor: Actor, race: Race, *, right: bool = True) -> str:
    """Answer the race's current round the way a member would with the controls; return the ack text."""
    item = race.items[race.round]
    pack = await repo.get_pack(item.pack)
    assert pack is not None
    question = pack.question(item.question)
    index = race.round
    if isinstance(question, ChoiceQuestion) and question.multiple:
        reply = await races.act(actor, rx.make(race.id, index, rx.MULTI), ["0", "1"] if right else ["2"])
    elif isinstance(question, ChoiceQuestion):
        reply = await races.act(actor, rx.make(race.id, index, rx.CHOOSE, 0 if right else 1))
    elif isinstance(question, BlanksQuestion):
        await races.act(actor, rx.make(race.id, index, rx.BLANK, 1), ["0"])
        await races.act(actor, rx.make(race.id, index, rx.BLANK, 2), ["1" if right else "2"])
        reply = await races.act(actor, rx.make(race.id, index, rx.CHECK))
    else:
        assert isinstance(question, ShortQuestion)
        form = await races.act(actor, rx.make(race.id, index, rx.ANSWER))
        assert form.form is not None and form.form.kind == "short"
        reply = await races.act(actor, form.form.action, ["6" if right else "7"])
    assert reply.private
    return reply.messages[0].text()


async def test_start_posts_the_first_round_publicly_with_working_controls(races: RaceService) -> None:
    reply = await races.start(ANN, rounds=3, seconds=20)
    assert not reply.private
    intro, first = reply.messages
    assert "3 rounds" in intro.text() and "20 s" in intro.text()
    assert first.title == "Race · round 1 of 3"
    actions = [c.action for c in first.controls()]
    assert actions and all(is_race_action(a) for a in actions)
    assert actions[-1].endswith(":x")  # stop


async def test_one_race_per_channel(races: RaceService) -> None:
    await races.start(ANN, rounds=3)
    with pytest.raises(RaceRunning, match="already running in this channel"):
        await races.start(BOB, rounds=3)
    other = await races.start(member("Bob", channel="chan-2"), rounds=3)
    assert other.messages


async def test_bad_options_and_small_packs_say_what_is_allowed(races: RaceService) -> None:
    with pytest.raises(BadRaceOption, match="between 3 and 20"):
        await races.start(ANN, rounds=25)
    with pytest.raises(BadRaceOption, match="between 10 and 120"):
        await races.start(ANN, seconds=5)
    # 6 choice + 1 select-all + 1 blanks + 1 short; the code item is left out
    with pytest.raises(NotEnoughItems, match="has 9 items a race can use") as caught:
        await races.start(ANN, pack="race-pack", rounds=12)
    assert caught.value.have == 9
    with pytest.raises(NotEnoughItems, match="has 2 items"):
        await races.start(ANN, topic="autograd", rounds=3)
    with pytest.raises(QuizError, match="no pack `nope`"):
        await races.start(ANN, pack="nope")
    with pytest.raises(BadRaceOption, match="in a channel"):
        await races.start(Actor("discord", "guild-1", "ann", "Ann"))


async def test_a_timed_out_round_reveals_the_answer_and_the_top_three(
    races: RaceService, repository: SqlRepository, store: SocialStore, clock: FakeClock, posts: Posts
) -> None:
    await races.start(ANN, pack="race-pack", rounds=3, seconds=30)
    race = await current(store)
    dan = member("Dan")
    clock.advance(seconds=1)
    await answer(races, repository, BOB, race, right=False)
    clock.advance(seconds=1)
    ack = await answer(races, repository, CAT, race)
    assert "#2 this round" in ack
    for who in (ANN, dan):
        clock.advance(seconds=1)
        await answer(races, repository, who, race)
    assert await races.tick() == 0  # not yet time
    clock.advance(seconds=30)
    assert await races.tick() == 1
    post = posts.posts[-1]
    reveal, next_round = post.messages
    assert "The answer:" in reveal.text()
    top = next(p for p in reveal.parts if isinstance(p, Fields))
    assert [name for name, _ in top.items] == ["🥇 Cat", "🥈 Ann", "🥉 Dan"]
    assert [value for _, value in top.items] == ["+97", "+85", "+73"]
    assert "3 of 4 answers right" in reveal.text()
    assert next_round.title == "Race · round 2 of 3"
    assert post.next_round == 1
    assert post.closed_round is not None
    assert all(c.disabled for c in post.closed_round.controls() if isinstance(c, Button | Select))


async def test_a_late_answer_is_told_round_closed(
    races: RaceService, repository: SqlRepository, store: SocialStore, clock: FakeClock, posts: Posts
) -> None:
    await races.start(ANN, rounds=3, seconds=10)
    race = await current(store)
    clock.advance(seconds=10)
    with pytest.raises(RoundClosed, match="Round closed"):
        await answer(races, repository, BOB, race)
    await races.drain()  # the late click also closed the round nobody had closed
    assert len(posts.posts) == 1
    with pytest.raises(RoundClosed):  # a click on round 1's message, now in round 2
        await answer(races, repository, BOB, race)


async def test_answering_twice_counts_once(
    races: RaceService, repository: SqlRepository, store: SocialStore
) -> None:
    await races.start(ANN, rounds=3)
    race = await current(store)
    await answer(races, repository, BOB, race, right=False)
    with pytest.raises(AlreadyAnswered):
        await answer(races, repository, BOB, race, right=True)
    race = await current(store)
    assert [(a.user_id, a.correct) for a in race.answers] == [("bob", False)]


async def test_every_member_answering_ends_the_round_early(
    races: RaceService, repository: SqlRepository, store: SocialStore, clock: FakeClock, posts: Posts
) -> None:
    await races.start(ANN, rounds=3, seconds=60)
    race = await current(store)
    await answer(races, repository, BOB, race)
    await answer(races, repository, CAT, race)
    clock.advance(seconds=60)
    await races.tick()
    race = await current(store)
    await answer(races, repository, CAT, race)
    await races.drain()
    assert len(posts.posts) == 1  # Bob has not answered round 2
    await answer(races, repository, BOB, race)
    await races.drain()
    assert len(posts.posts) == 2
    assert (await current(store)).round == 2


async def test_the_last_round_ends_with_the_final_table_and_answers_count_in_progress(
    races: RaceService, repository: SqlRepository, store: SocialStore, clock: FakeClock, posts: Posts
) -> None:
    await races.start(ANN, pack="race-pack", rounds=3, seconds=30)
    for _ in range(3):
        race = await current(store)
        clock.advance(seconds=2)
        await answer(races, repository, CAT, race)
        await answer(races, repository, BOB, race, right=False)
        clock.advance(seconds=30)
        await races.tick()
    assert await store.running_race("discord", "guild-1", "chan-1") is None
    final = posts.posts[-1].messages[-1]
    assert final.kind == "summary"
    assert "**Cat** wins" in final.text() and "Bob: 0 pts · 0/3 right" in final.text()
    stats = await repository.user_stats("discord", "cat", clock.now())
    assert (stats.attempts, stats.correct) == (3, 3)
    history = await repository.history("discord", "bob", ["race-pack"])
    assert len(history) == 3 and not any(h.last_correct for h in history.values())
    assert all(h.card for h in history.values())  # review cards moved too


async def test_only_the_starter_or_an_admin_stops_the_race(
    races: RaceService, repository: SqlRepository, store: SocialStore
) -> None:
    await races.start(ANN, rounds=3)
    race = await current(store)
    await answer(races, repository, BOB, race)
    with pytest.raises(NotRaceStarter, match="Only Ann"):
        await races.stop(BOB)
    reply = await races.stop(member("Root", admin=True))
    assert not reply.private
    assert "stopped after 0 of 3 rounds" in reply.messages[0].text()
    assert await store.running_race("discord", "guild-1", "chan-1") is None
    stats = await repository.user_stats("discord", "bob", race.created_at)
    assert stats.attempts == 1  # the answers of the stopped round count too


async def test_blanks_keep_each_members_picks_until_submit(
    races: RaceService, repository: SqlRepository, store: SocialStore
) -> None:
    await QuizService(repository=repository, runner=None, clock=FakeClock()).import_pack(blanks_pack())
    await races.start(ANN, pack="blanks-only", rounds=3)
    race = await current(store)
    await races.act(BOB, rx.make(race.id, 0, rx.BLANK, 1), ["0"])
    with pytest.raises(QuizError, match=r"\[2\] still empty"):
        await races.act(BOB, rx.make(race.id, 0, rx.CHECK))
    reply = await races.act(CAT, rx.make(race.id, 0, rx.BLANK, 2), ["1"])
    kept = reply.messages[0].text()
    assert "[1]" in kept and "[2: print]" in kept and "[1: 4]" not in kept  # Cat's picks are Cat's own
    with pytest.raises(QuizError, match="option does not exist"):
        await races.act(BOB, rx.make(race.id, 0, rx.BLANK, 2), ["9"])
    await races.act(BOB, rx.make(race.id, 0, rx.BLANK, 2), ["1"])
    await races.act(BOB, rx.make(race.id, 0, rx.CHECK))
    race = await current(store)
    assert [(a.user_id, a.correct, a.answer) for a in race.answers] == [("bob", True, "1=4, 2=print")]


async def test_a_restarted_bot_resumes_the_round_with_the_time_left(db_url: str, clock: FakeClock) -> None:
    repo = await open_repository(db_url)
    await QuizService(repository=repo, runner=None, clock=clock).import_pack(race_pack())
    first = RaceService(repository=repo, store=SocialStore.beside(repo), clock=clock, publish=Posts(), timers=False)
    await first.start(ANN, rounds=3, seconds=30)
    clock.advance(seconds=8)
    race = await current(SocialStore.beside(repo))
    await answer(first, repo, BOB, race)
    await first.aclose()
    await repo.close()

    clock.advance(seconds=4)  # down for four seconds
    repo = await open_repository(db_url)
    waits: list[float] = []
    gate = asyncio.Event()

    async def sleep(delay: float) -> None:  # the timer's wait: ends when the test says the time has passed
        waits.append(delay)
        await gate.wait()
        gate.clear()  # one round at a time
        clock.advance(seconds=delay)

    posts = Posts()
    store = SocialStore.beside(repo)
    second = RaceService(repository=repo, store=store, clock=clock, publish=posts, sleep=sleep)
    try:
        assert await second.resume() == [race.id]
        race = await current(store)
        assert race.time_left(clock.now()) == pytest.approx(18.0)
        with pytest.raises(AlreadyAnswered):
            await answer(second, repo, BOB, race)
        await answer(second, repo, CAT, race)
        assert waits == [pytest.approx(18.0)]
        assert not posts.posts
        gate.set()
        await asyncio.wait_for(posts.arrived.wait(), 30)  # the timer "slept" its 18 s and closed the round
        assert posts.posts and posts.posts[0].next_round == 1
        race = await current(store)
        assert [s.points for s in race.scored(0)] == [50 + round(50 * (1 - 8 / 30)), 40 + round(50 * (1 - 12 / 30))]
    finally:
        await second.aclose()
        await repo.close()


async def test_a_burst_of_answers_is_stored_once_each_in_arrival_order(
    races: RaceService, store: SocialStore
) -> None:
    await races.start(ANN, rounds=3, seconds=60)
    race = await current(store)
    users = [f"m{i:02d}" for i in range(40)]
    users[10:10] = ["m03", "m07"]  # two double clicks, after each member's first answer
    item = race.items[0]
    verb = rx.MULTI if item.question == "multi" else rx.CHOOSE
    outcomes = await asyncio.gather(
        *(
            races.act(member(u), rx.make(race.id, 0, verb, "" if verb == rx.MULTI else 0), ["0"])
            for u in users
        ),
        return_exceptions=True,
    )
    refused = [u for u, o in zip(users, outcomes, strict=True) if isinstance(o, AlreadyAnswered)]
    assert refused == ["m03", "m07"]
    stored = (await current(store)).round_answers(0)
    assert [a.user_id for a in stored] == [f"m{i:02d}" for i in range(40)]
    assert [a.seq for a in stored] == list(range(1, 41))


async def test_forged_controls_are_refused_without_counting(races: RaceService, store: SocialStore) -> None:
    await races.start(ANN, rounds=3)
    race = await current(store)
    with pytest.raises(QuizError, match="not one of this bot's"):
        await races.act(BOB, "rc:" + race.id + ":0:zz")
    with pytest.raises(QuizError, match="Too many values"):
        await races.act(BOB, rx.make(race.id, 0, rx.MULTI), [str(i) for i in range(26)])
    with pytest.raises(QuizError, match="choice does not exist"):
        await races.act(BOB, rx.make(race.id, 0, rx.CHOOSE, 7))
    assert (await current(store)).answers == []
