"""QuizBot in Spanish and German on Discord: the client's locale, the learner's choice, the server's posts.

Through discord.py and the fake Discord: a learner whose Discord client is set to Spanish (`es-ES`)
sees a quiz, a code grade, a race and an error in Spanish; a German server sees its daily question in
German; the commands' names and descriptions reach Discord in both languages; an admin reads a broken
pack's problems, a conversion preview, a report's CSV files and a paused daily question's reason in theirs.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import pytest

from bot.core.report.service import Reports
from bot.storage.reports import ReportStore
from tests.fakes import FakeClock

from . import payloads as p
from .conftest import Answer, BotRunner, DailyBot, Harness
from .fake_discord import FakeDiscord
from .test_admin import BROKEN, GOOD
from .test_code import RIGHT
from .test_daily import channel_posts, daily_set, option, private
from .test_race import RaceBot, racing, round_message
from .test_report import WRONG, files, practise

__all__ = ["racing"]  # the fixture, used here as in test_race

ES = {"locale": "es-ES"}
DE = {"locale": "de"}
GIFT = Path(__file__).parents[1] / "fixtures" / "import" / "pytorch-gift.txt"


async def load(bot: Harness, user: p.User, filename: str, data: bytes, **kw: Any) -> Answer:
    """`/quiz pack load` with an attachment, from a client in the language of `kw`."""
    url = bot.fake.add_file(filename, data)
    att_id = p.snowflake()
    resolved = {"attachments": {att_id: p.attachment(att_id, filename, url, len(data))}}
    options: list[dict[str, Any]] = [{"name": "file", "type": 11, "value": att_id}]
    return await bot.command(user, "load", options, group="pack", resolved=resolved, **kw)


async def test_a_spanish_learner_sees_a_quiz_a_grade_and_an_error_in_spanish(bot: Harness) -> None:
    refused = await bot.command(p.ALICE, "hint", **ES)
    # The command is named as her Discord shows it: `/quiz empezar` (Discord still sends `start`).
    assert "No tienes ningún cuestionario en curso. Empieza uno con `/quiz empezar`." in refused.text()

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
    assert "`rondas` debe estar entre 3 y 20; pusiste 2." in too_few.text()  # an error, in her language
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


# Names that read the same in a language: Discord gets no localization for them.
SAME = {("es-ES", "quiz"), ("de", "quiz"), ("de", "code"), ("de", "server")}
CODES = {"en", "es", "de", "auto"}  # `/quiz language code:` offers codes, the same in every language
NAME = re.compile(r"[-_\w]{1,32}")  # Discord: ^[-_\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$, lowercase


def named(node: dict[str, Any], locale: str) -> str:
    return str((node.get("name_localizations") or {}).get(locale, node["name"]))


async def test_the_command_option_and_choice_names_reach_discord_in_spanish_and_german(bot: Harness) -> None:
    (sync,) = bot.fake.find("PUT", r"^/applications/\d+/commands$")
    (quiz,) = sync.body
    subs = {o["name"]: o for o in quiz["options"]}
    assert subs["start"]["name_localizations"] == {"es-ES": "empezar", "es-419": "empezar", "de": "starten"}
    race = {o["name"]: o for o in subs["race"]["options"]}
    assert subs["race"]["name_localizations"]["de"] == "wettrennen" and race["stop"]["name_localizations"]["es-ES"] == "parar"
    rounds = next(o for o in race["start"]["options"] if o["name"] == "rounds")
    assert rounds["name_localizations"]["es-ES"] == "rondas" and rounds["name_localizations"]["de"] == "runden"
    difficulty = next(o for o in subs["start"]["options"] if o["name"] == "difficulty")
    assert [c["name_localizations"]["es-ES"] for c in difficulty["choices"]] == ["fácil", "media", "difícil"]
    assert [c["value"] for c in difficulty["choices"]] == ["easy", "medium", "hard"]  # what the handler gets

    def check(node: dict[str, Any]) -> None:
        for locale in ("es-ES", "de"):
            name = named(node, locale)
            assert name != node["name"] or (locale, name) in SAME, f"{node['name']} has no {locale} name"
            assert NAME.fullmatch(name) and name == name.lower(), name
            children = [o for o in node.get("options") or [] if "name" in o]
            shown = [named(o, locale) for o in children]
            assert len(shown) == len(set(shown)), f"two names alike under {node['name']} in {locale}: {shown}"
            for choice in [c for o in children for c in o.get("choices") or [] if c["name"] not in CODES]:
                assert (choice.get("name_localizations") or {}).get(locale), f"choice {choice['name']} in {locale}"
        for child in node.get("options") or []:
            check(child)

    check(quiz)
    # Discord sends the English names whatever the client shows: the command still routes.
    started = await bot.command(p.ALICE, "start", [p.option("pack", "demo"), p.option("difficulty", "hard")], **ES)
    assert started.item()["embeds"][0]["title"].startswith("Pregunta 1 de ")


async def test_a_spanish_admin_reads_a_broken_packs_problems_in_spanish(bot: Harness) -> None:
    answer = await load(bot, p.ADMIN, "broken.yaml", BROKEN.encode(), **ES)
    text = answer.text()
    assert "El paquete tiene 2 problemas" in text
    assert re.search(r"broken\.yaml:3:\d+: version: `one` no es un número entero", text)
    assert re.search(r"broken\.yaml:10:\d+: questions\[0\] \(id `one`\): clave desconocida `promt`: ¿querías decir `prompt`\?", text)
    assert "unknown key" not in text and "whole number" not in text


async def test_a_spanish_admin_previews_a_conversion_in_spanish(bot: Harness) -> None:
    preview = await load(bot, p.ADMIN, GIFT.name, GIFT.read_bytes(), **ES)
    text = preview.text()
    assert "Se convirtieron 13 preguntas de GIFT (7 choice, 6 short); 3 sin convertir." in text
    assert "Sin convertir:" in text and "Supuestos:" in text
    assert "línea 58: `Essay` (essay): una pregunta de redacción no tiene respuesta que comprobar" in text
    assert "Converted" not in text and "not converted" not in text and "has no answer" not in text
    labels = [c.get("label") for row in preview.stored()[-1]["components"] for c in row["components"]]
    assert "Cargar pytorch-gift" in labels


@pytest.fixture
async def reporting(start_bot: BotRunner) -> Harness:
    harness = await start_bot.start()
    harness.service.reports.reports = Reports(ReportStore(start_bot.opened[-1][1].db))  # as bot/app.py wires it
    return harness


async def test_a_german_admin_gets_the_reports_csv_files_in_german(reporting: Harness) -> None:
    bot = reporting
    await practise(bot, p.ALICE, WRONG)
    await practise(bot, p.BOB)
    answer = await bot.command(p.ADMIN, "report", [p.option("pack", "demo")], **DE)
    sent = files(answer)
    assert "demo-fragen.png" in sent
    items_csv = next(n for n in sent if n.startswith("demo-fragen-") and n.endswith(".csv"))
    class_csv = next(n for n in sent if n.startswith("demo-klasse-") and n.endswith(".csv"))
    header = sent[items_csv].decode().splitlines()[0]
    assert header.startswith("Frage,Typ,Thema,Lernende,Leichtigkeit,Trennschärfe,Median der Versuche bis richtig")
    rows = list(csv.DictReader(io.StringIO(sent[class_csv].decode())))
    assert {r["Person"] for r in rows} == {p.ALICE.id, p.BOB.id} and {r["festgefahren"] for r in rows} == {"nein"}
    assert "Fragenanalyse: Demo pack" in answer.text()


async def test_a_paused_daily_question_says_why_in_the_readers_language(
    daily_bot: DailyBot, fake: FakeDiscord, clock: FakeClock
) -> None:
    bot, wired, *_ = daily_bot
    german = {"locale": "de", "guild_locale": "de"}
    await bot.command(p.ADMIN, "daily", daily_set(time="11:00", timezone="Europe/Berlin", pack="study"), **german)
    fake.fail("POST", rf"^/channels/{p.CHANNEL_ID}/messages$", 403, {"message": "Missing Access", "code": 50001}, times=10)
    clock.advance(hours=1)
    await wired.scheduler.tick()  # the post is refused: the schedule pauses, its reason kept as a key
    shown = await bot.command(p.ADMIN, "daily", [option("action", "show")], **german)
    assert "pausiert: der Bot kann dort nicht posten (403 Missing Access)" in shown.text()
    shown = await bot.command(p.ADMIN, "daily", [option("action", "show")], **ES)  # read by another: their language
    assert "en pausa: el bot no puede publicar ahí (403 Missing Access)" in shown.text()
    assert "cannot post" not in shown.text()


async def test_the_working_note_follows_the_learners_own_choice_once_remembered(bot: Harness) -> None:
    await bot.command(p.ADMIN, "language", [p.option("code", "es")])  # an English client, a Spanish choice
    await bot.command(p.ADMIN, "packs")  # the choice is read with this request and remembered for a while
    answer = await load(bot, p.ADMIN, "extra.yaml", GOOD.encode())  # the note comes before the core answers
    assert answer.kind == 4 and "⏳ Cargando el paquete…" in str(answer.data)
    assert "Loading the pack" not in str(answer.data)
    assert "Paquete `extra` v1 añadido" in answer.edits()[-1].body["embeds"][0]["description"]


async def test_the_apology_for_an_outdated_command_follows_the_learners_own_choice(bot: Harness) -> None:
    await bot.command(p.BOB, "language", [p.option("code", "es")])  # an English client, a Spanish choice
    await bot.command(p.BOB, "current")  # the choice is read with this request and remembered for a while
    outdated = await bot.command(p.BOB, "pack")  # a group invoked as a command: the client's list is out of date
    assert "Los comandos del bot se acaban de actualizar" in outdated.text(), outdated.text()


async def test_an_option_out_of_range_is_named_as_the_spanish_client_shows_it(racing: RaceBot) -> None:
    bot = racing.bot
    refused = await bot.command(
        p.ALICE, "start", [p.option("pack", "race-pack"), p.option("rounds", 25)], group="race", **ES
    )
    assert "`rondas` debe estar entre 3 y 20; pusiste 25." in refused.text(), refused.text()
    assert "rounds" not in refused.text()
    counted = await bot.command(p.ALICE, "start", [p.option("pack", "race-pack"), p.option("count", 0)], **ES)
    assert "`cantidad` debe estar entre 1 y" in counted.text(), counted.text()
