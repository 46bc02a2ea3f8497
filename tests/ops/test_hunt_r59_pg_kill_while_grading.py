"""SIGKILL while a Discord learner's code is being graded, on PostgreSQL, then a restart.

On PostgreSQL other processes may still be grading their own work, so a new process cannot abandon
every earlier row at start as it does on SQLite. A killed process's row used to wait for its
deadline (the job's limit plus 2 minutes): the learner heard nothing for minutes. Each process now
beats every QUIZBOT_HEARTBEAT_S; another marks the rows of a process silent for three beats
abandoned, so the learner's next request is told to send the answer again.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg

from tests.conftest import DEMO_PACK
from tests.discord import payloads as p
from tests.discord.fake_discord import BOT_TOKEN, FakeDiscord
from tests.ops.services import BotProcess, bot_env, free_port, uid_base, wait_http
from tests.ops.test_hunt_r58_kill_while_grading import NOTE, send, sleepy_code_being_graded, told
from tests.ops.test_two_discord_processes import until


def env_for(pg_url: str, tmp_path: Path, fake: FakeDiscord, metrics: int) -> dict[str, str]:
    env = bot_env(
        pg_url, DEMO_PACK, DISCORD_TOKEN=BOT_TOKEN, DISCORD_API_URL=fake.api_url,
        QUIZBOT_METRICS_PORT=str(metrics), QUIZBOT_METRICS_HOST="127.0.0.1", QUIZBOT_HEARTBEAT_S="1",
    )
    for key in ("QUIZBOT_SANDBOX_URLS", "QUIZBOT_SANDBOX_TOKEN"):  # a local pool: the code really runs
        env.pop(key)
    return env | {
        "QUIZBOT_SANDBOX_WORKERS": "1", "QUIZBOT_SANDBOX_MEMORY_MB": "256", "QUIZBOT_SANDBOX_WALL_S": "60",
        "QUIZBOT_SANDBOX_WARM_OPTIMIZERS": "false", "QUIZBOT_SANDBOX_UID_BASE": str(uid_base(metrics)),
    }


async def start_bot(name: str, pg_url: str, tmp_path: Path, fake: FakeDiscord, processes: list[BotProcess]) -> tuple[BotProcess, int]:
    metrics = free_port()
    bot = BotProcess(name, ["run"], env_for(pg_url, tmp_path, fake, metrics), tmp_path)
    processes.append(bot)
    await until(lambda: len(fake.identify) >= len(processes), "identify", [bot], 120)
    await asyncio.to_thread(wait_http, bot, f"http://127.0.0.1:{metrics}/readyz", 180)
    return bot, metrics


async def rows(pg_url: str) -> list[asyncpg.Record]:
    db = await asyncpg.connect(pg_url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        return list(await db.fetch("SELECT process, deadline <= now() AS overdue FROM unfinished_work"))
    finally:
        await db.close()


async def test_a_process_killed_while_grading_on_postgresql_is_told_by_the_next_one_within_seconds(
    tmp_path: Path, pg_url: str, fake_discord: FakeDiscord, processes: list[BotProcess]
) -> None:
    fake = fake_discord
    first, metrics = await start_bot("first", pg_url, tmp_path, fake, processes)
    await sleepy_code_being_graded(fake, metrics, processes)
    (row,) = await rows(pg_url)
    assert not row["overdue"]  # a live process's row: its deadline is minutes away
    first.kill()  # SIGKILL while the code is being graded: the row stays, unmarked

    second, _ = await start_bot("second", pg_url, tmp_path, fake, processes)
    # The first process's last beat was at most 1 s before the kill; three missed beats, and the
    # second marks its row abandoned (not the 2 minutes and more of the row's own deadline).
    for _ in range(200):
        if all(r["overdue"] for r in await rows(pg_url)):
            break
        await asyncio.sleep(0.1)
    assert [r["overdue"] for r in await rows(pg_url)] == [True]
    current = await send(fake, p.interaction(2, p.command("current"), p.ALICE))
    await until(lambda: fake.callbacks(current["id"]), "the reply to /quiz current", [second])
    for _ in range(50):  # on PostgreSQL a process looks for overdue rows once every 2 s
        if NOTE in told(fake, current["id"]):
            break
        await asyncio.sleep(0.1)
    text = told(fake, current["id"])
    assert NOTE in text and "please send it again" in text, text
    assert await rows(pg_url) == []  # taken once, by the note
    assert second.stop() == 0, second.log()
