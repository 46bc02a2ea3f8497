"""`pack validate --run`'s proof: other blanks fillings, `also_correct`, wrong-solution fixtures.

The proof runs in the real sandbox: one pool is started for the module (it imports torch once).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from bot.core.errors import Problem
from bot.core.packs import BlanksQuestion, CodeQuestion, LoadedPack, Pack, dump_pack, load_bytes, load_path
from bot.core.packs.fillings import fillings_to_try
from bot.core.packs.proof import count_jobs, prove
from bot.core.ports import RunRequest
from bot.sandbox_client import SandboxRunner
from sandbox import SandboxConfig
from tests.conftest import FIXTURES

PACKS = FIXTURES / "packs"
SHIPPED = Path(__file__).resolve().parents[2] / "content" / "packs"
T = TypeVar("T")


class _Pool:
    """A started sandbox runner driven from a loop thread of its own."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="proof-test-loop", daemon=True)
        self.thread.start()
        self.runner = self.call(self._start(), timeout=180)

    @staticmethod
    async def _start() -> SandboxRunner:
        runner = SandboxRunner(SandboxConfig(workers=2, queue=4))  # type: ignore[call-arg]
        outcome = await runner.run(RunRequest("pass"))  # waits for the warm template
        assert outcome.status == "passed", outcome
        return runner

    def call(self, coro: Coroutine[Any, Any, T], timeout: float = 120) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def prove(self, loaded: LoadedPack, **kwargs: Any) -> tuple[list[Problem], int]:
        steps: list[int] = []
        problems = self.call(prove(loaded, self.runner, on_step=lambda: steps.append(1), **kwargs))
        return problems, len(steps)

    def close(self) -> None:
        try:
            self.call(self.runner.close(), timeout=60)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
            self.loop.close()


@pytest.fixture(scope="module")
def pool() -> Iterator[_Pool]:
    p = _Pool()
    yield p
    p.close()


def _blanks(loaded: LoadedPack, qid: str) -> BlanksQuestion:
    q = loaded.pack.question(qid)
    assert isinstance(q, BlanksQuestion)
    return q


def test_another_running_filling_fails_the_pack_naming_item_line_and_filling(pool: _Pool) -> None:
    loaded = load_path(PACKS / "proof-fillings")
    problems, steps = pool.prove(loaded)
    source = str(PACKS / "proof-fillings" / "pack.yaml")
    assert [str(p) for p in problems] == [
        f"{source}:5:5: question `positive`: the filling {{1: \"2\"}} also runs cleanly, so a learner who picks it "
        "is marked wrong for working code; make the template reject it or list it in `also_correct`",
        # `y = 2` comes after the option that switched grad mode off: the batch restored it in between.
        f"{source}:15:5: question `grad-mode`: the filling {{1: \"y = 2\"}} also runs cleanly, so a learner who "
        "picks it is marked wrong for working code; make the template reject it or list it in `also_correct`",
    ]
    assert steps == count_jobs(loaded)


def test_also_correct_filling_passes_the_proof_and_is_graded_right(pool: _Pool) -> None:
    loaded = load_path(PACKS / "proof-also-correct")
    problems, _ = pool.prove(loaded)
    assert problems == []
    q = _blanks(loaded, "positive")
    assert q.is_right({1: "2"}) and q.is_right({1: "1"})
    assert not q.is_right({1: "-1"})
    assert q.right_fillings() == [{1: "1"}, {1: "2"}]
    assert q.marks({1: "2"}) == {1: True}
    assert q.marks({1: "-1"}) == {1: False}


def test_also_correct_survives_storage_and_export() -> None:
    pack = load_path(PACKS / "proof-also-correct").pack
    stored = Pack.model_validate_json(pack.model_dump_json())  # how the repository keeps packs
    assert stored == pack
    q = stored.question("positive")
    assert isinstance(q, BlanksQuestion) and q.also_correct == [{1: "2"}]
    exported = load_bytes("export.yaml", dump_pack(pack).encode()).pack  # `quizbot pack export`, then import
    assert exported == pack


def test_also_correct_filling_that_does_not_run_is_a_problem(pool: _Pool) -> None:
    loaded = load_path(PACKS / "proof-also-correct")
    q = _blanks(loaded, "positive")
    broken = q.model_copy(update={"also_correct": [{1: "-1"}]})
    changed = LoadedPack(loaded.pack.model_copy(update={"questions": [broken]}), loaded.source, loaded.lines)
    problems, _ = pool.prove(changed)
    messages = [p.message for p in problems]
    assert len(messages) == 2, messages
    assert messages[0].startswith("question `positive`: the `also_correct` filling {1: \"-1\"} does not run (error")
    assert messages[1].startswith("question `positive`: the filling {1: \"2\"} also runs cleanly")


def test_wrong_solution_fixtures_must_fail_a_test(pool: _Pool) -> None:
    folder = PACKS / "proof-wrong"
    loaded = load_path(folder)
    problems, steps = pool.prove(loaded)
    shown = sorted(str(p) for p in problems)
    assert shown[0].startswith(
        f"{folder / 'wrong' / 'double' / 'broken-import.py'}:1:1: wrong solution of question `double`: "
        "does not reach the tests ("
    ), shown
    assert shown[1] == (
        f"{folder / 'wrong' / 'double' / 'hard-coded.py'}:1:1: wrong solution of question `double`: "
        "passes every test; the tests must reject this wrong solution"
    )
    assert shown[2] == (
        f"{folder / 'wrong' / 'no-such-item'}:1:1: `no-such-item` is not a code question of this pack "
        "(code questions: double)"
    )
    assert len(shown) == 3  # adds-two.py fails the test, as a wrong solution should
    assert steps == count_jobs(loaded) == 2 + 3


def test_wrong_fixtures_are_read_only_beside_a_folder_pack(pool: _Pool, tmp_path: Path) -> None:
    single = tmp_path / "single.yaml"
    single.write_text((PACKS / "proof-wrong" / "pack.yaml").read_text())
    loaded = load_path(single)
    assert count_jobs(loaded) == 2  # the solution and the starter only
    problems, _ = pool.prove(loaded)
    assert problems == []


def test_fillings_tried_all_up_to_500_else_one_blank_changed() -> None:
    base = {"id": "q", "type": "blanks", "prompt": "p", "verify": "run"}
    key = {1: "a", 2: "b", 3: "c"}
    declared = {1: "b", 2: "b", 3: "c"}
    small = BlanksQuestion.model_validate(
        {**base, "code": "{{1}} {{2}} {{3}}", "options": list("abcdefg"), "answers": key, "also_correct": [declared]}
    )
    tried = fillings_to_try(small)
    assert len(tried) == 7**3 - 2  # 343 <= 500: every filling but the key and the declared one
    assert key not in tried and declared not in tried
    assert {1: "g", 2: "g", 3: "g"} in tried
    large = BlanksQuestion.model_validate(
        {**base, "code": "{{1}} {{2}} {{3}}", "options": list("abcdefgh"), "answers": {1: "a", 2: "b", 3: "c"}}
    )
    tried = fillings_to_try(large)
    assert len(tried) == 3 * 7  # 512 > 500: each blank changed alone to each other option
    assert all(sum(f[n] != large.answers[n] for n in (1, 2, 3)) == 1 for f in tried)


def test_also_correct_must_fill_every_blank_with_existing_options() -> None:
    base = {"id": "q", "type": "blanks", "prompt": "p", "code": "{{1}} {{2}}", "options": ["a", "b"],
            "answers": {1: "a", 2: "b"}}  # fmt: skip
    for bad, words in (
        ([{1: "b"}], "must fill every blank (1, 2)"),
        ([{1: "b", 2: "z"}], "`z` (blank 2) is not one of the options"),
        ([{1: "a", 2: "b"}], "is the key itself"),
    ):
        with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
            BlanksQuestion.model_validate({**base, "also_correct": bad})


def test_every_shipped_code_item_has_two_wrong_solutions() -> None:
    folders = sorted(p.parent for p in SHIPPED.glob("*/pack.yaml"))
    assert folders
    for folder in folders:
        loaded = load_path(folder)
        for q in loaded.pack.questions:
            if isinstance(q, CodeQuestion):
                found = sorted((folder / "wrong" / q.id).glob("*.py"))
                assert len(found) >= 2, f"{folder.name}: `{q.id}` has {len(found)} wrong solutions"
