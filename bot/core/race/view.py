"""What each step of a race shows, as neutral messages (Markdown only, no platform markup)."""

from __future__ import annotations

from bot.core.i18n import _, for_everyone, ngettext, number, pgettext
from bot.core.items import View, kind_of
from bot.core.items.base import Make
from bot.core.model import ItemState
from bot.core.packs import AnyQuestion, Pack
from bot.core.render import difficulty_name
from bot.core.replies import Button, Code, Control, Fields, Message, Part, Text, Tone

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


@for_everyone
def round_message(race: Race, index: int, pack: Pack | None, question: AnyQuestion, *, closed: bool = False) -> Message:
    """Render round `index`: the prompt and controls every member answers with; `closed` disables them.

    The footer's titles come from the item's snapshot when it has one (as the race started), else `pack`.
    """
    item = race.items[index]
    shown = item_view(race.id, item, index, question, final=closed)
    parts: list[Part] = [Text(question.prompt), *shown.parts]
    rows: list[tuple[Control, ...]] = list(shown.rows)
    if not closed:
        parts.append(Text(_("_One answer per member and round: the first right answer scores most._")))
        rows.append((Button(rx.make(race.id, index, rx.STOP), pgettext("button", "Stop race"), "danger", role="stop"),))
    per_round = _("{n} s per round").format(n=number(race.seconds))
    if item.snapshot is not None:
        titles = (item.snapshot.pack_title, item.snapshot.topic_title)
    else:
        titles = (pack.title, pack.topic_title(question.topic)) if pack is not None else ("", "")
    footer = " · ".join(bit for bit in (*titles, difficulty_name(question.difficulty), per_round) if bit)
    title = _("Race · round {n} of {total}").format(n=number(index + 1), total=number(race.rounds))
    return Message(
        kind="item",
        title=title + (" " + _("(closed)") if closed else ""),
        parts=tuple(parts),
        rows=tuple(rows),
        footer=footer,
        tone=Tone.INFO,
        session_id=race.id,
    )


def answer_text(race: Race, index: int, question: AnyQuestion) -> str:
    return kind_of(question).reveal(question)


@for_everyone
def start_message(race: Race, where: str) -> Message:
    rounds = ngettext("{n} round", "{n} rounds", race.rounds).format(n=number(race.rounds))
    return Message(
        kind="notice",
        title=_("A race starts!"),
        parts=(
            Text(
                _(
                    "{who} started a race: **{rounds}** from {where}, **{seconds} s** each. Answer to join; one answer "
                    "per round. The first right answer scores most; wrong answers score nothing."
                ).format(who=race.started_by_name, rounds=rounds, where=where, seconds=number(race.seconds))
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
                _(
                    "Your answer is in: #{place} this round. The answer is revealed when the round ends (at most {seconds} s)."
                ).format(place=place, seconds=number(max(round(time_left), 0)))
            ),
        ),
        tone=Tone.SUCCESS,
        session_id=None,
    )


def draft_message(shown: View) -> Message:
    """A member's own picks so far (only they see it); the round's message stays the same for all."""
    return Message(
        kind="notice",
        parts=(*shown.parts, Text(_("Kept. Press Check when you are done; Check is your one answer."))),
    )


@for_everyone
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
        answers = ngettext("{right} of {n} answer right.", "{right} of {n} answers right.", len(scored))
        parts.append(Text(answers.format(right=number(right), n=number(len(scored)))))
    else:
        parts.append(Text(_("Nobody answered this round.")))
    return Message(
        kind="feedback",
        title=_("Round {n} of {total}: the answer").format(n=number(index + 1), total=number(race.rounds)),
        parts=tuple(parts),
        tone=Tone.SUCCESS if right else Tone.WARNING,
        session_id=race.id,
    )


def table_fields(table: list[Standing]) -> Fields:
    rows = []
    for place, s in enumerate(table[:TABLE_ROWS], start=1):
        medal = MEDALS[place - 1] if place <= 3 and s.points else f"{place}."
        points = ngettext("{n} pt", "{n} pts", s.points).format(n=number(s.points))
        rows.append((f"{medal} {s.name}", points + " · " + _("{right}/{answered} right").format(right=s.right, answered=s.answered)))
    return Fields(tuple(rows))


@for_everyone
def final_message(race: Race) -> Message:
    """The final table and the winner (or who stopped it)."""
    table = race.standings()
    winner = race.winner()
    if not table:
        head = _("Nobody answered, so nobody won.")
    elif winner is None:
        head = _("Nobody got an answer right, so nobody won.")
    else:
        head = "🏆 " + ngettext("**{who}** wins with **{n}** point!", "**{who}** wins with **{n}** points!", winner.points).format(
            who=winner.name, n=number(winner.points)
        )
    if race.status == "stopped":
        stopped = ngettext("The race was stopped after {done} of {n} round.", "The race was stopped after {done} of {n} rounds.", race.rounds)
        head = stopped.format(done=number(race.round), n=number(race.rounds)) + " " + head
    parts: list[Text | Fields] = [Text(head)]
    if table:
        parts.append(table_fields(table))
        if len(table) > TABLE_ROWS:
            parts.append(Text("… " + _("and {n} more.").format(n=number(len(table) - TABLE_ROWS))))
    return Message(kind="summary", title=_("Race results"), parts=tuple(parts), tone=Tone.SUCCESS, session_id=race.id)
