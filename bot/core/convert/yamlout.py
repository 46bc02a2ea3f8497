"""Write plain data as readable YAML: block scalars for text on several lines, keys in order."""

from __future__ import annotations

from typing import Any

import yaml

try:  # libyaml's emitter is several times faster on large packs; the output is the same YAML
    from yaml import CSafeDumper as _Base
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeDumper as _Base  # type: ignore[assignment]


class _Dumper(_Base):
    pass


def _str(dumper: _Base, value: str) -> yaml.Node:
    # Block style only where YAML can round-trip it exactly (no trailing spaces on a line).
    style = "|" if "\n" in value and not any(line != line.rstrip() for line in value.splitlines()) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def dump_yaml(data: Any) -> str:
    """Render `data` as YAML that the pack loader reads back to the same values."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
