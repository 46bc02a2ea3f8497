"""The Discord front end (discord.py 2.x): `/quiz` commands, lasting buttons and menus, forms, code by DM.

app.py      the client: gateway events and the command tree, wired to `Inbound`
inbound.py  every event becomes one core request; per-learner order; the reply goes to `deliver`
strays.py   interactions that do not fit: no user named, options not the registered command's; edited code
commands.py the `/quiz` command tree: options become requests
origin.py   who acted and where: actors, custom_ids, the lasting component templates
deliver.py  one path for replies: the interaction, or the channel when no interaction is left
posts.py    sent with no interaction: answers to plain messages, race rounds, the daily question
render.py   neutral messages -> embeds, components and modals
markup.py   Markdown as Discord shows it: commands spelt, code fenced
limits.py   Discord's sizes and counts
api.py      the API's address, the invite link, token redaction, command sync
"""

from .app import QuizBotClient, create_client, run_discord

__all__ = ["QuizBotClient", "create_client", "run_discord"]
