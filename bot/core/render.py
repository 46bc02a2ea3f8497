"""The frame around every item, the summary and help: neutral messages, Markdown only.

What differs between question types (the body, the answer controls, the reveal) comes from the
type's module in `items/`; this module only places it in the frame that every item shares.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from . import actions as ax
from .i18n import N_, _, ngettext, number, pgettext
from .items import Make, kind_of
from .items._text import clip
from .model import ItemState, Session
from .packs import AnyQuestion, Pack
from .replies import Button, Control, Message, Part, Text, Tone, cmd


def difficulty_name(difficulty: str) -> str:
    """A difficulty as the learner reads it (the pack and commands keep `easy`, `medium`, `hard`)."""
    names = {"easy": N_("easy"), "medium": N_("medium"), "hard": N_("hard")}
    return _(names[difficulty]) if difficulty in names else difficulty


def attempts_left(question: AnyQuestion, item: ItemState) -> int:
    return max(question.max_attempts() - item.attempts, 0)


def closing(question: AnyQuestion, *, correct: bool) -> list[Part]:
    """What an item shows once it is over: the right answer (unless it was found), and the explanation."""
    parts: list[Part] = []
    reveal = kind_of(question).reveal(question)
    if not correct and reveal:
        parts.append(Text(reveal))
    if question.explanation:
        parts.append(Text(f"📘 {question.explanation}"))
    return parts


def item_message(
    session: Session,
    index: int,
    pack: Pack,
    question: AnyQuestion,
    *,
    final: bool = False,
    feedback: Sequence[Part] = (),
    tone: Tone = Tone.INFO,
) -> Message:
    """Render item `index` with its controls; `final` shows it answered, controls disabled.

    `feedback` is what the last answer earned; it is shown under the item, in the same message.
    """
    item = session.items[index]
    make = Make(session.id, index)
    view = kind_of(question).view(question, item, make, final=final)
    parts: list[Part] = [Text(question.prompt), *view.parts]
    if feedback:
        parts.extend(feedback)
    rows: list[tuple[Control, ...]] = list(view.rows)
    if not final:
        controls: list[Control] = []
        if question.hint:
            controls.append(Button(make(ax.HINT), pgettext("button", "Hint"), role="hint"))
        controls.append(Button(make(ax.SKIP), pgettext("button", "Skip"), role="skip"))
        controls.append(Button(make(ax.STOP), pgettext("button", "Stop"), "danger", role="stop"))
        rows.append(tuple(controls))
    footer_bits = [pack.title, pack.topic_title(question.topic), difficulty_name(question.difficulty)]
    left = attempts_left(question, item)
    if not final and question.max_attempts() > 1:
        footer_bits.append(ngettext("{n} attempt left", "{n} attempts left", left).format(n=number(left)))
    return Message(
        kind="item",
        title=_("Question {n} of {total}").format(n=number(index + 1), total=number(len(session.items))),
        parts=tuple(parts),
        rows=tuple(rows),
        footer=" · ".join(b for b in footer_bits if b),
        tone=tone if feedback else Tone.INFO,
        session_id=session.id,
        position=index,
    )


def correct_answer_text(question: AnyQuestion) -> str:
    """The right answer as Markdown (empty for a code exercise): the type module's reveal."""
    return kind_of(question).reveal(question)


_FENCED = re.compile(r"```.*?(```|$)", re.S)
_INLINE_CODE = re.compile(r"`+([^`]*)`+")
_EMPHASIS = re.compile(r"\*+|(?<!\w)_+|_+(?!\w)|^\s*[#>]+", re.M)
_SPACE_BEFORE_MARK = re.compile(r"\s+([?!.,:;)])")


def short_title(question: AnyQuestion) -> str:
    """A name a person understands: the item's `title`, else the first words of its prompt.

    Code blocks go; inline code keeps its text (`requires_grad` stays one word) without the backticks.
    """
    return question.title or _first_words(question.prompt) or question.id


@functools.lru_cache(maxsize=4096)
def _first_words(prompt: str) -> str:
    """The prompt's first words, worked out once per prompt (a quiz's summary names each of its items)."""
    text = _FENCED.sub(" ", prompt)
    spans: list[str] = []

    def hold(match: re.Match[str]) -> str:
        spans.append(match.group(1).strip())
        return f"\ue000{len(spans) - 1}\ue001"

    text = _EMPHASIS.sub("", _INLINE_CODE.sub(hold, text))
    text = re.sub("\ue000(\\d+)\ue001", lambda m: spans[int(m.group(1))], text)
    text = _SPACE_BEFORE_MARK.sub(r"\1", " ".join(text.split()))
    return clip(text, 60)


def help_message() -> Message:
    lines = "\n".join(
        (
            _("{start} `[pack] [topic] [difficulty] [count]` — a personal quiz, one item at a time").format(start=cmd("start")),
            _("{answer} — answer a short or code item in a form").format(answer=cmd("answer")),
            _("{current} — show the current item again, with working controls").format(current=cmd("current")),
            _("{hint}, {skip}, {stop} — on the current item or quiz").format(hint=cmd("hint"), skip=cmd("skip"), stop=cmd("stop")),
            _("{run} — run Python (PyTorch available) in the sandbox").format(run=cmd("run")),
            _("{stats} `[user]` — attempts, accuracy by topic, streak, reviews due").format(stats=cmd("stats")),
            _("{daily} — today's review; {settings} — your caps and time zone").format(
                daily=cmd("daily"), settings=cmd("daily settings")
            ),
            _("{remind} `time:HH:MM timezone:Area/City` or `off` — a DM when reviews are due").format(remind=cmd("remind")),
            _("{race} `[pack] [topic] [difficulty] [rounds] [seconds]`, {stop} — a race in this channel").format(
                race=cmd("race start"), stop=cmd("race stop")
            ),
            _("{leaderboard} `[week|month|all] [pack]`; {off} hides you").format(
                leaderboard=cmd("leaderboard"), off=cmd("privacy leaderboard off")
            ),
            _("{packs} — the packs and topics here").format(packs=cmd("packs")),
            _("{language} `[code]` — your language (`en`, `es`, `de`); {server} `[code]` — the server's (admins)").format(
                language=cmd("language"), server=cmd("language server")
            ),
            _("{export}, {delete} — what is kept about you").format(export=cmd("my-data export"), delete=cmd("my-data delete")),
            _("{commands} — admins only").format(
                commands=", ".join(
                    [
                        *(
                            cmd(name)
                            for name in (
                                "pack load", "pack enable", "pack disable", "pack remove",
                                "daily set", "daily show", "daily off", "daily now",
                            )
                        ),
                        cmd("report") + " `[pack] [topic] [since]`",
                    ]
                )
            ),
        )
    )
    lines += "\n\n" + _(
        "While a code item is open, you can also send your code as a message: a code block that starts with "
        "`` ```python `` on its own line, then your code, then `` ``` `` on its own line; or attach a .py file."
    )
    return Message(kind="help", title="QuizBot", parts=(Text(lines),))


def summary_message(
    session: Session, questions: list[tuple[Pack | None, AnyQuestion | None]], *, stopped: bool
) -> Message:
    """The end of a quiz: score, points, one line per item, and a button for a new quiz."""
    lines = []
    right = sum(1 for i in session.items if i.correct)
    points = sum(i.points for i in session.items)
    answered = sum(1 for i in session.items if i.done and not i.skipped)
    total_points = 0
    for n, (item, (pack, q)) in enumerate(zip(session.items, questions, strict=True), 1):
        total_points += q.points if q else 0
        mark = "✅" if item.correct else ("⏭️" if item.skipped else ("❌" if item.done else "·"))
        name = short_title(q) if q else item.question
        topic = pack.topic_title(q.topic) if pack and q else ""
        lines.append(f"{mark} {n}. {name}" + (f" — _{topic}_" if topic else ""))
    total = len(session.items)
    head = _("**{right} of {total} right**").format(right=number(right), total=number(total))
    head += " · " + ngettext("{points} of {n} point", "{points} of {n} points", total_points).format(
        points=number(points), n=number(total_points)
    )
    if stopped:
        head += " · " + _("{n} answered").format(n=number(answered))
    restart = Button(ax.make(session.id, 0, ax.RESTART), _("New quiz"), "primary", role="restart")
    return Message(
        kind="summary",
        title=_("Quiz stopped") if stopped else _("Quiz finished"),
        parts=(Text(head), Text("\n".join(lines))),
        rows=((restart,),),
        tone=Tone.SUCCESS if right * 2 >= total else Tone.INFO,
        session_id=session.id,
    )

