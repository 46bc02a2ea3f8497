"""`my-data` in the terminal (the export written as a file) and `quizbot user export|delete` for operators."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.console.test_console import PACKS, open_terminal
from tests.core.test_cli import quizbot


async def test_the_terminal_writes_the_export_and_deletes_after_a_yes(tmp_path: Path) -> None:
    terminal = await open_terminal(tmp_path)
    screen = await terminal.send("start demo count:2")
    assert "Question 1 of 2" in screen
    await terminal.send("skip")
    screen = await terminal.send("my-data export")
    written = tmp_path / "quizbot-data-console-you.json"
    assert f"Wrote {written}" in screen.replace("\n", "")
    document = json.loads(written.read_text())
    assert document["user_id"] == "you" and document["tables"]["sessions"][0]["owner_id"] == "you"
    screen = await terminal.send("my-data delete")
    assert "cannot be undone" in screen and "Type yes" in screen
    assert "Nothing was deleted" in await terminal.send("no")
    await terminal.send("my-data delete")
    assert "Your data was deleted" in await terminal.send("yes")
    written.unlink()
    await terminal.send("my-data export")
    assert json.loads(written.read_text())["tables"] == {}
    await terminal.send("quit")
    assert await terminal.close() == 0


def test_operators_export_and_delete_a_learner_from_the_shell(tmp_path: Path) -> None:
    packs = {"QUIZBOT_PACKS": str(PACKS)}
    played = subprocess.run(  # a learner's quiz, through the terminal front end on the CLI's database
        [sys.executable, "-m", "bot.cli", "console"], input="start demo count:2\nskip\nquit\n", cwd=tmp_path, text=True,
        capture_output=True, timeout=120, env={**os.environ, "QUIZBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}", **packs},
    )
    assert "Question 1 of 2" in played.stdout
    out = tmp_path / "you.json"
    exported = quizbot("user", "export", "console:you", "-o", str(out), cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    assert json.loads(out.read_text())["tables"]["sessions"][0]["owner_id"] == "you"
    asked = quizbot("user", "delete", "console:you", cwd=tmp_path)
    assert asked.returncode == 1 and "sessions 1" in asked.stdout and "--yes" in asked.stdout
    assert quizbot("user", "export", "console:you", "-o", str(out), cwd=tmp_path).returncode == 0
    assert json.loads(out.read_text())["tables"]["sessions"]  # asking deleted nothing
    deleted = quizbot("user", "delete", "console:you", "--yes", cwd=tmp_path)
    assert deleted.returncode == 0 and "Deleted" in deleted.stdout and "console:you" in deleted.stdout
    quizbot("user", "export", "console:you", "-o", str(out), cwd=tmp_path)
    assert json.loads(out.read_text())["tables"] == {}
    wrong = quizbot("user", "export", "nowhere:you", cwd=tmp_path)
    assert wrong.returncode == 2 and "PLATFORM:ID" in wrong.stderr
