"""The fake Slack's files: files.info, files upload v2, downloads only with the bot token, image blocks.

`FakeSlack` (fake_slack.py) takes these methods; they use its state (`files`, `uploads`, ...).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

from aiohttp import web

LOGIN_PAGE = "<!DOCTYPE html><html><body>Sign in to Slack</body></html>"


class SlackFiles:
    """Files held by the fake Slack; FakeSlack's `__init__` makes the state named here."""

    bot_token: str
    base: str
    files: dict[str, tuple[dict[str, Any], bytes]]
    downloads: list[tuple[str, bool]]
    pending_uploads: dict[str, dict[str, Any]]
    uploads: dict[str, bytes]
    shared: list[dict[str, Any]]
    errors: list[tuple[Any, ...]]
    _ids: itertools.count[int]
    _changed: asyncio.Event

    def _ok(self, **data: Any) -> web.Response:
        raise NotImplementedError

    def _error(self, method: str, error: str, **data: Any) -> web.Response:
        raise NotImplementedError

    def add_file(self, name: str, content: bytes, *, filetype: str = "text") -> dict[str, Any]:
        file_id = f"F{next(self._ids):05d}"
        info = {
            "id": file_id,
            "name": name,
            "title": name,
            "mimetype": "text/plain",
            "filetype": filetype,
            "size": len(content),
            "user": "U1",
            "url_private": f"{self.base}/files-pri/{file_id}/{name}",
            "url_private_download": f"{self.base}/files-pri/{file_id}/download/{name}",
        }
        self.files[file_id] = (info, content)
        return info

    def _m_files_info(self, args: dict[str, Any]) -> web.Response:
        found = self.files.get(str(args.get("file")))
        if found is None:
            return self._error("files.info", "file_not_found")
        return self._ok(file=found[0])

    # files upload v2: files.getUploadURLExternal, a POST of the bytes to the URL it gave,
    # files.completeUploadExternal (without channel_id the file stays private to the app)

    def _m_files_getUploadURLExternal(self, args: dict[str, Any]) -> web.Response:
        filename, length = str(args.get("filename") or ""), str(args.get("length") or "")
        if not filename or not length.isdigit() or int(length) <= 0:
            return self._error("files.getUploadURLExternal", "invalid_arguments")
        file_id = f"F{next(self._ids):05d}"
        self.pending_uploads[file_id] = {"name": filename, "length": int(length)}
        return self._ok(upload_url=f"{self.base}/upload/v1/{file_id}", file_id=file_id)

    async def _upload(self, request: web.Request) -> web.Response:
        file_id = request.match_info["id"]
        data = await request.read()
        pending = self.pending_uploads.get(file_id)
        self._changed.set()
        if pending is None or len(data) != pending["length"]:
            self.errors.append(("upload_url", file_id, len(data)))
            return web.Response(status=400, text="bad upload")
        self.uploads[file_id] = data
        return web.Response(text=f"OK - {len(data)}")

    def _m_files_completeUploadExternal(self, args: dict[str, Any]) -> web.Response:
        files = _decoded(args.get("files"))
        if not isinstance(files, list) or not files:
            return self._error("files.completeUploadExternal", "invalid_arguments")
        done = []
        for entry in files:
            file_id = str(entry.get("id", ""))
            if file_id not in self.uploads or file_id not in self.pending_uploads:
                return self._error("files.completeUploadExternal", "file_not_found")
            pending = self.pending_uploads.pop(file_id)
            name = pending["name"]
            info = {
                "id": file_id,
                "name": name,
                "title": entry.get("title") or name,
                "mimetype": "image/png" if name.lower().endswith(".png") else "application/octet-stream",
                "filetype": name.rsplit(".", 1)[-1].lower(),
                "size": len(self.uploads[file_id]),
                "user": "UBOT",
                "channels": [str(args["channel_id"])] if args.get("channel_id") else [],
                "url_private": f"{self.base}/files-pri/{file_id}/{name}",
                "url_private_download": f"{self.base}/files-pri/{file_id}/download/{name}",
            }
            self.files[file_id] = (info, self.uploads[file_id])
            self.shared.append(
                {"id": file_id, "name": name, "title": info["title"], "content": self.uploads[file_id],
                 "channel": args.get("channel_id"), "comment": args.get("initial_comment")}
            )
            done.append({"id": file_id, "title": info["title"]})
        return self._ok(files=done)

    def _image_problems(self, blocks: list[Any]) -> list[str]:
        """An image block showing a Slack file needs an uploaded image (png, jpg, gif) and alt text."""
        problems = []
        for n, block in enumerate(blocks):
            if not isinstance(block, dict) or block.get("type") != "image":
                continue
            if not block.get("alt_text"):
                problems.append(f"blocks[{n}]: an image needs alt_text")
            slack_file = block.get("slack_file")
            if slack_file is None and not block.get("image_url"):
                problems.append(f"blocks[{n}]: an image needs image_url or slack_file")
            if isinstance(slack_file, dict):
                found = self.files.get(str(slack_file.get("id", "")))
                if found is None or found[0]["filetype"] not in ("png", "jpg", "jpeg", "gif"):
                    problems.append(f"blocks[{n}].slack_file: no such image file")
        return problems

    # ----------------------------------------------------------------- downloads

    async def _file(self, request: web.Request) -> web.Response:
        file_id = request.match_info["id"]
        authorized = request.headers.get("Authorization") == f"Bearer {self.bot_token}"
        self.downloads.append((file_id, authorized))
        self._changed.set()
        if not authorized or file_id not in self.files:
            return web.Response(text=LOGIN_PAGE, content_type="text/html")
        return web.Response(body=self.files[file_id][1], content_type="application/octet-stream")


def _decoded(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value
