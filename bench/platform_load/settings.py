"""The benchmark's settings: this checkout, the admin database, how long a learner waits and reads.

THINK_S and BOT_LOG_LEVEL are set from the command line (`--think`, `--log-level`): read them
as `settings.THINK_S`, at the time of use.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # this checkout
BOT_LOG_LEVEL = "WARNING"  # --log-level: the bot processes' QUIZBOT_LOG_LEVEL (INFO shows the saves made again)
THINK_S = 0.0  # --think: a learner reads each item for 0.5-1.5 times this long before answering (0: flat out)


async def think() -> None:
    if THINK_S > 0:
        await asyncio.sleep(THINK_S * (0.5 + random.random()))


PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"
ACK_WAIT_S = 10.0  # an answer not acknowledged within this is counted lost
NEXT_WAIT_S = 30.0  # the longest a learner waits for the next item before starting over
SLOW_ACK_S = 3.0
