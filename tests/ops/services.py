"""Start ``python -m sandbox serve`` processes for the tests and talk to them."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "svc-token-5b1e9f0c2d7a"  # the shared bearer token; must never appear in a log


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def uid_base(port: int) -> int:
    """Return a worker uid range of its own for a pool (pools sharing uids share their process limits)."""
    return 500000 + (port % 50000) * 20


class Service:
    """One sandbox service in its own process group (killing the group is a host going away)."""

    def __init__(self, log_path: Path, *, workers: int = 1, queue: int = 0) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        env = {
            **os.environ,
            "QUIZBOT_SANDBOX_TOKEN": TOKEN,
            "QUIZBOT_SANDBOX_WORKERS": str(workers),
            "QUIZBOT_SANDBOX_QUEUE": str(queue),
            "QUIZBOT_SANDBOX_MEMORY_MB": "256",
            "QUIZBOT_SANDBOX_WARM_OPTIMIZERS": "false",
            "QUIZBOT_SANDBOX_UID_BASE": str(uid_base(self.port)),
        }
        self._log = log_path.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "sandbox", "serve", "--port", str(self.port)],
            cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True,
        )

    def wait_ready(self, timeout: float = 180.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log_path.read_text()
            try:
                with urllib.request.urlopen(f"{self.url}/readyz", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"the service did not get ready: {self.log_path.read_text()}")

    def metric(self, name: str, labels: str = "") -> float:
        with urllib.request.urlopen(f"{self.url}/metrics", timeout=5) as response:
            text = response.read().decode()
        match = re.search(rf"^{re.escape(name + labels)} (\S+)$", text, re.MULTILINE)
        return float(match.group(1)) if match else 0.0

    def kill(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> str:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()
        self._log.close()
        return self.log_path.read_text(errors="replace")


# ---------------------------------------------------------------------- bot processes


def bot_env(database_url: str, packs: Path, **extra: str) -> dict[str, str]:
    """The environment of a bot process: this machine's, less every QuizBot/Slack/Discord setting, plus these.

    The sandbox is pointed at a port nothing listens on (and no local fallback), so a bot process starts
    no worker pool of its own: these tests play choice items, which the sandbox never sees.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QUIZBOT_", "SLACK_", "DISCORD_"))}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env |= {
        "QUIZBOT_DATABASE_URL": database_url,
        "QUIZBOT_PACKS": str(packs),
        "QUIZBOT_SANDBOX_URLS": f"http://127.0.0.1:{free_port()}",
        "QUIZBOT_SANDBOX_TOKEN": TOKEN,
        "QUIZBOT_SCHEDULER": "off",
        "QUIZBOT_LOG_FORMAT": "json",
        "QUIZBOT_LOG_LEVEL": "INFO",
    }
    return env | extra


class BotProcess:
    """One `quizbot <command>` OS process in its own process group, its log in a file."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], folder: Path) -> None:
        self.name = name
        self.log_path = folder / f"{name}.log"
        self._log = self.log_path.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-c", f"import sys; from bot.cli import main; sys.exit(main({argv!r}))"],
            cwd=folder, env=env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True,
        )

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def alive(self) -> bool:
        return self.process.poll() is None

    def check_alive(self) -> None:
        assert self.alive(), f"{self.name} exited with {self.process.returncode}:\n{self.log()}"

    def kill(self) -> None:
        """SIGKILL: the host or the container going away, nothing finished."""
        if self.alive():
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM, as an orchestrator stops a process; SIGKILL when it does not end in time."""
        if self.alive():
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        self._log.close()
        return int(self.process.returncode)


def slack_bot(name: str, folder: Path, env: dict[str, str]) -> tuple[BotProcess, int]:
    """Start `quizbot slack` in HTTP mode on a port of its own; return it and the port."""
    port = free_port()
    return BotProcess(name, ["slack", "--port", str(port)], env | {"SLACK_PORT": str(port)}, folder), port


def wait_http(bot: BotProcess, url: str, timeout: float = 90.0) -> None:
    """Wait until `url` answers 200 (the bot is serving), failing early if the process dies."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        bot.check_alive()
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"{bot.name} did not serve {url} in {timeout:.0f} s:\n{bot.log()}")


def write_choice_pack(folder: Path, count: int = 50, pack: str = "ops") -> Path:
    """A pack of `count` choice questions whose first choice ("A") is right; return its folder."""
    lines = [f"pack: {pack}", "title: Operations pack", "version: 1", "topics:", "  - {id: ops, title: Operations}", "questions:"]
    for n in range(count):
        lines += [
            f"  - id: q{n:02d}",
            "    type: choice",
            "    topic: ops",
            "    difficulty: easy",
            f"    prompt: Question number {n} - which is right?",
            "    shuffle: false",
            "    choices:",
            '      - {text: "right", correct: true}',
            '      - {text: "wrong"}',
        ]
    path = folder / "packs" / pack
    path.mkdir(parents=True)
    (path / "pack.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path.parent


def sample(text: str, name: str, **labels: str) -> float:
    """The sum of a /metrics text's samples named `name` whose labels include `labels` (parsed by prometheus-client)."""
    from prometheus_client.parser import text_string_to_metric_families

    return sum(
        s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())
    )
