"""The sandbox as an HTTP service, and the bot's client spreading jobs over several services.

Real ``python -m sandbox serve`` processes with real pools; the client is the bot's RemoteRunner.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from bot.app import make_runner
from bot.core.ports import RunRequest
from bot.sandbox_client import SandboxRunner
from bot.sandbox_remote import RemoteRunner
from bot.settings import Settings
from sandbox.service import json_depth
from tests.fakes import LocalRunner
from tests.ops.services import TOKEN, Service, free_port

SLOW = "import time\ntime.sleep({s})\nprint('slept')\n"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Service, Service]]:
    """Two services of one worker and no queue: a second job at once is refused with 429."""
    folder = tmp_path_factory.mktemp("services")
    pair = (Service(folder / "a.log"), Service(folder / "b.log"))
    try:
        for service in pair:
            service.wait_ready()
        yield pair
    finally:
        logs = [service.stop() for service in pair]
    assert all(TOKEN not in log for log in logs), "the token was logged"
    assert [service.process.returncode for service in pair] == [0, 0], logs  # SIGTERM: a clean stop


def test_serve_refuses_to_start_without_a_token() -> None:
    env = {k: v for k, v in os.environ.items() if k != "QUIZBOT_SANDBOX_TOKEN"}
    done = subprocess.run(
        [sys.executable, "-m", "sandbox", "serve", "--port", str(free_port())],
        env=env, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2 and "QUIZBOT_SANDBOX_TOKEN" in done.stderr


def client(*urls: str) -> RemoteRunner:
    return RemoteRunner(list(urls), TOKEN, max_code_bytes=65536, wall_s=10.0)


async def post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, str], str]:
    data = io.BytesIO(body) if len(body) > 1024 * 1024 else body
    async with aiohttp.ClientSession() as http, http.post(f"{url}/v1/run", data=data, headers=headers) as response:
        return response.status, dict(response.headers), await response.text()


async def wait_busy(service: Service) -> None:
    for _ in range(200):
        if await asyncio.to_thread(service.metric, "quizbot_sandbox_service_inflight") >= 1:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the job never reached the service")


async def test_a_job_answers_the_cli_result_json(services: tuple[Service, Service]) -> None:
    a, _ = services
    body = json.dumps({"code": "total = 55\nprint(total)\n", "test": None}).encode()
    status, _, text = await post(a.url, body, {**AUTH, "Content-Type": "application/json"})
    assert status == 200, text
    result = json.loads(text)
    assert set(result) == {"status", "tests", "stdout", "stderr", "truncated", "wall_ms", "cpu_ms",
                           "peak_memory_mb", "isolation", "error", "message"}
    assert result["status"] == "passed" and result["stdout"] == "55\n"


async def test_without_the_token_the_job_is_refused(services: tuple[Service, Service]) -> None:
    a, _ = services
    served = await asyncio.to_thread(a.metric, "quizbot_sandbox_service_jobs_total", '{status="passed"}')
    body = json.dumps({"code": "print(1)"}).encode()
    for headers in ({}, {"Authorization": "Bearer wrong-token"}, {"Authorization": TOKEN}):
        status, _, text = await post(a.url, body, headers)
        assert status == 401, (headers, text)
    assert await asyncio.to_thread(a.metric, "quizbot_sandbox_service_jobs_total", '{status="passed"}') == served
    assert await asyncio.to_thread(a.metric, "quizbot_sandbox_service_refused_total", '{reason="auth"}') >= 3


async def test_a_body_over_the_cap_is_refused_before_it_is_read(services: tuple[Service, Service]) -> None:
    a, _ = services
    big = json.dumps({"code": "#" * (8 * 1024 * 1024)}).encode()
    status, _, _ = await post(a.url, big, AUTH)
    assert status == 413

    async def chunks() -> object:  # no Content-Length: the cap stops the read itself
        for _ in range(9):
            yield b" " * (1024 * 1024)

    async with aiohttp.ClientSession() as http, http.post(f"{a.url}/v1/run", data=chunks(), headers=AUTH) as response:
        assert response.status == 413


async def test_deep_or_strange_json_is_refused(services: tuple[Service, Service]) -> None:
    a, _ = services
    assert json_depth(b'{"code": "[[[[[[", "limits": {"wall_s": 1}}') == 2
    deep = b'{"code": "x", "limits": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    for body in (deep, b"[1]", b'{"code": 3}', b'{"code": "x", "rm": 1}', b"not json"):
        status, _, text = await post(a.url, body, AUTH)
        assert status == 400, (body[:40], text)


async def test_a_full_queue_answers_429_with_retry_after(services: tuple[Service, Service]) -> None:
    a, _ = services
    first = asyncio.create_task(post(a.url, json.dumps({"code": SLOW.format(s=2)}).encode(), AUTH))
    await wait_busy(a)
    status, headers, _ = await post(a.url, json.dumps({"code": "print(2)"}).encode(), AUTH)
    assert status == 429 and int(headers["Retry-After"]) >= 1
    status, _, text = await first
    assert status == 200 and json.loads(text)["stdout"] == "slept\n"


async def test_the_client_fails_over_to_a_service_that_can_take_the_job(services: tuple[Service, Service]) -> None:
    a, b = services
    dead = f"http://127.0.0.1:{free_port()}"
    runner = client(dead, a.url)
    try:
        outcome = await runner.run(RunRequest(code="print(6 * 7)"))
        assert outcome.status == "passed" and outcome.stdout == "42\n"
        assert [e.failures for e in runner.endpoints] == [1, 0]
        assert [e.jobs for e in runner.endpoints] == [0, 1]
    finally:
        await runner.close()
    # A busy service (429) is left aside too: the job runs on the other.
    runner = client(a.url, b.url)
    try:
        hold = asyncio.create_task(post(a.url, json.dumps({"code": SLOW.format(s=2)}).encode(), AUTH))
        await wait_busy(a)
        outcome = await runner.run(RunRequest(code="print('from b')"))
        assert outcome.stdout == "from b\n"
        assert [e.jobs for e in runner.endpoints] == [0, 1] and runner.endpoints[0].failures == 1
        assert (await hold)[0] == 200
    finally:
        await runner.close()


async def test_with_every_service_down_the_learner_is_told_it_is_busy() -> None:
    runner = client(f"http://127.0.0.1:{free_port()}", f"http://127.0.0.1:{free_port()}")
    try:
        outcome = await runner.run(RunRequest(code="print(1)"))
    finally:
        await runner.close()
    assert outcome.status == "rejected" and outcome.message.startswith("busy, try again in")


async def test_least_busy_spreading_sends_concurrent_jobs_to_both(services: tuple[Service, Service]) -> None:
    a, b = services
    runner = client(a.url, b.url)
    try:
        outcomes = await asyncio.gather(*(runner.run(RunRequest(code=SLOW.format(s=0.5))) for _ in range(2)))
    finally:
        await runner.close()
    assert [o.stdout for o in outcomes] == ["slept\n", "slept\n"]
    assert [e.jobs for e in runner.endpoints] == [1, 1]


async def test_a_service_killed_mid_job_makes_the_client_retry_elsewhere(
    services: tuple[Service, Service], tmp_path: Path
) -> None:
    _, b = services
    doomed = Service(tmp_path / "doomed.log")
    try:
        await asyncio.to_thread(doomed.wait_ready)
        before = await asyncio.to_thread(b.metric, "quizbot_sandbox_service_jobs_total", '{status="passed"}')
        runner = client(doomed.url, b.url)
        try:
            job = asyncio.create_task(runner.run(RunRequest(code=SLOW.format(s=1.5), owner="slack:U1")))
            await wait_busy(doomed)
            await asyncio.to_thread(doomed.kill)
            outcome = await job
        finally:
            await runner.close()
        assert outcome.status == "passed" and outcome.stdout == "slept\n"  # one result, printed once
        assert [e.failures for e in runner.endpoints] == [1, 0] and [e.jobs for e in runner.endpoints] == [0, 1]
        after = await asyncio.to_thread(b.metric, "quizbot_sandbox_service_jobs_total", '{status="passed"}')
        assert after == before + 1
    finally:
        doomed.kill()
        doomed.stop()


async def test_with_every_service_down_the_local_fallback_runs_the_job() -> None:
    local = LocalRunner()
    runner = RemoteRunner(
        [f"http://127.0.0.1:{free_port()}"], TOKEN, max_code_bytes=65536, wall_s=10.0, fallback=local
    )
    try:
        outcome = await runner.run(RunRequest(code="print('local')"))
    finally:
        await runner.close()
    assert outcome.stdout == "local\n" and [r.code for r in local.requests] == ["print('local')"]
    assert runner.endpoints[0].failures == 1


async def test_make_runner_picks_the_services_only_when_configured() -> None:
    plain = make_runner(start=False, settings=Settings())
    remote = make_runner(start=False, settings=Settings(sandbox_urls="http://a:1, http://b:2", sandbox_token=TOKEN))
    with_local = make_runner(
        start=False, settings=Settings(sandbox_urls="http://a:1", sandbox_token=TOKEN, sandbox_fallback="local")
    )
    try:
        assert isinstance(plain, SandboxRunner)
        assert isinstance(remote, RemoteRunner) and [e.url for e in remote.endpoints] == ["http://a:1", "http://b:2"]
        assert remote.fallback is None
        assert isinstance(with_local, RemoteRunner) and isinstance(with_local.fallback, SandboxRunner)
    finally:
        for runner in (plain, remote, with_local):
            assert runner is not None
            await runner.close()


async def _partial_body(url: str, sent: bytes, length: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Open a request that announces ``length`` bytes of body and sends only ``sent``."""
    host, port = url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    head = (
        f"POST /v1/run HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {TOKEN}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    )
    writer.write(head.encode() + sent)
    await writer.drain()
    return reader, writer


async def test_a_client_stalling_mid_body_holds_no_capacity(services: tuple[Service, Service]) -> None:
    """One worker, no queue: a stalled upload must not make a real job wait or get 429."""
    a, _ = services
    _, writer = await _partial_body(a.url, b'{"code": "print(', 1000)
    try:
        await asyncio.sleep(0.5)
        status, _, text = await post(a.url, json.dumps({"code": "print('real')"}).encode(), AUTH)
        assert status == 200 and json.loads(text)["stdout"] == "real\n", (status, text)
    finally:
        writer.close()


async def test_a_token_with_non_ascii_bytes_is_a_401(services: tuple[Service, Service]) -> None:
    a, _ = services
    host, port = a.url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    body = b'{"code": "print(1)"}'
    writer.write(
        b"POST /v1/run HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer caf\xc3\xa9-\xff\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode() + body
    )
    await writer.drain()
    status_line = await asyncio.wait_for(reader.readline(), 30)
    writer.close()
    assert status_line.split()[1] == b"401", status_line


async def test_a_client_leaving_mid_body_is_one_quiet_line(services: tuple[Service, Service]) -> None:
    a, _ = services
    _, writer = await _partial_body(a.url, b'{"code": "print(', 1000)
    await asyncio.sleep(0.3)
    writer.transport.abort()
    status, _, _ = await post(a.url, json.dumps({"code": "print(3)"}).encode(), AUTH)  # the service goes on
    assert status == 200
    log = a.log_path.read_text(errors="replace")
    assert "Traceback" not in log, log[-2000:]


def test_the_depth_scan_is_linear_and_ignores_escaped_quotes() -> None:
    """Quotes and backslashes in any number: one pass (a backtracking pattern took minutes on these)."""
    assert json_depth(b'{"code": "\\"[[[", "x": [[1]]}') == 3
    assert json_depth(b'"\\\\" [ ]') == 1
    flood = b'{"code": "' + b'\\"' * 120_000
    done = threading.Event()
    thread = threading.Thread(target=lambda: (json_depth(flood), json_depth(b'"' * 250_000), done.set()), daemon=True)
    thread.start()
    thread.join(60)
    assert done.is_set()
