"""What each step of a race shows, as neutral messages (Markdown only, no platform markup)."""

from __future__ import annotations

from bot.core.packs import AnyQuestion, BlanksQuestion, ChoiceQuestion, Pack, ShortQuestion
from bot.core.replies import Button, Code, Control, Fields, Message, Option, Select, Text, Tone

from . import actions as rx
from .rules import Race, Standing

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MAX_BUTTONS = 20  # more choices than this become a menu (a message holds at most 25 buttons)
MAX_BLANKS = 4  # one menu row per blank plus a button row: Discord allows five rows
MEDALS = ("🥇", "🥈", "🥉")
TABLE_ROWS = 20


def letter(index: int) -> str:
    return LETTERS[index] if index < len(LETTERS) else str(index + 1)


def raceable(question: AnyQuestion) -> bool:
    """Say whether a race can use this item (no code; blanks with at most MAX_BLANKS blanks)."""
    if isinstance(question, BlanksQuestion):
        return len(question.blanks()) <= MAX_BLANKS
    return isinstance(question, ChoiceQuestion | ShortQuestion)


def shown_order(race: Race, index: int, question: ChoiceQuestion) -> list[int]:
    order = list(race.items[index].order)
    return order if sorted(order) == list(range(len(question.choices))) else list(range(len(question.choices)))


def _clip(text: str, size: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= size else flat[: size - 1] + "…"


def round_message(race: Race, index: int, pack: Pack, question: AnyQuestion, *, closed: bool = False) -> Message:
    """Render round `index`: the prompt and controls every member answers with; `closed` disables them."""
    rid = race.id
    parts: list[Text | Code] = [Text(question.prompt)]
    rows: list[tuple[Control, ...]] = []
    if isinstance(question, ChoiceQuestion):
        order = shown_order(race, index, question)
        lines = []
        for shown, original in enumerate(order):
            mark = " ✅" if closed and question.choices[original].correct else ""
            lines.append(f"**{letter(shown)}.** {question.choices[original].text}{mark}")
        if question.multiple:
            lines.append("_Select every right choice in the menu; your selection is your one answer._")
        parts.append(Text("\n".join(lines)))
        options = tuple(
            Option(str(shown), f"{letter(shown)}. {_clip(question.choices[o].text, 70)}") for shown, o in enumerate(order)
        )
        if question.multiple:
            rows.append((Select(rx.make(rid, index, rx.MULTI), "Select all that apply", options, 1, len(options), closed),))
        elif len(order) > MAX_BUTTONS:
            rows.append((Select(rx.make(rid, index, rx.CHOOSE), "Pick one", options, 1, 1, closed),))
        else:
            buttons: list[Control] = [
                Button(
                    rx.make(rid, index, rx.CHOOSE, shown),
                    letter(shown),
                    "success" if closed and question.choices[original].correct else "secondary",
                    disabled=closed,
                    text=question.choices[original].text,
                )
                for shown, original in enumerate(order)
            ]
            rows.extend(tuple(buttons[i : i + 5]) for i in range(0, len(buttons), 5))
    elif isinstance(question, BlanksQuestion):
        parts.append(Code(question.filled() if closed else _template(question)))
        for number in question.blanks():
            options = tuple(Option(str(i), f"{letter(i)}. {text}") for i, text in enumerate(question.options))
            rows.append((Select(rx.make(rid, index, rx.BLANK, number), f"Blank {number}", options, 1, 1, closed),))
        if not closed:
            parts.append(Text("_Pick every blank, then press Submit; Submit is your one answer._"))
    elif isinstance(question, ShortQuestion) and not closed:
        parts.append(Text("_Press Answer and type your answer; you get one try._"))
    if not closed:
        controls: list[Control] = []
        if isinstance(question, BlanksQuestion):
            controls.append(Button(rx.make(rid, index, rx.CHECK), "Submit", "primary"))
        elif isinstance(question, ShortQuestion):
            controls.append(Button(rx.make(rid, index, rx.ANSWER), "Answer", "primary"))
        controls.append(Button(rx.make(rid, index, rx.STOP), "Stop race", "danger"))
        rows.append(tuple(controls))
    footer = " · ".join(
        bit
        for bit in (pack.title, pack.topic_title(question.topic), question.difficulty, f"{race.seconds} s per round")
        if bit
    )
    return Message(
        kind="item",
        title=f"Race · round {index + 1} of {race.rounds}" + (" (closed)" if closed else ""),
        parts=tuple(parts),
        rows=tuple(rows),
        footer=footer,
        tone=Tone.INFO,
        session_id=rid,
    )


def _template(question: BlanksQuestion) -> str:
    import re

    return re.sub(r"\{\{\s*(\d+)\s*\}\}", lambda m: f"[{m.group(1)}]", question.code).rstrip("\n")


def answer_text(race: Race, index: int, question: AnyQuestion) -> str:
    if isinstance(question, ChoiceQuestion):
        order = shown_order(race, index, question)
        right = [f"**{letter(s)}.** {question.choices[o].text}" for s, o in enumerate(order) if question.choices[o].correct]
        return "The answer: " + "; ".join(right)
    if isinstance(question, BlanksQuestion):
        return "The answer: " + ", ".join(f"[{n}] `{question.answers[n]}`" for n in question.blanks())
    if isinstance(question, ShortQuestion):
        if question.accept:
            return f"The answer: `{question.accept[0]}`"
        if question.number is not None:
            return f"The answer: `{question.number.value:g}`"
    return ""


def start_message(race: Race, where: str) -> Message:
    return Message(
        kind="notice",
        title="A race starts!",
        parts=(
            Text(
                f"{race.started_by_name} started a race: **{race.rounds} rounds** from {where}, "
                f"**{race.seconds} s** each. Answer to join; one answer per round. "
                "The first right answer scores most; wrong answers score nothing."
            ),
        ),
        tone=Tone.INFO,
        session_id=race.id,
    )


def ack_message(place: int, time_left: float) -> Message:
    """The private note a member gets when an answer is in (it does not say whether it is right)."""
    return Message(
        kind="notice",
        parts=(
            Text(
                f"Your answer is in: #{place} this round. The answer is revealed when the round ends "
                f"(at most {max(round(time_left), 0)} s)."
            ),
        ),
        tone=Tone.SUCCESS,
        session_id=None,
    )


def draft_message(filled: int, total: int) -> Message:
    return Message(
        kind="notice",
        parts=(Text(f"Kept: {filled} of {total} blanks picked. Press Submit when you are done."),),
    )


def reveal_message(race: Race, index: int, question: AnyQuestion) -> Message:
    """After a round: the answer, the explanation and the round's top three."""
    parts: list[Text | Code | Fields] = [Text(answer_text(race, index, question))]
    if question.explanation:
        parts.append(Text(question.explanation))
    scored = race.scored(index)
    top = race.top(index)
    if top:
        parts.append(
            Fields(tuple((f"{MEDALS[i]} {s.answer.name}", f"+{s.points}") for i, s in enumerate(top)))
        )
    right = sum(1 for s in scored if s.answer.correct)
    if scored:
        parts.append(Text(f"{right} of {len(scored)} answer{'s' if len(scored) != 1 else ''} right."))
    else:
        parts.append(Text("Nobody answered this round."))
    return Message(
        kind="feedback",
        title=f"Round {index + 1} of {race.rounds}: the answer",
        parts=tuple(parts),
        tone=Tone.SUCCESS if right else Tone.WARNING,
        session_id=race.id,
    )


def table_fields(table: list[Standing]) -> Fields:
    rows = []
    for place, s in enumerate(table[:TABLE_ROWS], start=1):
        medal = MEDALS[place - 1] if place <= 3 and s.points else f"{place}."
        rows.append((f"{medal} {s.name}", f"{s.points} pts · {s.right}/{s.answered} right"))
    return Fields(tuple(rows))


def final_message(race: Race) -> Message:
    """The final table and the winner (or who stopped it)."""
    table = race.standings()
    winner = race.winner()
    if not table:
        head = "Nobody answered, so nobody won."
    elif winner is None:
        head = "Nobody got an answer right, so nobody won."
    else:
        head = f"🏆 **{winner.name}** wins with **{winner.points}** points!"
    if race.status == "stopped":
        head = f"The race was stopped after {race.round} of {race.rounds} rounds. " + head
    parts: list[Text | Fields] = [Text(head)]
    if table:
        parts.append(table_fields(table))
        if len(table) > TABLE_ROWS:
            parts.append(Text(f"… and {len(table) - TABLE_ROWS} more."))
    return Message(kind="summary", title="Race results", parts=tuple(parts), tone=Tone.SUCCESS, session_id=race.id)
