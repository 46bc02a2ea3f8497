"""Parse YAML into plain values while remembering where every key and value stands.

YAML 1.1's habit of reading `yes`, `no`, `on` and `off` as booleans is undone on purpose: in a
quiz pack those are answers, not switches. Only `true` and `false` are booleans. Duplicate keys are
errors rather than silently keeping the last one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

Path = tuple[str | int, ...]
Mark = tuple[int, int]  # 1-based line and column


class _StrictLoader(yaml.SafeLoader):
    pass


_StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_StrictLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


class YamlProblem(Exception):
    def __init__(self, line: int, col: int, message: str) -> None:
        super().__init__(message)
        self.line, self.col, self.message = line, col, message


@dataclass
class Positions:
    values: dict[Path, Mark] = field(default_factory=dict)
    keys: dict[Path, Mark] = field(default_factory=dict)

    def value(self, path: Path) -> Mark:
        """Return the mark of the value at path, or of its nearest located ancestor."""
        while path:
            if path in self.values:
                return self.values[path]
            path = path[:-1]
        return self.values.get((), (1, 1))

    def key(self, path: Path) -> Mark:
        return self.keys.get(path) or self.value(path)


def _mark(node: yaml.Node) -> Mark:
    return node.start_mark.line + 1, node.start_mark.column + 1


def parse(text: str) -> tuple[Any, Positions]:
    """Parse one YAML document; raise YamlProblem with a position on any syntax error."""
    loader = _StrictLoader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        raise YamlProblem(line, col, f"YAML syntax: {exc.problem or exc.context}") from exc
    except yaml.YAMLError as exc:
        raise YamlProblem(1, 1, f"YAML syntax: {exc}") from exc
    finally:
        loader.dispose()
    positions = Positions()
    if node is None:
        return None, positions
    return _build(loader, node, (), positions), positions


def _build(loader: _StrictLoader, node: yaml.Node, path: Path, pos: Positions) -> Any:
    pos.values[path] = _mark(node)
    if isinstance(node, yaml.MappingNode):
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise YamlProblem(*_mark(key_node), "a mapping key must be a plain value")
            key = loader.construct_object(key_node, deep=True)
            if key in result:
                raise YamlProblem(*_mark(key_node), f"duplicate key {key!r}")
            pos.keys[(*path, key)] = _mark(key_node)
            result[key] = _build(loader, value_node, (*path, key), pos)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_build(loader, child, (*path, i), pos) for i, child in enumerate(node.value)]
    try:
        return loader.construct_object(node, deep=True)
    except yaml.YAMLError as exc:
        raise YamlProblem(*_mark(node), f"YAML value: {exc}") from exc
