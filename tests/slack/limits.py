"""Slack's documented Block Kit limits, checked the way the Web API checks them.

Written from the Block Kit reference (blocks, block elements, composition objects, views), so
the fake server refuses what Slack would refuse, with a list of what is wrong.
"""

from __future__ import annotations

from typing import Any

BLOCK_TYPES = {"section", "header", "context", "actions", "divider", "input", "image", "rich_text"}
ELEMENT_TYPES = {"button", "static_select", "multi_static_select", "checkboxes", "plain_text_input", "file_input", "image", "radio_buttons"}


def _text(obj: Any, where: str, size: int, problems: list[str], *, plain_only: bool = False) -> None:
    if not isinstance(obj, dict) or obj.get("type") not in ("plain_text", "mrkdwn"):
        problems.append(f"{where}: not a text object")
        return
    if plain_only and obj["type"] != "plain_text":
        problems.append(f"{where}: must be plain_text")
    text = obj.get("text")
    if not isinstance(text, str) or not text:
        problems.append(f"{where}: empty text")
    elif len(text) > size:
        problems.append(f"{where}: {len(text)} characters > {size}")


def _option(opt: Any, where: str, problems: list[str], *, text_max: int = 75) -> None:
    if not isinstance(opt, dict):
        problems.append(f"{where}: not an option")
        return
    _text(opt.get("text"), f"{where}.text", text_max, problems)
    value = opt.get("value")
    if not isinstance(value, str) or len(value) > 150:
        problems.append(f"{where}.value: missing or > 150")


def _element(el: Any, where: str, problems: list[str], action_ids: set[str]) -> None:
    if not isinstance(el, dict) or el.get("type") not in ELEMENT_TYPES:
        problems.append(f"{where}: unknown element {el!r:.60}")
        return
    kind = el["type"]
    action_id = el.get("action_id")
    if action_id is not None:
        if not isinstance(action_id, str) or len(action_id) > 255:
            problems.append(f"{where}.action_id: > 255")
        elif action_id in action_ids:
            problems.append(f"{where}.action_id: duplicate {action_id}")
        else:
            action_ids.add(action_id)
    if kind == "button":
        _text(el.get("text"), f"{where}.text", 75, problems, plain_only=True)
        if "value" in el and (not isinstance(el["value"], str) or len(el["value"]) > 2000):
            problems.append(f"{where}.value: > 2000")
        if "style" in el and el["style"] not in ("primary", "danger"):
            problems.append(f"{where}.style: {el['style']}")
    elif kind in ("static_select", "multi_static_select"):
        _text(el.get("placeholder"), f"{where}.placeholder", 150, problems, plain_only=True)
        options = el.get("options") or []
        if not 1 <= len(options) <= 100:
            problems.append(f"{where}.options: {len(options)} (1-100)")
        for i, opt in enumerate(options):
            _option(opt, f"{where}.options[{i}]", problems)
        initial = [el["initial_option"]] if "initial_option" in el else el.get("initial_options", [])
        for opt in initial:
            if opt not in options:
                problems.append(f"{where}: initial option not among the options")
        if kind == "multi_static_select" and el.get("max_selected_items", 1) < 1:
            problems.append(f"{where}.max_selected_items < 1")
    elif kind == "checkboxes":
        options = el.get("options") or []
        if not 1 <= len(options) <= 10:
            problems.append(f"{where}.options: {len(options)} (1-10)")
        for i, opt in enumerate(options):
            _option(opt, f"{where}.options[{i}]", problems, text_max=150)
    elif kind == "plain_text_input":
        size = el.get("max_length", 3000)
        if not 1 <= size <= 3000:
            problems.append(f"{where}.max_length: {size} (1-3000)")
        if len(el.get("initial_value", "")) > size:
            problems.append(f"{where}.initial_value longer than max_length")
        if "placeholder" in el:
            _text(el["placeholder"], f"{where}.placeholder", 150, problems, plain_only=True)
    elif kind == "file_input" and not 1 <= el.get("max_files", 10) <= 10:
        problems.append(f"{where}.max_files (1-10)")


def blocks_problems(blocks: Any, *, max_blocks: int) -> list[str]:
    """Return what Slack would refuse in a list of blocks (empty: all good)."""
    problems: list[str] = []
    if not isinstance(blocks, list):
        return ["blocks: not a list"]
    if len(blocks) > max_blocks:
        problems.append(f"{len(blocks)} blocks > {max_blocks}")
    action_ids: set[str] = set()
    block_ids: set[str] = set()
    for n, block in enumerate(blocks):
        where = f"blocks[{n}]"
        kind = block.get("type") if isinstance(block, dict) else None
        if kind not in BLOCK_TYPES:
            problems.append(f"{where}: unknown block type {kind}")
            continue
        block_id = block.get("block_id")
        if block_id is not None:
            if len(block_id) > 255 or block_id in block_ids:
                problems.append(f"{where}.block_id: too long or duplicate")
            block_ids.add(block_id)
        if kind == "section":
            if "text" not in block and "fields" not in block:
                problems.append(f"{where}: a section needs text or fields")
            if "text" in block:
                _text(block["text"], f"{where}.text", 3000, problems)
            fields = block.get("fields", [])
            if len(fields) > 10:
                problems.append(f"{where}.fields: {len(fields)} > 10")
            for i, f in enumerate(fields):
                _text(f, f"{where}.fields[{i}]", 2000, problems)
            if "accessory" in block:
                _element(block["accessory"], f"{where}.accessory", problems, action_ids)
        elif kind == "header":
            _text(block.get("text"), f"{where}.text", 150, problems, plain_only=True)
        elif kind == "context":
            elements = block.get("elements") or []
            if not 1 <= len(elements) <= 10:
                problems.append(f"{where}.elements: {len(elements)} (1-10)")
            for i, el in enumerate(elements):
                if isinstance(el, dict) and el.get("type") != "image":
                    _text(el, f"{where}.elements[{i}]", 3000, problems)
        elif kind == "actions":
            elements = block.get("elements") or []
            if not 1 <= len(elements) <= 25:
                problems.append(f"{where}.elements: {len(elements)} (1-25)")
            for i, el in enumerate(elements):
                _element(el, f"{where}.elements[{i}]", problems, action_ids)
        elif kind == "input":
            _text(block.get("label"), f"{where}.label", 2000, problems, plain_only=True)
            _element(block.get("element"), f"{where}.element", problems, action_ids)
    return problems


def view_problems(view: Any) -> list[str]:
    """Return what views.open / views.publish would refuse."""
    if not isinstance(view, dict) or view.get("type") not in ("modal", "home"):
        return ["view: not a modal or home view"]
    problems = blocks_problems(view.get("blocks"), max_blocks=100)
    if view["type"] == "modal":
        _text(view.get("title"), "title", 24, problems, plain_only=True)
        for key in ("submit", "close"):
            if key in view:
                _text(view[key], key, 24, problems, plain_only=True)
        if any(b.get("type") == "input" for b in view.get("blocks", [])) and "submit" not in view:
            problems.append("a modal with inputs needs submit")
    if len(view.get("private_metadata", "")) > 3000:
        problems.append("private_metadata > 3000")
    if len(view.get("callback_id", "")) > 255:
        problems.append("callback_id > 255")
    return problems
