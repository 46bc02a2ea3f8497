"""Parse YAML into plain values while remembering where every key and value stands.

YAML 1.1's habit of reading `yes`, `no`, `on` and `off` as booleans is undone on purpose: in a
quiz pack those are answers, not switches. Only `true` and `false` are booleans, and a plain `=` is
text. Duplicate keys are errors rather than silently keeping the last one; merge keys (`<<`) and
tags (`!include`) are refused by name.

The parse has a budget: nesting deeper than MAX_DEPTH and documents of more than MAX_NODES values
are refused while they are composed, at the value that passes the budget, before they can exhaust
the stack, the memory or the CPU; documents whose aliases expand to more than MAX_NODES values or
MAX_TEXT characters of text are refused while they are built. Strings that
no database can store (a NUL character, a lone surrogate) are refused where they stand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from bot.core.i18n import M_

Path = tuple[str | int, ...]
Mark = tuple[int, int]  # 1-based line and column

MAX_DEPTH = 32  # nested mappings and lists; a pack needs about 6
MAX_NODES = 50_000  # values after aliases are expanded; the largest shipped pack has about 700
MAX_TEXT = 8 * 1024 * 1024  # characters of text after aliases are expanded (a pack is at most 8 MiB)


class YamlProblem(Exception):
    def __init__(self, line: int, col: int, message: str) -> None:
        super().__init__(message)
        self.line, self.col, self.message = line, col, message


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader without YAML 1.1 booleans, whose composer refuses deep nesting and too many values.

    Both are refused while composing, at the event that passes the budget: a flat 2 MiB list of a
    million values costs 50,000 nodes, not a million. Aliases are not counted here (they compose
    to the node they name); what they expand to is counted by `_Builder`.
    """

    _depth = 0
    _values = 0
    _top: object = None  # the top-level key whose value is being composed

    def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node | None:
        self._depth += 1
        try:
            event = self.peek_event()  # type: ignore[no-untyped-call]
            mark = event.start_mark
            if self._depth > MAX_DEPTH:
                raise YamlProblem(mark.line + 1, mark.column + 1, M_("nested more than {most} levels deep", most=MAX_DEPTH))
            if self._depth == 2 and isinstance(index, yaml.ScalarNode):
                self._top = index.value
            is_key = isinstance(parent, yaml.MappingNode) and index is None
            if not is_key and not isinstance(event, yaml.AliasEvent):
                self._values += 1
                if self._values > MAX_NODES:
                    where = f"`{self._top}`" if self._depth > 1 and self._top is not None else M_("the document")
                    raise YamlProblem(
                        mark.line + 1, mark.column + 1,
                        M_("{where} holds more than {most} values; a pack needs far fewer", where=where, most=f"{MAX_NODES:,}"),
                    )
            node: yaml.Node | None = super().compose_node(parent, index)  # type: ignore[arg-type]
            return node
        finally:
            self._depth -= 1


_StrictLoader.yaml_implicit_resolvers = {
    # YAML 1.1's `=` ("value" key) has no constructor: a plain `=` is text, the assignment operator
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:value")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_StrictLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


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
    """Parse one YAML document; raise YamlProblem with a position on any syntax error or budget overrun."""
    try:
        loader = _StrictLoader(text)
    except yaml.reader.ReaderError as exc:
        raise _reader_problem(text, exc) from None
    try:
        node = loader.get_single_node()
    except yaml.reader.ReaderError as exc:
        raise _reader_problem(text, exc) from None
    except yaml.MarkedYAMLError as exc:
        raise explain(text, exc) from None
    except yaml.YAMLError as exc:
        raise YamlProblem(1, 1, M_("YAML syntax: {detail}", detail=exc)) from None
    finally:
        loader.dispose()
    positions = Positions()
    if node is None:
        return None, positions
    return _Builder(loader, positions).build(node, ()), positions


class _Builder:
    """Turn composed nodes into plain values, counting every value an alias expands to."""

    def __init__(self, loader: _StrictLoader, positions: Positions) -> None:
        self.loader, self.pos, self.count, self.text = loader, positions, 0, 0

    def build(self, node: yaml.Node, path: Path) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            line, col = self.pos.keys.get(path[:1], (1, 1))
            where = f"`{path[0]}`" if path else M_("the document")
            raise YamlProblem(
                line, col, M_("{where} expands to more than {most} values (each alias repeats all it points at)", where=where, most=f"{MAX_NODES:,}")
            )
        if len(path) > MAX_DEPTH:
            raise YamlProblem(*_mark(node), M_("nested more than {most} levels deep (an alias that contains itself?)", most=MAX_DEPTH))
        self.pos.values.setdefault(path, _mark(node))
        if isinstance(node, yaml.MappingNode):
            result: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    raise YamlProblem(*_mark(key_node), M_("a mapping key must be a plain value"))
                if key_node.tag == "tag:yaml.org,2002:merge":
                    raise YamlProblem(*_mark(key_node), M_("YAML merge keys (`<<`) are not supported; write the keys out in full"))
                key = self.scalar(key_node)
                if key in result:
                    raise YamlProblem(*_mark(key_node), M_("duplicate key {key}", key=repr(key)))
                self.pos.keys.setdefault((*path, key), _mark(key_node))
                result[key] = self.build(value_node, (*path, key))
            return result
        if isinstance(node, yaml.SequenceNode):
            return [self.build(child, (*path, i)) for i, child in enumerate(node.value)]
        value = self.scalar(node)
        if isinstance(value, str):
            self.text += len(value)  # a text an alias repeats is stored as often as it is repeated
            if self.text > MAX_TEXT:
                line, col = self.pos.keys.get(path[:1], (1, 1))
                where = f"`{path[0]}`" if path else M_("the document")
                message = M_("{where} expands to more than {size} of text (each alias repeats all it points at)", where=where, size=f"{MAX_TEXT // 1048576} MiB")
                raise YamlProblem(line, col, message)
        return value

    def scalar(self, node: yaml.Node) -> Any:
        if node.tag not in self.loader.yaml_constructors:  # `!include x`, `!!python/name:...`: never built
            message = M_(
                "the YAML tag `{tag}` is not supported; remove it and write the value itself "
                "(a code item names its files with `test_file` and `solution_file`)",
                tag=node.tag.replace("tag:yaml.org,2002:", "!!"),
            )
            raise YamlProblem(*_mark(node), message)
        try:
            value = self.loader.construct_object(node, deep=True)
        except (yaml.YAMLError, ValueError, OverflowError) as exc:
            if "integer string conversion" in str(exc):  # Python's own advice (sys.set_int_max_str_digits) is no use to an author
                digits = sum(char.isdigit() for char in str(node.value))
                raise YamlProblem(*_mark(node), M_("a number of {n} digits is too long to read; put it in quotes to make it text", n=digits)) from None
            raise YamlProblem(*_mark(node), M_("YAML value: {detail}", detail=str(exc).splitlines()[0])) from None
        if isinstance(value, str):
            if "\x00" in value:
                raise YamlProblem(*_mark(node), M_("a NUL character (\\0) in this text; no database stores it"))
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise YamlProblem(*_mark(node), M_("a lone surrogate (\\uD800-\\uDFFF) in this text is not valid Unicode")) from None
        return value


# ------------------------------------------------------------------ syntax errors in plain words


def _reader_problem(text: str, exc: yaml.reader.ReaderError) -> YamlProblem:
    position = exc.position if isinstance(exc.position, int) else 0
    line = text.count("\n", 0, position) + 1
    col = position - (text.rfind("\n", 0, position) + 1) + 1
    code = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "\0")
    return YamlProblem(line, col, M_("YAML syntax: the character {char} is not allowed in YAML; remove it", char=f"U+{code:04X}"))


def explain(text: str, exc: yaml.MarkedYAMLError) -> YamlProblem:
    """Say where the mistake most likely is, which is often above where the parser gave up."""
    problem = exc.problem or ""
    context = exc.context or ""
    at = exc.problem_mark or exc.context_mark
    line, col = (at.line + 1, at.column + 1) if at else (1, 1)
    ctx_line, ctx_col = (exc.context_mark.line + 1, exc.context_mark.column + 1) if exc.context_mark else (line, col)

    quoting = M_("put the whole value in quotes")
    escape = re.search(r"unknown escape character '(.)'", problem)
    if escape is not None:
        return YamlProblem(
            line, max(col - 1, 1),
            M_(
                "YAML syntax: `\\{char}` is not an escape YAML knows in double quotes; write `\\\\` for a backslash, or use single quotes",
                char=escape.group(1),
            ),
        )
    token = re.search(r"found character '(.)' that cannot start any token", problem)
    if token is not None:
        return YamlProblem(line, col, M_("YAML syntax: a plain value cannot start with '{char}'; {quote}", char=token.group(1), quote=quoting))
    if "scanning an alias" in context:
        return YamlProblem(ctx_line, ctx_col, M_("YAML syntax: `*` starts an alias here; to start a text with it, {quote}", quote=quoting))
    if "sequence entries are not allowed" in problem:
        return YamlProblem(
            line, col, M_("YAML syntax: `- ` starts a list entry here; to start a text with `-`, {quote}, or check this line's indentation", quote=quoting)
        )
    if "another document" in problem:
        return YamlProblem(
            line, col,
            M_(
                "YAML syntax: a second document starts here (`---`); a pack file holds one: "
                "remove this line and what follows, or move it to a file of its own"
            ),
        )
    if "quoted scalar" in context:
        return YamlProblem(ctx_line, ctx_col, M_("YAML syntax: the quote that opens here is never closed"))
    runaway = _runaway_quote(text, line)
    if runaway is not None:
        start, quote = runaway
        inner = M_("two single quotes ('')") if quote == "'" else M_('a backslash before it (\\")')
        return YamlProblem(
            *start,
            M_(
                "YAML syntax: the quote ({quote}) that opens here is not closed on this line; YAML read on to line {line}. "
                "Close it; to put the quote itself in the text, write {inner}",
                quote=quote, line=line, inner=inner,
            ),
        )
    if "flow sequence" in context or "flow mapping" in context:
        opener, closer = ("[", "]") if "sequence" in context else ("{", "}")
        return YamlProblem(ctx_line, ctx_col, M_("YAML syntax: the `{opener}` that opens here is not closed with `{closer}`", opener=opener, closer=closer))
    if "simple key" in context and "':'" in problem:
        return YamlProblem(ctx_line, ctx_col, M_("YAML syntax: this line has no `:`; write `key: value`"))
    if "'\\t'" in problem:
        return YamlProblem(line, col, M_("YAML syntax: a tab character; indent with spaces only"))
    if "mapping values are not allowed" in problem:
        return YamlProblem(
            line, col, M_("YAML syntax: a `: ` inside a value; put the value in quotes, or check this line's indentation")
        )
    if "expected <block end>" in problem and _before(text, line, col).strip():
        return YamlProblem(
            line, col, M_("YAML syntax: more text after a value that ended on this line (a closing quote or bracket); {quote}", quote=quoting)
        )
    if "expected <block end>" in problem:
        return YamlProblem(line, col, M_("YAML syntax: this line's indentation does not fit the lines above it"))
    if "undefined alias" in problem:
        return YamlProblem(line, col, M_("YAML syntax: an alias (`*name`) with no anchor (`&name`) above it"))
    return YamlProblem(line, col, M_("YAML syntax: {detail}", detail=problem or context or M_("cannot be read")))


def _before(text: str, line: int, col: int) -> str:
    """The text of `line` before `col` (both 1-based)."""
    lines = text.split("\n")
    return lines[line - 1][: col - 1] if 0 < line <= len(lines) else ""


def _runaway_quote(text: str, error_line: int) -> tuple[Mark, str] | None:
    """Find a quoted value that began on an earlier line and ended on the line the parser complained about."""
    found: tuple[Mark, str] | None = None
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            if token.start_mark.line + 1 > error_line:
                break
            if (
                isinstance(token, yaml.ScalarToken)
                and token.style in ("'", '"')
                and token.end_mark.line + 1 == error_line
                and token.start_mark.line < token.end_mark.line
            ):
                found = ((token.start_mark.line + 1, token.start_mark.column + 1), token.style)
    except yaml.YAMLError:
        pass
    return found
