"""A .zip pack whose member names are ambiguous or unsafe is refused by name, in one line.

An archive made on Windows may spell folders with backslashes; one that holds a name twice, two
packs side by side, a name that leaves the archive or a symbolic link would otherwise load some
other file than the author looked at, or fail with a message about the wrong thing.
"""

from __future__ import annotations

import io
import warnings
import zipfile

import pytest

from bot.core import PackInvalid
from bot.core.packs import load_bytes
from tests.convert.helpers import one_short_pack

GOOD = one_short_pack("zipped").encode()


def zipped(members: list[tuple[str | zipfile.ZipInfo, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        warnings.simplefilter("ignore")  # "Duplicate name": made on purpose
        for name, content in members:
            archive.writestr(name, content)
    return buffer.getvalue()


def problems_of(data: bytes) -> list[str]:
    with pytest.raises(PackInvalid) as caught:
        load_bytes("p.zip", data)
    return [str(p) for p in caught.value.problems]


def test_a_zip_made_with_backslashes_is_read_as_folders() -> None:
    test = b"import unittest\nimport user_code\n"
    code = GOOD.replace(b'    type: short\n    prompt: Say six\n    accept: ["6"]\n', b"    type: code\n    prompt: Write\n    test_file: tests/t.py\n    solution: 'x = 1'\n")
    data = zipped([("zipped\\pack.yaml", code), ("zipped\\tests\\t.py", test)])
    loaded = load_bytes("p.zip", data)
    assert loaded.pack.questions[0].test == test.decode()  # type: ignore[union-attr]
    assert loaded.source == "p.zip/zipped/pack.yaml"


def test_a_name_held_twice_is_refused() -> None:
    data = zipped([("pack.yaml", GOOD), ("pack.yaml", b"pack: other\n")])
    assert problems_of(data) == ["p.zip:1:1: the .zip holds `pack.yaml` twice; zip the pack folder again"]


def test_two_packs_side_by_side_are_refused() -> None:
    data = zipped([("a/pack.yaml", GOOD), ("b/pack.yaml", GOOD)])
    assert problems_of(data) == [
        "p.zip:1:1: the .zip holds more than one pack (`a/pack.yaml`, `b/pack.yaml`); zip one pack per file"
    ]


@pytest.mark.parametrize("name", ["../pack.yaml", "/etc/pack.yaml", "a/../../pack.yaml", "C:/pack.yaml"])
def test_a_name_leaving_the_archive_is_refused(name: str) -> None:
    assert problems_of(zipped([(name, GOOD)])) == [
        f"p.zip:1:1: the .zip holds `{name}`, a path that leaves the archive; zip the pack folder itself"
    ]


def test_a_symbolic_link_is_refused_by_name() -> None:
    link = zipfile.ZipInfo("pack.yaml")
    link.external_attr = 0o120777 << 16
    assert problems_of(zipped([(link, b"/etc/passwd")])) == [
        "p.zip/pack.yaml:1:1: the file is a symbolic link; zip the file itself"
    ]


def test_a_zip_inside_the_zip_is_named() -> None:
    inner = zipped([("pack.yaml", GOOD)])
    assert problems_of(zipped([("inner.zip", inner)])) == [
        "p.zip:1:1: the .zip holds no pack.yaml, but holds `inner.zip`: unzip that and zip the pack folder itself"
    ]
