"""SIGKILL while a Discord learner's code (sent in the Answer form) is being graded, then an immediate restart.

The learner's next action on the new process says what happened to the in-flight answer ("the bot
restarted before it finished grading your answer ... please send it again"). The killed process never
marked its row abandoned; its deadline (the job's time limit plus 2 minutes) had kept the learner from
hearing of it for minutes, and an answer sent again meanwhile was graded beside a row that later said
it was lost. On SQLite the new process is the database's only one, so it abandons such rows at start.
"""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path
from typing import Any

from tests.conftest import DEMO_PACK
from tests.discord import payloads as p
from tests.discord.conftest import find_component
from tests.discord.fake_discord import BOT_TOKEN, FakeDiscord
from tests.ops.services import BotProcess, bot_env, free_port, sample, uid_base, wait_http
from tests.ops.test_two_discord_processes import answered_with, metrics_of, questions, until

SLEEPY = "import time\ntime.sleep(30)\ntotal = sum(range(1, 11))\nprint(total)\n"
NOTE = "The bot restarted before it finished grading your answer to"


def env_for(tmp_path: Path, fake: FakeDiscord, metrics: int) -> dict[str, str]:
    env = bot_env(
        f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}", DEMO_PACK, DISCORD_TOKEN=BOT_TOKEN, DISCORD_API_URL=fake.api_url,
        QUIZBOT_METRICS_PORT=str(metrics), QUIZBOT_METRICS_HOST="127.0.0.1",
    )
    for key in ("QUIZBOT_SANDBOX_URLS", "QUIZBOT_SANDBOX_TOKEN"):  # a local pool: the code really runs
        env.pop(key)
    return env | {
        "QUIZBOT_SANDBOX_WORKERS": "1", "QUIZBOT_SANDBOX_MEMORY_MB": "256", "QUIZBOT_SANDBOX_WALL_S": "60",
        "QUIZBOT_SANDBOX_WARM_OPTIMIZERS": "false", "QUIZBOT_SANDBOX_UID_BASE": str(uid_base(metrics)),
    }


async def send(fake: FakeDiscord, payload: dict[str, Any]) -> dict[str, Any]:
    fake.interactions[payload["id"]] = payload
    await fake.dispatch("INTERACTION_CREATE", payload)
    return payload


def told(fake: FakeDiscord, iid: str) -> str:
    out = []
    for call in answered_with(fake, iid):
        body = call.body if isinstance(call.body, dict) else {}
        data = body.get("data") or body
        out += [data.get("content") or "", *((e.get("description") or "") for e in data.get("embeds") or [])]
    return "\n".join(out)


async def start_bot(name: str, tmp_path: Path, fake: FakeDiscord, processes: list[BotProcess]) -> tuple[BotProcess, int]:
    metrics = free_port()
    bot = BotProcess(name, ["run"], env_for(tmp_path, fake, metrics), tmp_path)
    processes.append(bot)
    await until(lambda: any(b is bot for b in processes) and len(fake.identify) >= len(processes), "identify", [bot], 120)
    await asyncio.to_thread(wait_http, bot, f"http://127.0.0.1:{metrics}/readyz", 180)
    return bot, metrics


async def sleepy_code_being_graded(fake: FakeDiscord, metrics: int, processes: list[BotProcess]) -> None:
    """Alice starts a one-question code quiz and sends `SLEEPY` in the Answer form; return once the sandbox runs it."""
    await send(fake, p.interaction(2, p.command("start", [p.option("pack", "demo"), p.option("difficulty", "hard"), p.option("count", 1)]), p.ALICE))
    (item,) = await until(lambda: questions(fake, p.CHANNEL_ID), "the question", processes)
    shown = copy.deepcopy(item)
    button = find_component(shown, "Answer")
    click = await send(fake, p.interaction(3, p.component(button["custom_id"], 2), p.ALICE, message=shown))
    await until(lambda: fake.callbacks(click["id"]), "the form", processes)
    form = fake.callbacks(click["id"])[0].body["data"]
    await send(fake, p.interaction(5, p.modal_submit(form["custom_id"], SLEEPY), p.ALICE, message=shown))
    for _ in range(600):
        if sample(await metrics_of(metrics), "quizbot_sandbox_inflight") >= 1:
            break
        await asyncio.sleep(0.1)


async def test_a_restart_at_once_after_a_kill_during_grading_tells_the_learner(
    tmp_path: Path, fake_discord: FakeDiscord, processes: list[BotProcess]
) -> None:
    fake = fake_discord
    first, metrics = await start_bot("first", tmp_path, fake, processes)
    await sleepy_code_being_graded(fake, metrics, processes)
    first.kill()  # SIGKILL while the code is being graded

    second, _ = await start_bot("second", tmp_path, fake, processes)
    current = await send(fake, p.interaction(2, p.command("current"), p.ALICE))
    await until(lambda: fake.callbacks(current["id"]), "the reply to /quiz current", [second])
    await asyncio.sleep(1)
    text = told(fake, current["id"])
    assert NOTE in text and "please send it again" in text, text
