"""The gradebook layout, and `quizbot report` / `quizbot grades export` run as an operator runs them."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from pathlib import Path

from bot.core.report.grades import gradebook_csv
from bot.storage import open_repository

from .conftest import fill

ROOT = Path(__file__).resolve().parents[2]


def test_gradebook_one_row_per_learner_one_column_per_item() -> None:
    rows = [
        ("slack", "U1", "p", "q1", "t1", True),
        ("slack", "U1", "p", "q2", "t1", False),
        ("slack", "U2", "p", "q2", "t1", True),
        ("slack", "U2", "p", "q3", "t2", True),
    ]
    table = list(csv.reader(io.StringIO(gradebook_csv(rows, order=[("p", "q3"), ("p", "q1"), ("p", "q2")]))))
    assert table[0] == ["platform", "user", "p/q3", "p/q1", "p/q2", "items_tried", "items_right", "percent"]
    assert table[1] == ["slack", "U1", "", "1", "0", "2", "1", "50"]
    assert table[2] == ["slack", "U2", "1", "", "1", "2", "2", "100"]
    by_topic = list(csv.reader(io.StringIO(gradebook_csv(rows, by_topic=True))))
    assert by_topic[0][2:4] == ["p/t1", "p/t2"]
    assert by_topic[1][2:4] == ["0.50", ""] and by_topic[2][2:4] == ["1.00", "1.00"]


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QUIZBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'r.db'}", "QUIZBOT_PACKS": ""}
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180,
        check=False,
    )


async def test_report_and_grades_on_the_command_line(tmp_path: Path) -> None:
    repository = await open_repository(f"sqlite+aiosqlite:///{tmp_path / 'r.db'}")
    await fill(repository)
    await repository.close()
    done = _cli(tmp_path, "report", "stats-class", "--csv", "items.csv", "--class-csv", "class.csv")
    assert done.returncode == 0, done.stderr
    assert "reversed: negative discrimination" in done.stdout
    assert "Item analysis: Statistics class" in done.stdout
    assert "**" not in done.stdout and "`" not in done.stdout  # Markdown rendered for the terminal, not printed raw
    items = list(csv.DictReader(io.StringIO((tmp_path / "items.csv").read_text())))
    assert {r["item"] for r in items} >= {"perfect", "reversed", "six"}
    assert len(list(csv.DictReader(io.StringIO((tmp_path / "class.csv").read_text())))) == 20
    missing = _cli(tmp_path, "report", "no-such-pack")
    assert missing.returncode == 2 and "No pack `no-such-pack`; packs: stats-class" in missing.stderr
    grades = _cli(tmp_path, "grades", "export", "--pack", "stats-class", "--csv", "grades.csv")
    assert grades.returncode == 0, grades.stderr
    table = list(csv.reader(io.StringIO((tmp_path / "grades.csv").read_text())))
    assert len(table) == 21 and table[0][2] == "stats-class/a00"
