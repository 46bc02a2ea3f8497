"""Each question type's module on its own: controls, input, grading, reveal and pack checks."""

from __future__ import annotations

import random

import pytest

from bot.core import actions as ax
from bot.core.errors import BadSubmission
from bot.core.items import TYPES, Changed, Context, Graded, Input, Make, NotAnAnswer, kind_of
from bot.core.items.answers import matches, values
from bot.core.items.codetext import extract
from bot.core.model import ItemState
from bot.core.packs.models import BlanksQuestion, ChoiceQuestion, CodeQuestion, ShortQuestion
from bot.core.ports import RunOutcome, RunRequest
from bot.core.replies import Button, Select

MAKE = Make("s1", 0)
CTX = Context(None, "console:you")


def choice(multiple: bool = False) -> ChoiceQuestion:
    return ChoiceQuestion(
        type="choice",
        id="c",
        prompt="Pick",
        multiple=multiple,
        shuffle=False,
        choices=[
            {"text": "right", "correct": True},
            {"text": "also right" if multiple else "wrong", "correct": multiple, "feedback": "no"},
            {"text": "wrong too", "feedback": "not this"},
        ],
    )


def blanks() -> BlanksQuestion:
    return BlanksQuestion(
        type="blanks", id="b", prompt="Fill", code="x = {{1}}\nprint({{2}})", options=["1", "x", "y"], answers={1: "1", 2: "x"}
    )


def short(**extra: object) -> ShortQuestion:
    return ShortQuestion(type="short", id="s", prompt="Say", **extra)  # type: ignore[arg-type]


def test_every_pack_type_has_a_module() -> None:
    assert set(TYPES) == {"choice", "blanks", "short", "code"}


async def test_choice_grades_the_shown_letter_and_says_why_a_wrong_one_is_wrong() -> None:
    q, item = choice(), ItemState("p", "c")
    kind_of(q).prepare(q, item, random.Random(1))
    view = kind_of(q).view(q, item, MAKE, final=False)
    buttons = [c for row in view.rows for c in row if isinstance(c, Button)]
    assert [b.label for b in buttons] == ["A", "B", "C"] and {b.role for b in buttons} == {"choice"}
    wrong = await kind_of(q).answer(q, item, Input(ax.CHOOSE, "1"), CTX)
    assert isinstance(wrong, Graded) and not wrong.correct and wrong.feedback == ("no",)
    right = await kind_of(q).answer(q, item, Input(ax.CHOOSE, "0"), CTX)
    assert isinstance(right, Graded) and right.correct
    assert kind_of(q).reveal(q) == "The answer: right"
    final = kind_of(q).view(q, item, MAKE, final=True)
    assert all(c.disabled for row in final.rows for c in row)


async def test_select_all_needs_exactly_the_right_set() -> None:
    q, item = choice(multiple=True), ItemState("p", "c")
    kind = kind_of(q)
    assert isinstance(await kind.answer(q, item, Input(ax.MULTI, values=("0",)), CTX), Changed)
    partial = await kind.answer(q, item, Input(ax.CHECK), CTX)
    assert isinstance(partial, Graded) and not partial.correct
    await kind.answer(q, item, Input(ax.MULTI, values=("0", "1")), CTX)
    full = await kind.answer(q, item, Input(ax.CHECK), CTX)
    assert isinstance(full, Graded) and full.correct
    item.picked = []
    with pytest.raises(BadSubmission, match="Select at least one"):
        await kind.answer(q, item, Input(ax.CHECK), CTX)


async def test_blanks_keep_each_pick_and_grade_per_blank() -> None:
    q, item = blanks(), ItemState("p", "b")
    kind = kind_of(q)
    menus = [c for row in kind.view(q, item, MAKE, final=False).rows for c in row if isinstance(c, Select)]
    assert [(m.role, m.number) for m in menus] == [("blank", 1), ("blank", 2)]
    await kind.answer(q, item, Input(ax.BLANK, "1", ("0",)), CTX)
    with pytest.raises(BadSubmission, match=r"\[2\] still empty"):
        await kind.answer(q, item, Input(ax.CHECK), CTX)
    await kind.answer(q, item, Input(ax.BLANK, "2", ("2",)), CTX)
    graded = await kind.answer(q, item, Input(ax.CHECK), CTX)
    assert isinstance(graded, Graded) and not graded.correct and graded.feedback == ("[1] ✅ · [2] ❌",)
    shown = kind.view(q, item, MAKE, final=True).parts
    assert "x = 1" in shown[0].code and shown[1].markdown == "Your picks: [1] `1` · [2] `y`"  # type: ignore[union-attr]


def test_blanks_pack_checks_name_the_missing_answer() -> None:
    q = BlanksQuestion(type="blanks", id="b", prompt="Fill", code="{{1}} {{2}}", options=["a", "b"], answers={1: "a"})
    problems: list[tuple[tuple[str | int, ...], str]] = []
    kind_of(q).check(q, lambda path, message: problems.append((path, message)))
    assert problems == [(("answers",), "blank {{2}} has no answer")]


@pytest.mark.parametrize(
    ("typed", "accepted", "right"),
    [
        ("`6`", "6", True),
        ('"requires_grad"', "requires_grad", True),
        ("tensor([1., 1.])", "[1, 1]", True),
        ("1, 1", "tensor([1., 1.])", True),
        ("[[6., 8.]]", "tensor([[6., 8.]])", True),
        ("[6., 8.]", "tensor([[6., 8.]])", True),
        ("2.5000", "2.5", True),
        ("tensor([1., 2.])", "[1, 1]", False),
        ("[[1, 2], [3, 4]]", "[[1, 2, 3, 4]]", False),
        ("six", "6", False),
    ],
)
def test_short_answers_compare_by_value_where_the_key_is_numeric(typed: str, accepted: str, right: bool) -> None:
    assert matches(typed, accepted) is right


def test_an_exact_short_answer_is_compared_as_typed() -> None:
    assert not matches("6.0", "6", exact=True) and matches(" 6 ", "6", exact=True)
    q = short(accept=["tensor([2.])"], exact=True)
    from bot.core.items.short import is_right

    assert is_right(q, "tensor([2.])") and not is_right(q, "[2]")
    assert values("tensor([1, 2], dtype=torch.int32)") == [1.0, 2.0]


@pytest.mark.parametrize(
    ("sent", "code"),
    [
        ("```python\nx = 1\n```", "x = 1"),
        ("```import torch\nT = torch.ones(2, 5)```", "import torch\nT = torch.ones(2, 5)"),
        ("here it is ```py\nprint(1)``` thanks", "print(1)"),
        ("```\nx = 1\nprint(x)", "x = 1\nprint(x)"),
        ("no fence at all", None),
    ],
)
def test_code_is_found_in_the_fences_real_clients_send(sent: str, code: str | None) -> None:
    assert extract(sent) == code


def test_a_block_in_another_language_is_refused_by_name() -> None:
    with pytest.raises(BadSubmission, match="marked `js`"):
        extract("```js\nconsole.log(1)\n```")


class OneOutcome:
    max_code_bytes = 1000

    def __init__(self, outcome: RunOutcome) -> None:
        self.outcome = outcome

    async def run(self, request: RunRequest) -> RunOutcome:
        return self.outcome

    async def close(self) -> None:
        return None


async def test_code_is_graded_by_its_tests_and_a_syntax_error_is_not_an_answer() -> None:
    q = CodeQuestion(type="code", id="k", prompt="Write", test="import user_code", solution="x = 1")
    item = ItemState("p", "k")
    passed = OneOutcome(RunOutcome(status="failed", tests=(("x is 1", False, "x is 2"),)))
    graded = await kind_of(q).answer(q, item, Input(ax.CODE_FORM, values=("x = 2",)), Context(passed, "u"))
    assert isinstance(graded, Graded) and not graded.correct
    assert "x is 1 — x is 2" in graded.report[0].markdown  # type: ignore[union-attr]
    broken = OneOutcome(RunOutcome(status="error", error_text="SyntaxError: invalid syntax", error_line=1, error_col=5))
    refused = await kind_of(q).answer(q, item, Input(ax.CODE_FORM, values=("x = (",)), Context(broken, "u"))
    assert isinstance(refused, NotAnAnswer)
    assert [job.request.code for job in kind_of(q).proof(q)] == ["x = 1", ""]
