"""What each step of a race shows, as neutral messages (Markdown only, no platform markup)."""

from __future__ import annotations

from bot.core.items import View, kind_of
from bot.core.items.base import Make
from bot.core.model import ItemState
from bot.core.packs import AnyQuestion, Pack
from bot.core.replies import Button, Code, Control, Fields, Message, Part, Text, Tone, plural

from . import actions as rx
from .rules import Race, RaceItem, Standing

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MAX_ROWS = 4  # the item's own rows; the Stop button takes the fifth (Discord allows five rows)
MEDALS = ("🥇", "🥈", "🥉")
TABLE_ROWS = 20


def letter(index: int) -> str:
    return LETTERS[index] if index < len(LETTERS) else str(index + 1)


class RaceMake(Make):
    """Action ids of one race round, so a type module's controls answer the race (`rc:`), not a quiz."""

    def __call__(self, verb: str, argument: str | int = "") -> str:
        return rx.make(self.session_id, self.position, verb, argument)


def state(item: RaceItem, picks: dict[int, int] | None = None, picked: list[int] | None = None) -> ItemState:
    """The item as one member sees it: everyone's shuffled order, that member's own picks."""
    return ItemState(item.pack, item.question, order=list(item.order), selections=dict(picks or {}), picked=list(picked or []))


def item_view(race_id: str, item: RaceItem, index: int, question: AnyQuestion, *, final: bool) -> View:
    """The type module's own view of the round's item, with race action ids.

    A select-all menu is one answer in a race (everyone answers once, fast), so the Check button a
    quiz puts beside it is left out.
    """
    shown = kind_of(question).view(question, state(item), RaceMake(race_id, index), final=final)
    roles = {c.role for row in shown.rows for c in row}
    if "multi" in roles:
        rows = tuple(r for r in (tuple(c for c in row if c.role != "check") for row in shown.rows) if r)
        return View(parts=shown.parts, rows=rows)
    return shown


def raceable(question: AnyQuestion) -> bool:
    """Say whether a race can use this item: its type races, and its controls leave a row for Stop."""
    kind = kind_of(question)
    if not kind.racing:
        return False
    probe = RaceItem("", question.id, question.topic)
    return len(item_view("probe", probe, 0, question, final=False).rows) <= MAX_ROWS


def round_message(race: Race, index: int, pack: Pack, question: AnyQuestion, *, closed: bool = False) -> Message:
    """Render round `index`: the prompt and controls every member answers with; `closed` disables them."""
    shown = item_view(race.id, race.items[index], index, question, final=closed)
    parts: list[Part] = [Text(question.prompt), *shown.parts]
    rows: list[tuple[Control, ...]] = list(shown.rows)
    if not closed:
        parts.append(Text("_One answer per member and round: the first right answer scores most._"))
        rows.append((Button(rx.make(race.id, index, rx.STOP), "Stop race", "danger", role="stop"),))
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
        session_id=race.id,
    )


def answer_text(race: Race, index: int, question: AnyQuestion) -> str:
    return kind_of(question).reveal(question)


def start_message(race: Race, where: str) -> Message:
    return Message(
        kind="notice",
        title="A race starts!",
        parts=(
            Text(
                f"{race.started_by_name} started a race: **{plural(race.rounds, 'round')}** from {where}, "
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


def draft_message(shown: View) -> Message:
    """A member's own picks so far (only they see it); the round's message stays the same for all."""
    return Message(
        kind="notice",
        parts=(*shown.parts, Text("Kept. Press Check when you are done; Check is your one answer.")),
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
        head = f"🏆 **{winner.name}** wins with **{winner.points}** {'point' if winner.points == 1 else 'points'}!"
    if race.status == "stopped":
        head = f"The race was stopped after {race.round} of {plural(race.rounds, 'round')}. " + head
    parts: list[Text | Fields] = [Text(head)]
    if table:
        parts.append(table_fields(table))
        if len(table) > TABLE_ROWS:
            parts.append(Text(f"… and {len(table) - TABLE_ROWS} more."))
    return Message(kind="summary", title="Race results", parts=tuple(parts), tone=Tone.SUCCESS, session_id=race.id)
