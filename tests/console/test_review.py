"""The daily review in the terminal: `review`, as a person types it."""

from __future__ import annotations

from pathlib import Path

from tests.console.test_console import answer_current, open_terminal


async def test_review_in_the_terminal(tmp_path: Path) -> None:
    terminal = await open_terminal(tmp_path)
    first = await terminal.send("review")
    assert "Nothing is due for today" in first  # nothing practised yet, nothing due
    screen = await terminal.send("start demo count:1")
    screen = await answer_current(terminal, screen)
    assert "Quiz finished" in screen
    screen = await terminal.send("review")
    assert "0 reviews and 4 new items today, about 2 minutes." in screen and "Question 1 of 4" in screen
    screen = await answer_current(terminal, screen)
    assert "Correct!" in screen and "Question 2 of 4" in screen
    refused = await terminal.send("daily set time:09:00 timezone:UTC")
    assert "In the terminal" in refused and "starts today's review" in refused
    stats = await terminal.send("stats")
    assert "Daily practice" in stats and "Streak" in stats and "1 day (longest 1)" in stats
    await terminal.send("quit")
    assert await terminal.close() == 0
