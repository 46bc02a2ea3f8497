"""Validator and CLI messages that said the wrong thing.

`questions: []` was "at least 1 entries (found 0)"; `pack convert` given a folder said
"no such file" of a folder that exists; `pack validate` given a path that exists but is neither a
file nor a folder (a device, a pipe) said "no such file or folder".
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.core import PackInvalid
from bot.core.packs import load_bytes, load_path
from tests.convert.helpers import one_short_pack


def problems_of(text: str) -> list[str]:
    with pytest.raises(PackInvalid) as caught:
        load_bytes("p.yaml", text.encode())
    return [str(p) for p in caught.value.problems]


def test_an_empty_question_list_is_said_in_plain_words() -> None:
    text = one_short_pack("empty").split("questions:")[0] + "questions: []\n"
    assert problems_of(text) == ["p.yaml:4:12: questions: the list is empty; give at least one entry"]


def test_a_short_list_keeps_its_counts() -> None:
    text = one_short_pack("few").replace("type: short", "type: choice").replace('accept: ["6"]', "choices: [{text: a, correct: true}]")
    assert problems_of(text) == ["p.yaml:8:14: questions[0] (id `one`).choices: at least 2 entries (found 1)"]


def test_a_path_that_is_neither_file_nor_folder_is_not_called_missing() -> None:
    with pytest.raises(PackInvalid) as caught:
        load_path(Path("/dev/null"))
    assert [str(p) for p in caught.value.problems] == ["/dev/null:1:1: not a file or a folder; give a pack folder, a .yaml or a .zip file"]


def test_pack_convert_given_a_folder_says_it_is_a_folder(tmp_path: Path) -> None:
    (tmp_path / "quiz").mkdir()
    env = {**os.environ, "QUIZBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}"}
    result = subprocess.run(
        [sys.executable, "-m", "bot.cli", "pack", "convert", "quiz"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 1
    assert result.stderr.strip() == "quiz: a folder, not a file; give the quiz file to convert"
