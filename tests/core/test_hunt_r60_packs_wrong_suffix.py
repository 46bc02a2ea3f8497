"""A pack file whose name says another kind than its content: a .zip saved as `.yaml`, YAML saved as `.zip`.

A zip named `pack.yaml` was "the file is not UTF-8 text (byte 12, line 1)", and YAML named
`pack.zip` was "not a valid .zip file": neither says what the file is, nor what to do.
"""

from __future__ import annotations

import io
import zipfile

import pytest

from bot.core import PackInvalid
from bot.core.packs import load_bytes
from tests.convert.helpers import one_short_pack


def problems_of(name: str, data: bytes) -> list[str]:
    with pytest.raises(PackInvalid) as caught:
        load_bytes(name, data)
    return [str(p) for p in caught.value.problems]


def test_a_zip_named_yaml_is_named_a_zip() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("pack.yaml", one_short_pack("zipped"))
    assert problems_of("pack.yaml", buffer.getvalue()) == [
        "pack.yaml:1:1: the file is a .zip archive, not YAML text; give it a name ending in .zip"
    ]


def test_yaml_named_zip_is_named_yaml() -> None:
    assert problems_of("pack.zip", one_short_pack("plain").encode()) == [
        "pack.zip:1:1: not a valid .zip file: it holds YAML text; give it a name ending in .yaml"
    ]


def test_a_damaged_zip_is_still_a_damaged_zip() -> None:
    assert problems_of("pack.zip", b"PK\x03\x04garbage") == ["pack.zip:1:1: not a valid .zip file"]
