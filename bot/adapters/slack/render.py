"""Render the core's neutral messages and forms as Block Kit, always within Slack's limits.

Anything too long is cut with a visible note, never sent to fail with `invalid_blocks`: text
objects hold 3,000 characters, a message 50 blocks, a modal or the Home tab 100, option and
button text 75, button values 2,000, a modal title 24.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from bot.core.i18n import _, ngettext, number, pgettext
from bot.core.importing import UPLOAD_SUFFIXES
from bot.core.model import PackInfo
from bot.core.replies import (
    Button,
    Code,
    Control,
    Fields,
    Image,
    InputRequest,
    Message,
    MessageKind,
    Select,
    Text,
    Tone,
)

from .limits import (
    BUTTON_TEXT_MAX,
    BUTTON_VALUE_MAX,
    ELEMENTS_PER_ACTIONS,
    FALLBACK_MAX,
    FIELD_MAX,
    FIELDS_PER_SECTION,
    HEADER_MAX,
    IMAGE_ALT_MAX,
    INPUT_MAX,
    LABEL_MAX,
    MESSAGE_BLOCKS_MAX,
    METADATA_MAX,
    MODAL_TITLE_MAX,
    NOTE_ROOM,
    OPTION_TEXT_MAX,
    OPTION_VALUE_MAX,
    OPTIONS_MAX,
    PART_SECTIONS_MAX,
    PLACEHOLDER_MAX,
    TEXT_MAX,
    VIEW_BLOCKS_MAX,
)
from .markup import (
    clip,
    code_block,
    cut_note,
    escape,
    escape_keeping_mentions,
    split_mrkdwn,
    to_mrkdwn,
    to_plain,
)

Block = dict[str, Any]


ANSWER_BLOCK, ANSWER_INPUT = "answer", "text"
CODE_BLOCK, CODE_INPUT = "code", "text"
PACK_BLOCK, PACK_INPUT = "pack", "file"
FORCE_BLOCK, FORCE_INPUT = "force", "force"
RUN_CALLBACK = "qzrun"
PACK_CALLBACK = "qzpack"
HOME_START = "qzh:start"
# Texts made for one learner once (a quiz's summary, stats, a code run): converted without the cache,
# which they would only fill (a summary each quiz, about 4 KB with its mrkdwn) and never hit.
ONCE_KINDS: frozenset[MessageKind] = frozenset({"summary", "stats", "run"})  # checked against the core's kinds


def plain(text: str, size: int) -> Block:
    return {"type": "plain_text", "text": clip(text, size) or " ", "emoji": True}


def mrkdwn_section(text: str) -> Block:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def image_block(file_id: str, alt: str) -> Block:
    """Show an image the bot uploaded (files upload v2) inside a message, by its Slack file id."""
    return {"type": "image", "slack_file": {"id": file_id}, "alt_text": clip(alt, IMAGE_ALT_MAX) or pgettext("alt text", "picture")}


def context(text: str) -> Block:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": clip(text, TEXT_MAX)}]}


def message_blocks(message: Message, *, limit: int = MESSAGE_BLOCKS_MAX, files: Mapping[str, str] | None = None) -> list[Block]:
    """Render one message: title, parts, controls, footer.

    `files` maps an Image part's filename to the id of the Slack file it was uploaded as; such an
    image is shown in the message, any other only named.
    """
    head = title_blocks(message.title)
    body: list[Block] = []
    texts: list[str] = []  # consecutive text and code, packed into as few sections as fit
    for n, part in enumerate(message.parts):
        if isinstance(part, Text | Code):
            warn = n == 0 and message.kind == "notice" and message.tone in (Tone.WARNING, Tone.ERROR)
            texts.extend(part_texts(part, prefix="⚠️ " if warn else "", once=message.kind in ONCE_KINDS))
            continue
        body.extend(pack_sections(texts))
        texts = []
        body.extend(part_blocks(part, files))
    body.extend(pack_sections(texts))
    tail = control_blocks(message.rows)
    if message.footer:
        tail.append(context(escape(message.footer)))
    return fit(head, body, tail, limit)


def pack_sections(texts: Sequence[str]) -> list[Block]:
    """Join mrkdwn pieces line after line into sections of at most 3,000 characters."""
    sections: list[str] = []
    for text in texts:
        if sections and len(sections[-1]) + 1 + len(text) <= TEXT_MAX:
            sections[-1] += "\n" + text
        else:
            sections.append(text)
    return [mrkdwn_section(s) for s in sections]


def fallback_text(message: Message) -> str:
    """The notification text that goes with blocks."""
    first = next((p.markdown for p in message.parts if isinstance(p, Text)), "")
    text = to_plain(message.title or first) or "QuizBot"
    return to_mrkdwn(clip(text, FALLBACK_MAX))  # keeps <@U123> mentions, escapes the rest


def title_blocks(title: str | None) -> list[Block]:
    if not title:
        return []
    if "<@" in title or "<#" in title:  # a mention renders only in mrkdwn
        return [mrkdwn_section("*" + clip(to_mrkdwn(title), HEADER_MAX) + "*")]
    return [{"type": "header", "text": plain(to_plain(title), HEADER_MAX)}]


def part_texts(part: Text | Code, *, prefix: str = "", once: bool = False) -> list[str]:
    """Render a text or code part as mrkdwn pieces that each fit a section (`once`: not cached)."""
    if isinstance(part, Text):
        return split_text(prefix + (to_mrkdwn.__wrapped__ if once else to_mrkdwn)(part.markdown))
    return split_text(code_block(part.code), what=_("characters of code"))


def part_blocks(part: object, files: Mapping[str, str] | None = None) -> list[Block]:
    if isinstance(part, Text | Code):
        return pack_sections(part_texts(part))
    if isinstance(part, Fields):
        return field_sections(part.items)
    if isinstance(part, Image):
        file_id = (files or {}).get(part.filename)
        if file_id:
            return [image_block(file_id, part.alt or part.filename)]
        return [context(escape(f"🖼️ {part.alt or part.filename}"))]
    return []


def split_text(text: str, *, what: str = "characters") -> list[str]:
    """Split mrkdwn into section-sized pieces, at most PART_SECTIONS_MAX of them, cut with a note."""
    if not text.strip():
        return []
    pieces = split_mrkdwn(text, TEXT_MAX - NOTE_ROOM)
    if len(pieces) > PART_SECTIONS_MAX:
        hidden = sum(len(p) for p in pieces[PART_SECTIONS_MAX:])
        pieces = pieces[:PART_SECTIONS_MAX]
        pieces[-1] += "\n" + cut_note(hidden, what)
    return pieces


def field_sections(items: Sequence[tuple[str, str]]) -> list[Block]:
    fields = [
        {"type": "mrkdwn", "text": clip(f"*{escape_keeping_mentions(to_plain(name))}*\n{to_mrkdwn(value)}", FIELD_MAX)}
        for name, value in items
    ]
    return [{"type": "section", "fields": fields[i : i + FIELDS_PER_SECTION]} for i in range(0, len(fields), FIELDS_PER_SECTION)]


def control_blocks(rows: Sequence[Sequence[Control]]) -> list[Block]:
    """One actions block per row; disabled controls are left out (Slack has no disabled state)."""
    blocks: list[Block] = []
    notes: list[str] = []
    for row in rows:
        elements = []
        for control in row:
            if control.disabled:
                continue
            if isinstance(control, Button):
                elements.append(button(control))
            else:
                element, hidden = select(control)
                elements.append(element)
                if hidden:
                    notes.append(cut_note(hidden, _("options of “{menu}”").format(menu=escape(to_plain(control.placeholder)))))
        for i in range(0, len(elements), ELEMENTS_PER_ACTIONS):
            blocks.append({"type": "actions", "elements": elements[i : i + ELEMENTS_PER_ACTIONS]})
    blocks.extend(context(n) for n in notes)
    return blocks


def button(control: Button) -> Block:
    element: Block = {
        "type": "button",
        "action_id": control.action,
        "text": plain(to_plain(control.label), BUTTON_TEXT_MAX),
    }
    if control.text:
        element["value"] = clip(to_plain(control.text), BUTTON_VALUE_MAX)
    if control.style in ("primary", "success"):
        element["style"] = "primary"
    elif control.style == "danger":
        element["style"] = "danger"
    return element


def select(control: Select) -> tuple[Block, int]:
    """Render a menu; return it and how many options had to be left out."""
    shown = control.options[:OPTIONS_MAX]
    options = [{"text": plain(to_plain(o.label), OPTION_TEXT_MAX), "value": o.value[:OPTION_VALUE_MAX]} for o in shown]
    chosen = [options[i] for i, o in enumerate(shown) if o.selected]
    element: Block = {
        "action_id": control.action,
        "placeholder": plain(to_plain(control.placeholder), PLACEHOLDER_MAX),
        "options": options,
    }
    if control.max_values > 1:
        element["type"] = "multi_static_select"
        element["max_selected_items"] = max(1, min(control.max_values, len(options)))
        if chosen:
            element["initial_options"] = chosen
    else:
        element["type"] = "static_select"
        if chosen:
            element["initial_option"] = chosen[0]
    return element, len(control.options) - len(shown)


def fit(head: list[Block], body: list[Block], tail: list[Block], limit: int) -> list[Block]:
    """Keep title, controls and footer; cut the body with a note when the blocks do not fit."""
    room = limit - len(head) - len(tail)
    if len(body) > room:
        keep = max(room - 1, 0)
        hidden = len(body) - keep
        body = [*body[:keep], context(cut_note(hidden, "blocks"))]
    return (head + body + tail)[:limit]


# ----------------------------------------------------------------- modals


def metadata(**values: str | None) -> str:
    """Pack where a form's answer goes (channel, thread, message, response URL) for private_metadata."""
    text = json.dumps({k: v for k, v in values.items() if v}, separators=(",", ":"))
    return text if len(text) <= METADATA_MAX else json.dumps({k: v for k, v in values.items() if v and k != "r"})


def read_metadata(text: str | None) -> dict[str, str]:
    try:
        data = json.loads(text or "{}")
    except ValueError:
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, str) and v} if isinstance(data, dict) else {}  # null is no channel


def modal(callback_id: str, meta: str, title: str, submit: str, blocks: list[Block]) -> Block:
    """A modal view: its callback, the metadata carried to its submission, title, submit label and blocks."""
    return {
        "type": "modal",
        "callback_id": callback_id,
        "private_metadata": meta,
        "title": plain(title, MODAL_TITLE_MAX),
        "submit": plain(submit, MODAL_TITLE_MAX),
        "close": plain(pgettext("button", "Cancel"), MODAL_TITLE_MAX),
        "blocks": blocks,
    }


def form_view(form: InputRequest, meta: str) -> Block:
    """A modal with one multiline input; its callback_id is the core's action id."""
    size = min(form.max_length, INPUT_MAX)
    element: Block = {"type": "plain_text_input", "action_id": ANSWER_INPUT, "multiline": True, "max_length": size}
    notes: list[str] = []
    if form.initial:
        if len(form.initial) <= size:
            element["initial_value"] = form.initial
        else:
            notes.append(_("The starter code is too long to fill in here; it is shown in the question."))
    if form.placeholder:
        element["placeholder"] = plain(form.placeholder, PLACEHOLDER_MAX)
    blocks: list[Block] = [
        {"type": "input", "block_id": ANSWER_BLOCK, "label": plain(to_plain(form.label), LABEL_MAX), "element": element}
    ]
    if form.kind == "code":
        notes.append(
            _(
                "Up to {n} characters here. Longer code: send it as a ```python block or a .py file"
                " in the quiz's direct message or thread."
            ).format(n=number(size))
        )
    blocks.extend(context(escape(n).replace("```", "`\u200b``")) for n in notes)
    return modal(form.action, meta, to_plain(form.title), pgettext("button", "Submit"), blocks)


def run_view(meta: str) -> Block:
    """The `/quiz run` modal, for a snippet typed without code after the command."""
    element = {"type": "plain_text_input", "action_id": CODE_INPUT, "multiline": True, "max_length": INPUT_MAX}
    return modal(RUN_CALLBACK, meta, _("Run Python"), pgettext("button", "Run"), [
        {"type": "input", "block_id": CODE_BLOCK, "label": plain(_("Code (PyTorch available)"), LABEL_MAX), "element": element},
        context(_("Runs in the sandbox: no network, limited time and memory.")),
    ])


def pack_load_view(meta: str) -> Block:
    """The `/quiz pack load` modal: one .yaml or .zip file, and whether to replace an equal version."""
    return modal(PACK_CALLBACK, meta, _("Load a pack"), pgettext("button", "Load"), [
            {
                "type": "input",
                "block_id": PACK_BLOCK,
                "label": plain(_("Pack file (.yaml, .zip) or a quiz file to convert"), LABEL_MAX),
                "element": {"type": "file_input", "action_id": PACK_INPUT, "filetypes": [suffix.lstrip(".") for suffix in UPLOAD_SUFFIXES], "max_files": 1},
            },
            {
                "type": "input",
                "block_id": FORCE_BLOCK,
                "optional": True,
                "label": plain(_("Version"), LABEL_MAX),
                "element": {
                    "type": "checkboxes",
                    "action_id": FORCE_INPUT,
                    "options": [
                        {"text": plain(_("Replace even if the version is not higher"), OPTION_TEXT_MAX), "value": "force"}
                    ],
                },
            },
            context(
                _(
                    "A pack that fails validation changes nothing; you get every problem as file:line:col. "
                    "Moodle XML, GIFT, CSV, Anki, Red trivia and Open Trivia DB files are converted and shown first."
                )
            ),
        ])


# ----------------------------------------------------------------- App Home


def home_view(stats: Message | None, packs: Sequence[PackInfo], *, rank: int | None = None) -> Block:
    """The Home tab: the learner's progress (and leaderboard place) and a start button per enabled pack."""
    head: list[Block] = [{"type": "header", "text": plain("QuizBot", HEADER_MAX)}]
    body: list[Block] = []
    if rank is not None:
        body.append(
            mrkdwn_section("🏆 " + _("You are *#{rank}* on this workspace's leaderboard this week. See it with `/quiz leaderboard`.").format(rank=rank))
        )
    if stats is not None:
        body.extend(message_blocks(stats, limit=VIEW_BLOCKS_MAX // 2))
    body.append({"type": "divider"})
    body.append({"type": "header", "text": plain(_("Start a quiz"), HEADER_MAX)})
    if packs:
        body.append(
            {
                **mrkdwn_section(_("*Every enabled pack* — wrong and unseen questions first, then reviews.")),
                "accessory": {"type": "button", "action_id": HOME_START, "text": plain(pgettext("button", "Start"), BUTTON_TEXT_MAX), "style": "primary"},
            }
        )
    else:
        body.append(mrkdwn_section(_("No packs are enabled here yet. An admin can load one with `/quiz pack load`.")))
    for info in packs:
        topics = ", ".join(f"`{escape(t)}`" for t, _title in info.topics[:15]) or "—"
        more = " " + _("and {n} more").format(n=len(info.topics) - 15) if len(info.topics) > 15 else ""
        questions = ngettext("{n} question", "{n} questions", info.questions).format(n=number(info.questions))
        text = f"*{escape(info.title)}* — `{escape(info.id)}` v{info.version} · {questions}\n" + _("Topics: {topics}").format(topics=topics + more)
        body.append(
            {
                **mrkdwn_section(clip(text, TEXT_MAX)),
                "accessory": {
                    "type": "button",
                    "action_id": f"{HOME_START}:{info.id}"[:255],
                    "value": info.id[:BUTTON_VALUE_MAX],
                    "text": plain(pgettext("button", "Start"), BUTTON_TEXT_MAX),
                },
            }
        )
    tail = [
        context(
            _("Type `/quiz help` in any channel for every command. Code answers: a ```python block or a .py file.").replace("```", "`\u200b``")
        )
    ]
    return {"type": "home", "blocks": fit(head, body, tail, VIEW_BLOCKS_MAX)}
