"""The documented table of shipped packs says what the packs hold."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bot.core.packs import Pack, load_path

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p.parent for p in (ROOT / "content" / "packs").glob("*/pack.yaml"))


def row(pack: Pack) -> str:
    """Render a pack's row of the table, as the docs show it."""
    qs = pack.questions
    kinds = Counter(q.type for q in qs)
    select_all = sum(1 for q in qs if q.type == "choice" and q.multiple)
    levels = Counter(q.difficulty for q in qs)
    per_topic = Counter(q.topic for q in qs)
    topics = ", ".join(f"{t.title} ({per_topic[t.id]})" for t in pack.topics)
    return (
        f"| `{pack.pack}` | {pack.title} | {len(qs)} | {kinds['choice']} ({select_all} select-all) | {kinds['blanks']} "
        f"| {kinds['short']} | {kinds['code']} | {levels['easy']}/{levels['medium']}/{levels['hard']} | {topics} |"
    )


def documented_rows() -> dict[str, str]:
    """Every pack row in the README and the docs site, by pack id."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    rows: dict[str, str] = {}
    for page in pages:
        if page.is_file():
            for line in page.read_text(encoding="utf-8").splitlines():
                if line.startswith("| `pytorch-") or (line.startswith("| `") and "select-all)" in line):
                    rows[line.split("`")[1]] = line
    return rows


@pytest.mark.parametrize("folder", SHIPPED, ids=[p.name for p in SHIPPED])
def test_the_pack_table_matches_the_pack(folder: Path) -> None:
    expected = row(load_path(folder).pack)
    assert documented_rows().get(folder.name) == expected, f"put this row in the pack table:\n{expected}"
