"""No import cycle anywhere in bot/: walk every module's imports, read from the source.

An edge goes to the module an import names: `from .packs import Pack` depends on `bot.core.packs`
(its `__init__`), `from . import render` on `bot.core.render` only. A module's own parent packages
are not edges: Python initialises them before the module itself, whatever it imports.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def module_files(root: Path, package: str) -> dict[str, Path]:
    """Every module under `root` by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def edges(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of `known` that the module `name` imports."""
    here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in known)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            submodules = {f"{target}.{a.name}" for a in node.names} & known
            found |= submodules
            if len(submodules) < len(node.names) and target in known:
                found.add(target)  # a name defined by the module itself (or its __init__)
    found.discard(name)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    files = module_files(root, package)
    return {name: edges(name, path, set(files)) for name, path in files.items()}


def test_bot_has_no_import_cycle() -> None:
    graph = import_graph(ROOT / "bot", "bot")
    assert len(graph) > 100  # the walk saw the whole package
    found = cycles(graph)
    assert found == [], "\n".join(
        " <-> ".join(group) + "\n  " + "\n  ".join(f"{m} -> {sorted(graph[m] & set(group))}" for m in group)
        for group in found
    )


def test_the_walk_finds_a_cycle_through_a_package_init(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    (root / "packs").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "ports.py").write_text("from .packs import Pack\n")
    (root / "packs" / "__init__.py").write_text("from .loader import Pack\n")
    (root / "packs" / "loader.py").write_text("from pkg import items\nPack = 1\n")
    (root / "items.py").write_text("from pkg.ports import Runner\nfrom . import other\n")
    (root / "other.py").write_text("import pkg\n")
    graph = import_graph(root, "pkg")
    assert graph["pkg.items"] == {"pkg.ports", "pkg.other"}
    assert cycles(graph) == [["pkg.items", "pkg.packs", "pkg.packs.loader", "pkg.ports"]]
