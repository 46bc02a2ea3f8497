"""The Slack Web API calls the front end makes, each one retried or reported, never dropped.

Rate limits (429 + Retry-After), 5xx answers and dropped connections are retried by slack_sdk's
retry handlers; what still fails is logged with the method and Slack's error code (never a
token) and raised as `SlackCallFailed` for the caller to tell the person another way.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import dataclass
from functools import partial
from typing import Any, Final
from urllib.parse import urlsplit

import aiohttp
import orjson
from slack_sdk.errors import SlackApiError, SlackRequestError
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot.bounded_read import read_at_most
from bot.core.replies import Image, Message
from bot.core.shared_reads import SharedReads

from .limits import IMAGE_UPLOAD_MAX
from .render import Block, fallback_text, message_blocks

log = logging.getLogger("quizbot.slack")

SLACK_API_URL = "https://slack.com/api/"
ADMIN_CACHE_SECONDS = 300.0
USER_CACHE_SIZE = 10_000
TRUSTED_FILE_HOSTS = ("slack.com", "slack-gov.com", "slack-edge.com")


class SlackCallFailed(Exception):
    """A Web API call failed after its retries; `error` is Slack's error code."""

    def __init__(self, method: str, error: str) -> None:
        self.method, self.error = method, error
        super().__init__(f"{method}: {error}")


@dataclass(frozen=True)
class Place:
    """Where quiz messages go: a channel, and a thread in it when there is one."""

    channel: str
    thread_ts: str | None = None


def retry_handlers() -> list[Any]:
    return [
        AsyncConnectionErrorRetryHandler(max_retry_count=2),
        AsyncRateLimitErrorRetryHandler(max_retry_count=3),
        AsyncServerErrorRetryHandler(max_retry_count=2),
    ]


def make_client(token: str, *, api_url: str | None, session: aiohttp.ClientSession | None = None) -> AsyncWebClient:
    """Build the Web API client every call goes through (SLACK_API_URL is its base URL)."""
    base = (api_url or SLACK_API_URL).rstrip("/") + "/"
    return AsyncWebClient(
        token=token, base_url=base, session=session, retry_handlers=retry_handlers(), logger=logging.getLogger("quizbot.slack.sdk")
    )


class SlackApi:
    """Post, update and open things in Slack; download files with the bot token."""

    def __init__(self, client: AsyncWebClient, http: aiohttp.ClientSession, *, token: str) -> None:
        self.client = client
        self._http = http
        self._token = token
        self._api_host = urlsplit(client.base_url).hostname or ""
        self._json = JsonWebApi(http, client.base_url, token)
        self._users: dict[str, tuple[float, dict[str, Any]]] = {}
        self._asking: SharedReads[str, dict[str, Any] | None] = SharedReads()  # users.info calls under way
        self._dms: dict[str, str] = {}

    async def call(self, method: str, **kwargs: Any) -> dict[str, Any]:
        """Call a Web API method by name; raise SlackCallFailed after retries."""
        if method in JSON_METHODS:
            try:
                return await self._json.call(method, kwargs)
            except WebApiError as exc:
                log.error("Slack API %s failed: %s", method, exc.error)
                raise SlackCallFailed(method, exc.error) from exc
            except (aiohttp.ClientError, TimeoutError) as exc:
                log.error("Slack API %s failed: %s", method, type(exc).__name__)
                raise SlackCallFailed(method, "connection_failed") from exc
        try:
            response = await getattr(self.client, method.replace(".", "_"))(**kwargs)
        except SlackApiError as exc:
            error = str(exc.response.get("error", "unknown_error")) if exc.response is not None else "unknown_error"
            if exc.response is not None and exc.response.status_code == 429:
                error = "ratelimited"
            log.error("Slack API %s failed: %s", method, error)
            raise SlackCallFailed(method, error) from exc
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.error("Slack API %s failed: %s", method, type(exc).__name__)
            raise SlackCallFailed(method, "connection_failed") from exc
        return dict(response.data) if isinstance(response.data, dict) else {}

    async def blocks(self, message: Message) -> list[Block]:
        """Render a message; upload its pictures first (files upload v2) so the message shows them.

        A picture that cannot be uploaded is named instead: the text carries the message on its own.
        """
        images = [p for p in message.parts if isinstance(p, Image)]
        if not images:
            return message_blocks(message)
        files: dict[str, str] = {}
        for image in images:
            try:
                files[image.filename] = await self.upload_image(image)
            except SlackCallFailed:
                log.warning("a picture could not be uploaded; the message names it instead")
        return message_blocks(message, files=files)

    async def upload_image(self, image: Image) -> str:
        """Upload a picture privately with files upload v2; return its file id (for an image block)."""
        if len(image.data) > IMAGE_UPLOAD_MAX:
            raise SlackCallFailed("files_upload_v2", "the picture is too large")
        data = await self.call(
            "files_upload_v2", content=image.data, filename=image.filename, title=image.alt or image.filename
        )
        file: dict[str, Any] = data.get("file") or next(iter(data.get("files") or []), {})
        file_id = str(file.get("id") or "")
        if not file_id:
            raise SlackCallFailed("files_upload_v2", "no_file_id")
        return file_id

    async def post(self, place: Place, message: Message) -> str:
        """Post a message; return its ts."""
        args: dict[str, Any] = {
            "channel": place.channel,
            "text": fallback_text(message),
            "blocks": await self.blocks(message),
            "unfurl_links": False,
            "unfurl_media": False,
        }
        if place.thread_ts:
            args["thread_ts"] = place.thread_ts
        data = await self.call("chat.postMessage", **args)
        return str(data.get("ts", ""))

    async def update(self, channel: str, ts: str, message: Message) -> None:
        await self.call("chat.update", channel=channel, ts=ts, text=fallback_text(message), blocks=await self.blocks(message))

    async def ephemeral(self, channel: str, user: str, message: Message, *, thread_ts: str | None = None) -> None:
        args: dict[str, Any] = {"channel": channel, "user": user, "text": fallback_text(message), "blocks": await self.blocks(message)}
        if thread_ts:
            args["thread_ts"] = thread_ts
        await self.call("chat.postEphemeral", **args)

    async def upload(self, channel: str, filename: str, data: bytes, *, comment: str = "") -> None:
        """Share a file in a channel (a DM for a data export) through Slack's external upload."""
        args: dict[str, Any] = {"channel": channel, "filename": filename, "content": data, "title": filename}
        if comment:
            args["initial_comment"] = comment
        try:
            await self.call("files.upload_v2", **args)
        except SlackRequestError as exc:  # the upload step itself (not a Web API answer) failed
            log.error("Slack file upload failed: %s", type(exc).__name__)
            raise SlackCallFailed("files.upload_v2", "upload_failed") from exc

    async def respond(self, response_url: str, message: Message, *, replace: bool = False) -> None:
        """Answer through a response_url: an ephemeral message to the person who acted.

        With `replace`, the message the action came from (ephemeral or not) is replaced instead.
        """
        webhook = AsyncWebhookClient(response_url, session=self._http, retry_handlers=retry_handlers())
        try:
            response = await webhook.send_dict(
                {
                    "response_type": "ephemeral",
                    "replace_original": replace,
                    "text": fallback_text(message),
                    "blocks": await self.blocks(message),
                }
            )
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.error("Slack response_url failed: %s", type(exc).__name__)
            raise SlackCallFailed("response_url", "connection_failed") from exc
        if response.status_code != 200:
            log.error("Slack response_url failed: HTTP %s %s", response.status_code, response.body[:200])
            raise SlackCallFailed("response_url", response.body[:100] or f"http_{response.status_code}")

    async def open_view(self, trigger_id: str, view: dict[str, Any]) -> None:
        await self.call("views.open", trigger_id=trigger_id, view=view)

    async def publish_home(self, user: str, view: dict[str, Any]) -> None:
        await self.call("views.publish", user_id=user, view=view)

    async def open_dm(self, user: str) -> str:
        """Return the id of the bot's direct message channel with `user`."""
        if user not in self._dms:
            data = await self.call("conversations.open", users=user)
            self._dms[user] = str((data.get("channel") or {}).get("id", ""))
        return self._dms[user]

    async def is_workspace_admin(self, user: str) -> bool:
        """Ask users.info whether `user` is a workspace admin or owner (cached for a few minutes)."""
        info = await self._user_info(user)
        if info is None:
            log.error("could not tell whether %s is an admin (users.info failed; is the users:read scope granted?)", user)
            return False
        return bool(info.get("is_admin") or info.get("is_owner") or info.get("is_primary_owner"))

    async def user_name(self, user: str) -> str:
        """How Slack shows `user` to people (display name, else real name, else handle); the mention if unknown.

        For text that cannot render a mention: a picture, its alt text and its file title.
        """
        info = await self._user_info(user)
        profile = (info or {}).get("profile") or {}
        for name in (profile.get("display_name"), profile.get("real_name"), (info or {}).get("real_name"), (info or {}).get("name")):
            if isinstance(name, str) and name.strip():
                return name.strip()[:80]
        return f"<@{user}>"

    async def user_locale(self, user: str) -> str | None:
        """The locale the person's Slack client uses (`es-ES`), from users.info (cached with it); None when unknown."""
        info = await self._user_info(user)
        locale = (info or {}).get("locale")
        return locale if isinstance(locale, str) and locale else None

    async def _user_info(self, user: str) -> dict[str, Any] | None:
        """users.info of `user`, cached for a few minutes; None when Slack does not say.

        Callers that ask at once (a command's language and its admin check) share one call.
        """
        cached = self._users.get(user)
        if cached is not None and time.monotonic() - cached[0] < ADMIN_CACHE_SECONDS:
            return cached[1]
        return await self._asking.read(user, partial(self._ask_user, user))

    async def _ask_user(self, user: str) -> dict[str, Any] | None:
        try:
            data = await self.call("users.info", user=user, include_locale=True)
        except SlackCallFailed:
            return None
        info = data.get("user")
        info = dict(info) if isinstance(info, dict) else {}
        if len(self._users) > USER_CACHE_SIZE:
            self._users.clear()
        self._users[user] = (time.monotonic(), info)
        return info

    async def file_info(self, file_id: str) -> dict[str, Any]:
        data = await self.call("files.info", file=file_id)
        return dict(data.get("file") or {})

    async def download(self, file: dict[str, Any], *, limit: int) -> tuple[str, bytes]:
        """Fetch an uploaded file with the bot token; return its name and bytes."""
        if not (file.get("url_private_download") or file.get("url_private")) or file.get("file_access") == "check_file_info":
            try:
                file = {**file, **await self.file_info(str(file.get("id", "")))}
            except SlackCallFailed as exc:  # the file's own problem (gone, not shared with the bot), not a reply's
                raise SlackCallFailed("download", exc.error) from exc
        name = str(file.get("name") or file.get("title") or "upload")
        url = str(file.get("url_private_download") or file.get("url_private") or "")
        if int(file.get("size") or 0) > limit:
            raise SlackCallFailed("download", f"{name} is larger than {limit // 1024} KiB")
        if not self._trusted(url):
            log.error("refused to send the bot token to an unexpected file host: %s", urlsplit(url).hostname)
            raise SlackCallFailed("download", "the file is not on a Slack host")
        try:
            async with self._http.get(url, headers={"Authorization": f"Bearer {self._token}"}) as response:
                if response.status != 200:
                    raise SlackCallFailed("download", f"HTTP {response.status}")
                if response.content_type == "text/html":  # Slack's sign-in page: the token lacks files:read
                    raise SlackCallFailed("download", "Slack did not hand out the file (is the files:read scope granted?)")
                data = await read_at_most(response, limit)
                if data is None:
                    raise SlackCallFailed("download", f"{name} is larger than {limit // 1024} KiB")
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.error("downloading a file from Slack failed: %s", type(exc).__name__)
            raise SlackCallFailed("download", "connection_failed") from exc
        return name, data

    def _trusted(self, url: str) -> bool:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if host == self._api_host:
            return parts.scheme in ("https", "http")
        return parts.scheme == "https" and any(host == h or host.endswith("." + h) for h in TRUSTED_FILE_HOSTS)


# -------------------- webapi --------------------
# The Slack Web API methods a click calls, posted as JSON on the front end's one aiohttp session.
#
# slack_sdk's client costs more CPU per call than the HTTP request itself (argument checks, its
# own JSON, a retry state and a response object each time), and a quiz click makes two of these
# calls (the edit and the next item). The methods here take JSON bodies (as slack_sdk sends them):
# the arguments are encoded once with orjson, the answer decoded with it, and failures are retried
# as slack_sdk's handlers retry them: a dropped connection twice, a 429 three times after its
# Retry-After, a 500 or 503 twice. What still fails raises `WebApiError` (Slack's error code).

# The methods sent here; everything else (file uploads, reads with query parameters) goes through slack_sdk.
JSON_METHODS: Final = frozenset({"chat.postMessage", "chat.update", "chat.postEphemeral", "chat.delete", "views.open", "views.publish", "views.update"})

CONNECTION_RETRIES = 2  # slack_sdk's AsyncConnectionErrorRetryHandler(max_retry_count=2)
RATE_LIMIT_RETRIES = 3  # AsyncRateLimitErrorRetryHandler(max_retry_count=3)
SERVER_RETRIES = 2  # AsyncServerErrorRetryHandler(max_retry_count=2): 500 and 503
BACKOFF_S = 0.5  # slack_sdk's default interval: 0.5 s, doubled each attempt, plus jitter
TIMEOUT = aiohttp.ClientTimeout(total=30)  # slack_sdk's default per call
ANSWER_MAX = 1024 * 1024  # the most of an answer read (Slack's echo of a message of 50 full blocks is under 200 KB)


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
                    raw = await read_at_most(response, ANSWER_MAX)
                    if raw is None:
                        raise WebApiError("answer_too_large", status)
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
