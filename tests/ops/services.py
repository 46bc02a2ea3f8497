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
