"""`pack validate` finds free points: the longest option as the key, a hint that holds the solution."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.packs import BlanksQuestion, ChoiceQuestion, CodeQuestion, load_bytes, load_path
from bot.core.packs.freepoints import LONGEST_SHARE_MAX, free_points, hint_leak, longest_score, longest_share
from tests.core.test_cli import quizbot

PACKS = Path(__file__).resolve().parents[2] / "content" / "packs"


def choice(key: str, *others: str, multiple: bool = False) -> ChoiceQuestion:
    choices = [{"text": key, "correct": True}, *({"text": o} for o in others)]
    return ChoiceQuestion(type="choice", id=f"c{len(key)}", prompt="Pick", choices=choices, multiple=multiple)


def test_the_longest_option_scores_the_items_where_it_is_the_key() -> None:
    assert longest_score(choice("the long right answer", "short", "tiny")) == 1.0
    assert longest_score(choice("right", "a longer wrong one")) == 0.0
    assert longest_score(choice("`abcd`", "abcd", "ab")) == 0.5  # a tie: backticks are not counted
    questions = [choice("a long key here", "no"), choice("key", "a longer distractor"), choice("ok", "nope")]
    share, count, keyed = longest_share(list(questions))
    assert (share, count, keyed) == (pytest.approx(1 / 3), 3, ["c15"])
    assert longest_share([choice("a long key here", "no", multiple=True)]) == (0.0, 0, [])


def code(hint: str) -> CodeQuestion:
    return CodeQuestion(
        type="code",
        id="k",
        prompt="Write it",
        starter="def f(model):\n    pass\n",
        solution="import copy\n\n\ndef f(model):\n    best = copy.deepcopy(model.state_dict())\n    return best\n",
        test="import user_code",
        hint=hint,
    )


@pytest.mark.parametrize(
    ("hint", "leak"),
    [
        ("Use `best = copy.deepcopy(model.state_dict())`.", "best=copy.deepcopy(model.state_dict())"),
        ("Store `copy.deepcopy(model.state_dict())`.", "copy.deepcopy(model.state_dict())"),
        ("The state dict shares memory with the model: keep a copy that later training cannot change.", None),
        ("Think of `copy.deepcopy`.", None),  # shorter than a key fragment: it names an idea
        ("Write `def f(model):` first.", None),  # the starter's line is no secret
    ],
)
def test_a_hint_that_holds_the_solution_is_found(hint: str, leak: str | None) -> None:
    assert hint_leak(code(hint)) == leak


def test_a_blanks_hint_that_fills_the_template_is_found() -> None:
    q = BlanksQuestion(
        type="blanks", id="b", prompt="Fill", code="x = torch.ones(2)\ny = x.sum({{1}})\n", options=["0", "1"], answers={1: "0"},
        hint="It is `y = x.sum(0)`.",
    )
    assert hint_leak(q) == "y=x.sum(0)"
    assert hint_leak(q.model_copy(update={"hint": "Which dimension does a 1-D tensor have?"})) is None


GIVEAWAY = """\
pack: giveaway
title: Free points
version: 1
questions:
  - id: one
    type: choice
    prompt: Pick
    choices:
      - {text: the long and detailed right answer, correct: true}
      - {text: wrong}
  - id: two
    type: choice
    prompt: Pick
    choices:
      - {text: the long and detailed right answer, correct: true}
      - {text: wrong}
"""


def test_validate_warns_and_strict_refuses(tmp_path: Path) -> None:
    pack = tmp_path / "giveaway.yaml"
    pack.write_text(GIVEAWAY)
    problems = free_points(load_bytes("giveaway.yaml", GIVEAWAY.encode()))
    assert len(problems) == 1 and "scores 100% of the 2 single-answer choice items" in problems[0].message
    warned = quizbot("pack", "validate", str(pack), cwd=tmp_path)
    assert warned.returncode == 0, warned.stdout + warned.stderr
    assert f"{pack}:1:1: warning: picking the longest option scores 100%" in warned.stdout
    strict = quizbot("pack", "validate", "--strict", str(pack), cwd=tmp_path)
    assert strict.returncode == 1
    assert f"{pack}:1:1: picking the longest option scores 100%" in strict.stdout


@pytest.mark.parametrize("folder", sorted(p.name for p in PACKS.iterdir() if (p / "pack.yaml").is_file()))
def test_the_shipped_packs_give_no_free_points(folder: str) -> None:
    loaded = load_path(PACKS / folder)
    assert longest_share(list(loaded.pack.questions))[0] <= LONGEST_SHARE_MAX
    assert [str(p) for p in free_points(loaded)] == []
