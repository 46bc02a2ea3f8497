"""Code pasted with a byte order mark (U+FEFF) before it: Python refuses the character, so every such
answer read "SyntaxError: invalid non-printable character U+FEFF" at line 1, column 1. A BOM at the
start of a text is a marker of its encoding, never code: it is dropped before the code is checked.
"""

from __future__ import annotations

import pytest

from bot.core import QuizService
from bot.core import requests as rq
from bot.core.ports import RunOutcome
from tests.core.test_fix_r57_syntax_error_counts import (  # noqa: F401 (the fixtures)
    ANN,
    ScriptedRunner,
    core,
    repo,
    runner,
)


@pytest.mark.parametrize("sent", ["```python\n\ufefftotal = sum(range(1, 11))\nprint(total)\n```", "\ufefftotal = sum(range(1, 11))\nprint(total)\n"])
async def test_a_leading_byte_order_mark_never_reaches_the_sandbox(core: QuizService, runner: ScriptedRunner, sent: str) -> None:  # noqa: F811
    await core.handle(ANN, rq.Start(pack="demo", question="q-code"))
    runner.outcome = RunOutcome(status="passed", tests=(("It prints 55.", True, ""),))
    await core.handle(ANN, rq.Submit(sent))  # in a code block, or the whole message
    (request,) = runner.requests
    assert "\ufeff" not in request.code and request.code.startswith("total = sum"), repr(request.code)
