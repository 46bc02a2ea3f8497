"""The terminal with no packs: its advice names what loads a pack here, the shell's `quizbot pack import`.

`start` and `packs` said "An admin can load one with `pack load`", and `pack load` typed next
answered "Load packs from the shell here: `quizbot pack import PATH`": advice that led to a refusal.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from tests.console.test_console import Terminal


async def open_empty(tmp_path: Path) -> Terminal:
    (tmp_path / "packs").mkdir()
    env = {
        **os.environ,
        "QUIZBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'console.db'}",
        "QUIZBOT_PACKS": str(tmp_path / "packs"),
        "COLUMNS": "200",
    }
    for name in ("DISCORD_TOKEN", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET"):
        env.pop(name, None)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "console",
        cwd=tmp_path, env=env,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )
    terminal = Terminal(process)
    await terminal.read()
    return terminal


async def test_start_and_packs_with_no_packs_name_the_shell_command(tmp_path: Path) -> None:
    terminal = await open_empty(tmp_path)
    for line in ("start", "packs", "pack"):
        screen = await terminal.send(line)
        assert "quizbot pack import PATH" in screen, screen
        assert "pack load" not in screen, screen
    await terminal.send("quit")
    assert await terminal.close() == 0
