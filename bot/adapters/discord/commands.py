"""The one `/quiz` command group: each subcommand turns its options into one core request."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.core import requests as rq
from bot.core.packs import DIFFICULTIES

from .inbound import Inbound
from .origin import RUN_FORM_ID

Interaction = discord.Interaction[Any]


def build_quiz_group(inbound: Inbound) -> app_commands.Group:
    """Return `/quiz` with its subcommands and the `/quiz pack` admin group, bound to `inbound`."""
    service = inbound.service
    quiz = app_commands.Group(
        name="quiz", description="Practise with quizzes and code exercises, and see your progress"
    )
    pack_group = app_commands.Group(
        name="pack", description="Load, enable, disable or remove question packs (admins)", parent=quiz
    )
    data_group = app_commands.Group(
        name="my-data", description="Get a copy of everything kept about you, or delete it", parent=quiz
    )

    async def pack_names(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await inbound.complete(interaction, current, service.pack_names)

    async def all_pack_names(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        async def names(scope: str) -> list[str]:
            return [p.id for p in await service.enabled_packs_all()]

        return await inbound.complete(interaction, current, names)

    async def topic_names(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        pack = getattr(interaction.namespace, "pack", None)

        async def names(scope: str) -> list[str]:
            return await service.topic_names(scope, pack or None)

        return await inbound.complete(interaction, current, names)

    @quiz.command(name="start", description="Start a personal quiz: one question at a time, feedback after each")
    @app_commands.describe(
        pack="Which pack (default: every pack enabled here)",
        topic="Only this topic",
        difficulty="Only this difficulty",
        count=f"How many questions (1-{rq.MAX_COUNT}, default {rq.DEFAULT_COUNT})",
    )
    @app_commands.choices(difficulty=[app_commands.Choice(name=d, value=d) for d in DIFFICULTIES])
    @app_commands.autocomplete(pack=pack_names, topic=topic_names)
    async def start(
        interaction: Interaction,
        pack: str | None = None,
        topic: str | None = None,
        difficulty: app_commands.Choice[str] | None = None,
        count: app_commands.Range[int, 1, rq.MAX_COUNT] | None = None,
    ) -> None:
        level = difficulty.value if difficulty is not None else None
        await inbound.handle(interaction, rq.Start(pack=pack, topic=topic, difficulty=level, count=count))

    @quiz.command(name="answer", description="Answer the current short or code question in a form")
    async def answer(interaction: Interaction) -> None:
        await inbound.handle(interaction, rq.OpenAnswer())

    @quiz.command(name="current", description="Show your current question again, with working buttons")
    async def current(interaction: Interaction) -> None:
        await inbound.handle(interaction, rq.Current())

    @quiz.command(name="hint", description="A hint for the current question")
    async def hint(interaction: Interaction) -> None:
        await inbound.handle(interaction, rq.Hint())

    @quiz.command(name="skip", description="Skip the current question")
    async def skip(interaction: Interaction) -> None:
        await inbound.handle(interaction, rq.Skip())

    @quiz.command(name="stop", description="Stop your quiz and see the summary")
    async def stop(interaction: Interaction) -> None:
        await inbound.handle(interaction, rq.Stop())

    @quiz.command(name="run", description="Run Python (PyTorch available) in the sandbox and see its output")
    @app_commands.describe(
        code="One line of Python; leave empty to get a form for longer code", file="A .py file to run"
    )
    async def run(interaction: Interaction, code: str | None = None, file: discord.Attachment | None = None) -> None:
        if file is not None:
            await inbound.handle(interaction, inbound.run_file(file))
        elif code:
            await inbound.handle(interaction, rq.RunCode(code))
        else:
            await inbound.open_form(interaction, RUN_FORM_ID, "Run Python", "Python code")

    @quiz.command(name="stats", description="Attempts, accuracy by topic, streak and reviews due")
    @app_commands.describe(user="Someone else's progress (default: yours)")
    async def stats(interaction: Interaction, user: discord.User | None = None) -> None:
        request = rq.Stats() if user is None else rq.Stats(user_id=str(user.id), name=user.display_name)
        await inbound.handle(interaction, request)

    @quiz.command(name="packs", description="The packs and topics enabled here")
    async def packs(interaction: Interaction) -> None:
        await inbound.handle(interaction, rq.Packs())

    @quiz.command(name="help", description="How to use QuizBot")
    async def help_(interaction: Interaction) -> None:
        await inbound.handle(interaction, rq.Help())

    @pack_group.command(name="load", description="Load or update a pack from an attached .yaml or .zip (admins)")
    @app_commands.describe(
        file="The pack (.yaml or .zip), or a Moodle XML, GIFT, CSV, Anki, Red or OpenTDB file to convert",
        force="Replace even if the version is not higher",
    )
    async def load(interaction: Interaction, file: discord.Attachment, force: bool = False) -> None:
        await inbound.handle(interaction, inbound.pack_load(file, force))

    @pack_group.command(name="enable", description="Enable a pack in this server (admins)")
    @app_commands.autocomplete(pack=all_pack_names)
    async def enable(interaction: Interaction, pack: str) -> None:
        await inbound.handle(interaction, rq.PackEnable(pack, True))

    @pack_group.command(name="disable", description="Disable a pack in this server (admins)")
    @app_commands.autocomplete(pack=all_pack_names)
    async def disable(interaction: Interaction, pack: str) -> None:
        await inbound.handle(interaction, rq.PackEnable(pack, False))

    @pack_group.command(name="remove", description="Remove a pack everywhere; learners' history is kept (admins)")
    @app_commands.autocomplete(pack=all_pack_names)
    async def remove(interaction: Interaction, pack: str) -> None:
        await inbound.handle(interaction, rq.PackRemove(pack))

    @data_group.command(name="export", description="Get a JSON file of everything QuizBot keeps about you")
    @app_commands.describe(user="Admins: someone else's data (a learner who left)")
    async def data_export(interaction: Interaction, user: discord.User | None = None) -> None:
        target = (str(user.id), user.display_name) if user is not None else (None, None)
        await inbound.handle(interaction, rq.MyDataExport(*target))

    @data_group.command(name="delete", description="Delete everything QuizBot keeps about you (asks first)")
    @app_commands.describe(user="Admins: someone else's data (a learner who left)")
    async def data_delete(interaction: Interaction, user: discord.User | None = None) -> None:
        target = (str(user.id), user.display_name) if user is not None else (None, None)
        await inbound.handle(interaction, rq.MyDataDelete(*target))

    return quiz
