"""The terminal with no packs: its advice names what loads a pack here, the shell's `quizbot pack import`.

`start` and `packs` said "An admin can load one with `pack load`", and `pack load` typed next
answered "Load packs from the shell here: `quizbot pack import PATH`": advice that led to a refusal.
"""

from __future__ import annotations

from pathlib import Path

from tests.console.test_console import Terminal, open_terminal


async def open_empty(tmp_path: Path) -> Terminal:
    (tmp_path / "packs").mkdir()
    return await open_terminal(tmp_path, packs=tmp_path / "packs", columns=200)


async def test_start_and_packs_with_no_packs_name_the_shell_command(tmp_path: Path) -> None:
    terminal = await open_empty(tmp_path)
    for line in ("start", "packs", "pack"):
        screen = await terminal.send(line)
        assert "quizbot pack import PATH" in screen, screen
        assert "pack load" not in screen, screen
    await terminal.send("quit")
    assert await terminal.close() == 0
