"""The terminal's numbered menus of a fill-in-the-blanks item: the item's commands work there too.

Driven through the program's standard input, as in test_console.py.
"""

from __future__ import annotations

from pathlib import Path

from tests.console.test_console import Terminal, open_terminal

MENU = ") > "  # the end of a blank's prompt: `Blank 1 (1-4, Enter: back) > `


async def open_the_blanks(terminal: Terminal) -> str:
    """Start a quiz whose open item is the demo pack's blanks item, and open its menus."""
    screen = await terminal.send("start demo difficulty:medium count:2")
    if "Complete the code so it prints 8" not in screen[screen.rfind("Question ") :]:  # the select-all item came first
        assert "Type the letters of every right choice" in await terminal.send("Z")  # refused; the program goes on
        screen = await terminal.send("A B")
    assert "Complete the code so it prints 8" in screen[screen.rfind("Question ") :], screen
    menu = await terminal.send("")
    assert menu.endswith(MENU) and "1. A. 4" in menu.replace("  ", " "), menu
    return menu


async def test_the_menu_says_how_to_leave_it_and_an_empty_line_goes_back(tmp_path: Path) -> None:
    terminal = await open_terminal(tmp_path)
    menu = await open_the_blanks(terminal)
    assert "Enter: back" in menu and "hint, skip, stop" in menu, menu
    back = await terminal.send("")
    assert back.endswith("quiz> ") and "Pick a number" not in back, back
    again = await terminal.send("")  # Enter at the item opens the menus again
    assert again.endswith(MENU), again
    assert "Correct!" in await terminal.send("1") + await terminal.send("3")
    await terminal.send("quit")
    assert await terminal.close() == 0


async def test_hint_and_skip_at_the_menu_do_what_they_do_at_the_item(tmp_path: Path) -> None:
    terminal = await open_terminal(tmp_path)
    await open_the_blanks(terminal)
    hint = await terminal.send("hint")
    assert "Two times four." in hint and "Pick a number" not in hint and hint.endswith("quiz> "), hint
    await terminal.send("")
    skipped = await terminal.send("skip")
    assert "Pick a number" not in skipped and ("Question 2 of 2" in skipped or "Quiz finished" in skipped), skipped
    assert skipped.endswith("quiz> ")
    await terminal.close()


async def test_stop_and_quit_at_the_menu(tmp_path: Path) -> None:
    terminal = await open_terminal(tmp_path)
    await open_the_blanks(terminal)
    await terminal.send("2")  # blank 1 chosen; the menu of blank 2 is open
    stopped = await terminal.send("stop")
    assert "Pick a number" not in stopped and "Quiz stopped" in stopped, stopped
    assert "no quiz running" in await terminal.send("skip")
    await open_the_blanks(terminal)
    assert terminal.process.stdin is not None
    terminal.process.stdin.write(b"quit\n")
    await terminal.process.stdin.drain()
    rest = await terminal.read()  # up to the end of output: the program has left
    assert "Pick a number" not in rest, rest
    assert await terminal.close() == 0
