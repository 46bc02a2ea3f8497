"""A .zip of a folder of packs whose second pack sits one folder deeper than the first.

`a/pack.yaml` beside `b/pack.yaml` was refused as two packs, but `a/pack.yaml` with
`more/b/pack.yaml` loaded `a` alone and dropped `b` without a word.
"""

from __future__ import annotations

import io
import zipfile

import pytest

from bot.core import PackInvalid
from bot.core.packs import load_bytes
from tests.convert.helpers import one_short_pack


def zipped(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def test_a_second_pack_in_another_folder_is_refused_even_when_deeper() -> None:
    data = zipped({"a/pack.yaml": one_short_pack("first"), "more/b/pack.yaml": one_short_pack("second")})
    with pytest.raises(PackInvalid) as caught:
        load_bytes("packs.zip", data)
    assert [str(p) for p in caught.value.problems] == [
        "packs.zip:1:1: the .zip holds more than one pack (`a/pack.yaml`, `more/b/pack.yaml`); zip one pack per file"
    ]


def test_a_pack_yaml_inside_the_packs_own_folder_is_its_file() -> None:
    data = zipped({"a/pack.yaml": one_short_pack("first"), "a/examples/pack.yaml": "not read\n"})
    assert load_bytes("pack.zip", data).pack.pack == "first"


def test_a_pack_at_the_top_keeps_the_pack_yaml_files_below_it() -> None:
    data = zipped({"pack.yaml": one_short_pack("top"), "examples/pack.yaml": "not read\n"})
    assert load_bytes("pack.zip", data).pack.pack == "top"
