"""Input Discord should never send, or a hostile or confused person makes up: a private note, one log line.

A form the bot never opened, an option whose type or value is not the registered command's (a
registration older or newer than the code), autocomplete for an option that has none, and an
interaction that names no user. Each is answered where the person is looking, changes nothing,
logs one line without a traceback, and the bot goes on serving the next interaction.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from . import payloads as p
from .conftest import Harness, components

EPHEMERAL = 1 << 6
UPDATED = "The bot's commands were just updated; please try again in a minute."
APOLOGY = "Sorry, something went wrong on our side. Please try again in a moment."


def tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.exc_info is not None or r.levelno >= logging.ERROR]


def said(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Every WARNING-or-worse line, the bot's and discord.py's."""
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and r.name.startswith(("bot.", "discord."))]


def opt(name: str, kind: int, value: Any) -> dict[str, Any]:
    return {"name": name, "type": kind, "value": value}


async def still_serving(bot: Harness) -> None:
    """Nothing was started or changed, and the next interaction is answered as usual."""
    current = await bot.command(p.ALICE, "current")
    assert "You have no quiz running" in current.text(), current.text()
    assert "/quiz start" in (await bot.command(p.ALICE, "help")).text()
    bot.assert_all_acknowledged()


@pytest.mark.parametrize("custom_id", ["", "garbage", "x" * 100, "qzp:abc:1"])
async def test_a_form_the_bot_never_opened_is_answered_privately(
    bot: Harness, caplog: pytest.LogCaptureFixture, custom_id: str
) -> None:
    caplog.set_level(logging.INFO)
    answer = await bot.submit(p.ALICE, custom_id, "print('hi')")
    assert len(answer.callbacks) == 1, "the form was left without an answer: Discord shows an error"
    assert answer.kind == 4 and answer.data["flags"] & EPHEMERAL
    assert "not one of this bot's" in answer.text()
    assert tracebacks(caplog) == []
    await still_serving(bot)


@pytest.mark.parametrize(
    ("sub", "options"),
    [
        ("start", [opt("count", 3, "abc")]),  # a string where the command has a number
        ("start", [opt("count", 4, 3.5)]),  # a fraction for a whole number
        ("start", [opt("difficulty", 3, "impossible")]),  # a value not among the choices
        ("privacy", [opt("leaderboard", 3, "maybe")]),
        ("language", [opt("code", 3, "xx")]),
        ("daily", [opt("action", 3, "explode")]),
        ("remind", [opt("time", 5, True)]),  # a boolean for a text
        ("stats", [opt("user", 6, "123")]),  # a user Discord did not resolve
        ("stats", [opt("user", 3, "someone")]),
        ("run", [opt("file", 11, "999")]),  # an attachment Discord did not resolve
    ],
    ids=lambda v: v if isinstance(v, str) else str(v[0]["name"]) + "=" + repr(v[0]["value"])[:12],
)
async def test_an_option_that_does_not_fit_the_command_says_the_commands_changed(
    bot: Harness, caplog: pytest.LogCaptureFixture, sub: str, options: list[dict[str, Any]]
) -> None:
    caplog.set_level(logging.INFO)
    answer = await bot.command(p.ALICE, sub, options)
    assert answer.kind == 4 and answer.data["flags"] & EPHEMERAL
    assert answer.text() == UPDATED
    assert tracebacks(caplog) == []
    lines = said(caplog)
    assert len(lines) == 1 and "does not match the registered commands" in lines[0], lines
    await still_serving(bot)


@pytest.mark.parametrize("focused", ["count", "nonexistent"])
async def test_autocomplete_for_an_option_without_it_gets_no_choices_and_no_traceback(
    bot: Harness, caplog: pytest.LogCaptureFixture, focused: str
) -> None:
    caplog.set_level(logging.INFO)
    answer = await bot.feed(p.interaction(4, p.autocomplete("start", focused, "5"), p.ALICE))
    assert answer.kind == 8 and answer.data["choices"] == []
    assert tracebacks(caplog) == []
    assert len(said(caplog)) == 1, said(caplog)
    names = await bot.feed(p.interaction(4, p.autocomplete("start", "pack", "de"), p.ALICE))
    assert names.data["choices"] == [{"name": "demo", "value": "demo"}]


async def test_autocomplete_with_no_option_focused_gets_no_choices_and_no_traceback(
    bot: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    answer = await bot.feed(p.interaction(4, p.command("start", [opt("pack", 3, "de")]), p.ALICE))
    assert answer.kind == 8 and answer.data["choices"] == []
    assert tracebacks(caplog) == []
    assert len(said(caplog)) == 1, said(caplog)


@pytest.mark.parametrize("kind", [2, 3, 4, 5], ids=["command", "click", "autocomplete", "form"])
async def test_an_interaction_that_names_no_user_is_answered_and_logged_once(
    bot: Harness, caplog: pytest.LogCaptureFixture, kind: int
) -> None:
    item = (await bot.command(p.BOB, "start", [p.option("pack", "demo")])).item()
    hint = next(c["custom_id"] for c in components(item) if c.get("label") == "Hint")
    data = {
        2: p.command("help"),
        3: p.component(hint, 2),
        4: p.autocomplete("start", "pack", "de"),
        5: p.modal_submit(hint, "6"),
    }[kind]
    payload = p.interaction(kind, data, p.ALICE, message=item if kind in (3, 5) else None)
    del payload["member"]  # neither `member` nor `user`
    caplog.clear()
    caplog.set_level(logging.INFO)
    answer = await bot.feed(payload)
    assert len(answer.callbacks) == 1
    if kind == 4:
        assert answer.kind == 8 and answer.data["choices"] == []
    else:
        assert answer.kind == 4 and answer.data["flags"] & EPHEMERAL and APOLOGY in answer.text()
    assert tracebacks(caplog) == []
    assert len(said(caplog)) == 1, said(caplog)
    assert "💡" not in (await bot.command(p.BOB, "current")).text()  # Bob's quiz is as it was
    await still_serving(bot)
