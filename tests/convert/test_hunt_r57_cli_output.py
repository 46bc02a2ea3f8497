"""`-o OUT` that cannot be written (no such folder, a folder) is one line and exit 1, not a traceback."""

from __future__ import annotations

from pathlib import Path

from tests.core.test_cli import quizbot
from tests.core.test_pack_errors import GOOD


def test_export_to_a_path_that_cannot_be_written_says_so(tmp_path: Path) -> None:
    (tmp_path / "errs.yaml").write_text(GOOD, encoding="utf-8")
    assert quizbot("pack", "import", "--unproven", str(tmp_path / "errs.yaml"), cwd=tmp_path).returncode == 0
    for target in (tmp_path / "no-such-folder" / "errs.yaml", tmp_path):
        result = quizbot("pack", "export", "errs", "-o", str(target), cwd=tmp_path)
        assert result.returncode == 1
        assert "Traceback" not in result.stderr
        assert result.stderr.strip().startswith(f"Cannot write {target}: "), result.stderr


def test_convert_to_a_zip_in_no_folder_says_so(tmp_path: Path) -> None:
    sheet = tmp_path / "s.csv"
    sheet.write_text("prompt,answer\nSay six,6\n", encoding="utf-8")
    target = tmp_path / "no-such-folder" / "s.zip"
    result = quizbot("pack", "convert", str(sheet), "-o", str(target), cwd=tmp_path)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"Cannot write {target}: No such file or directory" in result.stderr


def test_a_refused_unproven_import_does_not_say_it_was_stored(tmp_path: Path) -> None:
    (tmp_path / "errs.yaml").write_text(GOOD, encoding="utf-8")
    first = quizbot("pack", "import", "--unproven", str(tmp_path / "errs.yaml"), cwd=tmp_path)
    assert first.returncode == 0 and "stored unproven" in first.stderr
    again = quizbot("pack", "import", "--unproven", str(tmp_path / "errs.yaml"), cwd=tmp_path)
    assert again.returncode == 1
    assert "already at version 1" in again.stderr
    assert "stored unproven" not in again.stderr


def test_importing_a_folder_with_no_pack_says_so(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = quizbot("pack", "import", "--unproven", str(tmp_path / "empty"), cwd=tmp_path)
    assert result.returncode == 1
    assert f"{tmp_path / 'empty'}:1:1: no pack.yaml in this folder" in result.stdout
