"""Discord's documented size limits on messages and modals, as the fake Discord checks every payload against them."""

from __future__ import annotations

from typing import Any


def _size(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def check_message(body: Any) -> list[str]:
    """Return every way a message payload breaks Discord's documented limits."""
    if not isinstance(body, dict):
        return []
    problems: list[str] = []
    if _size(body.get("content") or "") > 2000:
        problems.append("content longer than 2000")
    embeds = body.get("embeds") or []
    if len(embeds) > 10:
        problems.append("more than 10 embeds")
    total = 0
    for embed in embeds:
        checks = [
            ("title", embed.get("title") or "", 256),
            ("description", embed.get("description") or "", 4096),
            ("footer", (embed.get("footer") or {}).get("text") or "", 2048),
        ]
        fields = embed.get("fields") or []
        if len(fields) > 25:
            problems.append("more than 25 fields")
        for f in fields:
            checks += [("field name", f.get("name") or "", 256), ("field value", f.get("value") or "", 1024)]
            if not f.get("name") or not f.get("value"):
                problems.append("empty field name or value")
        for name, text, limit in checks:
            total += _size(text)
            if _size(text) > limit:
                problems.append(f"embed {name} longer than {limit}: {_size(text)}")
    if total > 6000:
        problems.append(f"embeds longer than 6000 in all: {total}")
    rows = body.get("components") or []
    if len(rows) > 5:
        problems.append("more than 5 rows")
    ids: list[str] = []
    for row in rows:
        children = row.get("components") or []
        if row.get("type") != 1 or not children:
            problems.append("a row that is not an action row with components")
        selects = [c for c in children if c.get("type") == 3]
        if selects and len(children) > 1:
            problems.append("a select shares its row")
        if len(children) > 5:
            problems.append("more than 5 buttons in a row")
        for c in children:
            ids.append(c.get("custom_id", ""))
            if _size(c.get("custom_id", "")) > 100:
                problems.append("custom_id longer than 100")
            if c.get("type") == 2:
                if _size(c.get("label") or "") > 80:
                    problems.append("button label longer than 80")
                if not c.get("label") and not c.get("emoji"):
                    problems.append("button without label")
            if c.get("type") == 3:
                options = c.get("options") or []
                if not 1 <= len(options) <= 25:
                    problems.append(f"select with {len(options)} options")
                if _size(c.get("placeholder") or "") > 150:
                    problems.append("placeholder longer than 150")
                if not (
                    0 <= c.get("min_values", 1) <= c.get("max_values", 1) <= min(25, max(1, len(options)))
                ):
                    problems.append("select min/max values out of range")
                for o in options:
                    if _size(o.get("label", "")) > 100 or _size(o.get("value", "")) > 100:
                        problems.append("option label or value longer than 100")
    if len(ids) != len(set(ids)):
        problems.append("duplicate custom_id")
    return problems


def check_modal(data: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    if not 1 <= _size(data.get("title") or "") <= 45:
        problems.append("modal title not 1-45")
    if _size(data.get("custom_id") or "") > 100:
        problems.append("modal custom_id longer than 100")
    for row in data.get("components") or []:
        inner = row.get("component") or {}
        if row.get("type") == 18 and _size(row.get("label") or "") > 45:
            problems.append("label longer than 45")
        if _size(inner.get("value") or "") > 4000 or (inner.get("max_length") or 0) > 4000:
            problems.append("text input value longer than 4000")
        if _size(inner.get("placeholder") or "") > 100:
            problems.append("placeholder longer than 100")
    return problems
