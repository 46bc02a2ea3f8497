"""QuizBot in German on Slack: the user's Slack locale (users.info, cached), the workspace's posts.

Through Bolt and the fake Slack: a user whose Slack is set to German sees a quiz, a code grade and
an error in German; a workspace whose admin chose German gets its daily question and races in German,
while each member's private notes follow their own language. A German admin reads a broken pack's
problems, a conversion preview, a report's CSV files and a paused daily question's reason in German.
"""

from __future__ import annotations

import asyncio
import csv
import io
from pathlib import Path
from typing import Any

import aiohttp

from bot.adapters.slack.api import SlackApi, make_client
from bot.core import QuizService
from bot.core.report.service import Reports
from bot.storage.reports import ReportStore
from tests.daily.wired import Wired
from tests.fakes import FakeClock
from tests.slack.conftest import ADMIN, BOT_TOKEN, CHANNEL, LEARNER, STRANGER, Slack, block_text, dm
from tests.slack.fake_slack import FakeSlack
from tests.slack.helpers import SOLUTION, feedback_on, items
from tests.slack.test_admin import BROKEN
from tests.slack.test_daily import choice_id, responses, said_to
from tests.slack.test_race import RaceSlack, racing
from tests.slack.test_report import RIGHT, WRONG, practise

__all__ = ["racing"]  # the fixture, used here as in test_race

GIFT = Path(__file__).parents[1] / "fixtures" / "import" / "pytorch-gift.txt"


async def test_a_german_user_sees_a_quiz_a_code_grade_and_an_error_in_german(slack: Slack) -> None:
    slack.fake.locales[LEARNER] = "de-DE"
    n = len(slack.fake.responses)
    await slack.command("hint")
    assert "Du hast gerade kein Quiz. Starte eines mit `/quiz start`." in responses(slack, n)
    _status, body = await slack.command("start demo count:abc")  # a usage note, in the acknowledgement
    assert "`count` muss eine ganze Zahl sein; du hast `abc` angegeben." in body and "Verwendung:" in body

    await slack.command("start demo difficulty:hard count:1")
    channel = dm(LEARNER)
    [item] = items(slack, channel)
    text = block_text(item["blocks"])
    assert text.startswith("Frage 1 von 1") and "Define `total`" in text  # the pack's text is the author's
    assert "Startcode:" in text and "schwer · noch 3 Versuche" in text
    await slack.click(channel, item["ts"], label="Antworten")
    view = slack.last_view()
    assert view["title"]["text"] == "Dein Code" and view["submit"]["text"] == "Senden"
    await slack.submit(view, {"answer": SOLUTION})
    feedback = feedback_on(slack, channel, item["ts"])
    assert "*Richtig!*" in feedback and "*2 von 2 Tests bestanden*" in feedback
    summary = block_text(slack.fake.posts(channel)[-1]["blocks"])
    assert "Quiz beendet" in summary and "*1 von 1 richtig*" in summary
    assert [c.args["user"] for c in slack.fake.calls_to("users.info")] == [LEARNER]  # asked once: cached


async def test_the_workspace_language_is_the_admins_choice_and_a_users_choice_beats_slacks(slack: Slack) -> None:
    n = len(slack.fake.responses)
    await slack.command("language server de", user=STRANGER, channel=CHANNEL)
    assert "Only admins may set the server's language." in responses(slack, n)
    n = len(slack.fake.responses)
    await slack.command("language server de", user=ADMIN, channel=CHANNEL)
    assert "Öffentliche Beiträge hier (Tagesfrage, Wettrennen, Bestenlisten) sind jetzt auf Deutsch." in responses(slack, n)
    n = len(slack.fake.responses)
    await slack.command("language es", user=STRANGER)
    assert "Tus respuestas ahora están en español." in responses(slack, n)
    n = len(slack.fake.responses)
    await slack.command("language", user=STRANGER)
    assert "Tus respuestas están en español; las publicaciones de aquí, en alemán." in responses(slack, n)
    n = len(slack.fake.responses)
    await slack.command("language klingon", user=STRANGER)
    assert "No existe el idioma `klingon`. Disponibles: `en`, `es`, `de`, `auto`." in responses(slack, n)


async def test_a_german_workspace_gets_its_daily_question_in_german(
    daily_slack: tuple[Slack, Wired], clock: FakeClock
) -> None:
    slack, wired = daily_slack
    slack.fake.locales[ADMIN] = "de-DE"
    await slack.command("language server de", user=ADMIN, channel=CHANNEL)
    n = len(slack.fake.responses)
    await slack.command("daily set time:11:00 timezone:Europe/Berlin pack:study reveal_after_hours:2", user=ADMIN, channel=CHANNEL)
    assert "Tagesfrage eingerichtet" in responses(slack, n) and "Zeitzone" not in responses(slack, n)
    clock.advance(hours=1)
    before = len(slack.fake.posts(CHANNEL))
    await wired.scheduler.tick()
    [post] = slack.fake.posts(CHANNEL)[before:]
    text = block_text(post["blocks"])
    assert "Tagesfrage · 2026-12-01 · Gradients" in text and "0 Personen haben geantwortet · 0 richtig" in text
    assert "Daily question" not in text and "people have answered" not in text
    await slack.click(CHANNEL, post["ts"], action_id=choice_id(post, 1), user=STRANGER)  # an English Slack
    assert "Not quite. 1 attempt left." in said_to(slack, STRANGER)
    slack.fake.locales[LEARNER] = "de-AT"
    await slack.click(CHANNEL, post["ts"], action_id=choice_id(post, 0), user=LEARNER)
    assert "Richtig! Deine Antwort zählt; der Zwischenstand ist aktualisiert." in said_to(slack, LEARNER)
    clock.advance(seconds=10)
    await wired.scheduler.tick()
    assert "1 Person hat geantwortet · 1 richtig" in block_text(slack.fake.message(CHANNEL, post["ts"])["blocks"])


async def test_a_race_in_a_german_workspace(racing: RaceSlack) -> None:
    slack, fake = racing.slack, racing.fake
    await slack.command("language server de", user=ADMIN, channel=CHANNEL)
    await slack.command("race race-pack 3 10", channel=CHANNEL)
    text = racing.channel_text()
    assert "Ein Wettrennen beginnt!" in text and "<@U1LEARNER> hat ein Wettrennen gestartet: *3 Runden*" in text
    [(first_ts, _first)] = racing.rounds()
    assert "Deine Antwort ist drin: Platz 1" not in await racing.pick(first_ts, LEARNER, 0)  # an English Slack
    fake.locales[STRANGER] = "de-DE"
    assert "Deine Antwort ist drin: Platz 2 in dieser Runde." in await racing.pick(first_ts, STRANGER, 1)
    posted = len(fake.posts(CHANNEL))
    racing.clock.advance(seconds=11)
    assert await racing.races.tick() == 1
    reveal = racing.channel_text(posted)
    assert "Runde 1 von 3: die Antwort" in reveal and "1 von 2 Antworten richtig." in reveal
    assert "Wettrennen · Runde 2 von 3" in reveal


async def test_a_german_admin_reads_a_broken_packs_problems_in_german(slack: Slack) -> None:
    slack.fake.locales[ADMIN] = "de-DE"
    file = slack.fake.add_file("extra.yaml", BROKEN, filetype="yaml")
    await slack.message("pack load", user=ADMIN, files=[file])
    text = block_text(slack.fake.posts(dm(ADMIN))[-1]["blocks"])
    assert "Das Paket hat 2 Probleme" in text and "extra.yaml:3:10: version: `x` ist keine ganze Zahl" in text
    assert "extra.yaml:7:5: questions[0] (id `one`): unbekannter Schlüssel `promt`: meintest du `prompt`?" in text
    assert "unknown key" not in text and "whole number" not in text


async def test_a_german_admin_previews_a_conversion_in_german(slack: Slack) -> None:
    slack.fake.locales[ADMIN] = "de-DE"
    file = slack.fake.add_file(GIFT.name, GIFT.read_bytes())
    await slack.message("pack load", user=ADMIN, files=[file])
    text = block_text(slack.fake.posts(dm(ADMIN))[-1]["blocks"])
    assert "13 Fragen aus GIFT umgewandelt (7 choice, 6 short); 3 nicht umgewandelt." in text
    assert "Nicht umgewandelt:" in text and "Angenommen:" in text
    assert "Zeile 60: `Matching` (matching): Zuordnungsfragen haben keine Entsprechung in QuizBot" in text
    assert "Converted" not in text and "not converted" not in text and "counterpart" not in text


async def test_a_german_admin_gets_the_reports_csv_files_in_german(
    slack: Slack, quiz_service: QuizService, repository: Any
) -> None:
    quiz_service.reports.reports = Reports(ReportStore(repository.db))  # as bot/app.py wires it
    await practise(slack, LEARNER, WRONG)
    await practise(slack, STRANGER, RIGHT)
    slack.fake.locales[ADMIN] = "de-DE"
    shared = len(slack.fake.shared)
    await slack.command("report demo", user=ADMIN, channel=CHANNEL)
    uploads = slack.fake.shared[shared:]
    assert [f["name"] for f in uploads if f["channel"] is None] == ["demo-fragen.png"]
    names = {f["name"]: f["content"].decode() for f in uploads if f["channel"] is not None}
    items_csv = next(n for n in names if n.startswith("demo-fragen-") and n.endswith(".csv"))
    class_csv = next(n for n in names if n.startswith("demo-klasse-") and n.endswith(".csv"))
    assert names[items_csv].splitlines()[0].startswith("Frage,Typ,Thema,Lernende,Leichtigkeit,Trennschärfe")
    rows = list(csv.DictReader(io.StringIO(names[class_csv])))
    assert {r["Person"] for r in rows} == {LEARNER, STRANGER}
    assert "Fragenanalyse: Demo pack" in block_text(slack.fake.responses[-1]["blocks"])


async def test_a_paused_daily_question_says_why_in_german(daily_slack: tuple[Slack, Wired], clock: FakeClock) -> None:
    slack, wired = daily_slack
    slack.fake.locales[ADMIN] = "de-DE"
    await slack.command("daily set time:11:00 timezone:Europe/Berlin pack:study", user=ADMIN, channel=CHANNEL)
    slack.fake.closed_channels |= {CHANNEL}  # the bot was removed from the channel
    clock.advance(hours=1)
    await wired.scheduler.tick()  # the post is refused: the schedule pauses, its reason kept as a key
    n = len(slack.fake.responses)
    await slack.command("daily show", user=ADMIN, channel=CHANNEL)
    shown = responses(slack, n)
    assert "pausiert: der Bot kann dort nicht posten (not_in_channel)" in shown and "cannot post" not in shown


async def test_what_is_asked_about_one_person_at_once_is_one_users_info_call(fake: FakeSlack) -> None:
    # A command asks for the person's language while its handler asks whether they are an admin:
    # the answers share one call (and the cache serves what comes after).
    fake.locales[ADMIN] = "de-DE"
    async with aiohttp.ClientSession() as http:
        api = SlackApi(make_client(BOT_TOKEN, api_url=fake.api_url, session=http), http, token=BOT_TOKEN)
        locale, admin, name = await asyncio.gather(api.user_locale(ADMIN), api.is_workspace_admin(ADMIN), api.user_name(ADMIN))
        assert (locale, admin) == ("de-DE", True) and name
        assert await api.user_locale(ADMIN) == "de-DE"
    assert [c.args["user"] for c in fake.calls_to("users.info")] == [ADMIN]
