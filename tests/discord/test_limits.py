"""Discord's size limits: long packs, many fields, many menus are cut or paged with a note, never refused."""

from __future__ import annotations

import yaml

from bot.adapters.discord.limits import clip, size
from bot.adapters.discord.render import layout, render
from bot.core.packs import load_bytes
from bot.core.replies import Button, Control, Fields, Image, Message, Option, Select, Text

from . import payloads as p
from .conftest import Harness, components

CUT = "cut to fit Discord's limits"
LONG = ("a long choice text " * 60)[:990]


def long_pack() -> bytes:
    prompt = "Read this carefully. " * 100 + "\n```python\n" + "x = 1\n" * 300 + "```"
    questions = [
        {
            "id": "many",
            "type": "choice",
            "topic": "t",
            "prompt": prompt[:3500],
            "choices": [{"text": f"{i} {LONG}", "correct": i == 0} for i in range(25)],
        },
        {
            "id": "all",
            "type": "choice",
            "topic": "t",
            "multiple": True,
            "prompt": "Pick all.",
            "choices": [{"text": f"{i} {LONG}", "correct": i < 2} for i in range(25)],
        },
        {
            "id": "few",
            "type": "choice",
            "topic": "t",
            "prompt": "Pick one of four long ones.",
            "choices": [{"text": f"{i} {LONG}", "correct": i == 0} for i in range(4)],
        },
        {
            "id": "wide",
            "type": "blanks",
            "topic": "t",
            "prompt": "Fill seven blanks.",
            "code": "\n".join(f"v{n} = {{{{{n}}}}}" for n in range(1, 8)) + "\n",
            "options": [f"option {i} " + "y" * 60 for i in range(25)],
            "answers": {n: f"option {n} " + "y" * 60 for n in range(1, 8)},
        },
    ]
    pack = {
        "pack": "long",
        "title": ("Long " * 24).strip(),
        "version": 1,
        "topics": [{"id": "t", "title": "T"}],
        "questions": questions,
    }
    return yaml.safe_dump(pack, sort_keys=False, allow_unicode=True).encode()


async def test_a_pack_at_every_size_limit_renders_within_discords(bot: Harness) -> None:
    await bot.service.import_pack(load_bytes("long.yaml", long_pack()).pack)
    answer = await bot.command(p.ALICE, "start", [p.option("pack", "long"), p.option("count", 4)])
    seen = set()
    for _ in range(4):
        item = answer.item()
        embed = item["embeds"][0]
        text = embed["description"]
        if text.startswith("Read this carefully"):
            seen.add("many")
            assert CUT in text  # a 3,500-character prompt and 25 long choices do not fit in 4,096
            (menu,) = [c for c in components(item) if c["type"] == 3]
            assert len(menu["options"]) == 25
        elif text.startswith("Pick all"):
            seen.add("all")
            assert CUT in text
        elif text.startswith("Pick one of four"):
            seen.add("few")
            labels = [c["label"] for c in components(item)]
            assert labels[:4] == ["A", "B", "C", "D"]  # long texts: letters only
        elif text.startswith("Fill seven"):
            seen.add("wide")
            assert len(item["components"]) <= 5
        answer = await bot.command(p.ALICE, "skip")
    assert seen == {"many", "all", "few", "wide"}
    # FakeDiscord refuses (400) anything over Discord's limits and the fixture fails on any refusal.


async def test_more_menus_than_rows_go_in_steps() -> None:
    blanks = tuple(
        (Select(f"qz:s:0:b:{n}", f"Blank {n}", tuple(Option(str(i), f"{i}") for i in range(3))),)
        for n in range(1, 8)
    )
    controls = (Button("qz:s:0:h", "Hint"), Button("qz:s:0:s", "Skip"), Button("qz:s:0:x", "Stop", "danger"))
    rows: tuple[tuple[Control, ...], ...] = (*blanks, (Button("qz:s:0:k", "Check", "primary"),), controls)
    message = Message(
        kind="item", title="Question 1 of 1", parts=(Text("Fill them."),), rows=rows, session_id="s"
    )
    pages = layout(message.rows)
    assert len(pages) == 2
    shown = []
    for number in range(2):
        rendered = render(message, page=number)
        assert rendered.view is not None
        payload = rendered.view.to_components()
        assert len(payload) <= 5
        shown += [c["placeholder"] for row in payload for c in row["components"] if c["type"] == 3]
        labels = [c.get("label") for row in payload for c in row["components"] if c["type"] == 2]
        assert {"Check", "Hint", "Skip", "Stop"} <= set(labels)  # every button on every step
        assert f"Step {number + 1} of 2" in (rendered.embeds[0].description or "")
    assert shown == [f"Blank {n}" for n in range(1, 8)]
    first = render(message, page=0).view
    assert first is not None
    nav = [c for row in first.to_components() for c in row["components"] if c.get("label") == "Next ▶"]
    assert nav and nav[0]["custom_id"] == "qzp:s:1"


async def test_too_many_fields_and_long_values_are_cut() -> None:
    rows = tuple((f"pack · topic {i} " + "n" * 300, "v" * 2000) for i in range(40))
    embed = render(Message(kind="stats", title="Progress", parts=(Text("head"), Fields(rows)))).embeds[0]
    assert len(embed.fields) <= 25
    assert all(len(f.value or "") <= 1024 and len(f.name or "") <= 256 for f in embed.fields)
    assert len(embed) <= 6000
    assert "more rows not shown" in (embed.description or "")


async def test_an_image_is_attached_and_shown_in_the_embed() -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"0" * 32
    rendered = render(
        Message(kind="run", title="Plot", parts=(Text("Your plot:"), Image(png, "plot.png", "a plot")))
    )
    assert rendered.embeds[0].image.url == "attachment://plot.png"
    assert [f.filename for f in rendered.files] == ["plot.png"]


def test_clip_closes_an_open_code_fence_and_says_it_cut() -> None:
    text = "intro\n```python\n" + "print('line')\n" * 1000 + "```"
    cut = clip(text, 500)
    assert size(cut) <= 500 and cut.count("```") == 2 and cut.endswith(CUT + ")_")
    assert clip("short", 500) == "short"
    assert size(clip("💡" * 3000, 4096)) <= 4096  # an emoji counts twice for Discord


async def test_a_step_button_shows_the_current_item_from_the_database(bot: Harness) -> None:
    item = (await bot.command(p.ALICE, "start", [p.option("pack", "demo")])).item()
    session = item["components"][0]["components"][0]["custom_id"].split(":")[1]
    extra = {
        "type": 1,
        "components": [{"type": 2, "style": 2, "label": "Next ▶", "custom_id": f"qzp:{session}:1"}],
    }
    paged = {**item, "components": [*item["components"][:4], extra]}
    answer = await bot.click(p.ALICE, paged, "Next ▶")
    assert answer.kind == 7 and answer.data["embeds"][0]["title"] == "Question 1 of 5"
    await bot.click(p.ALICE, item, "Skip")
    stale = await bot.click(p.ALICE, paged, "Next ▶")
    assert "already answered" in stale.text()
    bot.assert_all_acknowledged()


def test_size_counts_utf16_units_as_discord_does() -> None:
    assert size("plain text") == 10
    assert size("café") == 4  # é: one unit
    assert size("ok 😀") == 5  # an emoji beyond the first plane: two units
    assert size("") == 0
