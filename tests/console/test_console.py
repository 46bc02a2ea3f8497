"""The terminal front end, driven end to end through its standard input as a person would."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PACKS = ROOT / "tests" / "fixtures" / "packs"
PROMPTS = ("quiz> ", "... ", ") > ", "answer> ")


class Terminal:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.transcript = ""

    async def read(self) -> str:
        """Read until the program waits for input; return what it printed since."""
        assert self.process.stdout is not None
        raw = b""
        prompts = tuple(p.encode() for p in PROMPTS)
        while not raw.endswith(prompts):
            data = await asyncio.wait_for(self.process.stdout.read(1), timeout=60)
            if not data:
                break
            raw += data
        chunk = raw.decode("utf-8", errors="replace")
        self.transcript += chunk
        return chunk

    async def send(self, line: str) -> str:
        assert self.process.stdin is not None
        self.process.stdin.write((line + "\n").encode())
        await self.process.stdin.drain()
        return await self.read()

    async def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        await asyncio.wait_for(self.process.wait(), timeout=30)
        return self.process.returncode or 0


async def open_terminal(tmp_path: Path, *, packs: Path = PACKS, columns: int = 100) -> Terminal:
    env = {
        **os.environ,
        "QUIZBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'console.db'}",
        "QUIZBOT_PACKS": str(packs),
        "COLUMNS": str(columns),
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


async def answer_current(terminal: Terminal, screen: str) -> str:
    """Answer whatever item is on screen, the right way."""
    screen = screen[screen.rfind("Question ") :]  # the newest item (the answered one is shown above it)
    if "Which flag makes PyTorch track" in screen:
        return await terminal.send("A")
    if "Which of these are Python numbers" in screen:
        return await terminal.send("A B")
    if "What does this print?" in screen:
        return await terminal.send("6")
    if "Complete the code so it prints 8" in screen:
        await terminal.send("")  # opens the menus
        await terminal.send("1")  # blank 1: A. 4
        return await terminal.send("3")  # blank 2: C. print
    if "Define total as the sum" in screen:
        await terminal.send("```")
        await terminal.send("total = sum(range(1, 11))")
        await terminal.send("print(total)")
        return await terminal.send("```")
    raise AssertionError(f"unknown item on screen:\n{screen}")


async def test_a_whole_quiz_in_the_terminal(tmp_path: Path) -> None:
    terminal = await open_terminal(tmp_path)
    screen = await terminal.send("start demo count:5")
    for n in range(1, 6):
        assert f"Question {n} of 5" in screen, screen
        screen = await answer_current(terminal, screen)
        assert "Correct!" in screen, screen
    assert "Quiz finished" in screen and "5 of 5 right" in screen
    stats = await terminal.send("stats")
    assert "5 attempts" in stats and "100% right" in stats and "demo · Basics" in stats
    await terminal.send("quit")
    assert await terminal.close() == 0


async def test_wrong_answers_get_feedback_hint_and_explanation(tmp_path: Path) -> None:
    terminal = await open_terminal(tmp_path)
    screen = await terminal.send("start demo difficulty:easy count:2")
    for _ in range(2):
        if "What does this print?" in screen[screen.rfind("Question ") :]:  # the newest item
            screen = await terminal.send("five")
            assert "Not quite" in screen and "Add the numbers." in screen and "2 attempts left" in screen
            screen = await terminal.send("hint")
            assert "Add the numbers." in screen
            screen = await terminal.send("6")
            assert "Correct!" in screen and "2 + 4 is 6." in screen
        else:
            screen = await terminal.send("B")
            assert "There is no track argument." in screen and "requires_grad=True records operations" in screen
    assert "Quiz finished" in screen and "1 of 2 right" in screen
    await terminal.close()


async def test_bad_input_gets_clear_messages(tmp_path: Path) -> None:
    terminal = await open_terminal(tmp_path)
    assert "no pack nope. Available: demo" in await terminal.send("start nope")
    assert "no topic grads" in await terminal.send("start demo topic:grads")
    assert "easy, medium, hard" in await terminal.send("start demo difficulty:brutal")
    assert "count must be a whole number" in await terminal.send("start demo count:many")
    assert "no quiz running" in await terminal.send("skip")
    assert "Unknown command" in await terminal.send("dance")
    await terminal.close()


async def test_start_takes_what_help_shows(tmp_path: Path) -> None:
    """`help` shows `start [pack] [topic] [difficulty] [count]`: that spelling starts a quiz; a negative count is out of range."""
    terminal = await open_terminal(tmp_path)
    assert "[pack] [topic] [difficulty] [count]" in await terminal.send("help")
    refused = await terminal.send("start demo count:-3")
    assert "count must be between 1 and 50; you gave -3." in refused and "whole number" not in refused, refused
    assert "count must be between 1 and 50" in await terminal.send("start demo -3")
    screen = await terminal.send("start demo basics easy 2")
    assert "Question 1 of 2" in screen and "Basics · easy" in screen, screen
    assert "in that order" in await terminal.send("start demo 2 easy")
    await terminal.send("quit")
    assert await terminal.close() == 0


async def test_quiz_resumes_after_the_program_restarts(tmp_path: Path) -> None:
    terminal = await open_terminal(tmp_path)
    screen = await terminal.send("start demo count:3")
    assert "Question 1 of 3" in screen
    screen = await answer_current(terminal, screen)
    assert "Question 2 of 3" in screen
    await terminal.close()  # end of input mid-quiz

    again = await open_terminal(tmp_path)
    assert "Resuming your quiz" in again.transcript and "Question 2 of 3" in again.transcript
    screen = await answer_current(again, again.transcript.split("Resuming your quiz")[1])
    assert "Correct!" in screen and "Question 3 of 3" in screen
    await again.close()


async def test_run_a_snippet(tmp_path: Path) -> None:
    terminal = await open_terminal(tmp_path)
    await terminal.send("run")
    await terminal.send("print(sum(range(5)))")
    screen = await terminal.send("```")
    assert "10" in screen
    await terminal.close()


async def test_stats_and_leaderboard_save_their_pictures_and_say_where(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the terminal saves pictures under the temporary folder
    terminal = await open_terminal(tmp_path)
    screen = await terminal.send("start demo count:1")
    await answer_current(terminal, screen)
    stats = await terminal.send("stats")
    assert "1 attempt ·" in stats
    assert "saved to" in stats
    board = await terminal.send("leaderboard week")
    assert "Leaderboard this week" in board and "you" in board and "saved to" in board
    race = await terminal.send("race demo 3")
    assert "Races run in a channel" in race
    hidden = await terminal.send("privacy leaderboard off")
    assert "hidden" in hidden.lower() or "hide" in hidden.lower()
    assert "Nobody is on the leaderboard" in await terminal.send("leaderboard")
    await terminal.send("quit")
    assert await terminal.close() == 0
    saved = sorted((tmp_path / "quizbot-pictures").glob("*.png"))
    assert len(saved) == 2 and all(p.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") for p in saved)


async def test_the_terminal_speaks_the_chosen_language_and_keeps_it(tmp_path: Path) -> None:
    terminal = await open_terminal(tmp_path)
    chosen = await terminal.send("language de")
    assert "Deine Antworten sind jetzt auf Deutsch." in chosen
    screen = await terminal.send("start demo count:1 difficulty:easy")
    assert "Frage 1 von 1" in screen and "Tippe " in screen and "Basics · leicht" in screen, screen
    refused = await terminal.send("start demo count:abc")
    assert "muss eine ganze Zahl sein" in refused
    await terminal.send("quit")
    assert await terminal.close() == 0
    again = await open_terminal(tmp_path)  # the choice is stored: a new session speaks German at once
    assert "QuizBot im Terminal" in again.transcript and "Dein Quiz geht weiter." in again.transcript
    await again.send("quit")
    assert await again.close() == 0
