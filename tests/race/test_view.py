"""A race round shows each item the way its type module shows it in a quiz, with race action ids."""

from __future__ import annotations

from bot.core.items import kind_of
from bot.core.items.base import Make
from bot.core.model import ItemState
from bot.core.race import Race, RaceItem, view
from bot.core.race import actions as rx
from bot.core.replies import Button, Select, Text
from tests.fakes import FakeClock

from .helpers import race_pack


def a_race(pack_id: str, question: str) -> Race:
    now = FakeClock().now()
    return Race(
        id="r1", platform="discord", scope="g", channel_id="c", started_by="ann", started_by_name="Ann",
        items=[RaceItem(pack_id, question, None, ())], seconds=30, starts=[now], created_at=now,
    )


def test_round_parts_are_the_type_modules_own_with_race_ids() -> None:
    pack = race_pack()
    for qid in ("c0", "multi", "blank", "short"):
        question = pack.question(qid)
        assert question is not None
        message = view.round_message(a_race(pack.pack, qid), 0, pack, question)
        quiz = kind_of(question).view(question, ItemState(pack.pack, qid), Make("s", 0), final=False)
        assert message.parts[1 : 1 + len(quiz.parts)] == quiz.parts  # the prompt, then the quiz's own body
        actions = [c.action for c in message.controls() if isinstance(c, Button | Select)]
        assert actions and all(rx.parse(a) is not None for a in actions)
        assert message.controls()[-1].role == "stop"


def test_select_all_is_one_answer_in_a_race_so_it_has_no_check_button() -> None:
    pack = race_pack()
    question = pack.question("multi")
    assert question is not None
    roles = [c.role for c in view.round_message(a_race(pack.pack, "multi"), 0, pack, question).controls()]
    assert roles == ["multi", "stop"]


def test_code_items_and_blanks_that_need_too_many_rows_stay_out_of_races() -> None:
    pack = race_pack()
    code = pack.question("code")
    blank = pack.question("blank")
    assert code is not None and blank is not None
    assert not view.raceable(code) and view.raceable(blank)
    wide = blank.model_copy(update={"code": "".join(f"x{i} = {{{{{i}}}}}\n" for i in range(1, 6)), "answers": {i: "4" for i in range(1, 6)}})
    assert not view.raceable(wide)  # five menus and the Stop row do not fit Discord's five rows


def test_the_reveal_is_the_type_modules_reveal() -> None:
    pack = race_pack()
    question = pack.question("short")
    assert question is not None
    reveal = view.reveal_message(a_race(pack.pack, "short"), 0, question)
    assert isinstance(reveal.parts[0], Text) and reveal.parts[0].markdown == kind_of(question).reveal(question) == "The answer: `6`"
