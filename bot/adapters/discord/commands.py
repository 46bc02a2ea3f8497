"""The one `/quiz` command group: each subcommand forwards its options to one core call."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.core import Actor, Reply
from bot.core.packs import DIFFICULTIES
from bot.core.service import MAX_COUNT

from .components import RUN_FORM_ID
from .handler import QuizHandler

Interaction = discord.Interaction[Any]


def build_quiz_group(handler: QuizHandler) -> app_commands.Group:
    """Return `/quiz` with its subcommands and the `/quiz pack` admin group, bound to `handler`."""
    service = handler.service
    quiz = app_commands.Group(
        name="quiz", description="Practise with quizzes and code exercises, and see your progress"
    )
    pack_group = app_commands.Group(
        name="pack", description="Load, enable or disable question packs (admins)", parent=quiz
    )

    async def pack_names(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await handler.complete(interaction, current, service.pack_names)

    async def all_pack_names(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        async def names(scope: str) -> list[str]:
            return [p.id for p in await service.enabled_packs_all()]

        return await handler.complete(interaction, current, names)

    async def topic_names(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        pack = getattr(interaction.namespace, "pack", None)

        async def names(scope: str) -> list[str]:
            return await service.topic_names(scope, pack or None)

        return await handler.complete(interaction, current, names)

    @quiz.command(
        name="start", description="Start a personal quiz: one question at a time, feedback after each"
    )
    @app_commands.describe(
        pack="Which pack (default: every pack enabled here)",
        topic="Only this topic",
        difficulty="Only this difficulty",
        count=f"How many questions (1-{MAX_COUNT}, default 10)",
    )
    @app_commands.choices(difficulty=[app_commands.Choice(name=d, value=d) for d in DIFFICULTIES])
    @app_commands.autocomplete(pack=pack_names, topic=topic_names)
    async def start(
        interaction: Interaction,
        pack: str | None = None,
        topic: str | None = None,
        difficulty: app_commands.Choice[str] | None = None,
        count: app_commands.Range[int, 1, MAX_COUNT] | None = None,
    ) -> None:
        level = difficulty.value if difficulty is not None else None
        await handler.command(
            interaction,
            lambda actor: service.start(actor, pack=pack, topic=topic, difficulty=level, count=count),
        )

    @quiz.command(name="answer", description="Answer the current short or code question in a form")
    async def answer(interaction: Interaction) -> None:
        await handler.command(interaction, service.answer_form)

    @quiz.command(name="hint", description="A hint for the current question")
    async def hint(interaction: Interaction) -> None:
        await handler.command(interaction, service.hint)

    @quiz.command(name="skip", description="Skip the current question")
    async def skip(interaction: Interaction) -> None:
        await handler.command(interaction, service.skip)

    @quiz.command(name="stop", description="Stop your quiz and see the summary")
    async def stop(interaction: Interaction) -> None:
        await handler.command(interaction, service.stop)

    @quiz.command(name="run", description="Run Python (PyTorch available) in the sandbox and see its output")
    @app_commands.describe(
        code="One line of Python; leave empty to get a form for longer code", file="A .py file to run"
    )
    async def run(
        interaction: Interaction, code: str | None = None, file: discord.Attachment | None = None
    ) -> None:
        if file is not None:
            await handler.command(interaction, lambda actor: handler.run_file(actor, file), slow=True)
        elif code:
            await handler.command(interaction, lambda actor: service.run_code(actor, code), slow=True)
        else:
            await handler.open_form(interaction, RUN_FORM_ID, "Run Python", "Python code")

    @quiz.command(name="stats", description="Attempts, accuracy by topic, streak and reviews due")
    @app_commands.describe(user="Someone else's progress (default: yours)")
    async def stats(interaction: Interaction, user: discord.User | None = None) -> None:
        async def call(actor: Actor) -> Reply:
            if user is None:
                return await service.stats(actor)
            return await service.stats(actor, user_id=str(user.id), name=user.display_name)

        await handler.command(interaction, call)

    @quiz.command(name="packs", description="The packs and topics enabled here")
    async def packs(interaction: Interaction) -> None:
        await handler.command(interaction, service.packs)

    @quiz.command(name="help", description="How to use QuizBot")
    async def help_(interaction: Interaction) -> None:
        async def call(actor: Actor) -> Reply:
            return service.help()

        await handler.command(interaction, call)

    @pack_group.command(
        name="load", description="Load or update a pack from an attached .yaml or .zip (admins)"
    )
    @app_commands.describe(
        file="The pack: a .yaml file or a .zip of its folder",
        force="Replace even if the version is not higher",
    )
    async def load(interaction: Interaction, file: discord.Attachment, force: bool = False) -> None:
        await handler.command(interaction, lambda actor: handler.load_pack(actor, file, force), slow=True)

    @pack_group.command(name="enable", description="Enable a pack in this server (admins)")
    @app_commands.autocomplete(pack=all_pack_names)
    async def enable(interaction: Interaction, pack: str) -> None:
        await handler.command(interaction, lambda actor: service.set_enabled(actor, pack, True))

    @pack_group.command(name="disable", description="Disable a pack in this server (admins)")
    @app_commands.autocomplete(pack=all_pack_names)
    async def disable(interaction: Interaction, pack: str) -> None:
        await handler.command(interaction, lambda actor: service.set_enabled(actor, pack, False))

    return quiz
