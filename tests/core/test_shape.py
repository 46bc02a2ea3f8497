"""The middle stays small: the service's size, the inbound modules' size, and how adapters reach the core."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ADAPTERS = ROOT / "bot" / "adapters"
# What a front end may call on the service: requests, queries, the named guards.
ENTRIES = {"handle", "ask", "is_admin", "may_load_packs"}


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_the_service_and_the_inbound_modules_stay_small() -> None:
    assert lines(ROOT / "bot" / "core" / "service.py") <= 150
    assert lines(ADAPTERS / "slack" / "inbound.py") < 350
    assert lines(ADAPTERS / "discord" / "inbound.py") < 350


def service_calls(path: Path) -> set[str]:
    """The attributes used on anything named `service` or `_service` in a module."""
    used = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute):
            owner = node.value
            name = owner.attr if isinstance(owner, ast.Attribute) else owner.id if isinstance(owner, ast.Name) else ""
            if name in ("service", "_service"):
                used.add(node.attr)
    return used


def test_adapters_reach_the_core_only_through_requests_queries_and_guards() -> None:
    found = {str(p.relative_to(ROOT)): service_calls(p) - ENTRIES for p in sorted(ADAPTERS.rglob("*.py"))}
    assert {k: v for k, v in found.items() if v} == {}
    assert any(service_calls(p) for p in ADAPTERS.rglob("*.py"))  # the scan does see the calls


def test_every_feature_registers_named_handlers_not_lambdas() -> None:
    """A handler is a method a reader can find by name (the daily desk once registered lambdas)."""
    lambdas = []
    for path in sorted((ROOT / "bot" / "core").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            registers = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("request", "action", "also", "query")
            if registers and any(isinstance(arg, ast.Lambda) for arg in node.args):  # type: ignore[union-attr]
                lambdas.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if isinstance(node, ast.Dict) and any(isinstance(v, ast.Lambda) for v in node.values):
                lambdas.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert lambdas == []
