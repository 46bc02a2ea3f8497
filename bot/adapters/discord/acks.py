"""The acknowledgement of a Discord interaction, for the metrics: its callback, as it succeeds.

Every interaction response (a reply, an edit, a defer, a form, an autocomplete's choices) goes
through discord.py's webhook adapter's `create_interaction_response`; the adapter in use is read
from its context variable at each response, so setting one that marks the event acknowledged
(bot.metrics.acked) once the callback returned covers them all. An aiohttp trace did this before,
at a cost on every HTTP request the bot makes: aiohttp builds each signal's parameters for every
request once any trace is configured.
"""

from __future__ import annotations

from typing import Any

from discord.webhook.async_ import AsyncWebhookAdapter, async_context

from bot.metrics import acked


class AckingWebhookAdapter(AsyncWebhookAdapter):
    """discord.py's webhook adapter, marking the event acknowledged once its interaction callback succeeded."""

    def create_interaction_response(self, *args: Any, **kwargs: Any) -> Any:
        sent = super().create_interaction_response(*args, **kwargs)

        async def acking() -> Any:
            result = await sent
            acked()  # an HTTP error raised above: not acknowledged
            return result

        return acking()


def time_acknowledgements() -> None:
    """Have interaction callbacks made from here on (in this context and the tasks it starts) mark their event acknowledged."""
    async_context.set(AckingWebhookAdapter())  # type: ignore[no-untyped-call]
