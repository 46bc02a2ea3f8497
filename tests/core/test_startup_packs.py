"""Packs loaded at start (`QUIZBOT_PACKS`) are proven, and remembered by the hash of their files.

A real SQLite database; LocalRunner stands in for the sandbox and records every job it is given,
so "nothing ran" is what it saw.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from bot.core import QuizService
from bot.shipped import load_shipped_packs
from bot.storage import SqlRepository
from tests.conftest import DEMO_PACK
from tests.fakes import LocalRunner

MIXED = """\
pack: mixed
title: One right key, one wrong
version: 1
questions:
  - id: doubles
    type: blanks
    prompt: Make the code compute eight.
    code: "x = 4 {{1}} 2\\nassert x == 8, x\\n"
    options: ["*", "+"]
    answers: {1: "*"}
    verify: run
  - id: adds-up
    type: blanks
    prompt: Make the code compute four.
    code: "x = 2 {{1}} 2\\nassert x == 4, x\\n"
    options: ["+", "-"]
    answers: {1: "-"}
    verify: run
"""


def packs_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "packs"
    shutil.copytree(DEMO_PACK, folder / "demo")
    main = folder / "demo" / "pack.yaml"  # the `service` fixture stored `demo` already: another id
    main.write_text(main.read_text().replace("pack: demo\n", "pack: demo-start\n"), encoding="utf-8")
    (folder / "mixed.yaml").write_text(MIXED, encoding="utf-8")
    return folder


async def test_a_second_start_reads_and_runs_nothing_and_a_changed_file_is_read_again(
    tmp_path: Path, service: QuizService, repository: SqlRepository, runner: LocalRunner
) -> None:
    folder = packs_folder(tmp_path)
    first = await load_shipped_packs(service, [folder], store=repository, runner=runner)
    assert first.read == [folder / "demo", folder / "mixed.yaml"]
    assert first.stored == ["demo-start", "mixed"] and first.proven == ["demo-start", "mixed"]
    assert first.left_out == {"mixed": ["adds-up"]}  # the wrong key did not go live
    mixed = await service.catalogue.pack("mixed")
    assert mixed is not None and [q.id for q in mixed.questions] == ["doubles"]
    runs = len(runner.requests)
    assert runs > 0

    again = await load_shipped_packs(service, [folder], store=repository, runner=runner)
    assert again.unchanged == [folder / "demo", folder / "mixed.yaml"]
    assert again.read == [] and again.stored == [] and again.proven == []
    assert len(runner.requests) == runs  # not even the sandbox probe: nothing needed proving

    pack_yaml = folder / "demo" / "pack.yaml"
    pack_yaml.write_text(pack_yaml.read_text().replace("version: 1", "version: 2"), encoding="utf-8")
    changed = await load_shipped_packs(service, [folder], store=repository, runner=runner)
    assert changed.unchanged == [folder / "mixed.yaml"] and changed.read == [folder / "demo"]
    assert changed.stored == ["demo-start"] and changed.proven == ["demo-start"]
    assert len(runner.requests) > runs  # a new version is proven before it is stored
    demo = await service.catalogue.pack("demo-start")
    assert demo is not None and demo.version == 2


async def test_an_edit_without_a_new_version_is_read_but_neither_run_nor_stored(
    tmp_path: Path, service: QuizService, repository: SqlRepository, runner: LocalRunner
) -> None:
    folder = packs_folder(tmp_path)
    await load_shipped_packs(service, [folder], store=repository, runner=runner)
    runs = len(runner.requests)
    (folder / "mixed.yaml").write_text(MIXED.replace("compute eight", "compute 8"), encoding="utf-8")
    report = await load_shipped_packs(service, [folder], store=repository, runner=runner)
    assert report.read == [folder / "mixed.yaml"] and report.stored == []
    assert len(runner.requests) == runs
    mixed = await service.catalogue.pack("mixed")
    assert mixed is not None and mixed.questions[0].prompt == "Make the code compute eight."
    # Seen once, the edited file is remembered too: the start after reads nothing.
    assert (await load_shipped_packs(service, [folder], store=repository, runner=runner)).read == []


async def test_a_broken_change_is_logged_and_changes_nothing(
    tmp_path: Path, service: QuizService, repository: SqlRepository, runner: LocalRunner
) -> None:
    folder = packs_folder(tmp_path)
    await load_shipped_packs(service, [folder], store=repository, runner=runner)
    (folder / "mixed.yaml").write_text(MIXED.replace("version: 1", "version: 2\nbogus: key"), encoding="utf-8")
    report = await load_shipped_packs(service, [folder], store=repository, runner=runner)
    assert report.read == [folder / "mixed.yaml"] and report.stored == []
    mixed = await service.catalogue.pack("mixed")
    assert mixed is not None and mixed.version == 1


async def test_without_a_sandbox_packs_are_stored_unproven_and_not_remembered(
    tmp_path: Path, service: QuizService, repository: SqlRepository
) -> None:
    folder = packs_folder(tmp_path)
    report = await load_shipped_packs(service, [folder], store=repository, runner=None)
    assert report.stored == ["demo-start", "mixed"] and report.proven == []
    mixed = await service.catalogue.pack("mixed")
    assert mixed is not None and len(mixed.questions) == 2  # as before: nothing could prove it
    assert (await load_shipped_packs(service, [folder], store=repository, runner=None)).read != []
