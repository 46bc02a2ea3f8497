"""`report` in the terminal: the summary rendered, the chart saved as a picture, the CSV files written."""

from __future__ import annotations

import csv
from pathlib import Path

from tests.console.test_console import answer_current, open_terminal


async def test_the_terminal_shows_the_report_and_writes_its_files(tmp_path: Path) -> None:
    terminal = await open_terminal(tmp_path)
    screen = await terminal.send("start demo count:1")
    await answer_current(terminal, screen)
    screen = await terminal.send("report demo")
    assert "Item analysis: Demo pack (demo)" in screen and "1 learner ·" in screen
    assert "**" not in screen  # Markdown rendered, not printed raw
    assert "(picture: Facility against discrimination" in screen and "-demo-items.png)" in screen
    written = {p.name.split("-")[1]: p for p in tmp_path.glob("demo-*.csv")}
    assert set(written) == {"class", "items"} and f"Wrote {written['class']}" in screen
    (learner,) = csv.DictReader(written["class"].read_text().splitlines())
    assert learner["user"] == "you" and learner["accuracy"] == "1.000"
    bad = await terminal.send("report demo since:yesterday")
    assert "yesterday is not a date" in bad  # rendered: no backticks
    await terminal.send("quit")
    assert await terminal.close() == 0
