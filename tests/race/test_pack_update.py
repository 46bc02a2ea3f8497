"""A pack updated while a race runs: the race posts, grades and reveals its items as they were posted.

Each race keeps a snapshot of its items, taken at the start and stored with the race, so it also
holds across a restart; races stored before snapshots existed read the pack as before.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, update

from bot.core import Actor, QuizService
from bot.core.packs import BlanksQuestion, ChoiceQuestion, Pack
from bot.core.race import NotEnoughItems, Race, RaceItem, RaceService
from bot.core.race import actions as rx
from bot.core.race.snapshot import MAX_CHARS, ItemSnapshot, chars
from bot.core.replies import Message
from bot.storage import SqlRepository, open_repository
from bot.storage import social_tables as st
from bot.storage.social import SocialStore
from tests.fakes import FakeClock

from .conftest import Posts
from .helpers import member, postgres_url

ANN, BOB = member("Ann"), member("Bob")


def swap_pack(version: int = 1, *, pack_id: str = "swap") -> Pack:
    """A choice, a blanks and a short item; version 2 changes what each shows and what is right.

    In version 1 the right answers are: choice A (`right`), blanks `4` then `print` (options 0
    and 1), short `6`. In version 2 choice A is wrong and a fourth choice appears, the blanks'
    options are reordered with another key, and only `7` is accepted.
    """
    first = version == 1
    questions: list[dict[str, Any]] = [
        {
            "id": "pick",
            "type": "choice",
            "topic": "t1",
            "prompt": "Which one?" if first else "Which one now?",
            "explanation": "Because of right." if first else "Because of now right.",
            "hint": "Think." if first else "Think again.",
            "shuffle": False,
            "choices": (
                [{"text": "right", "correct": True, "feedback": "yes"}, {"text": "wrong"}, {"text": "other"}]
                if first
                else [{"text": "changed"}, {"text": "now right", "correct": True}, {"text": "third"}, {"text": "fourth"}]
            ),
        },
        {
            "id": "fill",
            "type": "blanks",
            "topic": "t1",
            "prompt": "Fill in.",
            "code": "x = {{1}}\n{{2}}(x)\n",
            "options": ["4", "print", "len"] if first else ["len", "4", "print"],
            "answers": {1: "4", 2: "print"} if first else {1: "len", 2: "print"},
        },
        {"id": "typed", "type": "short", "topic": "t1", "prompt": "2 + 4?" if first else "3 + 4?", "accept": ["6"] if first else ["7"]},
    ]
    return Pack.model_validate(
        {
            "pack": pack_id,
            "title": "Swap pack" if first else "Swap pack, reworked",
            "version": version,
            "topics": [{"id": "t1", "title": "Before" if first else "After"}],
            "questions": questions,
        }
    )


async def load(repo: SqlRepository, pack: Pack) -> None:
    await QuizService(repository=repo, runner=None, clock=FakeClock()).import_pack(pack)


async def answer_as_posted(races: RaceService, actor: Actor, race: Race) -> None:
    """Answer the current round with what was right in version 1 (when the race was posted)."""
    index = race.round
    item = race.items[index].question
    if item == "pick":
        await races.act(actor, rx.make(race.id, index, rx.CHOOSE, 0))
    elif item == "fill":
        await races.act(actor, rx.make(race.id, index, rx.BLANK, 1), ["0"])
        await races.act(actor, rx.make(race.id, index, rx.BLANK, 2), ["1"])
        await races.act(actor, rx.make(race.id, index, rx.CHECK))
    else:
        form = await races.act(actor, rx.make(race.id, index, rx.ANSWER))
        assert form.form is not None
        await races.act(actor, form.form.action, ["6"])


REVEALED = {"pick": "The answer: right", "fill": "The answer: [1] `4`, [2] `print`", "typed": "The answer: `6`"}
PROMPTS = {"pick": "Which one?", "fill": "Fill in.", "typed": "2 + 4?"}


async def close(races: RaceService, store: SocialStore, clock: FakeClock, race: Race) -> None:
    """End the race's round: from round 2 on it ended when every member answered, else when time is up."""
    await races.drain()
    now = await store.get_race(race.id)
    assert now is not None
    if now.running and now.round == race.round:
        clock.advance(seconds=11)
        assert await races.tick() == 1


async def running(store: SocialStore) -> Race:
    race = await store.running_race("discord", "guild-1", "chan-1")
    assert race is not None
    return race


def texts(messages: tuple[Message, ...]) -> list[str]:
    return [m.text() for m in messages]


async def test_an_item_changed_mid_round_is_graded_and_revealed_as_posted(
    races: RaceService, repository: SqlRepository, store: SocialStore, clock: FakeClock, posts: Posts
) -> None:
    await load(repository, swap_pack())
    await races.start(ANN, pack="swap", rounds=3, seconds=10)
    race = await running(store)
    while race.items[race.round].question != "pick":  # play on to the choice item
        await answer_as_posted(races, BOB, race)
        await close(races, store, clock, race)
        race = await running(store)
    index = race.round

    await load(repository, swap_pack(2))  # an admin loads version 2 while the round is open
    races._packs.clear()  # past the pack cache's half minute
    posts.posts.clear()
    await answer_as_posted(races, BOB, race)  # A: `right`, as posted; in version 2 A is `changed`
    stored = await store.get_race(race.id)
    assert stored is not None
    assert [(a.round, a.correct, a.answer) for a in stored.answers if a.round == index] == [(index, True, "A. right")]

    await close(races, store, clock, race)
    (post,) = posts.posts
    reveal = post.messages[0].text()
    assert "The answer: right" in reveal and "Because of right." in reveal and "now right" not in reveal
    assert "1 of 1 answer right." in reveal
    assert post.closed_round is not None  # the round's message as it now looks: the choices it was posted with
    closed = post.closed_round.text()
    assert "**A.** right ✅" in closed and "changed" not in closed and "fourth" not in closed
    assert "Swap pack · Before" in (post.closed_round.footer or "")
    if post.next_round is not None:  # the next round is posted as the race started with it, too
        upcoming = race.items[post.next_round].question
        assert PROMPTS[upcoming] in post.messages[-1].text()
        assert "Swap pack · Before" in (post.messages[-1].footer or "")


async def test_a_restart_mid_race_still_posts_grades_and_reveals_by_the_snapshot(tmp_path: Path, clock: FakeClock) -> None:
    await restarted_race(sqlite_url(tmp_path), clock)


async def test_a_restart_mid_race_on_postgresql_still_grades_by_the_snapshot(clock: FakeClock) -> None:
    async with postgres_url() as url:
        await restarted_race(url, clock)


@asynccontextmanager
async def bot(url: str, clock: FakeClock, posts: Posts) -> AsyncIterator[tuple[SqlRepository, SocialStore, RaceService]]:
    """One run of the bot over the database: its own repository, store and race service."""
    repo = await open_repository(url)
    store = SocialStore.beside(repo)
    races = RaceService(repository=repo, store=store, clock=clock, publish=posts, timers=False)
    try:
        yield repo, store, races
    finally:
        await races.aclose()
        await repo.close()


def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'restart.db'}"


async def restarted_race(url: str, clock: FakeClock) -> None:
    posts = Posts()
    async with bot(url, clock, posts) as (repo, store, races):
        await load(repo, swap_pack())
        await races.start(ANN, pack="swap", rounds=3, seconds=10)
        race_id = (await running(store)).id
        await load(repo, swap_pack(2))  # updated right after the start, before anyone answered

    async with bot(url, clock, posts) as (repo, store, races):  # the bot restarts
        for index in range(3):
            race = await running(store)
            assert race.round == index and race.id == race_id
            posts.posts.clear()
            await answer_as_posted(races, BOB, race)
            await close(races, store, clock, race)
            (post,) = posts.posts
            item = race.items[index].question
            assert REVEALED[item] in post.messages[0].text() and "1 of 1 answer right." in post.messages[0].text()
            if index < 2:
                assert PROMPTS[race.items[index + 1].question] in post.messages[-1].text()
        stored = await store.get_race(race_id)
        assert stored is not None and stored.status == "finished"
        assert [a.correct for a in stored.answers] == [True, True, True]
        assert "**Bob** wins" in post.messages[-1].text()
        stats = await repo.user_stats("discord", "bob", clock.now())
        assert (stats.attempts, stats.correct) == (3, 3)


async def test_a_race_stored_without_snapshots_reads_the_pack_as_before(
    db_url: str, clock: FakeClock
) -> None:
    posts = Posts()
    async with bot(db_url, clock, posts) as (repo, store, races):
        await load(repo, swap_pack())
        await races.start(ANN, pack="swap", rounds=3, seconds=10)
        race = await running(store)
        async with repo.engine.begin() as c:  # as a bot from before snapshots stored it
            data = json.loads((await c.execute(select(st.races.c.data))).scalar_one())
            assert all("s" in item for item in data["items"])
            for item in data["items"]:
                del item["s"]
            await c.execute(update(st.races).values(data=json.dumps(data)))
        await load(repo, swap_pack(2))

    async with bot(db_url, clock, posts) as (repo, store, races):
        race = await running(store)
        assert all(item.snapshot is None for item in race.items)
        await answer_as_posted(races, BOB, race)  # graded against the pack as it is now: version 2
        race = await running(store)
        assert [a.correct for a in race.answers] == [False]  # version 1's answers are all wrong in version 2
        await close(races, store, clock, race)
        (post,) = posts.posts
        assert "Swap pack, reworked · After" in (post.messages[-1].footer or "")


def big_pack() -> Pack:
    """Three small choice items and one whose explanation makes its snapshot too long."""
    item = {"type": "choice", "shuffle": False, "choices": [{"text": "yes", "correct": True}, {"text": "no"}]}
    return Pack.model_validate(
        {
            "pack": "big",
            "title": "Big",
            "version": 1,
            "questions": [
                *({"id": f"q{i}", "prompt": f"Small {i}?", **item} for i in range(3)),
                {"id": "huge", "prompt": "Huge?", "explanation": "é" * MAX_CHARS, **item},
            ],
        }
    )


async def test_an_item_too_long_to_snapshot_is_left_out_and_a_race_stays_within_its_bound(
    races: RaceService, repository: SqlRepository, store: SocialStore
) -> None:
    await load(repository, big_pack())
    with pytest.raises(NotEnoughItems):
        await races.start(ANN, pack="big", rounds=4)
    await races.start(ANN, pack="big", rounds=3)
    race = await running(store)
    assert sorted(i.question for i in race.items) == ["q0", "q1", "q2"]
    async with repository.engine.connect() as c:
        stored = (await c.execute(select(st.races.c.data).where(st.races.c.id == race.id))).scalar_one()
    items = json.loads(stored)["items"]
    assert all(0 < chars(item["s"]) <= MAX_CHARS for item in items)


def test_a_snapshot_keeps_what_a_race_shows_and_round_trips() -> None:
    pack = swap_pack()
    question = pack.question("pick")
    assert question is not None
    copy = ItemSnapshot.take(pack, question)
    assert copy is not None and isinstance(copy.question, ChoiceQuestion)
    assert copy.question.hint is None and copy.question.explanation == "Because of right."  # a race shows no hint
    assert [c.text for c in copy.question.choices] == ["right", "wrong", "other"]
    assert [c.feedback for c in copy.question.choices] == [None, None, None]  # nor a choice's feedback
    assert (copy.pack_title, copy.topic_title, copy.pack_version) == ("Swap pack", "Before", 1)
    fill = pack.question("fill")
    assert fill is not None
    item = RaceItem("swap", "fill", "t1", (), ItemSnapshot.take(pack, fill))
    again = RaceItem.from_json(json.loads(json.dumps(item.to_json())))
    assert again == item and again.snapshot is not None and isinstance(again.snapshot.question, BlanksQuestion)
    assert again.snapshot.question.answers == {1: "4", 2: "print"}
    assert RaceItem.from_json({"p": "swap", "q": "fill", "t": None, "o": []}).snapshot is None


def test_a_snapshot_that_no_longer_reads_leaves_the_item_to_its_pack() -> None:
    broken = {"p": "swap", "q": "pick", "t": "t1", "o": [0, 1, 2], "s": {"q": {"type": "choice", "id": "pick"}}}
    item = RaceItem.from_json(broken)  # a later pack format refuses it: the race still loads
    assert item.snapshot is None and item.order == (0, 1, 2)
