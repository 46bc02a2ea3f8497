"""Discord learners: interactions over the fake gateway, one guild per shard as Discord routes them."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from tests.discord import payloads as p
from tests.discord.fake_discord import Call

from .fakes import FAILED, BenchDiscord, busy_note
from .measure import Tally
from .pack import SOLUTION
from .settings import ACK_WAIT_S, NEXT_WAIT_S, think


def message_text(message: dict[str, Any]) -> str:
    """A Discord message's words in one line: its content, and each embed's title and description."""
    words = [message.get("content") or ""]
    for embed in message.get("embeds") or []:
        words += [embed.get("title") or "", embed.get("description") or ""]
    return " | ".join(w.replace("\n", " ") for w in words if w)


def discord_guilds(shards: int) -> list[str]:
    """One guild id per shard, as Discord routes them: (guild_id >> 22) % shard_count."""
    out = []
    base = int(p.GUILD_ID)
    for shard in range(shards):
        g = base
        while (g >> 22) % shards != shard:
            g += 1 << 22
        out.append(str(g))
    return out


def announce_guilds(fake: BenchDiscord, shards: int) -> None:
    """The learners' guilds, with their study channel, sent to the bot as Discord sends a bot the guilds it is in.

    With the guilds intent a bot learns each of its guilds (GUILD_CREATE) when it connects, and
    discord.py keeps them: an interaction then finds its guild and channel in that cache. Without
    them discord.py builds a stand-in guild, the bot's own member and the channel for every click.
    """
    for guild in discord_guilds(shards):
        fake.add_guild(guild)["channels"] = [{**p.text_channel(), "guild_id": guild}]


class DiscordLearners:
    def __init__(self, fake: BenchDiscord, shards: int, tally: Tally) -> None:
        self.fake, self.shards, self.tally = fake, shards, tally
        self.guilds = discord_guilds(shards)

    def payload(self, kind: int, data: dict[str, Any], user: p.User, shard: int, message: dict[str, Any] | None = None) -> dict[str, Any]:
        payload = p.interaction(kind, data, user, message=message)
        guild = self.guilds[shard]
        payload["guild_id"] = guild
        payload["authorizing_integration_owners"] = {"0": guild}
        return payload

    async def send(self, shard: int, payload: dict[str, Any]) -> tuple[float, Call] | None:
        future = self.fake.expect(payload)
        began = time.perf_counter()
        await self.fake.send_to(shard, "INTERACTION_CREATE", payload)
        try:
            at, call = await asyncio.wait_for(future, ACK_WAIT_S)
        except TimeoutError:
            return None
        finally:
            self.fake.forget(payload)
        return at - began, call

    async def next_message(self, inbox: asyncio.Queue[dict[str, Any]], answered: str | None) -> dict[str, Any] | None:
        """The next item or summary posted for the learner, not the one answered (None after NEXT_WAIT_S)."""
        deadline = time.monotonic() + NEXT_WAIT_S
        skipped = ""
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = await asyncio.wait_for(inbox.get(), left)
            except TimeoutError:
                break
            if message["id"] == answered:
                continue
            titles = [e.get("title") or "" for e in message.get("embeds", [])]
            if any(t.startswith("Question") or "finished" in t for t in titles):
                return message
            skipped = message_text(message)
            if answered is not None and busy_note(skipped):
                return {"busy": True}
            if answered is not None and FAILED in skipped:
                return {"failed": True}
        if answered is not None:
            self.tally.problem(f"no next item; the last other message: {skipped[:100] or '(none)'}")
        return None

    async def learner(self, index: int, until: float) -> None:
        user = p.User(str(610000000000000000 + index), f"l{index:05d}")
        shard = index % self.shards
        inbox = self.fake.inbox.setdefault(user.id, asyncio.Queue())
        await asyncio.sleep(index * 0.004)
        item: dict[str, Any] | None = None
        tally = self.tally
        recover = False
        while time.monotonic() < until:
            if item is None:
                # a new quiz; or, after an answer the bot refused or left unanswered, the current item again
                options = [] if recover else [p.option("pack", "bench"), p.option("count", 20)]
                start = self.payload(2, p.command("current" if recover else "start", options), user, shard)
                tally.other_requests += 1
                if await self.send(shard, start) is None:
                    tally.lost += 1
                    continue
                tally.quizzes += not recover
                item = await self.next_message(inbox, None)
                if item is None:
                    tally.stalls += 1
                    recover = not recover
                    continue
                recover = False
                if not any((e.get("title") or "").startswith("Question") for e in item["embeds"]):
                    item = None
                continue
            buttons = [c for row in item["components"] for c in row["components"] if c.get("type") == 2]
            choice = next((b for b in buttons if b.get("label", "").startswith("A. ")), None)
            await think()
            tally.answers_sent += 1
            sent = time.perf_counter()
            if choice is not None:
                acked = await self.send(shard, self.payload(3, p.component(choice["custom_id"], 2), user, shard, item))
            else:  # the code item: open the Answer form, then submit the code
                tally.code_answers += 1
                answer = next((b for b in buttons if b.get("label") == "Answer"), None)
                opened = None
                if answer is not None:
                    opened = await self.send(shard, self.payload(3, p.component(answer["custom_id"], 2), user, shard, item))
                    tally.other_requests += 1
                if opened is None or opened[1].body.get("type") != 9:
                    # a form must be the interaction's first response: a deferred click cannot open it
                    kind = "no ack" if opened is None else f"callback type {opened[1].body.get('type')}"
                    tally.problem(f"code item: Answer form not opened ({kind})")
                    tally.answers_sent -= 1
                    tally.code_answers -= 1
                    item, recover = None, True
                    continue
                form = opened[1].body["data"]["custom_id"]
                acked = await self.send(shard, self.payload(5, p.modal_submit(form, SOLUTION), user, shard, item))
            if acked is None:
                tally.lost += 1
            else:
                tally.answered(acked[0], code=choice is None)
                if acked[1].body.get("type") == 4 and "already answered" in json.dumps(acked[1].body):
                    tally.refused += 1
                    item, recover = None, True
                    continue
            item = await self.next_message(inbox, item["id"])
            if item is not None and ("busy" in item or "failed" in item):
                if "busy" in item:
                    tally.busy += 1  # the code is sent again, on the current item
                else:
                    tally.failed += 1  # told to try again: the current item again
                item, recover = None, True
                continue
            if item is not None:
                tally.replies.append(time.perf_counter() - sent)
            if item is None:
                tally.stalls += 1
                tally.code_stalls += choice is None
                recover = True
            elif not any((e.get("title") or "").startswith("Question") for e in item["embeds"]):
                item = None  # the summary: a new quiz
