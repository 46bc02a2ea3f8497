"""Slack learners: signed HTTP requests to the bots' /slack/events, round robin or sticky by learner."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any
from urllib.parse import urlencode

import aiohttp
import orjson

from tests.slack.conftest import TEAM, Slack

from .fakes import BenchSlack
from .measure import Tally
from .pack import SOLUTION
from .settings import ACK_WAIT_S, NEXT_WAIT_S, think

# Form encoding (as urlencode's quote_plus) by one str.translate over the UTF-8 bytes read as Latin-1:
# about half the CPU of quote_plus on a click's payload, which this process makes for every answer.
_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~")
_FORM = {b: chr(b) if b in _SAFE else "+" if b == 0x20 else f"%{b:02X}" for b in range(256)}


def form_value(raw: bytes) -> str:
    """`raw` quoted for an application/x-www-form-urlencoded body, as urllib's quote_plus quotes it."""
    return raw.decode("latin-1").translate(_FORM)


def is_slack_item(message: dict[str, Any]) -> bool:
    first = message["blocks"][0] if message.get("blocks") else {}
    return first.get("type") == "header" and first["text"]["text"].startswith("Question ")


def item_title(message: dict[str, Any]) -> str | None:
    """The header of a quiz item ("Question 3 of 20"), else None."""
    return str(message["blocks"][0]["text"]["text"]) if is_slack_item(message) else None


def slack_action(message: dict[str, Any], label: str) -> tuple[dict[str, Any], str] | None:
    for n, block in enumerate(message.get("blocks", [])):
        if block.get("type") != "actions":
            continue
        for element in block.get("elements", []):
            if element.get("type") == "button" and element["text"]["text"] == label:
                return element, block.get("block_id", f"b{n}")
    return None


class SlackLearners:
    def __init__(self, fake: BenchSlack, urls: list[str], http: aiohttp.ClientSession, tally: Tally, *, sticky: bool) -> None:
        self.fake, self.tally, self.sticky = fake, tally, sticky
        self.workspaces = [Slack(http, url, fake, None) for url in urls]  # the tests' signing client, one per process
        self._n = 0

    async def send(self, body: str, content_type: str, index: int) -> tuple[int, float]:
        self._n += 1
        # round robin, as a load balancer would; or sticky: each learner always to the same process
        workspace = self.workspaces[(index if self.sticky else self._n) % len(self.workspaces)]
        began = time.perf_counter()
        try:
            status, _ = await asyncio.wait_for(workspace.send(body, content_type, settle=False), ACK_WAIT_S)
        except TimeoutError:
            status = -1
        except aiohttp.ClientError:
            status = 0
        return status, time.perf_counter() - began

    def command(self, user: str, text: str) -> str:
        return urlencode(
            {
                "token": "gIkuvaNzQIHg97ATvDxqgjtO", "team_id": TEAM, "team_domain": "quizbot-test",
                "channel_id": "D" + user, "channel_name": "directmessage", "user_id": user, "user_name": user.lower(),
                "command": "/quiz", "text": text, "api_app_id": "A0001",
                "is_enterprise_install": "false", "response_url": self.fake.answer_url("D" + user), "trigger_id": f"{self._n}.9.ab",
            }
        )  # fmt: skip

    def click(self, user: str, message: dict[str, Any], element: dict[str, Any], block_id: str) -> str:
        channel = "D" + user
        action = {"action_id": element["action_id"], "block_id": block_id, "type": "button", "text": element["text"],
                  "action_ts": f"{time.time():.6f}"}  # fmt: skip
        if "value" in element:
            action["value"] = element["value"]
        payload = {
            "type": "block_actions",
            "user": {"id": user, "username": user.lower(), "name": user.lower(), "team_id": TEAM},
            "api_app_id": "A0001", "token": "gIkuvaNzQIHg97ATvDxqgjtO",
            "container": {"type": "message", "message_ts": message["ts"], "channel_id": channel, "is_ephemeral": False},
            "trigger_id": f"{self._n}.9.ab", "team": {"id": TEAM, "domain": "quizbot-test"},
            "channel": {"id": channel, "name": "directmessage"}, "message": message, "state": {"values": {}},
            "response_url": self.fake.answer_url(channel), "actions": [action],
        }  # fmt: skip
        return "payload=" + form_value(orjson.dumps(payload))

    def code_message(self, user: str) -> str:
        self._n += 1
        event = {
            "type": "message", "channel": "D" + user, "user": user, "text": f"```python\n{SOLUTION}```",
            "ts": f"{time.time():.6f}", "event_ts": f"{time.time():.6f}", "channel_type": "im", "team": TEAM,
        }  # fmt: skip
        body = {
            "token": "gIkuvaNzQIHg97ATvDxqgjtO", "team_id": TEAM, "api_app_id": "A0001", "event": event,
            "type": "event_callback", "event_id": f"Ev{user}{self._n:09d}", "event_time": int(time.time()),
            "authorizations": [{"enterprise_id": None, "team_id": TEAM, "user_id": "UBOT", "is_bot": True, "is_enterprise_install": False}],
            "is_ext_shared_channel": False,
        }  # fmt: skip
        return orjson.dumps(body).decode()

    async def next_post(
        self, channel: str, after: str | None, refusals: int = -1, answered: str | None = None, busy: int = -1, failed: int = -1
    ) -> dict[str, Any] | None:
        """The bot's newest post in the DM once it is newer than `after` (None after NEXT_WAIT_S).

        With `refusals` (the channel's count of "already answered" notes before the answer), a new
        such note ends the wait too: the answer is returned as {"refused": True}. A post of the item
        titled `answered` (the one just answered, shown again with its grade when the process did
        not know its message) is not the next item: the wait goes on.
        """
        event = self.fake.posted.setdefault(channel, asyncio.Event())
        deadline = time.monotonic() + NEXT_WAIT_S
        while True:
            if refusals >= 0 and self.fake.refusals.get(channel, 0) > refusals:
                return {"refused": True}
            if busy >= 0 and self.fake.busy.get(channel, 0) > busy:
                return {"busy": True}
            if failed >= 0 and self.fake.failed.get(channel, 0) > failed:
                return {"failed": True}
            latest = self.fake.latest.get(channel)
            if latest is not None and (after is None or float(latest["ts"]) > float(after)):
                if answered is None or item_title(latest) != answered:
                    return latest
                self.tally.reshown += 1
                after = latest["ts"]
                continue
            event.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), left)

    async def learner(self, index: int, until: float) -> None:
        user = f"UL{index:05d}"
        channel = "D" + user
        await asyncio.sleep(index * 0.004)  # the 500 starts spread over 2 s
        after: str | None = None
        item: dict[str, Any] | None = None
        tally = self.tally
        recover = False
        while time.monotonic() < until:
            if item is None:
                # a new quiz; or, after an answer the bot refused or left unanswered, the current item again
                text = "current" if recover else "start bench count:20"
                status, _ = await self.send(self.command(user, text), "application/x-www-form-urlencoded", index)
                tally.other_requests += 1
                if status != 200:
                    tally.http_errors += 1
                    await asyncio.sleep(1)
                    continue
                tally.quizzes += not recover
                recover = False
                post = await self.next_post(channel, after)
                if post is None:
                    tally.stalls += 1
                    recover = text != "current"  # a quiz that was started and not shown: ask for it
                    continue
                after = post["ts"]
                item = post if is_slack_item(post) else None
                continue
            choice = slack_action(item, "A")
            await think()
            tally.answers_sent += 1
            refusals, busy, failed = (self.fake.refusals.get(channel, 0), self.fake.busy.get(channel, 0), self.fake.failed.get(channel, 0))
            sent = time.perf_counter()
            if choice is not None:
                status, took = await self.send(self.click(user, item, *choice), "application/x-www-form-urlencoded", index)
            else:  # the code item: the code as a block in the DM
                tally.code_answers += 1
                status, took = await self.send(self.code_message(user), "application/json", index)
            if status == 200:
                tally.answered(took, code=choice is None)
            elif status == -1:
                tally.lost += 1
            else:
                tally.http_errors += 1
            post = await self.next_post(channel, after, refusals, answered=item_title(item), busy=busy, failed=failed)
            if post is None or "refused" in post or "busy" in post or "failed" in post:
                if post is None:
                    tally.stalls += 1
                    tally.code_stalls += choice is None
                elif "busy" in post:
                    tally.busy += 1  # the code is sent again, on the current item
                elif "failed" in post:
                    tally.failed += 1  # told to try again: the current item again
                else:
                    tally.refused += 1
                item, recover = None, True
                continue
            tally.replies.append(time.perf_counter() - sent)
            after = post["ts"]
            item = post if is_slack_item(post) else None  # else the summary: a new quiz
