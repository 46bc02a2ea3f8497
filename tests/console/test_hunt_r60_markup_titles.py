"""Pack and topic titles are shown as written in the terminal: square brackets are not rich markup."""

from __future__ import annotations

from pathlib import Path

from tests.console.test_console import Terminal, open_terminal

PACK = """\
pack: brackets
title: "Arrays [/] slices"
version: 1
topics:
  - {id: classes, title: "Regex [a-z] classes"}
  - {id: closing, title: "Tags [/] closed"}
questions:
  - id: q1
    type: short
    topic: classes
    difficulty: easy
    prompt: "What does this print?\\n```python\\nprint(2 + 4)\\n```"
    accept: ["6"]
  - id: q2
    type: short
    topic: closing
    difficulty: hard
    prompt: "Type 7."
    accept: ["7"]
"""


async def open_with_pack(tmp_path: Path) -> Terminal:
    packs = tmp_path / "packs" / "brackets"
    packs.mkdir(parents=True)
    (packs / "pack.yaml").write_text(PACK, encoding="utf-8")
    return await open_terminal(tmp_path, packs=tmp_path / "packs", columns=120)


async def test_brackets_in_pack_and_topic_titles_show_as_written_and_the_quiz_goes_on(tmp_path: Path) -> None:
    terminal = await open_with_pack(tmp_path)
    screen = await terminal.send("start brackets topic:classes")
    assert "Question 1 of 1" in screen, screen
    assert "Arrays [/] slices" in screen and "Regex [a-z] classes" in screen, screen
    assert "Traceback" not in screen and "MarkupError" not in screen, screen
    screen = await terminal.send("6")
    assert "Correct!" in screen and "Quiz finished" in screen, screen
    screen = await terminal.send("start brackets topic:closing")
    assert "Tags [/] closed" in screen, screen
    screen = await terminal.send("7")
    assert "Quiz finished" in screen, screen
    for command in ("stats", "packs"):  # their tables name the pack and topic titles too
        screen = await terminal.send(command)
        assert "Traceback" not in screen, screen
        assert ("Regex [a-z] classes" in screen and "Tags [/] closed" in screen) if command == "stats" else "Arrays [/] slices" in screen, screen
    await terminal.send("quit")
    assert await terminal.close() == 0
