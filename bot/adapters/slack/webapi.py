"""The Slack Web API methods a click calls, posted as JSON on the front end's one aiohttp session.

slack_sdk's client costs more CPU per call than the HTTP request itself (argument checks, its
own JSON, a retry state and a response object each time), and a quiz click makes two of these
calls (the edit and the next item). The methods here take JSON bodies (as slack_sdk sends them):
the arguments are encoded once with orjson, the answer decoded with it, and failures are retried
as slack_sdk's handlers retry them: a dropped connection twice, a 429 three times after its
Retry-After, a 500 or 503 twice. What still fails raises `WebApiError` (Slack's error code).
"""

from __future__ import annotations

import asyncio
import random
from typing import Any, Final

import aiohttp
import orjson

# The methods sent here; everything else (file uploads, reads with query parameters) goes through slack_sdk.
JSON_METHODS: Final = frozenset({"chat.postMessage", "chat.update", "chat.postEphemeral", "chat.delete", "views.open", "views.publish", "views.update"})

CONNECTION_RETRIES = 2  # slack_sdk's AsyncConnectionErrorRetryHandler(max_retry_count=2)
RATE_LIMIT_RETRIES = 3  # AsyncRateLimitErrorRetryHandler(max_retry_count=3)
SERVER_RETRIES = 2  # AsyncServerErrorRetryHandler(max_retry_count=2): 500 and 503
BACKOFF_S = 0.5  # slack_sdk's default interval: 0.5 s, doubled each attempt, plus jitter
TIMEOUT = aiohttp.ClientTimeout(total=30)  # slack_sdk's default per call


class WebApiError(Exception):
    """A call failed after its retries: `error` is Slack's error code (or `http_<status>`), `status` the HTTP status."""

    def __init__(self, error: str, status: int) -> None:
        self.error, self.status = error, status
        super().__init__(error)


class JsonWebApi:
    """POST `base_url + method` with a JSON body and the bot token; return the answer when it says ok."""

    def __init__(self, http: aiohttp.ClientSession, base_url: str, token: str) -> None:
        self._http = http
        self._base = base_url.rstrip("/") + "/"
        self._headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json;charset=utf-8"}

    async def call(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        url = self._base + method
        body = orjson.dumps({k: v for k, v in args.items() if v is not None})
        attempt = 0
        while True:
            try:
                async with self._http.post(url, data=body, headers=self._headers, timeout=TIMEOUT) as response:
                    status = response.status
                    raw = await response.read()
                    retry_after = response.headers.get("Retry-After")
            except (aiohttp.ServerConnectionError, aiohttp.ClientOSError):
                if attempt >= CONNECTION_RETRIES:
                    raise
                attempt += 1
                await asyncio.sleep(backoff(attempt))
                continue
            if status == 429 and attempt < RATE_LIMIT_RETRIES:
                attempt += 1
                await asyncio.sleep(retry_seconds(retry_after))
                continue
            if status in (500, 503) and attempt < SERVER_RETRIES:
                attempt += 1
                await asyncio.sleep(backoff(attempt))
                continue
            return answer(raw, status)


def answer(raw: bytes, status: int) -> dict[str, Any]:
    """The decoded answer when Slack says ok; else WebApiError with its error code."""
    try:
        data = orjson.loads(raw) if raw else {}
    except orjson.JSONDecodeError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    if status == 429:
        raise WebApiError("ratelimited", status)
    if data.get("ok") is not True:
        raise WebApiError(str(data.get("error") or f"http_{status}"), status)
    return data


def backoff(attempt: int) -> float:
    return BACKOFF_S * (1 << (attempt - 1)) + random.random() * BACKOFF_S


def retry_seconds(header: str | None) -> float:
    """Slack's Retry-After in seconds (1 when absent or unreadable), plus up to a second of jitter as slack_sdk adds."""
    seconds = int(header) if header is not None and header.strip().isdigit() else 1
    return seconds + random.random()
