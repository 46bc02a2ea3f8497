"""A sandbox service's answer is read whole, however it arrives, and refused over its budget.

A small local stand-in for `quizbot sandbox serve` sends its answer in pieces, with pauses between
them, as a busy network may. Before, the client took only what had arrived at its first read.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from bot.core.ports import RunRequest
from bot.sandbox_remote import MAX_ANSWER_BYTES, RUN_PATH, RemoteRunner
from tests.ops.services import TOKEN, free_port

PIECE = 16 * 1024


class PiecemealService:
    """Answers every job with `stdout` of `size` bytes, sent in pieces (chunked, no Content-Length)."""

    def __init__(self) -> None:
        self.size = 0

    async def run(self, request: web.Request) -> web.StreamResponse:
        await request.read()
        answer = json.dumps({"status": "passed", "tests": [], "stdout": "x" * self.size}).encode()
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        response.enable_chunked_encoding()
        await response.prepare(request)
        try:
            for at in range(0, len(answer), PIECE):
                await response.write(answer[at : at + PIECE])
                await asyncio.sleep(0.001)  # the next piece comes later
            await response.write_eof()
        except ConnectionResetError:  # the client stopped reading: over its budget
            pass
        return response


@pytest.fixture
async def service() -> AsyncIterator[tuple[PiecemealService, str]]:
    fake = PiecemealService()
    app = web.Application()
    app.router.add_post(RUN_PATH, fake.run)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield fake, f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


async def test_an_answer_in_many_pieces_is_read_whole(service: tuple[PiecemealService, str]) -> None:
    fake, url = service
    fake.size = 600 * 1024
    runner = RemoteRunner([url], TOKEN, max_code_bytes=65536, wall_s=5.0)
    try:
        outcome = await runner.run(RunRequest(code="print('x')"))
    finally:
        await runner.close()
    assert outcome.status == "passed" and len(outcome.stdout) == fake.size


async def test_an_answer_over_the_budget_is_refused_and_the_learner_told_the_sandbox_is_busy(
    service: tuple[PiecemealService, str],
) -> None:
    fake, url = service
    fake.size = MAX_ANSWER_BYTES + PIECE
    runner = RemoteRunner([url], TOKEN, max_code_bytes=65536, wall_s=5.0)
    try:
        outcome = await runner.run(RunRequest(code="print('x')"))
    finally:
        await runner.close()
    assert outcome.status == "rejected" and "busy" in outcome.message
    assert runner.endpoints[0].failures == 1
