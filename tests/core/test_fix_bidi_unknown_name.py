"""An unknown name is echoed without bidi controls or other invisible format characters.

`/quiz start pack:‮nope` was answered "No pack named `‮nope`...": the right-to-left override
(U+202E) flipped the rest of the line, the list of packs with it. The echoed name now drops them;
the known names are listed as they are.
"""

from __future__ import annotations

import pytest

from bot.core import Actor, QuizService
from bot.core import requests as rq
from bot.core.errors import UnknownName

ANN = Actor("discord", "guild-1", "ann", "Ann")
CONTROLS = ["\u202e", "\u200f", "\u200e", "\u202b", "\u2067", "\u2069", "\u061c", "\u200b", "\ufeff"]


@pytest.mark.parametrize("mark", CONTROLS, ids=[f"U+{ord(c):04X}" for c in CONTROLS])
async def test_the_unknown_pack_is_echoed_without_the_control(service: QuizService, mark: str) -> None:
    with pytest.raises(UnknownName) as refused:
        await service.handle(ANN, rq.Start(pack=f"{mark}nope{mark}"))
    text = str(refused.value)
    assert mark not in text
    assert "nope" in text and "`demo`" in text  # the name as it shows, and the known packs as they are


def test_every_kind_of_name_drops_them_and_keeps_the_list() -> None:
    text = str(UnknownName("topic", "ba\u202esics\u2066", ["basics", "tensors"]))
    assert "\u202e" not in text and "\u2066" not in text
    assert "basics" in text and "`tensors`" in text
