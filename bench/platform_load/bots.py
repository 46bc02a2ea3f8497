"""The bot processes: one `quizbot run` pointed at the fake platforms and the benchmark's database; its log's errors."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.ops.services import free_port, uid_base

from . import settings
from .settings import ROOT


class Bot:
    """One `quizbot run` process, pointed at the fake platforms and the benchmark's database."""

    def __init__(self, folder: Path, name: str, env: dict[str, str], root: Path = ROOT) -> None:
        self.metrics_port = free_port()
        self.slack_port = free_port()
        self.log_path = folder / f"{name}.log"
        self._log = self.log_path.open("wb")
        base = {k: v for k, v in os.environ.items() if not k.startswith(("QUIZBOT_", "SLACK_", "DISCORD_"))}
        self.env = {
            **base,
            "PYTHONPATH": str(root),  # the checkout whose code runs (--bot-root)
            "QUIZBOT_METRICS_PORT": str(self.metrics_port),
            "QUIZBOT_METRICS_HOST": "127.0.0.1",
            "QUIZBOT_LOG_LEVEL": settings.BOT_LOG_LEVEL,
            "QUIZBOT_SCHEDULER": "off",
            "QUIZBOT_SANDBOX_UID_BASE": str(uid_base(self.metrics_port)),
            "SLACK_PORT": str(self.slack_port),
            **env,
        }
        self.process = subprocess.Popen(
            [sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main(['run']))"],
            cwd=folder, env=self.env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

    @property
    def slack_url(self) -> str:
        return f"http://127.0.0.1:{self.slack_port}/slack/events"

    def ready(self) -> bool:
        if self.process.poll() is not None:
            raise RuntimeError(f"the bot process ended ({self.process.returncode}):\n{self.log_tail()}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/readyz", timeout=2) as response:
                return bool(response.status == 200)
        except OSError:
            return False

    async def wait_ready(self, timeout: float = 240.0) -> float:
        began = time.monotonic()
        while not await asyncio.to_thread(self.ready):
            if time.monotonic() - began > timeout:
                raise RuntimeError(f"the bot process was not ready in {timeout:.0f} s:\n{self.log_tail()}")
            await asyncio.sleep(0.3)
        return time.monotonic() - began

    def log_tail(self, lines: int = 30) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> int | None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(40)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        self._log.close()
        return self.process.returncode


def log_errors(path: Path) -> tuple[int, dict[str, int]]:
    """ERROR lines in a bot's log, and the exceptions its tracebacks end with (first 120 characters)."""
    errors = 0
    exceptions: dict[str, int] = {}
    for line in path.read_text(errors="replace").splitlines():
        if " ERROR " in line[:40]:
            errors += 1
        elif re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Exit)\b", line):
            key = line[:120]
            exceptions[key] = exceptions.get(key, 0) + 1
    return errors, exceptions
