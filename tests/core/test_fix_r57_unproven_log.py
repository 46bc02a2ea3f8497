"""A pack loaded unproven from the chat is logged as stored only once it is stored.

The warning "stored unproven" was written before the store: a store refused (a version already
there, another server's pack) left a log line saying a pack was stored that was not.
"""

from __future__ import annotations

import logging

import pytest

from bot.core import QuizError, QuizService
from bot.core import requests as rq
from tests.core.test_pack_errors import ADMIN, GOOD

STORED = "stored unproven"


def unproven_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "bot.core.admin" and STORED in r.getMessage()]


async def test_a_refused_unproven_load_logs_nothing_stored(service: QuizService, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="bot.core.admin")
    await service.handle(ADMIN, rq.PackLoad("errs.yaml", GOOD.encode(), unproven=True))
    assert unproven_lines(caplog) == ["pack errs v1 stored unproven by console:root"]
    caplog.clear()
    with pytest.raises(QuizError, match="already at version 1"):
        await service.handle(ADMIN, rq.PackLoad("errs.yaml", GOOD.encode(), unproven=True))
    assert unproven_lines(caplog) == []
    newer = GOOD.replace("version: 1", "version: 2")
    await service.handle(ADMIN, rq.PackLoad("errs.yaml", newer.encode(), unproven=True))
    assert unproven_lines(caplog) == ["pack errs v2 stored unproven by console:root"]
