"""Discord's command localizations: the `/quiz` descriptions in every language of the catalogs.

discord.py asks the tree's `app_commands.Translator` for each description (of a group, a command, an
option) in each Discord locale when the tree is synced; this one answers from the same gettext
catalogs as every other text. Command and option names stay as they are in every language: help
texts, error messages, the README and Slack all name the commands the same way (`/quiz start`).

A description with numbers in it is written `L_("... ({least}-{most}) ...", least=1, most=50)`:
the catalog holds the template, Discord gets it filled in.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.core.i18n import _, supported, use_locale


def L_(message: str, **values: Any) -> app_commands.locale_str:  # noqa: N802 (a gettext-style marker)
    """A command text for the catalog (extracted like `_`), English filled in, translated at sync."""
    return app_commands.locale_str(message.format(**values), template=message, values=values)


class CatalogTranslator(app_commands.Translator):
    """Translate command texts with the bot's catalogs; a language the bot does not speak gets none."""

    async def translate(
        self, string: app_commands.locale_str, locale: discord.Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        if context.location is app_commands.TranslationContextLocation.choice_name:
            return None  # choices are values (`easy`, `week`) typed the same in every language
        if context.location in (
            app_commands.TranslationContextLocation.command_name,
            app_commands.TranslationContextLocation.group_name,
            app_commands.TranslationContextLocation.parameter_name,
        ):
            return None
        code = supported(locale.value)
        if code is None or code == "en":
            return None
        template = str(string.extras.get("template", string.message))
        values = string.extras.get("values") or {}
        with use_locale(code):
            translated = _(template)
        if translated == template:
            return None
        return translated.format(**values)
