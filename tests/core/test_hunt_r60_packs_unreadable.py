"""A file that exists but cannot be read (an I/O error, a bad disk, a file in /proc).

`pack import` and `pack convert` printed "Cannot write None: Input/output error": the wrong verb
and no file name. `/proc/self/mem` is a regular file whose first bytes always fail to read (EIO).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

UNREADABLE = "/proc/self/mem"


def quizbot(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QUIZBOT_DATABASE_URL": f"sqlite+aiosqlite:///{cwd / 'cli.db'}"}
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("command", [["pack", "import", "--unproven"], ["pack", "convert"]])
def test_an_unreadable_file_is_named_as_unreadable(tmp_path: Path, command: list[str]) -> None:
    assert Path(UNREADABLE).is_file()
    result = quizbot(*command, UNREADABLE, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == f"{UNREADABLE}: cannot be read (Input/output error)", result.stderr
    assert "None" not in result.stderr and "Traceback" not in result.stderr


def test_import_goes_on_to_the_next_path_after_an_unreadable_one(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text(
        "pack: good-one\ntitle: Good\nversion: 1\nquestions:\n  - id: one\n    type: short\n    prompt: Say six\n    accept: ['6']\n",
        encoding="utf-8",
    )
    result = quizbot("pack", "import", "--unproven", UNREADABLE, str(good), cwd=tmp_path)
    assert result.returncode == 1  # one of them failed
    assert "Pack `good-one` v1 added with 1 question." in result.stdout, result.stdout + result.stderr
