"""The fake Slack's oversized answers: one that says ok, padded, with a Content-Length or in chunks with none."""

from __future__ import annotations

import contextlib

from aiohttp import web

CHUNK = 65536


async def padded(request: web.Request, padding: int, *, chunked: bool) -> web.StreamResponse:
    head, tail = b'{"ok": true, "pad": "', b'"}'
    if not chunked:
        return web.Response(body=head + b"x" * padding + tail, content_type="application/json")
    response = web.StreamResponse(headers={"Content-Type": "application/json"})
    response.enable_chunked_encoding()
    await response.prepare(request)
    with contextlib.suppress(ConnectionResetError):  # the bot stopped reading: what the test wants
        await response.write(head)
        for _ in range(padding // CHUNK):
            await response.write(b"x" * CHUNK)
        await response.write(tail)
    return response
