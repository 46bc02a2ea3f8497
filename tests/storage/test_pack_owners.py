"""A pack belongs to the server or workspace whose admin loaded it first, or to the operator.

From the chat an admin updates and removes only their own server's (or workspace's) packs; the
operator (`quizbot pack import`, the packs loaded at start) may change any. On SQLite files and on
the local PostgreSQL (`any_url`), through the service as the chat reaches it, and on the storage
calls themselves: the owner is checked in the write's own transaction (a conditional UPDATE or
DELETE), so nothing the core checked earlier, or forgot to, can let another server's write through.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import insert, select

from bot.core import Actor, QuizService
from bot.core import actions as ax
from bot.core import requests as rq
from bot.core.errors import PackRefused, QuizError
from bot.core.importing import PackNotTheirs, pack_owner
from bot.core.packs import Pack, load_bytes, load_path
from bot.core.report.service import Reports
from bot.pack_import import import_one
from bot.shipped import load_shipped_packs
from bot.storage import SqlRepository, create_engine, open_repository
from bot.storage import tables as t
from bot.storage.reports import ReportStore
from tests.conftest import DEMO_PACK
from tests.fakes import FakeClock
from tests.storage.conftest import migrate_to

ADA = Actor("discord", "guild-a", "ada", "Ada", is_admin=True)  # admin of server A
BEN = Actor("discord", "guild-b", "ben", "Ben", is_admin=True)  # admin of server B
SAM = Actor("slack", "T0A", "sam", "Sam", is_admin=True)  # admin of a Slack workspace
GIFT = Path(__file__).parents[1] / "fixtures" / "import" / "pytorch-gift.txt"


def pack_yaml(pack_id: str, version: int, *questions: str) -> bytes:
    """A pack of choice questions (nothing to prove in a sandbox), one per id given."""
    items = "".join(
        f"  - id: {q}\n    type: choice\n    prompt: Question {q} of v{version}?\n"
        '    choices:\n      - {text: "yes", correct: true}\n      - {text: "no"}\n'
        for q in questions
    )
    return f"pack: {pack_id}\ntitle: {pack_id} v{version}\nversion: {version}\nquestions:\n{items}".encode()


def pack_of(pack_id: str, version: int, *questions: str) -> Pack:
    return load_bytes(f"{pack_id}.yaml", pack_yaml(pack_id, version, *questions)).pack


@pytest.fixture
async def repo(any_url: str) -> AsyncIterator[SqlRepository]:
    repository = await open_repository(any_url)
    yield repository
    await repository.close()


def service_on(repository: SqlRepository) -> QuizService:
    return QuizService(repository=repository, runner=None, clock=FakeClock(), rng=random.Random(1), pending=repository.pending)


async def load(service: QuizService, actor: Actor, data: bytes, name: str = "p.yaml") -> str:
    return (await service.handle(actor, rq.PackLoad(name, data))).messages[0].text()


async def questions_of(repository: SqlRepository, pack_id: str) -> tuple[int, list[str]]:
    pack = await repository.get_pack(pack_id)
    assert pack is not None
    async with repository.db.read() as c:
        stored = sorted((await c.execute(select(t.questions.c.question_id).where(t.questions.c.pack_id == pack_id))).scalars())
    assert stored == sorted(q.id for q in pack.questions)
    return pack.version, stored


async def test_another_server_can_neither_update_nor_remove_a_servers_pack(repo: SqlRepository) -> None:
    service = service_on(repo)
    assert "added with 2 questions" in await load(service, ADA, pack_yaml("autograd", 1, "a1", "a2"))
    assert await repo.pack_owners() == {"autograd": "discord:guild-a"}

    for other in (BEN, SAM):
        with pytest.raises(PackNotTheirs) as refused:
            await load(service, other, pack_yaml("autograd", 9, "b1"))
        said = (  # a Slack workspace is not told "another workspace" of a Discord server's pack
            "is not this server's: it was loaded by the operator or another server."
            if other.platform == "discord"
            else "was loaded by the operator or by another server or workspace, not here."
        )
        assert f"The pack `autograd` {said}" in str(refused.value)
        assert "Give your pack another id (the `pack:` line) to load it here." in str(refused.value)
        with pytest.raises(PackNotTheirs, match="only they may remove it"):  # refused before asking to confirm
            await service.handle(other, rq.PackRemove("autograd"))
        with pytest.raises(PackNotTheirs):  # a confirmation forged or kept from elsewhere is refused too
            await service.handle(other, rq.Act(ax.admin(ax.REMOVE_PACK, "autograd", prefix=ax.PACK_PREFIX)))
    assert await questions_of(repo, "autograd") == (1, ["a1", "a2"])  # A's questions, untouched

    await service.handle(BEN, rq.PackEnable("autograd", False))  # every server still sees it, and chooses for itself
    assert not [p for p in await repo.list_packs("guild-b") if p.enabled] and (await repo.list_packs("guild-a"))[0].enabled

    assert "updated v1 → v2" in await load(service, ADA, pack_yaml("autograd", 2, "a1", "a3"))
    assert await questions_of(repo, "autograd") == (2, ["a1", "a3"])
    done = await service.handle(ADA, rq.Act(ax.admin(ax.REMOVE_PACK, "autograd", prefix=ax.PACK_PREFIX)))
    assert done.update is not None and "was removed" in done.update.text()
    assert await repo.pack_owners() == {}
    assert "added" in await load(service, BEN, pack_yaml("autograd", 1, "b1"))  # a free id again: now B's
    assert await repo.pack_owners() == {"autograd": "discord:guild-b"}


async def test_no_server_changes_or_removes_the_operators_packs(repo: SqlRepository) -> None:
    service = service_on(repo)
    await service.import_pack(load_path(DEMO_PACK).pack)  # as at start: the operator's
    before = await questions_of(repo, "demo")
    with pytest.raises(PackNotTheirs, match="not this server's: it was loaded by the operator or another server"):
        await load(service, ADA, pack_yaml("demo", 7, "x"))
    with pytest.raises(PackNotTheirs):
        await service.handle(ADA, rq.PackLoad("demo.yaml", pack_yaml("demo", 1, "x"), force=True))
    with pytest.raises(PackNotTheirs, match="only they may remove it"):
        await service.handle(ADA, rq.PackRemove("demo"))
    with pytest.raises(PackNotTheirs):
        await service.handle(ADA, rq.Act(ax.admin(ax.REMOVE_PACK, "demo", prefix=ax.PACK_PREFIX)))
    assert await questions_of(repo, "demo") == before and await repo.pack_owners() == {"demo": None}


async def test_storage_checks_the_owner_in_the_write_itself(repo: SqlRepository) -> None:
    """Called directly, as a core that skipped its early check would: the conditional write refuses."""
    await repo.import_pack(pack_of("mine", 1, "m1"), by="discord:guild-a")
    await repo.import_pack(pack_of("ops", 1, "o1"))
    for pack_id in ("mine", "ops"):
        with pytest.raises(PackNotTheirs):
            await repo.import_pack(pack_of(pack_id, 5, "z"), by="discord:guild-b", force=True)
        with pytest.raises(PackNotTheirs):
            await repo.delete_pack(pack_id, by="discord:guild-b")
    assert await questions_of(repo, "mine") == (1, ["m1"]) and await questions_of(repo, "ops") == (1, ["o1"])
    assert await repo.delete_pack("nothing", by="discord:guild-b") is False
    report = await repo.import_pack(pack_of("mine", 2, "m1", "m2"), by="discord:guild-a")
    assert (report.previous_version, report.added) == (1, ("m2",))
    assert await repo.delete_pack("mine", by="discord:guild-a") is True
    assert await repo.pack_owners() == {"ops": None}


async def test_two_servers_loading_one_new_id_at_once_leave_one_owner_and_its_questions(repo: SqlRepository) -> None:
    results = await asyncio.gather(
        repo.import_pack(pack_of("race", 1, "a1"), by="discord:guild-a"),
        repo.import_pack(pack_of("race", 1, "b1"), by="discord:guild-b"),
        return_exceptions=True,
    )
    refused = [r for r in results if isinstance(r, BaseException)]
    assert len(refused) == 1 and isinstance(refused[0], PackRefused)
    owner = (await repo.pack_owners())["race"]
    assert await questions_of(repo, "race") == (1, ["a1" if owner == "discord:guild-a" else "b1"])


async def test_the_operator_updates_any_pack_and_it_stays_its_owners(repo: SqlRepository, tmp_path: Path) -> None:
    service = service_on(repo)
    await load(service, ADA, pack_yaml("autograd", 1, "a1"))
    path = tmp_path / "autograd.yaml"
    path.write_bytes(pack_yaml("autograd", 2, "a1", "op"))
    assert await import_one(service, path, force=False, proving=False, skip=False) == 0  # `quizbot pack import`
    assert await questions_of(repo, "autograd") == (2, ["a1", "op"])
    path.write_bytes(pack_yaml("autograd", 2, "op"))
    assert await import_one(service, path, force=True, proving=False, skip=False) == 0
    assert await questions_of(repo, "autograd") == (2, ["op"])
    assert await repo.pack_owners() == {"autograd": "discord:guild-a"}  # still A's to update
    with pytest.raises(PackNotTheirs):
        await load(service, BEN, pack_yaml("autograd", 3, "b1"))
    assert "updated v2 → v3" in await load(service, ADA, pack_yaml("autograd", 3, "a1"))
    assert await service.pack_admin.remove(Actor("console", "local", "you", is_admin=True), "autograd", confirmed=True)
    assert await repo.pack_owners() == {}  # the terminal is the operator's


async def test_a_converted_packs_preview_and_its_load_go_through_the_owner_check(repo: SqlRepository) -> None:
    service = service_on(repo)
    await load(service, ADA, pack_yaml("pytorch-gift", 1, "a1"))
    with pytest.raises(PackNotTheirs):  # told at once, not after pressing Load
        await load(service, BEN, GIFT.read_bytes(), GIFT.name)

    await repo.delete_pack("pytorch-gift")  # the id is free: B's preview is offered
    preview = (await service.handle(BEN, rq.PackLoad(GIFT.name, GIFT.read_bytes()))).messages[0]
    confirm = next(b for row in preview.rows for b in row if b.role == "confirm")
    await load(service, ADA, pack_yaml("pytorch-gift", 1, "a1"))  # and A takes the id before B presses Load
    with pytest.raises(PackNotTheirs):
        await service.handle(BEN, rq.Act(confirm.action))
    assert await questions_of(repo, "pytorch-gift") == (1, ["a1"])
    assert await repo.pack_owners() == {"pytorch-gift": "discord:guild-a"}


async def test_packs_loaded_at_start_leave_a_servers_pack_of_the_same_id(repo: SqlRepository, tmp_path: Path) -> None:
    service = service_on(repo)
    await load(service, ADA, pack_yaml("autograd", 1, "a1"))
    (tmp_path / "autograd.yaml").write_bytes(pack_yaml("autograd", 4, "shipped"))
    (tmp_path / "other.yaml").write_bytes(pack_yaml("other", 1, "o1"))
    report = await load_shipped_packs(service, [tmp_path], store=repo)
    assert report.stored == ["other"]
    assert await questions_of(repo, "autograd") == (1, ["a1"])
    assert await repo.pack_owners() == {"autograd": "discord:guild-a", "other": None}


def test_a_packs_owner_is_its_server_or_workspace_and_the_terminal_is_the_operator() -> None:
    assert (pack_owner(ADA), pack_owner(SAM)) == ("discord:guild-a", "slack:T0A")
    assert pack_owner(Actor("console", "local", "you", is_admin=True)) is None


async def test_migration_0012_keeps_the_packs_as_the_operators_and_downgrades(any_url: str) -> None:
    demo = load_path(DEMO_PACK).pack
    engine = create_engine(any_url)
    try:
        async with engine.begin() as c:
            await c.run_sync(migrate_to("0011_first_attempts"))
        async with engine.begin() as c:  # a pack stored before owners existed
            await c.execute(
                insert(t.packs).values(id="demo", version=1, title=demo.title, data=demo.model_dump_json(), updated_at=FakeClock().now())
            )
            await c.execute(
                insert(t.questions),
                [{"pack_id": "demo", "question_id": q.id, "type": q.type, "topic": q.topic, "difficulty": q.difficulty,
                  "digest": "old"} for q in demo.questions],
            )  # fmt: skip
    finally:
        await engine.dispose()
    repository = await open_repository(any_url)  # the normal start upgrades it
    try:
        assert await repository.pack_owners() == {"demo": None}
        assert (await repository.get_pack("demo")) == demo
        with pytest.raises(PackNotTheirs):
            await load(service_on(repository), ADA, pack_yaml("demo", 2, "x"))
        await load(service_on(repository), ADA, pack_yaml("fresh", 1, "f1"))
    finally:
        await repository.close()
    engine = create_engine(any_url)
    try:
        async with engine.begin() as c:
            await c.run_sync(migrate_to("-0011_first_attempts"))
        async with engine.connect() as c:
            rows = (await c.exec_driver_sql("SELECT id, version FROM packs ORDER BY id")).all()
        assert [tuple(r) for r in rows] == [("demo", 1), ("fresh", 1)]
        async with engine.begin() as c:
            await c.run_sync(migrate_to("head"))
    finally:
        await engine.dispose()
    repository = await open_repository(any_url)
    try:
        assert await repository.pack_owners() == {"demo": None, "fresh": None}  # who loaded it is lost on the way down
    finally:
        await repository.close()


async def test_a_servers_pack_reaches_another_server_only_once_an_admin_there_enables_it(repo: SqlRepository) -> None:
    """Loading a pack in server A puts it in A's quizzes, not in B's: B's learners never see it, and B's
    daily question (drawing from every enabled pack) never posts it, until B's admin enables it."""
    from datetime import time

    from bot.core.daily import Schedule
    from bot.storage.daily import DailyRepository

    service = service_on(repo)
    await repo.import_pack(load_path(DEMO_PACK).pack)  # the operator's: everywhere
    assert "added" in await load(service, ADA, pack_yaml("class-a", 1, "q1"))

    def listed(infos: list) -> dict[str, bool]:  # type: ignore[type-arg]
        return {i.id: i.enabled for i in infos}

    assert listed(await repo.list_packs("guild-a")) == {"class-a": True, "demo": True}
    assert listed(await repo.list_packs("guild-b")) == {"demo": True}  # not even "(disabled here)"
    assert listed(await repo.list_packs("T0A")) == {"demo": True}
    assert listed(await repo.list_packs()) == {"class-a": True, "demo": True}  # the operator sees all
    b_daily = Schedule(platform="discord", scope="guild-b", channel_id="c", at=time(9), zone="UTC", packs=())
    daily = DailyRepository.beside(repo)
    assert {pack for pack, _q in await daily.candidates(b_daily)} == {"demo"}
    packs_text = (await service.handle(BEN, rq.Packs())).messages[0].text()
    assert "class-a" not in packs_text and "demo" in packs_text

    await service.handle(BEN, rq.PackEnable("class-a", True))  # B's admin opts in
    assert listed(await repo.list_packs("guild-b")) == {"class-a": True, "demo": True}
    assert {pack for pack, _q in await daily.candidates(b_daily)} == {"class-a", "demo"}
    await service.handle(ADA, rq.PackEnable("class-a", False))  # A switches its own pack off there only
    assert listed(await repo.list_packs("guild-a")) == {"class-a": False, "demo": True}
    assert listed(await repo.list_packs("guild-b"))["class-a"] is True


async def test_a_removed_packs_switches_go_with_it(repo: SqlRepository) -> None:
    """Server B enabled A's pack; A removes it; C loads a pack under the freed id: it is not in B's quizzes."""
    service = service_on(repo)
    cy = Actor("discord", "guild-c", "cy", "Cy", is_admin=True)
    assert "added" in await load(service, ADA, pack_yaml("shared-id", 1, "q1"))
    await service.handle(BEN, rq.PackEnable("shared-id", True))
    assert [i.id for i in await repo.list_packs("guild-b")] == ["shared-id"]
    await repo.delete_pack("shared-id", by=pack_owner(ADA))
    assert "added" in await load(service, cy, pack_yaml("shared-id", 1, "other"))
    assert [i.id for i in await repo.list_packs("guild-b")] == []
    assert [i.id for i in await repo.list_packs("guild-c")] == ["shared-id"]


async def test_a_shipped_pack_at_a_servers_version_is_not_skipped_silently(
    repo: SqlRepository, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The server's pack is kept whatever the shipped file's version, and the operator is told each start."""
    service = service_on(repo)
    await load(service, ADA, pack_yaml("autograd", 4, "a1"))
    (tmp_path / "autograd.yaml").write_bytes(pack_yaml("autograd", 4, "shipped"))
    for _start in range(2):
        caplog.clear()
        report = await load_shipped_packs(service, [tmp_path], store=repo)
        assert report.stored == [] and "was not loaded: the stored pack `autograd` was loaded from the chat" in caplog.text
    assert await questions_of(repo, "autograd") == (4, ["a1"])


async def test_a_report_here_is_on_the_packs_listed_here(repo: SqlRepository) -> None:
    """Server B's admin cannot report on server A's private pack, nor see its id among the suggestions."""
    service = QuizService(
        repository=repo, runner=None, clock=FakeClock(), rng=random.Random(1), reports=Reports(ReportStore(repo.db))
    )
    await load(service, ADA, pack_yaml("class-a", 1, "q1"))
    await repo.import_pack(pack_of("open", 1, "o1"))  # the operator's
    with pytest.raises(QuizError) as refused:
        await service.handle(BEN, rq.Report(pack="class-a"))
    assert "class-a" in str(refused.value) and "open" in str(refused.value)
    assert str(refused.value).count("class-a") == 1  # named as asked, not offered
    assert (await service.handle(ADA, rq.Report(pack="class-a"))).messages[0].title == "Report: class-a v1"
