"""The one `/quiz` command group: each subcommand turns its options into one core request."""

from __future__ import annotations

from typing import Any
from zoneinfo import available_timezones

import discord
from discord import app_commands

from bot.core import queries as q
from bot.core import requests as rq
from bot.core.i18n import LANGUAGES, _, use_locale
from bot.core.packs import DIFFICULTIES
from bot.core.race import (
    PERIODS,
    ROUNDS_DEFAULT,
    ROUNDS_MAX,
    ROUNDS_MIN,
    SECONDS_DEFAULT,
    SECONDS_MAX,
    SECONDS_MIN,
)

from .api import L_
from .inbound import Inbound
from .origin import RUN_FORM_ID, note_language

Interaction = discord.Interaction[Any]


def build_quiz_group(inbound: Inbound) -> app_commands.Group:
    """Return `/quiz` with its subcommands and the `/quiz pack` admin group, bound to `inbound`."""
    service = inbound.service
    quiz = app_commands.Group(
        name="quiz", description=L_("Practise with quizzes and code exercises, and see your progress")
    )
    pack_group = app_commands.Group(
        name="pack", description=L_("Load, enable, disable or remove question packs (admins)"), parent=quiz
    )
    data_group = app_commands.Group(
        name="my-data", description=L_("Get a copy of everything kept about you, or delete it"), parent=quiz
    )

    async def pack_names(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        async def names(scope: str) -> list[str]:
            return await service.ask(q.PackNames(scope))

        return await inbound.complete(interaction, current, names)

    async def all_pack_names(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        async def names(scope: str) -> list[str]:  # enabled or disabled here; another server's only once switched here
            return await service.ask(q.ListedPackNames(scope))

        return await inbound.complete(interaction, current, names)

    async def topic_names(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        pack = getattr(interaction.namespace, "pack", None)

        async def names(scope: str) -> list[str]:
            return await service.ask(q.TopicNames(scope, pack or None))

        return await inbound.complete(interaction, current, names)

    @quiz.command(name="start", description=L_("Start a personal quiz: one question at a time, feedback after each"))
    @app_commands.describe(
        pack=L_("Which pack (default: every pack enabled here)"),
        topic=L_("Only this topic"),
        difficulty=L_("Only this difficulty"),
        count=L_("How many questions (1-{most}, default {default})", most=rq.MAX_COUNT, default=rq.DEFAULT_COUNT),
        language=L_("Only packs written in this language (a code such as en, es, de)"),
    )
    @app_commands.choices(difficulty=[app_commands.Choice(name=d, value=d) for d in DIFFICULTIES])
    @app_commands.autocomplete(pack=pack_names, topic=topic_names)
    async def start(
        interaction: Interaction,
        pack: str | None = None,
        topic: str | None = None,
        difficulty: app_commands.Choice[str] | None = None,
        count: app_commands.Range[int, 1, rq.MAX_COUNT] | None = None,
        language: app_commands.Range[str, 2, 35] | None = None,
    ) -> None:
        level = difficulty.value if difficulty is not None else None
        await inbound.handle(interaction, rq.Start(pack=pack, topic=topic, difficulty=level, count=count, language=language))

    @quiz.command(name="answer", description=L_("Answer the current short or code question in a form"))
    async def answer(interaction: Interaction) -> None:
        await inbound.handle(interaction, rq.OpenAnswer())

    @quiz.command(name="current", description=L_("Show your current question again, with working buttons"))
    async def current(interaction: Interaction) -> None:
        await inbound.handle(interaction, rq.Current())

    @quiz.command(name="hint", description=L_("A hint for the current question"))
    async def hint(interaction: Interaction) -> None:
        await inbound.handle(interaction, rq.Hint())

    @quiz.command(name="skip", description=L_("Skip the current question"))
    async def skip(interaction: Interaction) -> None:
        await inbound.handle(interaction, rq.Skip(key=str(interaction.id)))  # delivered twice: skips once

    @quiz.command(name="stop", description=L_("Stop your quiz and see the summary"))
    async def stop(interaction: Interaction) -> None:
        await inbound.handle(interaction, rq.Stop(key=str(interaction.id)))

    @quiz.command(name="run", description=L_("Run Python (PyTorch available) in the sandbox and see its output"))
    @app_commands.describe(
        code=L_("One line of Python; leave empty to get a form for longer code"), file=L_("A .py file to run")
    )
    async def run(interaction: Interaction, code: str | None = None, file: discord.Attachment | None = None) -> None:
        if file is not None:
            await inbound.handle(interaction, inbound.run_file(file))
        elif code:
            await inbound.handle(interaction, rq.RunCode(code))
        else:
            with use_locale(await note_language(service, interaction)):
                await inbound.open_form(interaction, RUN_FORM_ID, _("Run Python"), _("Python code"))

    @quiz.command(name="stats", description=L_("Attempts, accuracy by topic, streak and reviews due"))
    @app_commands.describe(user=L_("Someone else's progress (default: yours)"))
    async def stats(interaction: Interaction, user: discord.User | None = None) -> None:
        request = rq.Stats() if user is None else rq.Stats(user_id=str(user.id), name=user.display_name)
        await inbound.handle(interaction, request)

    @quiz.command(name="packs", description=L_("The packs and topics enabled here"))
    @app_commands.describe(language=L_("Only packs written in this language (a code such as en, es, de)"))
    async def packs(interaction: Interaction, language: app_commands.Range[str, 2, 35] | None = None) -> None:
        await inbound.handle(interaction, rq.Packs(language=language))

    @quiz.command(name="language", description=L_("Your language for QuizBot's replies; admins: the server's, with server:True"))
    @app_commands.describe(
        code=L_("en, es or de; auto follows your Discord language; leave empty to see what is in use"),
        server=L_("Admins: set the server's language for public posts (daily question, races, leaderboards)"),
    )
    @app_commands.choices(code=[app_commands.Choice(name=c, value=c) for c in (*LANGUAGES, "auto")])
    async def language(interaction: Interaction, code: app_commands.Choice[str] | None = None, server: bool = False) -> None:
        await inbound.handle(interaction, rq.Language(code=code.value if code is not None else None, server=server))

    @quiz.command(name="help", description=L_("How to use QuizBot"))
    async def help_(interaction: Interaction) -> None:
        await inbound.handle(interaction, rq.Help())

    @pack_group.command(name="load", description=L_("Load or update a pack from an attached .yaml or .zip (admins)"))
    @app_commands.describe(
        file=L_("The pack (.yaml or .zip), or a Moodle XML, GIFT, CSV, Anki, Red or OpenTDB file to convert"),
        force=L_("Replace even if the version is not higher"),
    )
    async def load(interaction: Interaction, file: discord.Attachment, force: bool = False) -> None:
        await inbound.handle(interaction, inbound.pack_load(file, force), working=rq.LOADING)

    @pack_group.command(name="enable", description=L_("Enable a pack in this server (admins)"))
    @app_commands.autocomplete(pack=all_pack_names)
    async def enable(interaction: Interaction, pack: str) -> None:
        await inbound.handle(interaction, rq.PackEnable(pack, True))

    @pack_group.command(name="disable", description=L_("Disable a pack in this server (admins)"))
    @app_commands.autocomplete(pack=all_pack_names)
    async def disable(interaction: Interaction, pack: str) -> None:
        await inbound.handle(interaction, rq.PackEnable(pack, False))

    @pack_group.command(name="remove", description=L_("Remove a pack everywhere; learners' history is kept (admins)"))
    @app_commands.autocomplete(pack=all_pack_names)
    async def remove(interaction: Interaction, pack: str) -> None:
        await inbound.handle(interaction, rq.PackRemove(pack))

    @data_group.command(name="export", description=L_("Get a JSON file of everything QuizBot keeps about you"))
    @app_commands.describe(user=L_("Admins: someone else's data (a learner who left)"))
    async def data_export(interaction: Interaction, user: discord.User | None = None) -> None:
        target = (str(user.id), user.display_name) if user is not None else (None, None)
        await inbound.handle(interaction, rq.MyDataExport(*target))

    @data_group.command(name="delete", description=L_("Delete everything QuizBot keeps about you (asks first)"))
    @app_commands.describe(user=L_("Admins: someone else's data (a learner who left)"))
    async def data_delete(interaction: Interaction, user: discord.User | None = None) -> None:
        target = (str(user.id), user.display_name) if user is not None else (None, None)
        await inbound.handle(interaction, rq.MyDataDelete(*target))

    @quiz.command(name="report", description=L_("Item analysis and class progress of a pack in this server (admins)"))
    @app_commands.describe(
        pack=L_("Which pack (default: the one enabled here, when there is one)"),
        topic=L_("Only this topic's items"),
        since=L_("Only attempts from this day on: YYYY-MM-DD, or 30d for the last 30 days"),
    )
    @app_commands.autocomplete(pack=all_pack_names, topic=topic_names)
    async def report(
        interaction: Interaction, pack: str | None = None, topic: str | None = None, since: str | None = None
    ) -> None:
        await inbound.handle(interaction, rq.Report(pack=pack, topic=topic, since=since))

    add_social_commands(quiz, inbound, pack_names, topic_names)
    add_daily_commands(quiz, inbound, pack_names, topic_names)
    return quiz


Complete = Any  # an autocomplete callback of the group above


def add_social_commands(quiz: app_commands.Group, inbound: Inbound, pack_names: Complete, topic_names: Complete) -> None:
    """Add `/quiz race start|stop`, `/quiz leaderboard` and `/quiz privacy` to `/quiz`.

    Races are a group (`start`, `stop`): Discord cannot have a `race` subcommand beside a `race` group.
    A race start and its stop are public in the channel; answers and errors are private.
    """
    race_group = app_commands.Group(name="race", description=L_("A race in this channel: everyone answers the same items"), parent=quiz)

    @race_group.command(name="start", description=L_("Start a race in this channel; members join by answering"))
    @app_commands.describe(
        pack=L_("Which pack (default: every pack enabled here)"),
        topic=L_("Only this topic"),
        difficulty=L_("Only this difficulty"),
        rounds=L_("How many rounds ({least}-{most}, default {default})", least=ROUNDS_MIN, most=ROUNDS_MAX, default=ROUNDS_DEFAULT),
        seconds=L_(
            "Seconds per round ({least}-{most}, default {default})", least=SECONDS_MIN, most=SECONDS_MAX, default=SECONDS_DEFAULT
        ),
    )
    @app_commands.choices(difficulty=[app_commands.Choice(name=d, value=d) for d in DIFFICULTIES])
    @app_commands.autocomplete(pack=pack_names, topic=topic_names)
    async def race_start(
        interaction: Interaction,
        pack: str | None = None,
        topic: str | None = None,
        difficulty: app_commands.Choice[str] | None = None,
        rounds: app_commands.Range[int, ROUNDS_MIN, ROUNDS_MAX] | None = None,
        seconds: app_commands.Range[int, SECONDS_MIN, SECONDS_MAX] | None = None,
    ) -> None:
        level = difficulty.value if difficulty is not None else None
        request = rq.RaceStart(pack=pack, topic=topic, difficulty=level, rounds=rounds, seconds=seconds)
        await inbound.handle(interaction, request)

    @race_group.command(name="stop", description=L_("Stop this channel's race (its starter or an admin)"))
    async def race_stop(interaction: Interaction) -> None:
        await inbound.handle(interaction, rq.RaceStop())

    @quiz.command(name="leaderboard", description=L_("This server's leaderboard by points and by accuracy"))
    @app_commands.describe(period=L_("This week (default), this month or all time"), pack=L_("Only this pack"))
    @app_commands.choices(period=[app_commands.Choice(name=p, value=p) for p in PERIODS])
    @app_commands.autocomplete(pack=pack_names)
    async def leaderboard(
        interaction: Interaction, period: app_commands.Choice[str] | None = None, pack: str | None = None
    ) -> None:
        await inbound.handle(interaction, rq.Leaderboard(period=period.value if period else None, pack=pack))

    @quiz.command(name="privacy", description=L_("Show or hide yourself on leaderboards"))
    @app_commands.describe(leaderboard=L_("on: you are shown; off: you are hidden"))
    @app_commands.choices(leaderboard=[app_commands.Choice(name=w, value=w) for w in ("on", "off")])
    async def privacy(interaction: Interaction, leaderboard: app_commands.Choice[str]) -> None:
        await inbound.handle(interaction, rq.Privacy(visible=leaderboard.value == "on"))



def add_daily_commands(quiz: app_commands.Group, inbound: Inbound, pack_names: Complete, topic_names: Complete) -> None:
    """Add `/quiz daily` (the review, and with `action:` the channel's schedule and settings) and `/quiz remind`.

    Discord cannot run a command group itself, so `/quiz daily` is one command whose `action`
    option picks set, show, off, now or settings; without it, it starts today's review.
    """

    async def zone_names(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        async def names(scope: str) -> list[str]:
            return time_zone_names(current)

        return await inbound.complete(interaction, current, names)

    @quiz.command(name="daily", description=L_("Today's review; admins set the channel's daily question with action"))
    @app_commands.describe(
        action=L_("Leave empty for today's review; set/show/off/now for the channel's daily question; settings for yours"),
        channel=L_("The channel of the daily question (default: this one)"),
        time=L_("HH:MM, 24-hour, local time of the time zone"),
        timezone=L_("An IANA time zone, such as Europe/Berlin"),
        pack=L_("Only this pack"), topic=L_("Only this topic"), difficulty=L_("Only this difficulty"),
        reveal_after_hours=L_("Reveal the answer this many hours after posting (default: at the next post)"),
        reviews=L_("Your daily review cap"), new=L_("Your daily cap of new items"),
    )
    @app_commands.choices(
        action=[app_commands.Choice(name=a, value=a) for a in ("set", "show", "off", "now", "settings")],
        difficulty=[app_commands.Choice(name=d, value=d) for d in DIFFICULTIES],
    )
    @app_commands.autocomplete(pack=pack_names, topic=topic_names, timezone=zone_names)
    async def daily(
        interaction: Interaction,
        action: app_commands.Choice[str] | None = None,
        channel: app_commands.AppCommandChannel | None = None,
        time: str | None = None,
        timezone: str | None = None,
        pack: str | None = None,
        topic: str | None = None,
        difficulty: app_commands.Choice[str] | None = None,
        reveal_after_hours: app_commands.Range[float, 0.01, 23.0] | None = None,
        reviews: app_commands.Range[int, 0, 500] | None = None,
        new: app_commands.Range[int, 0, 100] | None = None,
    ) -> None:
        what = action.value if action is not None else None
        channel_id = str(channel.id) if channel is not None else None
        request: rq.Request
        if what is None:
            request = rq.DailyReview()
        elif what == "set":
            request = rq.DailySet(
                time=time or "", timezone=timezone or "", channel_id=channel_id, pack=pack, topic=topic,
                difficulty=difficulty.value if difficulty is not None else None,
                reveal_after_hours=f"{reveal_after_hours:g}" if reveal_after_hours is not None else None,
            )
        elif what == "show":
            request = rq.DailyShow(channel_id)
        elif what == "off":
            request = rq.DailyOff(channel_id)
        elif what == "now":
            request = rq.DailyNow(channel_id)
        else:
            request = rq.DailySettings(reviews=reviews, new=new, timezone=timezone, packs=(pack,) if pack else None)
        await inbound.handle(interaction, request)

    @quiz.command(name="remind", description=L_("A direct message each day when reviews are due (time:off stops it)"))
    @app_commands.describe(time=L_("HH:MM, 24-hour; or off"), timezone=L_("An IANA time zone, such as Europe/Berlin"))
    @app_commands.autocomplete(timezone=zone_names)
    async def remind(interaction: Interaction, time: str, timezone: str | None = None) -> None:
        if time.strip().lower() == "off":
            await inbound.handle(interaction, rq.RemindOff())
        else:
            await inbound.handle(interaction, rq.Remind(time=time, timezone=timezone or ""))


def time_zone_names(current: str) -> list[str]:
    """Time zone names containing what was typed so far, for autocomplete."""
    needle = current.strip().casefold()[:64]
    return sorted(n for n in available_timezones() if needle in n.casefold() and "/" in n)[:25]
