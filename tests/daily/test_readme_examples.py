"""The documentation's daily-practice examples, made by the real code and compared with the pages.

Each example is a fenced block in a page under docs/ (today docs/learners/daily.md and
docs/admins/daily-question.md) under a marker such as `<!-- example: daily-post -->`.
This module plays a study server through the real core, scheduler and storage with a fake clock and
fixed data, renders each message the way a front end does (the body with the terminal's rich
renderer on a fixed-width console without colour, the buttons and menus as Discord's renderer lays
them out; the reminder also as the Slack Block Kit it is sent as), and compares it with the pages.
When the code changes a message, regenerate the blocks in place:

    QUIZBOT_WRITE_EXAMPLES=1 pytest tests/daily/test_readme_examples.py
"""

from __future__ import annotations

import difflib
import io
import json
import os
import re
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from rich.console import Console
from sqlalchemy import and_, select, update

from bot.adapters.console.render import render_message
from bot.adapters.discord.render import render as discord_render
from bot.adapters.slack.render import message_blocks
from bot.core import requests as rq
from bot.core.daily.cards import LEECH_FAILURES
from bot.core.daily.channel import DailyPost
from bot.core.daily.streak import Streak
from bot.core.errors import QuizError
from bot.core.model import Actor
from bot.core.replies import Button, Message, Reply, Text, spell_commands
from bot.core.service import error_reply
from bot.scheduler import DeliveryFailed
from bot.storage import SqlRepository
from bot.storage import tables as t
from tests.daily.support import FakePoster, add_cards
from tests.daily.wired import wire
from tests.fakes import FakeClock, LocalRunner

DOCS = Path(__file__).parents[2] / "docs"
WIDTH = 76
MARKER = re.compile(r"<!-- example: (?P<name>[a-z0-9-]+) -->\n```(?P<lang>[a-z]*)\n(?P<body>.*?)```", re.S)
REGENERATE = "QUIZBOT_WRITE_EXAMPLES=1 pytest tests/daily/test_readme_examples.py"

CHANNEL = "pytorch-study"
ADA = Actor("discord", "g1", "ada", "Ada", is_admin=True, channel_id=CHANNEL)
MEMBERS = [Actor("discord", "g1", f"m{i}", name, channel_id=CHANNEL) for i, name in enumerate(["Ann", "Bo", "Cy", "Dee"])]
ANN, BO, CY, DEE = MEMBERS


class Poster(FakePoster):
    """The platform in memory; the channel #old-study answers as Discord does for a channel deleted after the schedule was set."""

    async def post_item(self, post: DailyPost, message: Message) -> str:
        if post.channel_id == "old-study":
            raise DeliveryFailed("404 Unknown Channel")
        return await super().post_item(post, message)


def controls_line(message: Message) -> list[str]:
    """The message's buttons and menus as Discord's renderer lays them out: one line per row."""
    view = discord_render(message).view
    if view is None:
        return []
    lines = []
    for row in view.to_components():  # Discord's component JSON, one action row each
        shown = []
        for item in row["components"]:  # a button has a label, a menu a placeholder
            text = f"[ {item['label']} ]" if "label" in item else f"[ {item['placeholder']} ▾ ]"
            shown.append(text + (" (disabled)" if item["disabled"] else ""))
        lines.append(" ".join(shown))
    return lines


def screen(message: Message, *, private: bool = False) -> str:
    """One message as the reader would see it: the box, then its controls."""
    console = Console(width=WIDTH, record=True, color_system=None, highlight=False, file=io.StringIO())
    # The terminal prints its own typing hints under an item; Discord and Slack show the controls instead.
    # Commands named in the text are spelt as on Slack and Discord (`/quiz daily set`), not the terminal's.
    parts = tuple(
        replace(p, markdown=spell_commands(p.markdown, lambda name: f"/quiz {name}")) if isinstance(p, Text) else p
        for p in message.parts
    )
    render_message(console, replace(message, rows=(), parts=parts))
    lines = [line.rstrip() for line in console.export_text().splitlines()]
    lines += ["  " + line for line in controls_line(message)]
    if private:
        lines.append("  (only you can see this)")
    return "\n".join(lines)


def reply_screen(reply: Reply) -> str:
    return "\n".join(screen(m, private=reply.private) for m in reply.messages)


async def refused(call: Any) -> str:
    try:
        await call
    except QuizError as exc:
        return reply_screen(error_reply(exc))
    raise AssertionError("expected a refusal")


def typed(command: str, shown: str, who: str = "") -> str:
    return f"{command}{'   (' + who + ')' if who else ''}\n{shown}"


def button(message: Message, label: str) -> Button:
    return next(c for c in message.controls() if isinstance(c, Button) and c.label == label)


async def examples(repository: SqlRepository, tmp_path: Path) -> dict[str, str]:
    """Play a study server's day with the real code; return each docs example's text."""
    clock = FakeClock(datetime(2026, 12, 3, 6, 0, tzinfo=UTC))  # 07:00 in Berlin, Thursday 3 December
    wired = await wire(repository, clock, LocalRunner(), tmp_path)
    service, scheduler = wired.service, wired.scheduler
    poster = Poster()
    await wired.posters.add("discord", poster)
    out: dict[str, str] = {}

    # The admin sets the channel's daily question; bad input is refused privately.
    out["daily-set"] = typed(
        f"/quiz daily set time:09:00 timezone:Europe/Berlin pack:study reveal_after_hours:8   (in #{CHANNEL})",
        reply_screen(await service.handle(ADA, rq.DailySet(time="09:00", timezone="Europe/Berlin", pack="study", reveal_after_hours="8"))),
    )
    out["daily-refusals"] = "\n\n".join(
        [
            typed("/quiz daily set time:9am timezone:Europe/Berlin",
                  await refused(service.handle(ADA, rq.DailySet(time="9am", timezone="Europe/Berlin")))),
            typed("/quiz daily set time:09:00 timezone:Europe/Berln",
                  await refused(service.handle(ADA, rq.DailySet(time="09:00", timezone="Europe/Berln")))),
            typed("/quiz daily set time:09:00 timezone:Europe/Berlin",
                  await refused(service.handle(ANN, rq.DailySet(time="09:00", timezone="Europe/Berlin"))), "a member, not an admin"),
            typed("/quiz daily show",
                  await refused(service.handle(replace(ADA, channel_id="general"), rq.DailyShow(channel_id="general"))), "in #general"),
        ]
    )

    # 09:00 in Berlin: the scheduler posts the day's item.
    clock.current = datetime(2026, 12, 3, 8, 0, tzinfo=UTC)
    await scheduler.tick()
    [(_, _, post_message)] = poster.of("post")
    out["daily-post"] = screen(post_message)
    [post] = await wired.scheduler._store.open_posts("discord", CHANNEL)
    right, wrong = button(post_message, "A"), button(post_message, "B")

    # Members answer privately.
    clock.advance(seconds=40)
    answers = [
        reply_screen(await service.handle(ANN, rq.Act(right.action))),
        reply_screen(await service.handle(BO, rq.Act(wrong.action))),
        reply_screen(await service.handle(BO, rq.Act(wrong.action))),
        await refused(service.handle(ANN, rq.Act(right.action))),
    ]
    await service.handle(CY, rq.Act(right.action))
    out["daily-answers"] = "\n".join(
        [f"Ann presses A:\n{answers[0]}", f"Bo presses B:\n{answers[1]}", f"Bo presses B again:\n{answers[2]}",
         f"Ann presses A again:\n{answers[3]}"]
    )
    clock.advance(seconds=5)
    await scheduler.tick()
    out["daily-tally"] = screen(poster.of("edit")[-1][2])

    # Eight hours after posting: the post closes and the answer follows.
    clock.current = datetime(2026, 12, 3, 16, 0, tzinfo=UTC)
    await scheduler.tick()
    closed, reveal = poster.of("edit")[-1][2], poster.of("reveal")[-1][2]
    out["daily-reveal"] = screen(closed) + "\n" + screen(reveal)
    out["daily-closed"] = typed("Dee presses A after the reveal:", await refused(service.handle(DEE, rq.Act(right.action))))
    now_again = typed("/quiz daily now", reply_screen(await service.handle(ADA, rq.DailyNow())))
    assert closed.session_id == post.id and reveal.session_id == post.id

    # A channel the bot can no longer post in: the schedule pauses and its admin is told once.
    gone = replace(ADA, channel_id="old-study")
    await service.handle(gone, rq.DailySet(time="17:30", timezone="Europe/Berlin"))
    clock.current = datetime(2026, 12, 3, 16, 30, tzinfo=UTC)
    await scheduler.tick()
    [(_, to, paused)] = poster.of("dm")
    assert to == "ada"
    out["daily-paused"] = screen(paused)
    out["daily-show"] = typed("/quiz daily show", reply_screen(await service.handle(gone, rq.DailyShow())))
    off = typed("/quiz daily off   (in #old-study)", reply_screen(await service.handle(gone, rq.DailyOff())))
    out["daily-now-off"] = now_again + "\n\n" + off
    await service.handle(DEE, rq.DailySettings(new=0, timezone="Europe/Berlin"))
    await add_cards(repository, "discord", "m3", ["q-short"], datetime(2026, 12, 5, 17, 30, tzinfo=UTC))
    out["daily-review-nothing"] = typed("/quiz daily", reply_screen(await service.handle(DEE, rq.DailyReview())), "nothing due")

    # A learner's daily review, its settings, the reminder, stats. Bo's history: cards due, two of them
    # mastered, a leech, a streak of 11 days up to yesterday with a freeze held.
    store = wired.scheduler._store
    await add_cards(repository, "discord", "m1", ["q-short", "q-choice", "q-blanks"], clock.now() - timedelta(hours=3))
    await add_cards(repository, "discord", "m1", ["q-multi", "q-code"], clock.now() + timedelta(days=40))
    await make_stable(repository, "m1", ["q-multi", "q-code"])
    await store.save_card_failures("discord", "m1", ("demo", "q-blanks"), LEECH_FAILURES, True)
    bo = await store.get_learner("discord", "m1")
    await store.save_learner(replace(bo, streak=Streak(current=12, longest=30, freezes=1, last_day=date(2026, 12, 3))))
    out["daily-review-settings"] = typed("/quiz daily settings reviews:30 new:2 timezone:Europe/Berlin",
                                   reply_screen(await service.handle(BO, rq.DailySettings(30, 2, "Europe/Berlin", ("demo",)))))
    await service.handle(DEE, rq.Remind("20:00", "Europe/Berlin"))
    out["daily-remind"] = "\n\n".join([
        typed("/quiz remind time:08:00 timezone:Europe/Berlin", reply_screen(await service.handle(BO, rq.Remind("08:00", "Europe/Berlin")))),
        typed("/quiz remind off", reply_screen(await service.handle(DEE, rq.RemindOff())), "Discord: /quiz remind time:off"),
    ])
    clock.current = datetime(2026, 12, 4, 7, 0, tzinfo=UTC)  # 08:00 on Friday in Berlin
    await scheduler.tick()
    [(_, to, reminder)] = [c for c in poster.of("dm") if c[1] == "m1"]
    out["daily-reminder"] = screen(reminder)
    out["daily-reminder-slack"] = "[\n" + ",\n".join(f"  {json.dumps(b, ensure_ascii=False)}" for b in message_blocks(reminder)) + "\n]"
    started = await service.handle(BO, rq.Act(button(reminder, "Start").action))
    out["daily-review"] = typed("Bo presses Start (or types /quiz daily):", reply_screen(started))
    # A card failed for the 8th time becomes a leech, said under the feedback.
    await add_cards(repository, "discord", "m3", ["q-choice"], clock.now() - timedelta(hours=2))
    await store.save_card_failures("discord", "m3", ("demo", "q-choice"), LEECH_FAILURES - 1, False)
    first = next(m for m in (await service.handle(DEE, rq.DailyReview())).messages if m.kind == "item")
    wrong_choice = next(c for c in first.controls() if isinstance(c, Button) and c.text == "`track=True`")
    failed = await service.handle(DEE, rq.Act(wrong_choice.action))
    out["daily-leech"] = screen(failed.messages[-1], private=failed.private)
    stats = await service.handle(BO, rq.Stats())
    out["daily-stats"] = typed("/quiz stats", screen(stats.messages[-1], private=stats.private), "Bo")
    return out


async def make_stable(repository: SqlRepository, user_id: str, questions: list[str]) -> None:
    """Give the learner's cards an FSRS stability of 40 days: mastered (above 21)."""
    r = t.reviews.c
    async with repository.engine.begin() as c:
        for row in (await c.execute(select(r.question_id, r.card).where(r.user_id == user_id))).all():
            if row.question_id in questions:
                card = json.loads(row.card)
                card["stability"] = 40.0
                await c.execute(
                    update(t.reviews)
                    .where(and_(r.user_id == user_id, r.question_id == row.question_id))
                    .values(card=json.dumps(card))
                )


def blocks(text: str) -> dict[str, re.Match[str]]:
    return {m["name"]: m for m in MARKER.finditer(text)}


def pages() -> dict[Path, str]:
    return {path: path.read_text(encoding="utf-8") for path in sorted(DOCS.rglob("*.md"))}


def found_blocks(texts: dict[Path, str]) -> dict[str, tuple[Path, re.Match[str]]]:
    """Every example block of the docs by name, with its page; a name on two pages is an error."""
    found: dict[str, tuple[Path, re.Match[str]]] = {}
    for path, text in texts.items():
        for name, match in blocks(text).items():
            assert name not in found, f"the example {name} is on both {found[name][0]} and {path}"
            found[name] = (path, match)
    return found


async def test_the_docs_examples_are_what_the_code_shows(repository: SqlRepository, tmp_path: Path) -> None:
    made = await examples(repository, tmp_path)
    texts = pages()
    found = found_blocks(texts)
    if os.environ.get("QUIZBOT_WRITE_EXAMPLES") == "1":
        missing = sorted(made.keys() - found.keys())
        assert not missing, f"docs/ has no `<!-- example: NAME -->` block for {missing}: add one, then run again"
        for path, text in texts.items():
            here = blocks(text)
            for name in sorted(here, key=lambda n: here[n].start(), reverse=True):
                if name in made:
                    m = here[name]
                    text = text[: m.start("body")] + made[name] + "\n" + text[m.end("body") :]
            if text != texts[path]:
                path.write_text(text, encoding="utf-8")
        texts = pages()
        found = found_blocks(texts)
    stale = sorted(name for name in made if name not in found or found[name][1]["body"] != made[name] + "\n")
    unknown = sorted(name for name in found.keys() - made.keys() if name.startswith("daily-"))
    diffs = "".join(
        line
        for name in stale
        for line in difflib.unified_diff(
            found[name][1]["body"].splitlines(keepends=True) if name in found else [],
            (made[name] + "\n").splitlines(keepends=True),
            f"{found[name][0].relative_to(DOCS.parent)} {name}" if name in found else f"docs/ {name}",
            "the code",
        )
    )
    assert not stale, f"the docs' examples {stale} differ from what the code shows; regenerate them: {REGENERATE}\n{diffs}"
    assert not unknown, f"docs/ has example blocks no test makes: {unknown}"


async def spanish_examples(repository: SqlRepository, tmp_path: Path) -> dict[str, str]:
    """The daily question's post and private answers on a server whose admins chose Spanish."""
    clock = FakeClock(datetime(2026, 12, 3, 6, 0, tzinfo=UTC))
    wired = await wire(repository, clock, LocalRunner(), tmp_path)
    service, scheduler = wired.service, wired.scheduler
    poster = Poster()
    await wired.posters.add("discord", poster)
    chosen = await service.handle(ADA, rq.Language("es", server=True))
    await service.handle(ADA, rq.DailySet(time="09:00", timezone="Europe/Berlin", pack="study", reveal_after_hours="8"))
    clock.current = datetime(2026, 12, 3, 8, 0, tzinfo=UTC)
    await scheduler.tick()
    [(_, _, post_message)] = poster.of("post")
    right, wrong = button(post_message, "A"), button(post_message, "B")
    spanish_ann, german_bo = replace(ANN, locale="es-ES"), replace(BO, locale="de")
    answers = [
        reply_screen(await service.handle(spanish_ann, rq.Act(right.action))),
        reply_screen(await service.handle(german_bo, rq.Act(wrong.action))),
    ]
    return {
        "es-daily-post": typed("/quiz language server es", reply_screen(chosen), "an admin") + "\n\n" + screen(post_message),
        "es-daily-answers": f"Ann (Discord in Spanish) presses A:\n{answers[0]}\nBo (Discord in German) presses B:\n{answers[1]}",
    }


async def test_the_daily_examples_exist_in_spanish_too(repository: SqlRepository, tmp_path: Path) -> None:
    made = await spanish_examples(repository, tmp_path)
    page = DOCS / "learners" / "language.md"
    text = page.read_text(encoding="utf-8")
    if os.environ.get("QUIZBOT_WRITE_EXAMPLES") == "1":
        here = blocks(text)
        for name in sorted(here, key=lambda n: here[n].start(), reverse=True):
            if name in made:
                text = text[: here[name].start("body")] + made[name] + "\n" + text[here[name].end("body") :]
        page.write_text(text, encoding="utf-8")
    found = blocks(text)
    assert sorted(found) == sorted(made), f"docs/learners/language.md needs the blocks {sorted(made)}"
    stale = [name for name in made if found[name]["body"] != made[name] + "\n"]
    assert not stale, f"the Spanish examples {stale} differ from what the code shows; regenerate them: {REGENERATE}"
