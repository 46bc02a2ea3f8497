"""`pack validate` over several packs names two that share an id: loaded, one would shadow the other.

A packs folder holding `a/` and `b/` with the same `pack:` id passed validation; at start the one
read second was silently skipped (or replaced the first, by version).
"""

from __future__ import annotations

from pathlib import Path

from tests.core.test_cli import quizbot
from tests.core.test_pack_errors import GOOD


def test_two_packs_with_one_id_are_named(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / "packs" / name).mkdir(parents=True)
        (tmp_path / "packs" / name / "pack.yaml").write_text(GOOD, encoding="utf-8")
    result = quizbot("pack", "validate", str(tmp_path / "packs"), cwd=tmp_path)
    assert result.returncode == 1
    first, second = tmp_path / "packs" / "a" / "pack.yaml", tmp_path / "packs" / "b" / "pack.yaml"
    assert f"{second}:1:1: pack: `errs` is also the id of {first}; loaded, one would replace the other: give each pack its own id" in (
        result.stdout.splitlines()
    )
    assert "1 problem in 2 packs." in result.stderr


def test_distinct_ids_pass(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / "packs" / name).mkdir(parents=True)
        (tmp_path / "packs" / name / "pack.yaml").write_text(GOOD.replace("pack: errs", f"pack: errs-{name}"), encoding="utf-8")
    assert quizbot("pack", "validate", str(tmp_path / "packs"), cwd=tmp_path).returncode == 0


def test_the_same_pack_named_twice_is_no_clash(tmp_path: Path) -> None:
    (tmp_path / "errs.yaml").write_text(GOOD, encoding="utf-8")
    assert quizbot("pack", "validate", str(tmp_path / "errs.yaml"), str(tmp_path / "errs.yaml"), cwd=tmp_path).returncode == 0
