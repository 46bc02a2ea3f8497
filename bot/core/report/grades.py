"""The gradebook: one row per learner, one column per item (or per topic), for a spreadsheet.

An item's cell is 1 when the learner has answered it right at least once, 0 when they tried it and
never got it right, and empty when they never tried it; a topic's cell is the share of its items
the learner got right. The last columns total it up.
"""

from __future__ import annotations

import io
from collections import defaultdict
from collections.abc import Sequence

from .sheet import SheetWriter

GradeRow = tuple[str, str, str, str, str | None, bool]  # platform, user, pack, question, topic, ever right


def gradebook_csv(rows: Sequence[GradeRow], *, by_topic: bool = False, order: Sequence[tuple[str, str]] = ()) -> str:
    """Lay the rows out as a gradebook; `order` lists (pack, question) in the packs' own order."""
    columns: list[str] = []
    seen: set[str] = set()

    def column(pack: str, question: str, topic: str | None) -> str:
        return f"{pack}/{topic or '(no topic)'}" if by_topic else f"{pack}/{question}"

    topics: dict[tuple[str, str], str | None] = {}
    for r in rows:
        topics.setdefault((r[2], r[3]), r[4])
    for pack, question in [*order, *sorted(topics)]:
        if (pack, question) not in topics:
            continue
        name = column(pack, question, topics[(pack, question)])
        if name not in seen:
            seen.add(name)
            columns.append(name)
    learners: dict[tuple[str, str], dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for platform, user, pack, question, topic, right in rows:
        learners[(platform, user)][column(pack, question, topic)].append(right)
    buffer = io.StringIO()
    writer = SheetWriter(buffer)
    writer.writerow(["platform", "user", *columns, "items_tried", "items_right", "percent"])
    for (platform, user), cells in sorted(learners.items()):
        tried = sum(len(v) for v in cells.values())
        n_right = sum(sum(1 for mark in v if mark) for v in cells.values())
        out: list[str] = []
        for name in columns:
            marks = cells.get(name)
            if not marks:
                out.append("")
            elif by_topic:
                out.append(f"{sum(marks) / len(marks):.2f}")
            else:
                out.append("1" if marks[0] else "0")
        writer.writerow([platform, user, *out, tried, n_right, f"{100 * n_right / tried:.0f}" if tried else ""])
    return buffer.getvalue()
