"""The pack-load form refuses, in the form, a file it cannot load: too big, or not a pack or quiz file.

The form accepted any chosen file and closed; a file over the 4 MiB pack limit was then fetched
only to be refused in a message elsewhere, in English whatever the person's language ("I could not
fetch ... : x.yaml is larger than 4096 KiB"), and a file of another kind was likewise refused after
the form had gone. Slack's `response_action: errors` keeps the form open with the problem under
the file field, where the admin is looking, and nothing is fetched.
"""

from __future__ import annotations

import json

from bot.core import QuizService
from tests.slack.conftest import ADMIN, Slack, block_text

BIG = b"pack: big\ntitle: Big\nversion: 1\n" + b"# padding\n" * 450_000  # about 4.5 MB


async def pack_ids(service: QuizService) -> list[str]:
    return [p.id for p in await service.enabled_packs_all()]


async def test_a_file_too_big_is_refused_in_the_form_and_not_fetched(slack: Slack, quiz_service: QuizService) -> None:
    await slack.command("pack load", user=ADMIN)
    view = slack.last_view()
    file = slack.fake.add_file("big.yaml", BIG, filetype="yaml")
    status, body = await slack.submit(view, {"pack": [file]}, user=ADMIN)
    assert status == 200
    answer = json.loads(body)
    assert answer["response_action"] == "errors", body
    assert "big.yaml" in answer["errors"]["pack"] and "4 MiB" in answer["errors"]["pack"], body
    assert slack.fake.downloads == []
    assert await pack_ids(quiz_service) == ["demo"]


async def test_a_file_of_another_kind_is_refused_in_the_form(slack: Slack, quiz_service: QuizService) -> None:
    await slack.command("pack load", user=ADMIN)
    view = slack.last_view()
    file = slack.fake.add_file("notes.pdf", b"%PDF-1.4", filetype="pdf")
    status, body = await slack.submit(view, {"pack": [file]}, user=ADMIN)
    assert status == 200
    answer = json.loads(body)
    assert answer["response_action"] == "errors", body
    assert ".yaml" in answer["errors"]["pack"], body
    assert slack.fake.downloads == []
    assert "notes.pdf" not in "".join(block_text(r.get("blocks") or []) for r in slack.fake.responses)


async def test_a_good_file_still_loads(slack: Slack, quiz_service: QuizService) -> None:
    await slack.command("pack load", user=ADMIN)
    view = slack.last_view()
    good = b"pack: extra\ntitle: Extra\nversion: 1\nquestions:\n  - id: one\n    type: choice\n    prompt: Pick one.\n    choices:\n      - {text: one, correct: true}\n      - {text: two}\n"
    file = slack.fake.add_file("extra.yaml", good, filetype="yaml")
    status, body = await slack.submit(view, {"pack": [file]}, user=ADMIN)
    assert status == 200 and "errors" not in body
    assert await pack_ids(quiz_service) == ["demo", "extra"]
