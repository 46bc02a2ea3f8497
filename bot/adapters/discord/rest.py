"""A click's two Discord calls, made through discord.py's webhook adapter without its message objects.

A click is answered by editing the clicked message (the interaction's callback) and by sending the
next item as a follow-up. discord.py's `InteractionResponse.edit_message` asks Discord to send the
edited message back (`with_response`) and builds an `InteractionCallbackResponse` from it, and
`Webhook.send(wait=True)` builds a `WebhookMessage` (its embeds, components and author) from the
message Discord returns; the bot reads none of that but the new message's id. Here the same JSON
body goes through the same adapter (its rate limits, retries and `HTTPException`s, and the metrics'
acknowledgement), the callback asks for nothing back, and the follow-up's id is read from the
returned JSON. A message with files is sent by discord.py's own calls (multipart).
"""

from __future__ import annotations

from typing import Any

import discord
from discord.http import Route
from discord.webhook.async_ import async_context

from bot.metrics import acked

from .render import Rendered

NO_MENTIONS = discord.AllowedMentions.none().to_dict()  # as the client is configured: no message pings anyone
EPHEMERAL = 64  # the message flag


def payload(rendered: Rendered, *, edit: bool, ephemeral: bool = False) -> dict[str, Any]:
    """The message's JSON as discord.py would send it; an edit without components removes the old ones."""
    body: dict[str, Any] = {"embeds": [embed.to_dict() for embed in rendered.embeds]}
    if rendered.view is not None:
        body["components"] = rendered.view.to_components()
    elif edit:
        body["components"] = []
    if ephemeral:
        body["flags"] = EPHEMERAL
    body["allowed_mentions"] = NO_MENTIONS
    return body


async def edit_clicked(interaction: discord.Interaction[Any], rendered: Rendered) -> None:
    """Answer a click on a message by showing `rendered` in its place (the callback's "update message")."""
    if rendered.files:
        await interaction.response.edit_message(**rendered.edit_kwargs())
        return
    http = interaction._state.http
    route = Route(
        "POST", "/interactions/{webhook_id}/{webhook_token}/callback",
        webhook_id=interaction.id, webhook_token=interaction.token,
    )  # fmt: skip
    body = {"type": discord.InteractionResponseType.message_update.value, "data": payload(rendered, edit=True)}
    await async_context.get().request(
        route, session=interaction._session, proxy=http.proxy, proxy_auth=http.proxy_auth, payload=body
    )
    # discord.py's own record that the interaction is answered: `response.is_done()` reads it
    interaction.response._response_type = discord.InteractionResponseType.message_update
    acked()


async def follow_up(interaction: discord.Interaction[Any], rendered: Rendered, *, ephemeral: bool) -> int:
    """Send `rendered` as a follow-up of an answered interaction; the new message's id."""
    if rendered.files:
        sent = await interaction.followup.send(wait=True, ephemeral=ephemeral, **rendered.send_kwargs())
        return sent.id
    http = interaction._state.http
    data = await async_context.get().execute_webhook(
        interaction.application_id, interaction.token, session=interaction._session, proxy=http.proxy,
        proxy_auth=http.proxy_auth, payload=payload(rendered, edit=False, ephemeral=ephemeral), wait=True,
        with_components=rendered.view is not None,
    )  # fmt: skip
    assert data is not None  # with wait=True Discord returns the message
    return int(data["id"])
