"""Markdown to mrkdwn, and Block Kit that always fits Slack's limits (checked as Slack checks them)."""

from __future__ import annotations

from bot.adapters.slack.markup import split_mrkdwn, to_mrkdwn, to_plain, unescape
from bot.adapters.slack.render import form_view, home_view, message_blocks, pack_load_view, run_view
from bot.core.model import PackInfo
from bot.core.replies import Button, Code, Fields, InputRequest, Message, Option, Select, Text
from tests.slack.conftest import block_text
from tests.slack.limits import blocks_problems, view_problems


def test_markdown_becomes_mrkdwn() -> None:
    assert to_mrkdwn("**bold**, __bold__, *italic*, _italic_, ~~gone~~") == "*bold*, *bold*, _italic_, _italic_, ~gone~"
    assert to_mrkdwn("See [the docs](https://pytorch.org/docs?a=1&b=2).") == "See <https://pytorch.org/docs?a=1&b=2|the docs>."
    assert to_mrkdwn("## Autograd\n- one\n* two") == "*Autograd*\n• one\n• two"
    assert to_mrkdwn("a < b && c > d, <@U123> and <https://x.org>") == "a &lt; b &amp;&amp; c &gt; d, <@U123> and <https://x.org>"
    assert to_mrkdwn("`x ** 2 < y` stays code") == "`x ** 2 &lt; y` stays code"


def test_code_fences_are_kept_without_their_language() -> None:
    text = to_mrkdwn("Run:\n```python\nif a < b:\n    print(**kw)\n```\nthen **look**.")
    assert text == "Run:\n```\nif a &lt; b:\n    print(**kw)\n```\nthen *look*."
    assert to_mrkdwn("send a ```python block") != "send a ```python block"  # a fence mid-line stays literal
    assert to_mrkdwn("```\nunclosed") == "```\nunclosed\n```"


def test_plain_text_and_unescape() -> None:
    assert to_plain("**A.** `requires_grad=True` and [link](https://x.org)") == "A. requires_grad=True and link"
    assert unescape("if a &lt; b &amp;&amp; <https://x.org|x.org> <@U1>") == "if a < b && x.org <@U1>"


def test_a_long_code_block_is_split_into_blocks_that_each_render() -> None:
    code = "```\n" + "\n".join(f"line {i} " + "x" * 60 for i in range(300)) + "\n```"
    pieces = split_mrkdwn(code, 2900)
    assert len(pieces) > 5
    for piece in pieces:
        assert len(piece) <= 2900
        assert piece.startswith("```") and piece.endswith("```") and piece.count("```") == 2


def test_a_huge_message_fits_in_fifty_blocks_with_a_note() -> None:
    parts = tuple(Text(f"Paragraph {i}: " + "word " * 900) for i in range(80))
    buttons = tuple(Button(f"qz:s:0:c:{i}", "A very long label " * 10, "success", text="t" * 5000) for i in range(5))
    menu = Select("qz:s:0:b:1", "Blank 1 " * 40, tuple(Option(str(i), "option " * 30) for i in range(150)))
    message = Message(kind="item", title="T" * 400, parts=(*parts, Code("print(1)\n" * 3000)), rows=(buttons, (menu,)), footer="f" * 5000)
    blocks = message_blocks(message)
    assert blocks_problems(blocks, max_blocks=50) == []
    assert len(blocks) == 50
    text = block_text(blocks)
    assert "more blocks not shown" in text and "more options of" in text
    assert [b["type"] for b in blocks[-4:]] == ["actions", "actions", "context", "context"]  # controls and footer kept


def test_one_long_part_takes_three_sections_at_most() -> None:
    blocks = message_blocks(Message(kind="run", parts=(Code("0123456789" * 5000, "text"), Text("_42 ms · 10 MB_"))))
    assert blocks_problems(blocks, max_blocks=50) == []
    assert len(blocks) == 3 and "more characters of code not shown" in block_text(blocks)
    assert block_text(blocks).endswith("_42 ms · 10 MB_")  # what follows a cut part is still shown


def test_fields_go_ten_to_a_section() -> None:
    blocks = message_blocks(Message(kind="stats", parts=(Fields(tuple((f"topic {i}", "x" * 3000) for i in range(25))),)))
    assert [len(b["fields"]) for b in blocks] == [10, 10, 5]
    assert blocks_problems(blocks, max_blocks=50) == []


def test_modals_fit() -> None:
    form = InputRequest("qz:abc:0:fc", "A very long modal title indeed", "Python code", "code", initial="x = 1\n" * 1000, max_length=4000)
    view = form_view(form, "{}")
    assert view_problems(view) == []
    element = view["blocks"][0]["element"]
    assert element["max_length"] == 3000 and "initial_value" not in element
    assert "too long to fill in" in block_text(view["blocks"])
    assert view_problems(run_view("{}")) == [] and view_problems(pack_load_view("{}")) == []


def test_the_home_tab_fits_a_hundred_blocks() -> None:
    packs = [PackInfo(f"pack-{i}", f"Pack {i}", 1, 10, True, (("t", "T"),)) for i in range(150)]
    stats = Message(kind="stats", title="Progress: <@U1>", parts=(Text("**3** attempts"),))
    view = home_view(stats, packs)
    assert view_problems(view) == []
    assert len(view["blocks"]) == 100 and "more blocks not shown" in block_text(view["blocks"])


def test_a_summary_is_converted_as_any_text_but_never_fills_the_conversion_cache() -> None:
    # A quiz's summary is new each quiz: cached, 4,096 of them held about 16 MB for nothing.
    lines = "\n".join(f"✅ {n}. **Item** `x < {n}` — [topic](https://x.org/{n})" for n in range(20))
    parts = (Text("**3 of 20 right** · 3 of 20 points"), Text(lines))
    before = to_mrkdwn.cache_info()
    summary = message_blocks(Message(kind="summary", title="Quiz finished", parts=parts))
    after = to_mrkdwn.cache_info()
    assert (after.currsize, after.misses, after.hits) == (before.currsize, before.misses, before.hits)
    assert summary == message_blocks(Message(kind="feedback", title="Quiz finished", parts=parts))  # cached, same blocks
    assert to_mrkdwn.cache_info().misses == before.misses + 2  # a feedback's texts go through the cache
    assert "*3 of 20 right*" in block_text(summary) and "x &lt; 19" in block_text(summary)
