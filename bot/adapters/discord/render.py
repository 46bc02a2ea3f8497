"""Render the core's neutral messages as Discord embeds, components and modals, within Discord's limits."""

from __future__ import annotations

import io
import logging
import math
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.core.i18n import _, ngettext, pgettext
from bot.core.replies import (
    Attachment,
    Button,
    Code,
    Control,
    Fields,
    Image,
    InputRequest,
    Message,
    Select,
    Text,
    Tone,
)

from . import limits as lim
from .markup import fence, plain, spell
from .origin import is_daily_id, is_quiz_id, is_race_id, page_id

log = logging.getLogger(__name__)

COLOURS = {
    Tone.INFO: discord.Colour(0x5865F2),
    Tone.SUCCESS: discord.Colour(0x57F287),
    Tone.FAILURE: discord.Colour(0xED4245),
    Tone.WARNING: discord.Colour(0xFEE75C),
    Tone.ERROR: discord.Colour(0x992D22),
}
STYLES = {"primary": 1, "secondary": 2, "success": 3, "danger": 4}  # Discord's button styles
ACTION_ROW, BUTTON, STRING_SELECT = 1, 2, 3  # Discord's component types
SHORT_CHOICE = 40  # choice texts up to this long are written on their buttons as well
ANSWER_INPUT_ID = "answer"


class Components:
    """A message's components as Discord's JSON, handed to discord.py where it takes a view.

    discord.py sends a view as what its `to_components()` returns, and knows one by
    `__discord_ui_view__`. Building `discord.ui` views and items only for that was about 4% of a
    click's CPU on Discord (py-spy). Every click is routed by its custom_id (`Inbound.click`), so no
    view is stored for dispatch: `is_finished` is always true, as for the stopped view it replaces.
    """

    __discord_ui_view__ = True
    timeout: float | None = None

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows

    def to_components(self) -> list[dict[str, Any]]:
        return self.rows

    def has_components_v2(self) -> bool:
        return False

    def is_finished(self) -> bool:
        return True

    def is_dispatchable(self) -> bool:
        return False


@dataclass
class Rendered:
    """What one Discord message carries: embeds, components and files."""

    embeds: list[discord.Embed]
    view: Components | None = None
    files: list[discord.File] = field(default_factory=list)
    pages: int = 1

    def send_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"embeds": self.embeds}
        if self.view is not None:
            kwargs["view"] = self.view
        if self.files:
            kwargs["files"] = self.files
        return kwargs

    def edit_kwargs(self) -> dict[str, Any]:
        # An edit replaces the components too: None removes buttons that no longer apply.
        kwargs: dict[str, Any] = {"embeds": self.embeds, "view": self.view}
        if self.files:
            kwargs["attachments"] = self.files
        return kwargs


def render(message: Message, *, page: int = 0, clicked: str | None = None) -> Rendered:
    """Turn one core message into an embed and components; `page` picks the step of a long item,
    `clicked` (a control's custom_id) the step that holds that control, if any holds it."""
    notes: list[str] = []
    pages = layout(message.rows)
    if clicked is not None:
        page = _page_holding(pages, clicked)
    page = min(max(page, 0), len(pages) - 1)
    view = _view(message, pages, page, notes)
    embed, files = _embed(message, notes)
    return Rendered(embeds=[embed], view=view, files=files, pages=len(pages))


def render_notice(markdown: str, tone: Tone = Tone.WARNING) -> Rendered:
    return render(Message(kind="notice", parts=(Text(markdown),), tone=tone))


def render_modal(form: InputRequest, custom_id: str | None = None) -> discord.ui.Modal:
    """Build the form a core InputRequest asks for: one paragraph input; its submission names the action."""
    modal = discord.ui.Modal(
        title=lim.clip_plain(form.title, lim.MODAL_TITLE), custom_id=custom_id or form.action
    )
    max_length = max(1, min(form.max_length, lim.INPUT_VALUE))
    initial = form.initial if form.initial and lim.size(form.initial) <= max_length else None
    text_input: discord.ui.TextInput[Any] = discord.ui.TextInput(
        style=discord.TextStyle.paragraph,
        custom_id=ANSWER_INPUT_ID,
        default=initial,
        placeholder=lim.clip_plain(form.placeholder, lim.INPUT_PLACEHOLDER) if form.placeholder else None,
        max_length=max_length,
        required=True,
    )
    modal.add_item(discord.ui.Label(text=lim.clip_plain(form.label, lim.INPUT_LABEL), component=text_input))
    modal.stop()  # nothing to keep in memory: submissions are handled by custom_id, also after a restart
    return modal


def _page_holding(pages: list[list[Row]], custom_id: str) -> int:
    """Return the step that holds the control `custom_id` (0 when none does)."""
    for number, rows in enumerate(pages):
        if any(isinstance(c, Button | Select) and c.action == custom_id for row in rows for c in row):
            return number
    return 0


# ----------------------------------------------------------------------------- embed


def _embed(message: Message, notes: list[str]) -> tuple[discord.Embed, list[discord.File]]:
    chunks: list[str] = []
    fields: list[tuple[str, str]] = []
    files: list[discord.File] = []
    image_set = False
    in_order = _tables_as_lines(message)
    for part in message.parts:
        if isinstance(part, Text):
            chunks.append(spell(part.markdown))
        elif isinstance(part, Code):
            chunks.append(fence(part.code, part.language))
        elif isinstance(part, Fields) and in_order:
            chunks.append("\n".join(f"{spell(name)} · {spell(value)}" for name, value in part.items))
        elif isinstance(part, Fields):
            fields.extend(part.items)
        elif isinstance(part, Image):
            files.append(
                discord.File(io.BytesIO(part.data), filename=part.filename, description=part.alt or None)
            )
            if not image_set:
                image_set = True
                image_name = part.filename
        elif isinstance(part, Attachment):
            files.append(discord.File(io.BytesIO(part.data), filename=part.filename))
    embed = discord.Embed(colour=COLOURS.get(message.tone, COLOURS[Tone.INFO]))
    used = 0
    if message.title:
        embed.title = lim.clip_plain(message.title, lim.EMBED_TITLE)
        used += lim.size(embed.title)
    if message.footer:
        footer = lim.clip_plain(message.footer, lim.EMBED_FOOTER)
        embed.set_footer(text=footer)
        used += lim.size(footer)
    if image_set:
        embed.set_image(url=f"attachment://{image_name}")
    reserve = 600  # keep room for the description when there are many fields
    shown = 0
    for name, value in fields[: lim.EMBED_FIELDS]:
        name = lim.clip_plain(name, lim.FIELD_NAME) or "\u200b"
        value = lim.clip(spell(value), lim.FIELD_VALUE) or "\u200b"
        cost = lim.size(name) + lim.size(value)
        if used + cost > lim.EMBED_TOTAL - reserve:
            break
        embed.add_field(name=name, value=value, inline=lim.size(value) <= 40)
        used += cost
        shown += 1
    if shown < len(fields):
        hidden = len(fields) - shown
        notes.append(ngettext("_{n} more row not shown (Discord's limits)._", "_{n} more rows not shown (Discord's limits)._", hidden).format(n=hidden))
    body = "\n\n".join(c for c in chunks if c.strip())
    tail = "\n\n".join(notes)
    budget = min(lim.EMBED_DESCRIPTION, lim.EMBED_TOTAL - used)
    if tail:
        budget -= lim.size(tail) + 2
        body = lim.clip(body, budget) + "\n\n" + tail if body else tail
    else:
        body = lim.clip(body, budget)
    if body.strip():
        embed.description = body
    elif not message.title and not fields:
        embed.description = "\u200b"
    return embed, files


def _tables_as_lines(message: Message) -> bool:
    """Whether the message's tables read right only as lines of the description.

    An embed shows its fields after the whole description, so a heading written between two tables
    would stand above both; and a field's name shows a mention as raw `<@id>`.
    """
    between = False
    seen_fields = False
    for part in message.parts:
        if isinstance(part, Fields):
            if between or any(_MENTION in name for name, _value in part.items):
                return True
            seen_fields = True
        elif seen_fields and isinstance(part, Text | Code):
            between = True
    return False


_MENTION = "<@"


# ----------------------------------------------------------------------------- components


Row = list[Control | tuple[str, int]]  # a core control, or ("nav", target page) for a step button


def layout(rows: tuple[tuple[Control, ...], ...]) -> list[list[Row]]:
    """Arrange the core's rows into Discord's 5 rows; when they do not fit, page the menus in steps.

    Each step shows some of the menus, then every button of the message plus Back/Next buttons.
    """
    normal: list[Row] = []
    for row in rows:
        buttons: list[Control | tuple[str, int]] = [c for c in row if isinstance(c, Button)]
        normal.extend([c] for c in row if isinstance(c, Select))
        normal.extend(buttons[i : i + lim.ROW_BUTTONS] for i in range(0, len(buttons), lim.ROW_BUTTONS))
    if len(normal) <= lim.ROWS:
        return [normal]
    menus = [r for r in normal if isinstance(r[0], Select)]
    fixed: list[Control | tuple[str, int]] = [c for r in normal if not isinstance(r[0], Select) for c in r]

    def room(navs: int) -> int:
        return lim.ROWS - math.ceil((len(fixed) + navs) / lim.ROW_BUTTONS)

    chunks: list[list[Row]] = []
    index = 0
    while index < len(menus):
        back = 1 if chunks else 0
        take = len(menus) - index if len(menus) - index <= room(back) else room(back + 1)
        if take < 1:
            return [normal[: lim.ROWS]]  # too many buttons to page: _view notes what was left out
        chunks.append(menus[index : index + take])
        index += take
    if not chunks:
        return [normal[: lim.ROWS]]
    pages: list[list[Row]] = []
    for number, chunk in enumerate(chunks):
        nav: list[Control | tuple[str, int]] = []
        if number > 0:
            nav.append(("nav", number - 1))
        if number < len(chunks) - 1:
            nav.append(("nav", number + 1))
        buttons = nav + fixed
        pages.append(
            chunk + [buttons[i : i + lim.ROW_BUTTONS] for i in range(0, len(buttons), lim.ROW_BUTTONS)]
        )
    return pages


def _view(message: Message, pages: list[list[Row]], page: int, notes: list[str]) -> Components | None:
    if not message.rows:
        return None
    components: list[dict[str, Any]] = []
    rows = pages[page]
    total_controls = sum(len(r) for r in message.rows)
    placed = 0
    choice_texts = [c.text for c in message.controls() if isinstance(c, Button) and c.text]
    long_texts = any(lim.size(plain(t)) > SHORT_CHOICE for t in choice_texts)
    for row in rows[: lim.ROWS]:
        items = [i for i in (_item(c, message, page, long_texts, notes) for c in row) if i is not None]
        if items:
            components.append({"type": ACTION_ROW, "components": items})
            placed += len(items)
    if len(pages) > 1:
        notes.insert(
            0,
            (
                _("_Step {n} of {total}: more menus under **{next}**._")
                if page + 1 < len(pages)
                else _("_Step {n} of {total}: the earlier menus are under **{back}**._")
            ).format(n=page + 1, total=len(pages), next=_next(), back=_back()),
        )
    elif placed < total_controls:
        notes.append(_("_Some controls do not fit Discord's limits; use `/quiz` commands instead._"))
    return Components(components)


def _next() -> str:
    return pgettext("button", "Next ▶")


def _back() -> str:
    return pgettext("button", "◀ Back")


def _button(label: str, style: int, custom_id: str, disabled: bool = False) -> dict[str, Any]:
    return {"type": BUTTON, "style": style, "disabled": disabled, "label": label, "custom_id": custom_id}


def _item(
    control: Control | tuple[str, int],
    message: Message,
    page: int,
    long_texts: bool,
    notes: list[str],
) -> dict[str, Any] | None:
    """One component in Discord's JSON, as discord.ui would write it; None: left out."""
    if isinstance(control, tuple):
        target = control[1]
        label = _next() if target > page else _back()
        return _button(label, STYLES["secondary"], page_id(message.session_id or "-", target))
    action = control.action
    if lim.size(action) > lim.CUSTOM_ID or not (is_quiz_id(action) or is_race_id(action) or is_daily_id(action)):
        log.warning("control %r has an action id Discord cannot carry; left out", control.action[:40])
        return None
    if isinstance(control, Button):
        label = control.label
        if control.text and not long_texts:
            label = f"{control.label}. {plain(control.text)}"
        label = lim.clip_plain(label, lim.BUTTON_LABEL) or "…"
        return _button(label, STYLES.get(control.style, STYLES["secondary"]), control.action, control.disabled)
    options = control.options
    if not options:
        log.warning("menu %r has no options; left out", control.action[:40])
        return None
    if len(options) > lim.SELECT_OPTIONS:
        notes.append(
            _("_The menu shows the first {n} of {total} options (Discord's limit)._").format(n=lim.SELECT_OPTIONS, total=len(options))
        )
        options = options[: lim.SELECT_OPTIONS]
    select_options = [
        {"label": lim.clip_plain(o.label, lim.OPTION_LABEL) or "…", "value": o.value[: lim.OPTION_VALUE], "default": o.selected}
        for o in options
    ]
    max_values = max(1, min(control.max_values, len(select_options)))
    menu: dict[str, Any] = {
        "type": STRING_SELECT,
        "custom_id": control.action,
        "min_values": max(0, min(control.min_values, max_values)),
        "max_values": max_values,
        "disabled": control.disabled,
        "required": True,
    }
    if control.placeholder:
        menu["placeholder"] = lim.clip_plain(control.placeholder, lim.PLACEHOLDER)
    menu["options"] = select_options
    return menu
