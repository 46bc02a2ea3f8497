"""Short answers that mix numbers, lists, tuples, None, booleans and words are compared by value."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.items.answers import MAX_LENGTH, matches, read
from bot.core.items.short import is_right
from bot.core.packs import ShortQuestion, load_path

PACKS = Path(__file__).resolve().parents[2] / "content" / "packs"


def shipped(pack: str, item: str) -> ShortQuestion:
    question = load_path(PACKS / pack).pack.question(item)
    assert isinstance(question, ShortQuestion)
    return question


# The five spellings of issue 25, each on the shipped item that asks for it.
SPELLINGS = [
    (
        "pytorch-optimisation",
        "clip-short",
        ["5 [0.6, 0.8]", "5.0, [0.6, 0.8]", "5 [0.6,0.8]", "5.0 tensor([0.6000, 0.8000])", "5 (0.6, 0.8)", "`5 [0.6, 0.8]`"],
        ["5 [0.8, 0.6]", "5 0.6 0.8", "1.0 [0.6, 0.8]", "5 [0.6, 0.8, 0.0]"],
    ),
    (
        "pytorch-losses-shapes",
        "scatter-short",
        ["[1,3,0] 3.0", "[1, 3, 0], 3", "[ 1 , 3 , 0 ] 3.", "tensor([1, 3, 0]) tensor(3.)", "(1, 3, 0) 3.0"],
        ["[1, 3, 0] 3.5", "[0, 1, 3] 3.0", "1 3 0", "[1, 3, 0]"],
    ),
    (
        "pytorch-optimisation",
        "init-short-zeros",
        ["False False False True", "false, false, false, true", "FALSE FALSE FALSE TRUE", "[False,False,False,True]", "(False, False, False, True)"],
        ["False False True True", "0 0 0 1", "False False False", "True True True False"],
    ),
    (
        "pytorch-losses-shapes",
        "cat-short",
        ["(4,3) (2,3,2)", "(4, 3), (2, 3, 2)", "torch.Size([4, 3]) torch.Size([2, 3, 2])", "[4, 3] [2, 3, 2]", "( 4 , 3 ) ( 2 , 3 , 2 )"],
        ["4 3 2 3 2", "(3, 4) (2, 3, 2)", "(4, 3) (3, 2, 2)", "(4, 3)"],
    ),
    (
        "pytorch-optimisation",
        "amp-short-dtypes",
        ["bfloat16 float32", "torch.bfloat16 torch.float32", "BFloat16, Float32", "`torch.bfloat16`, `torch.float32`", "'bfloat16' 'float32'"],
        ["float16 float32", "float32 bfloat16", "bfloat16", "torch.float16 torch.float32"],
    ),
]


@pytest.mark.parametrize(("pack", "item", "right", "wrong"), SPELLINGS, ids=[s[1] for s in SPELLINGS])
def test_natural_spellings_are_right_and_wrong_values_are_not(pack: str, item: str, right: list[str], wrong: list[str]) -> None:
    question = shipped(pack, item)
    assert [a for a in right if not is_right(question, a)] == []
    assert [a for a in wrong if is_right(question, a)] == []


@pytest.mark.parametrize(
    ("typed", "accepted", "same"),
    [
        ("None [2., 4.]", "None [2.0, 4.0]", True),
        ("none, tensor([2., 4.])", "None [2.0, 4.0]", True),
        ("0 [2., 4.]", "None [2.0, 4.0]", False),
        ('2 ["exp_avg", "exp_avg_sq", "step"]', "2 ['exp_avg', 'exp_avg_sq', 'step']", True),
        ("2 [exp_avg, exp_avg_sq, step]", "2 ['exp_avg', 'exp_avg_sq', 'step']", True),
        ("2 ['exp_avg', 'step']", "2 ['exp_avg', 'exp_avg_sq', 'step']", False),
        ("'1.weight', '1.bias'", "['1.weight', '1.bias']", True),
        ("tensor(1., grad_fn=<AddBackward0>)", "1", True),
        ("True", "1", False),
        ("7 10 15 22", "[[7, 10], [15, 22]]", False),
        ("[[7, 10], [15, 22]]", "tensor([[ 7, 10],\n        [15, 22]])", True),
    ],
)
def test_values_of_every_kind(typed: str, accepted: str, same: bool) -> None:
    assert matches(typed, accepted) is same


def test_exact_refuses_the_value_comparison() -> None:
    question = shipped("pytorch-optimisation", "amp-short-dtypes").model_copy(update={"exact": True})
    assert is_right(question, "torch.bfloat16 torch.float32")
    assert not is_right(question, "bfloat16 float32")


def test_reading_has_a_budget_and_no_eval() -> None:
    assert read("1 " * (MAX_LENGTH // 2 + 1)) is None
    assert read("[" * 50 + "]" * 50) is None  # deeper than MAX_DEPTH
    # read as plain words and strings, never run
    assert read("__import__('os').system('true')") == ["__import__", ["os"], ".system", ["true"]]
    assert read("[1, 2") is None and read("1,, 2") is None


def test_the_meta_message_item_asks_what_a_learner_can_answer() -> None:
    question = shipped("pytorch-devices-checkpoints", "mm-meta-message")
    assert not any("!" in accepted or "expected device" in accepted.casefold() for accepted in question.accept)
