"""An HTTP answer read whole, within a budget: what the bot reads from Slack and from sandbox services."""

from __future__ import annotations

import aiohttp


async def read_at_most(response: aiohttp.ClientResponse, limit: int) -> bytes | None:
    """The whole body of `response`, or None once it is over `limit` bytes (the rest left unread).

    A Content-Length over the limit is refused before anything is read. aiohttp's
    `response.content.read(n)` is not this: it returns what has arrived so far, up to n bytes, which
    for a body that comes in several pieces is only the first of them.
    """
    if response.content_length is not None:  # aiohttp reads no more than the length the answer gives
        return None if response.content_length > limit else await response.read()
    body = bytearray()
    async for chunk in response.content.iter_any():
        body += chunk
        if len(body) > limit:
            return None
    return bytes(body)
