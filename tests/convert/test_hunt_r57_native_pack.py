"""A pack written as JSON (flow style), with quoted keys or saved as UTF-16 is a pack, not a trivia list.

`pack import` and the chat's `pack load` decide between loading a .yaml as it is and converting it
(a Red trivia list is YAML too). A valid pack that `pack validate` passed was converted as a trivia
list instead: its `pack`, `title` and `version` keys became three questions of a pack named after
the file, and that was stored.
"""

from __future__ import annotations

import json

import pytest
import yaml

from bot.core.convert import is_native_pack

PACK = {
    "pack": "flow-pack",
    "title": "Flow",
    "version": 1,
    "questions": [{"id": "one", "type": "short", "prompt": "Say six", "accept": ["6"]}],
}
BLOCK = yaml.safe_dump(PACK, sort_keys=False)


@pytest.mark.parametrize(
    "data",
    [
        json.dumps(PACK).encode(),
        json.dumps(PACK, indent=2).encode(),
        BLOCK.replace("pack:", '"pack":').replace("questions:", "'questions':").encode(),
        b"\xef\xbb\xbf" + BLOCK.encode(),
        BLOCK.encode("utf-16"),
        BLOCK.encode("utf-16-le"),
        ("# my pack\n" + BLOCK).encode(),
    ],
    ids=["json", "json-indented", "quoted-keys", "bom", "utf-16", "utf-16-le", "comment"],
)
def test_a_pack_in_any_yaml_spelling_is_native(data: bytes) -> None:
    assert is_native_pack("p.yaml", data)


@pytest.mark.parametrize(
    "data",
    [
        b"AUTHOR: me\nWhat is 2 + 2?:\n- 4\n- four\n",
        b'{"What is 2 + 2?": ["4"]}\n',
    ],
)
def test_a_trivia_list_is_not(data: bytes) -> None:
    assert not is_native_pack("trivia.yaml", data)


def test_converting_a_pack_says_it_is_one_instead_of_reading_a_trivia_list() -> None:
    from bot.core.convert import ConvertError, convert_bytes

    with pytest.raises(ConvertError) as caught:
        convert_bytes("my-pack.yaml", BLOCK.encode())
    assert str(caught.value) == (
        "my-pack.yaml: this is already a QuizBot pack: nothing to convert; check it with "
        "`quizbot pack validate` and load it as it is"
    )
    forced = convert_bytes("list.yaml", b"What is 2 + 2?:\n- 4\n", fmt="red-trivia")  # --format still reads it
    assert forced.loaded is not None
