"""The platform-neutral reply: what the core says, for each adapter to render.

Text is Markdown (CommonMark with fenced code); adapters convert it to their platform's markup.
Controls carry an opaque `action` string that the adapter hands back to `QuizService.act`
unchanged, so a button keeps working after a restart: the state lives in the database.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from enum import StrEnum
from typing import Literal

from .i18n import _
from .model import Anchor
from .record import record
from .words import plural as plural  # re-exported: the replies module is where texts are made

COMMAND = re.compile(r"⟦(=?[a-z][a-z -]*)⟧")


def cmd(name: str) -> str:
    """Name a command in text; each front end spells it in its own syntax (`/quiz start`, `start`)."""
    return f"⟦{name}⟧"


def opt(name: str) -> str:
    """Name a command's option in text (`rounds`); a front end whose client shows options translated spells it so."""
    return f"⟦={name}⟧"


def _as_typed(name: str) -> str:
    return f"`{name}`"


def spell_commands(text: str, spell: Callable[[str], str], option: Callable[[str], str] = _as_typed) -> str:
    """Replace every command named with `cmd` (and option named with `opt`) by the front end's spelling of it."""
    if "⟦" not in text:
        return text
    return COMMAND.sub(lambda m: option(m.group(1)[1:]) if m.group(1).startswith("=") else spell(m.group(1)), text)


class Tone(StrEnum):
    INFO = "info"
    SUCCESS = "success"
    FAILURE = "failure"
    WARNING = "warning"
    ERROR = "error"


@record
class Text:
    markdown: str


@record
class Code:
    code: str
    language: str = "python"


@record
class Fields:
    """Name/value pairs, such as stats per topic."""

    items: tuple[tuple[str, str], ...]


@record
class Image:
    data: bytes
    filename: str
    alt: str = ""


@record
class Attachment:
    """A file for the person to keep (a data export): sent as a file, never shown inline."""

    data: bytes
    filename: str
    media_type: str = "application/octet-stream"


Part = Text | Code | Fields | Image | Attachment

ButtonStyle = Literal["primary", "secondary", "success", "danger"]

# What a control is for, so front ends can find it without reading its (translatable) label.
Role = Literal[
    "", "choice", "multi", "blank", "check", "answer", "hint", "skip", "stop", "restart", "resume", "confirm", "cancel"
]


@record
class Button:
    action: str
    label: str
    style: ButtonStyle = "secondary"
    disabled: bool = False
    text: str = ""  # the full text behind a short label such as "A"
    role: Role = ""


@record
class Option:
    value: str
    label: str
    selected: bool = False


@record
class Select:
    action: str
    placeholder: str
    options: tuple[Option, ...]
    min_values: int = 1
    max_values: int = 1
    disabled: bool = False
    role: Role = ""
    number: int = 0  # for role "blank": which blank this menu fills


Control = Button | Select


@record
class InputRequest:
    """Ask the adapter to open a form with one text field; its submission goes to `action`."""

    action: str
    title: str
    label: str
    kind: Literal["short", "code"]
    initial: str = ""
    placeholder: str = ""
    max_length: int = 4000


MessageKind = Literal["item", "feedback", "summary", "notice", "stats", "packs", "help", "run", "admin"]


@record
class Message:
    kind: MessageKind
    parts: tuple[Part, ...] = ()
    title: str | None = None
    rows: tuple[tuple[Control, ...], ...] = ()
    footer: str | None = None
    tone: Tone = Tone.INFO
    session_id: str | None = None
    position: int | None = None  # an item's place in its quiz: which item the message shows

    def controls(self) -> tuple[Control, ...]:
        return tuple(c for row in self.rows for c in row)

    def text(self) -> str:
        """Return the text parts joined, for logs, tests and plain front ends."""
        chunks: list[str] = []
        for part in self.parts:
            if isinstance(part, Text):
                chunks.append(part.markdown)
            elif isinstance(part, Code):
                chunks.append(f"```{part.language}\n{part.code}\n```")
            elif isinstance(part, Fields):
                chunks.extend(f"{name}: {value}" for name, value in part.items)
        return "\n\n".join(chunks)


@record
class Reply:
    """The answer to one user action.

    `update` is a new rendering of the message the action came from (a clicked item: buttons
    disabled, choices marked, and the feedback on the answer); a front end that cannot edit that
    message sends `update` as a new one, so the feedback is never lost. `messages` are new messages,
    in order (the next item, a summary); `form` asks the adapter to
    open an input form instead. `private` replies go only to the person who acted. `aside` marks
    the answer to a control on a message many people share (a channel's daily post): it goes only
    to the person and that message is left as it is. `anchor` is where the quiz the reply is about
    lives, as read to answer it (front ends show the item there without reading it again). Whether a request may take seconds is known
    before it runs: `requests.working_note`.
    """

    messages: tuple[Message, ...] = ()
    update: Message | None = None
    form: InputRequest | None = None
    private: bool = True
    aside: bool = False
    anchor: Anchor | None = None
    # The language the texts are in (set by the locale middleware; None: the one in use where it was made):
    # front ends add their own words (buttons, forms, notes) in it.
    locale: str | None = None


def outcome(reply: Reply) -> Reply:
    """Make a reply's first message the new face of the message clicked (a confirmation), without controls.

    A confirmation's buttons must not outlive the choice: front ends edit the clicked message into
    `update` (Discord's update-message response, Slack's `replace_original` or `chat.update`).
    """
    if reply.update is not None or not reply.messages:
        return reply
    first, *rest = reply.messages
    return replace(reply, update=replace(first, rows=()), messages=tuple(rest))


def notice(markdown: str, *, tone: Tone = Tone.INFO, title: str | None = None) -> Reply:
    return Reply(messages=(Message(kind="notice", parts=(Text(markdown),), title=title, tone=tone),))


def edit_not_graded() -> Reply:
    """What a learner who edited a message holding code is told, on every platform: the edit is not graded.

    The first send was graded once, under its own key; grading the edit too would count one message
    twice, and grading only the edit would let a learner change an answer after its feedback."""
    return notice(_("Edits are not graded: send your code again as a new message to have it graded."), tone=Tone.WARNING)
