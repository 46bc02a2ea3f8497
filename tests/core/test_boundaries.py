"""The code's shape: each rule in one place, dependencies one way, no cycles. Read from the source."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "bot"
QUESTION_CLASSES = {"ChoiceQuestion", "BlanksQuestion", "ShortQuestion", "CodeQuestion"}


def modules(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if ".venv" not in p.parts)


def type_checks(path: Path) -> list[int]:
    """Lines where `isinstance(x, <a question class>)` is asked."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance":
            names = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)} if len(node.args) > 1 else set()
            names |= {n.attr for n in ast.walk(node.args[1]) if isinstance(n, ast.Attribute)} if len(node.args) > 1 else set()
            if names & QUESTION_CLASSES:
                lines.append(node.lineno)
    return lines


def test_only_the_item_modules_check_a_question_type() -> None:
    items = BOT / "core" / "items"
    found = {str(p.relative_to(ROOT)): type_checks(p) for p in modules(BOT) if not p.is_relative_to(items)}
    assert {k: v for k, v in found.items() if v} == {}


def test_the_finder_sees_a_type_check(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("from x import CodeQuestion\nif isinstance(q, CodeQuestion | int):\n    pass\n")
    assert type_checks(sample) == [2]


def imports(path: Path, package: str) -> set[str]:
    """Modules of `package` that `path` imports, as dotted names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    base = here.rsplit(".", 1)[0] if path.name != "__init__.py" else here.removesuffix(".__init__")
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parent = base.split(".")
                parent = parent[: len(parent) - (node.level - 1)] if node.level > 1 else parent
                target = ".".join([*parent, node.module] if node.module else parent)
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {f for f in found if f.startswith(package + ".")}


@pytest.mark.parametrize("platform", ["discord", "slack", "console"])
def test_an_adapters_modules_import_each_other_without_a_cycle(platform: str) -> None:
    folder = BOT / "adapters" / platform
    package = f"bot.adapters.{platform}"
    names = {f"{package}.{p.stem}": p for p in folder.glob("*.py") if p.name != "__init__.py"}
    graph = {name: {i for i in imports(path, package) if i in names and i != name} for name, path in names.items()}
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in graph[node]:
            assert state.get(nxt) != 1, "import cycle: " + " -> ".join([*trail, node, nxt])
            if nxt not in state:
                visit(nxt, [*trail, node])
        state[node] = 2

    for name in graph:
        if name not in state:
            visit(name, [])


def test_the_two_chat_adapters_have_the_same_modules() -> None:
    discord = sorted(p.name for p in (BOT / "adapters" / "discord").glob("*.py"))
    slack = sorted(p.name for p in (BOT / "adapters" / "slack").glob("*.py"))
    assert discord == slack


def test_the_core_imports_no_platform_or_storage_library() -> None:
    banned = ("discord", "slack_bolt", "slack_sdk", "aiosqlite", "asyncpg", "sqlalchemy", "aiohttp", "bot.adapters", "bot.storage")
    for path in modules(BOT / "core"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            )
            for name in names:
                assert not name.startswith(banned), f"{path.relative_to(ROOT)} imports {name}"
