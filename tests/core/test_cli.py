"""The `quizbot` command as an operator or pack author runs it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.conftest import DEMO_PACK
from tests.core.test_pack_errors import GOOD


def quizbot(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "QUIZBOT_DATABASE_URL": f"sqlite+aiosqlite:///{cwd / 'cli.db'}", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args], cwd=cwd, env=full, capture_output=True, text=True, timeout=120
    )


def test_validate_reports_file_line_col_and_exits_1(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text(GOOD.replace("correct: true", "correct: yes").replace("    prompt: Pick", "    promt: Pick"))
    result = quizbot("pack", "validate", str(broken), cwd=tmp_path)
    assert result.returncode == 1
    lines = result.stdout.strip().splitlines()
    assert f"{broken}:10:5: questions[0] (id `one`): unknown key `promt`: did you mean `prompt`?" in lines
    assert any(line.startswith(f"{broken}:12:28: ") for line in lines), lines


def test_validate_a_good_pack(tmp_path: Path) -> None:
    result = quizbot("pack", "validate", str(DEMO_PACK), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "OK: 1 pack, 5 questions." in result.stderr


def test_import_list_export_and_version_refusal(tmp_path: Path) -> None:
    assert quizbot("pack", "import", str(DEMO_PACK), cwd=tmp_path).stdout.startswith("Pack `demo` v1 added with 5 questions")
    again = quizbot("pack", "import", str(DEMO_PACK), cwd=tmp_path)
    assert again.returncode == 1 and "already at version 1" in again.stderr
    listing = quizbot("pack", "list", cwd=tmp_path)
    assert "demo" in listing.stdout and "Demo pack" in listing.stdout
    exported = quizbot("pack", "export", "demo", "-o", str(tmp_path / "demo.yaml"), cwd=tmp_path)
    assert exported.returncode == 0
    revalidated = quizbot("pack", "validate", str(tmp_path / "demo.yaml"), cwd=tmp_path)
    assert revalidated.returncode == 0, revalidated.stdout
    missing = quizbot("pack", "export", "nope", cwd=tmp_path)
    assert missing.returncode == 1 and "There is no pack `nope`. Stored: demo." in missing.stderr


def test_db_upgrade_and_a_corrupt_database(tmp_path: Path) -> None:
    assert "newest schema" in quizbot("db", "upgrade", cwd=tmp_path).stdout
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"not a database" * 100)
    result = quizbot("db", "upgrade", cwd=tmp_path, env={"QUIZBOT_DATABASE_URL": f"sqlite+aiosqlite:///{bad}"})
    assert result.returncode == 1
    assert "not a valid SQLite database" in result.stderr and "Traceback" not in result.stderr


def test_help_lists_the_commands(tmp_path: Path) -> None:
    result = quizbot("--help", cwd=tmp_path)
    for word in ("run", "console", "discord", "slack", "pack", "sandbox", "db"):
        assert word in result.stdout


def test_sandbox_help_is_forwarded(tmp_path: Path) -> None:
    result = quizbot("sandbox", "--help", cwd=tmp_path)
    assert result.returncode == 0 and "run" in result.stdout and "doctor" in result.stdout


def test_import_proves_the_keys_first_and_unproven_is_an_explicit_choice(tmp_path: Path) -> None:
    wrong = Path(__file__).parents[1] / "fixtures" / "wrong_key.yaml"
    refused = quizbot("pack", "import", str(wrong), cwd=tmp_path)
    assert refused.returncode == 1
    assert "wrong_key.yaml:5:" in refused.stdout and "question `adds-up`" in refused.stdout
    assert "wrong-key" not in quizbot("pack", "list", cwd=tmp_path).stdout
    stored = quizbot("pack", "import", "--unproven", str(wrong), cwd=tmp_path)
    assert stored.returncode == 0 and "stored unproven" in stored.stderr
    assert "wrong-key" in quizbot("pack", "list", cwd=tmp_path).stdout


def test_the_operator_removes_any_pack_and_the_list_shows_whole_owners(tmp_path: Path) -> None:
    assert quizbot("pack", "import", str(DEMO_PACK), cwd=tmp_path).returncode == 0
    with sqlite3.connect(tmp_path / "cli.db") as db:  # as if a server's admin had loaded it
        db.execute("UPDATE packs SET owner = 'discord:800000000000000001234567'")
    narrow = quizbot("pack", "list", cwd=tmp_path, env={"COLUMNS": "60"})
    owner = "".join(line.split("│")[-2].strip() for line in narrow.stdout.splitlines() if line.startswith("│"))
    assert owner == "discord:800000000000000001234567"  # folded over lines, never cut short
    removed = quizbot("pack", "remove", "demo", cwd=tmp_path)
    assert removed.returncode == 0 and "Removed the pack `demo`" in removed.stdout
    assert "demo" not in quizbot("pack", "list", cwd=tmp_path).stdout
    missing = quizbot("pack", "remove", "demo", cwd=tmp_path)
    assert missing.returncode == 1 and "There is no pack `demo`" in missing.stderr
