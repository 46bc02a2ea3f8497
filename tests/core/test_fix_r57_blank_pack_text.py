"""A prompt, a choice's text or an accepted answer that shows nothing is refused, at its line.

`" "` passed the length check: a blank prompt, a choice button with no label, and `accept: [" "]`,
which no learner can ever type (a blank answer is refused as empty). The same for text made of a
zero-width space and the like. Each is now a problem at the field, and nothing is stored.
"""

from __future__ import annotations

import pytest

from bot.core import PackInvalid, QuizService
from bot.core.packs import load_bytes
from tests.core.test_pack_errors import ADMIN, GOOD, QUESTION_HEAD

SHOWS = "only spaces or invisible characters; write text a learner can see"
NO_MATCH = "only spaces or invisible characters; no answer a learner types can match it"
SHORT = QUESTION_HEAD + "  - id: s\n    type: short\n    topic: t\n    prompt: Say\n    accept: ACCEPT\n"


def short(accept: str) -> str:
    return SHORT.replace("ACCEPT", accept)


def problems_of(text: str) -> list[str]:
    with pytest.raises(PackInvalid) as caught:
        load_bytes("errs.yaml", text.encode())
    return [str(p) for p in caught.value.problems]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (GOOD.replace("prompt: Pick", 'prompt: " "'), f"errs.yaml:10:5: questions[0] (id `one`).prompt: {SHOWS}"),
        (GOOD.replace("prompt: Pick", 'prompt: "\\u200b\\n"'), f"errs.yaml:10:5: questions[0] (id `one`).prompt: {SHOWS}"),
        (GOOD.replace("{text: b}", '{text: "  "}'), f"errs.yaml:13:10: questions[0] (id `one`).choices[1].text: {SHOWS}"),
        (GOOD.replace("{text: a, correct: true}", '{text: "\\u2060", correct: true}'), f"errs.yaml:12:10: questions[0] (id `one`).choices[0].text: {SHOWS}"),
        (short('[" "]'), f"errs.yaml:11:14: questions[0] (id `s`).accept[0]: {NO_MATCH}"),
        (short('["6", "\\u200b"]'), f"errs.yaml:11:19: questions[0] (id `s`).accept[1]: {NO_MATCH}"),
    ],
    ids=["blank prompt", "zero-width prompt", "blank choice", "word-joiner choice", "blank accept", "zero-width accept"],
)
def test_text_that_shows_nothing_is_refused_at_its_field(text: str, expected: str) -> None:
    assert problems_of(text) == [expected]


async def test_a_pack_loaded_from_the_chat_with_a_blank_answer_stores_nothing(service: QuizService) -> None:
    text = short('[" "]').replace("    accept:", "    number: {value: 6}\n    accept:")
    with pytest.raises(PackInvalid) as caught:
        await service.load_pack(ADMIN, "errs.yaml", text.encode())
    assert [p.message for p in caught.value.problems] == [f"questions[0] (id `s`).accept[0]: {NO_MATCH}"]
    assert await service.pack("errs") is None


def test_text_with_something_to_see_still_loads() -> None:
    text = GOOD.replace("prompt: Pick", 'prompt: " Pick\\u200b "').replace("{text: b}", '{text: "\\u00a0b"}')
    loaded = load_bytes("errs.yaml", (text + "  - id: s\n    type: short\n    topic: t\n    prompt: Say\n    accept: [' 6 ']\n").encode())
    assert [q.id for q in loaded.pack.questions] == ["one", "s"]
