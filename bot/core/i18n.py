"""The one translation function: gettext catalogs (Babel) for every text a person sees.

Catalogs live in `bot/locales/<lang>/LC_MESSAGES/quizbot.po`, with the compiled `.mo` beside each,
committed (`make messages` extracts, updates and compiles; a test fails when a `.mo` is older than
its `.po` or when a shipped catalog misses a message). The language of the texts being made is a
context variable: the dispatcher's locale middleware (`bot.core.locale`) sets it around each
request, and code that speaks to a whole server outside any request (the daily post, a race board)
sets it with `use_locale`. Texts are made in the request's language where they are written:

    _("Hint")                                   a text
    _("There is no pack `{name}`.").format(...)  with named placeholders (the same in every language)
    ngettext("{n} attempt left", "{n} attempts left", n).format(n=number(n))
    N_("...")                                    marks a module-level text, translated with `_` at use
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date, datetime
from functools import lru_cache, wraps
from pathlib import Path
from typing import ParamSpec, TypeVar

from babel import Locale, UnknownLocaleError
from babel.dates import format_date, format_datetime
from babel.numbers import format_decimal, format_percent
from babel.support import NullTranslations, Translations

P = ParamSpec("P")
R = TypeVar("R")

DOMAIN = "quizbot"
LOCALES_DIR = Path(__file__).resolve().parents[1] / "locales"
DEFAULT = "en"
# The languages the bot speaks, by code, each named in itself (what `/quiz language` lists).
LANGUAGES: dict[str, str] = {"en": "English", "es": "Español", "de": "Deutsch"}

_current: ContextVar[str] = ContextVar("quizbot_locale", default=DEFAULT)
# The language of the server or workspace the request came from: public posts (a race board, a
# leaderboard, the daily post) are made in it, inside `public()`.
_server: ContextVar[str] = ContextVar("quizbot_server_locale", default=DEFAULT)


@lru_cache(maxsize=256)  # asked several times a request, of the few locales platforms send
def supported(code: str | None) -> str | None:
    """The language the bot speaks for a platform's locale ("es-ES", "de_AT", "en-US"), else None."""
    if not code:
        return None
    base = code.strip().replace("_", "-").split("-")[0].lower()
    return base if base in LANGUAGES else None


def same_language(pack: str, wanted: str) -> bool:
    """Say whether a pack written in `pack` (a BCP 47 tag) is in `wanted` (`es` takes `es-MX` too)."""
    pack, wanted = pack.lower().replace("_", "-"), wanted.strip().lower().replace("_", "-")
    return pack == wanted or pack.startswith(wanted + "-")


@lru_cache(maxsize=len(LANGUAGES))
def translations(code: str) -> NullTranslations:
    """The compiled catalog of `code` (English is the source: its catalog only holds plural rules)."""
    return Translations.load(str(LOCALES_DIR), [code], DOMAIN)


def current() -> str:
    """The language texts are being made in now."""
    return _current.get()


@contextmanager
def use_locale(code: str | None) -> Iterator[str]:
    """Make the texts inside the block in `code` (unsupported or None: English)."""
    chosen = supported(code) or DEFAULT
    token = _current.set(chosen)
    try:
        yield chosen
    finally:
        _current.reset(token)


@contextmanager
def use_locales(learner: str, server: str) -> Iterator[None]:
    """Make texts in `learner`'s language, and public posts (inside `public()`) in `server`'s."""
    token, server_token = _current.set(supported(learner) or DEFAULT), _server.set(supported(server) or DEFAULT)
    try:
        yield
    finally:
        _server.reset(server_token)
        _current.reset(token)


@contextmanager
def public() -> Iterator[str]:
    """Make the texts inside the block in the server's language: they are posted for everyone."""
    with use_locale(_server.get()) as code:
        yield code


def for_everyone(make: Callable[P, R]) -> Callable[P, R]:
    """Make a public post's texts (a race round, the daily post) in the server's language."""

    @wraps(make)
    def in_public(*args: P.args, **kwargs: P.kwargs) -> R:
        with public():
            return make(*args, **kwargs)

    return in_public


def _(message: str) -> str:
    """Translate `message` into the current language."""
    return translations(_current.get()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """Translate a text that depends on a count, by the language's own plural rules."""
    return translations(_current.get()).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """Translate a short text whose meaning depends on `context` (a button's "Stop" is not a noun)."""
    return str(translations(_current.get()).pgettext(context, message))


def N_(message: str) -> str:
    """Mark `message` for the catalog without translating it (a module constant, translated at use)."""
    return message


def number(value: float, digits: int = 0) -> str:
    """A number as the current language writes it (1,234.5 / 1.234,5)."""
    if digits == 0 and isinstance(value, int) and 0 <= value < 1000:
        return str(value)  # the same in every language the bot speaks, and asked on every reply: no Babel call
    fmt = "#,##0" + ("." + "0" * digits if digits else "")
    return format_decimal(value, format=fmt, locale=_current.get())


def percent(fraction: float) -> str:
    """A fraction as a whole percentage (83 % in German, 83 % in Spanish, 83% in English)."""
    return format_percent(fraction, locale=_current.get())


def day(value: date) -> str:
    """A date in the current language ("Dec 4, 2026", "4 dic 2026", "04.12.2026")."""
    return format_date(value, format="medium", locale=_current.get())


def moment(value: datetime) -> str:
    """A date and time in the current language (short: minutes)."""
    return format_datetime(value, format="short", locale=_current.get())


def language_name(code: str) -> str:
    """The name of the language `code` in the current language ("Spanish", "Spanisch")."""
    try:
        return Locale.parse(code).get_display_name(_current.get()) or code
    except (UnknownLocaleError, ValueError):
        return code


class Said(str):
    """A text in English that can be said again in another language later (`said(text)`).

    For texts made where no reader is known yet, or made once for readers of several languages: a
    pack's validation problem (the CLI prints it in English, the chat shows it in the admin's
    language), a conversion's reasons. It is the English text itself (compared, joined and logged
    as such) and keeps its catalog template and values; a value may be a `Said` itself.
    """

    template: str
    values: dict[str, object]

    def __new__(cls, template: str, /, **values: object) -> Said:
        self = super().__new__(cls, template.format(**{k: str(v) for k, v in values.items()}))
        self.template, self.values = template, values
        return self

    def __reduce__(self) -> tuple[object, ...]:  # pickled (a worker's result) with its template
        return (_said_again, (self.template, self.values))


def _said_again(template: str, values: dict[str, object]) -> Said:
    return Said(template, **values)


def M_(template: str, /, **values: object) -> Said:
    """Mark `template` for the catalog and fill it in English, to be said in another language later."""
    return Said(template, **values)


def said(text: object) -> str:
    """Say `text` in the current language when it was made with `M_`; any other text as it is."""
    if not isinstance(text, Said):
        return str(text)
    return _(text.template).format(**{k: said(v) for k, v in text.values.items()})


def NC_(context: str, message: str) -> str:
    """Mark `message` for the catalog in `context` without translating it (translated with `pgettext` at use)."""
    return message
