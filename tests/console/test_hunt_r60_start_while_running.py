"""`start` with a quiz running, in the terminal: the learner is asked Resume or Start new, and can answer.

The core answers a `start` made while a quiz runs with a question and two buttons (Resume, Start
new). The terminal showed the question without its buttons and no way to press either: `new` or
`Start new` typed next went to the running quiz as an answer, so the new quiz could not be started
without `stop` first.
"""

from __future__ import annotations

from pathlib import Path

from tests.console.test_console import open_terminal


async def test_start_with_a_quiz_running_can_start_the_new_one(tmp_path: Path) -> None:
    terminal = await open_terminal(tmp_path)
    screen = await terminal.send("start demo count:2")
    assert "Question 1 of 2" in screen, screen
    screen = await terminal.send("start demo count:1")
    assert "You have a quiz running" in screen, screen
    screen = await terminal.send("new")
    assert "Question 1 of 1" in screen, screen
    await terminal.send("quit")
    assert await terminal.close() == 0


async def test_start_with_a_quiz_running_resumes_on_enter(tmp_path: Path) -> None:
    terminal = await open_terminal(tmp_path)
    await terminal.send("start demo count:2")
    screen = await terminal.send("start demo count:1")
    assert "You have a quiz running" in screen, screen
    screen = await terminal.send("")
    assert "Question 1 of 2" in screen and "Question 1 of 1" not in screen, screen
    screen = await terminal.send("stop")
    assert "Quiz stopped" in screen and "0 of 2" in screen, screen
    await terminal.send("quit")
    assert await terminal.close() == 0
