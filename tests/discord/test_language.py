"""QuizBot in Spanish and German on Discord: the client's locale, the learner's choice, the server's posts.

Through discord.py and the fake Discord: a learner whose Discord client is set to Spanish (`es-ES`)
sees a quiz, a code grade, a race and an error in Spanish; a German server sees its daily question in
German; the commands' descriptions reach Discord in both languages.
"""

from __future__ import annotations

from tests.fakes import FakeClock

from . import payloads as p
from .conftest import DailyBot, Harness
from .fake_discord import FakeDiscord
from .test_code import RIGHT
from .test_daily import channel_posts, daily_set, option, private
from .test_race import RaceBot, racing, round_message

__all__ = ["racing"]  # the fixture, used here as in test_race

ES = {"locale": "es-ES"}


async def test_a_spanish_learner_sees_a_quiz_a_grade_and_an_error_in_spanish(bot: Harness) -> None:
    refused = await bot.command(p.ALICE, "hint", **ES)
    assert "No tienes ningún cuestionario en curso. Empieza uno con `/quiz start`." in refused.text()

    start = await bot.command(p.ALICE, "start", [p.option("pack", "demo"), p.option("difficulty", "hard")], **ES)
    item = start.item()
    embed = item["embeds"][0]
    assert embed["title"].startswith("Pregunta 1 de ")
    assert "Define `total`" in embed["description"]  # the pack's own text stays as its author wrote it
    assert "_Pulsa Responder o envía tu código como bloque de código Python._" in embed["description"]
    labels = [c.get("label") for row in item["components"] for c in row["components"]]
    assert "Responder" in labels and "Saltar" in labels and "Parar" in labels
    assert not {"Answer", "Skip", "Stop"} & set(labels)

    form = await bot.click(p.ALICE, item, "Responder", **ES)
    assert form.kind == 9 and form.data["title"] == "Tu código"
    graded = await bot.submit(p.ALICE, form.data["custom_id"], RIGHT, message=item, **ES)
    text = graded.text()
    assert "✅ **¡Correcto!**" in text and "tests superados**" in text
    assert "**Correct!**" not in text and "passed" not in text and "Quiz finished" not in text
    bot.assert_all_acknowledged()


async def test_the_learners_own_choice_wins_over_their_client(bot: Harness) -> None:
    chosen = await bot.command(p.BOB, "language", [p.option("code", "de")])  # an English client, a German choice
    assert "Deine Antworten sind jetzt auf Deutsch." in chosen.text()
    shown = await bot.command(p.BOB, "start", [p.option("pack", "demo")], **ES)  # the choice beats the client
    assert shown.item()["embeds"][0]["title"].startswith("Frage 1 von ")
    usage = await bot.command(p.BOB, "language")
    assert "Deine Antworten sind auf Deutsch" in usage.text() and "`auto`" in usage.text()

    back = await bot.command(p.BOB, "language", [p.option("code", "auto")], **ES)
    assert "Tus respuestas ahora siguen el idioma de tu app: español." in back.text()
    later = await bot.command(p.BOB, "current")  # an English client again
    assert later.item()["embeds"][0]["title"].startswith("Question 1 of ")


async def test_only_an_admin_sets_the_servers_language(bot: Harness) -> None:
    refused = await bot.command(p.ALICE, "language", [p.option("code", "de"), p.option("server", True)], **ES)
    assert "Solo los administradores pueden cambiar el idioma del servidor." in refused.text()
    unknown = await bot.command(p.ALICE, "language")
    assert "Your replies are in English; public posts here are in English." in unknown.text()


async def test_a_race_runs_in_the_servers_language_and_its_notes_in_the_learners(racing: RaceBot) -> None:
    bot = racing.bot
    spanish_server = {"locale": "es-ES", "guild_locale": "es-ES"}
    too_few = await bot.command(p.ALICE, "start", [p.option("rounds", 2)], group="race", **spanish_server)
    assert "`rounds` debe estar entre 3 y 20; pusiste 2." in too_few.text()  # an error, in her language
    start = await bot.command(
        p.ALICE, "start", [p.option("pack", "race-pack"), p.option("rounds", 3), p.option("seconds", 10)],
        group="race", **spanish_server,
    )  # fmt: skip
    assert "¡Empieza una carrera!" in start.text() and "3 rondas" in start.text()
    first = round_message(start)
    assert first["embeds"][0]["title"] == "Carrera · ronda 1 de 3"
    note = await bot.click(p.BOB, first, "A", locale="de", guild_locale="es-ES")
    assert "Deine Antwort ist drin: Platz 1 in dieser Runde." in note.text()  # Bob's client is German
    racing.clock.advance(seconds=11)
    start_calls = len(bot.fake.calls)
    assert await racing.races.tick() == 1  # time is up: no request runs, the server's language all the same
    posted = str([c.body for c in bot.fake.calls[start_calls:] if c.method == "POST" and "/channels/" in c.path])
    assert "Ronda 1 de 3: la respuesta" in posted and "Carrera · ronda 2 de 3" in posted
    assert "the answer" not in posted


async def test_a_german_server_gets_its_daily_question_in_german(
    daily_bot: DailyBot, fake: FakeDiscord, clock: FakeClock
) -> None:
    bot, wired, *_ = daily_bot
    german = {"locale": "de", "guild_locale": "de"}
    done = await bot.command(
        p.ADMIN, "daily", daily_set(time="11:00", timezone="Europe/Berlin", pack="study", reveal_after_hours=2.0), **german
    )
    assert "Tagesfrage eingerichtet" in done.text() and "Uhrzeit" in done.text()
    clock.advance(hours=1)
    start = len(fake.calls)
    await wired.scheduler.tick()
    [posted] = channel_posts(fake, start)
    post = fake.messages[posted.message_id]
    embed = post["embeds"][0]
    assert embed["title"] == "Tagesfrage · 2026-12-01 · Gradients"
    assert "0 Personen haben geantwortet · 0 richtig" in embed["footer"]["text"]
    labels = [c.get("label") for row in post["components"] for c in row["components"]]
    assert labels[-1] == "Tipp"

    alice = await bot.click(p.ALICE, post, "A", locale="es-ES", guild_locale="de")  # her own answer: her language
    assert private(alice) and "¡Correcto! Tu respuesta cuenta" in alice.text()
    shown = await bot.command(p.ADMIN, "daily", [option("action", "show")], **german)
    assert "Kanal" in shown.text() and "Nächster Beitrag" in shown.text() and "Next post" not in shown.text()


async def test_the_command_descriptions_reach_discord_in_spanish_and_german(bot: Harness) -> None:
    (sync,) = bot.fake.find("PUT", r"^/applications/\d+/commands$")
    (quiz,) = sync.body
    subs = {o["name"]: o for o in quiz["options"]}
    start = subs["start"]
    assert start["description_localizations"]["es-ES"].startswith("Empieza un cuestionario personal")
    assert start["description_localizations"]["de"].startswith("Ein persönliches Quiz starten")
    assert "en-US" not in start.get("description_localizations", {})
    count = next(o for o in start["options"] if o["name"] == "count")
    assert count["description"] == "How many questions (1-50, default 10)"
    assert count["description_localizations"]["de"] == "Wie viele Fragen (1-50, Standard 10)"
    assert not start.get("name_localizations")  # the names stay `/quiz start` everywhere
