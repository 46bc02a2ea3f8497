"""Turn quiz state into neutral messages. No platform markup here: Markdown only."""

from __future__ import annotations

from . import actions as ax
from .model import ItemState, Session
from .packs import AnyQuestion, BlanksQuestion, ChoiceQuestion, CodeQuestion, Pack, ShortQuestion
from .ports import RunOutcome
from .replies import Button, Code, Control, Message, Option, Select, Text, Tone

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MAX_BUTTON_CHOICES = 20  # more than this become a menu: a message holds at most 25 buttons
MAX_TESTS_SHOWN = 10
MAX_OUTPUT_LINES = 15


def letter(index: int) -> str:
    return LETTERS[index] if index < len(LETTERS) else str(index + 1)


def display_order(question: ChoiceQuestion, item: ItemState) -> list[int]:
    """Return the original choice indices in the order the learner sees them."""
    if item.order and sorted(item.order) == list(range(len(question.choices))):
        return item.order
    return list(range(len(question.choices)))


def attempts_left(question: AnyQuestion, item: ItemState) -> int:
    return max(question.max_attempts() - item.attempts, 0)


def item_message(session: Session, index: int, pack: Pack, question: AnyQuestion, *, final: bool = False) -> Message:
    """Render item `index` with its controls; `final` shows it answered, controls disabled."""
    item = session.items[index]
    sid = session.id
    parts: list[Text | Code] = [Text(question.prompt)]
    rows: list[tuple[Control, ...]] = []
    if isinstance(question, ChoiceQuestion):
        order = display_order(question, item)
        chosen = set(item.selections) if question.multiple else _single_choice(item)
        lines = []
        for shown, original in enumerate(order):
            mark = ""
            if final:
                if question.choices[original].correct:
                    mark = " ✅"
                elif shown in chosen:
                    mark = " ❌"
            elif question.multiple and shown in chosen:
                mark = " ☑️"
            lines.append(f"**{letter(shown)}.** {question.choices[original].text}{mark}")
        if question.multiple:
            lines.append("_Select all that apply, then press Check._")
        parts.append(Text("\n".join(lines)))
        if question.multiple:
            options = tuple(
                Option(str(shown), f"{letter(shown)}. {_clip(question.choices[o].text, 70)}", shown in chosen)
                for shown, o in enumerate(order)
            )
            rows.append((Select(ax.make(sid, index, ax.MULTI), "Select all that apply", options, 1, len(options), final),))
            if not final:
                rows.append((Button(ax.make(sid, index, ax.CHECK), "Check", "primary"),))
        elif len(order) > MAX_BUTTON_CHOICES:
            options = tuple(
                Option(str(shown), f"{letter(shown)}. {_clip(question.choices[o].text, 70)}") for shown, o in enumerate(order)
            )
            rows.append((Select(ax.make(sid, index, ax.CHOOSE), "Pick one", options, 1, 1, final),))
        else:
            buttons: list[Control] = []
            for shown, original in enumerate(order):
                style: str = "secondary"
                if final and question.choices[original].correct:
                    style = "success"
                elif final and shown in chosen:
                    style = "danger"
                buttons.append(
                    Button(
                        ax.make(sid, index, ax.CHOOSE, shown),
                        letter(shown),
                        style,  # type: ignore[arg-type]
                        disabled=final,
                        text=question.choices[original].text,
                    )
                )
            rows.extend(tuple(buttons[i : i + 5]) for i in range(0, len(buttons), 5))
    elif isinstance(question, BlanksQuestion):
        parts.append(Code(blank_template(question, item, reveal=final)))
        if final:
            parts.append(Text(_blank_result_line(question, item)))
        for number in question.blanks():
            chosen_option = item.selections.get(number)
            options = tuple(
                Option(str(i), f"{letter(i)}. {text}", chosen_option == i) for i, text in enumerate(question.options)
            )
            rows.append((Select(ax.make(sid, index, ax.BLANK, number), f"Blank {number}", options, 1, 1, final),))
        if not final:
            rows.append((Button(ax.make(sid, index, ax.CHECK), "Check", "primary"),))
    elif isinstance(question, ShortQuestion):
        if not final:
            rows.append((Button(ax.make(sid, index, ax.ANSWER), "Answer", "primary"),))
    elif isinstance(question, CodeQuestion):
        if question.starter.strip() and not final:
            parts.append(Text("Starter code:"))
            parts.append(Code(question.starter.rstrip("\n")))
        if not final:
            parts.append(Text("_Press Answer, or send your code in a code block that starts with `` ```python ``._"))
            rows.append((Button(ax.make(sid, index, ax.ANSWER), "Answer", "primary"),))
    if not final:
        controls: list[Control] = []
        if question.hint:
            controls.append(Button(ax.make(sid, index, ax.HINT), "Hint"))
        controls.append(Button(ax.make(sid, index, ax.SKIP), "Skip"))
        controls.append(Button(ax.make(sid, index, ax.STOP), "Stop", "danger"))
        rows.append(tuple(controls))
    footer_bits = [pack.title, pack.topic_title(question.topic), question.difficulty]
    left = attempts_left(question, item)
    if not final and question.max_attempts() > 1:
        footer_bits.append(f"{left} attempt{'s' if left != 1 else ''} left")
    return Message(
        kind="item",
        title=f"Question {index + 1} of {len(session.items)}",
        parts=tuple(parts),
        rows=tuple(rows),
        footer=" · ".join(b for b in footer_bits if b),
        tone=Tone.INFO,
        session_id=sid,
    )


def _single_choice(item: ItemState) -> set[int]:
    return {int(item.last_answer)} if item.last_answer and item.last_answer.isdigit() else set()


def _clip(text: str, size: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= size else flat[: size - 1] + "…"


def blank_template(question: BlanksQuestion, item: ItemState, *, reveal: bool = False) -> str:
    import re

    def fill(match: re.Match[str]) -> str:
        number = int(match.group(1))
        if reveal:
            return question.answers[number]
        index = item.selections.get(number)
        if index is not None and 0 <= index < len(question.options):
            return f"[{number}: {question.options[index]}]"
        return f"[{number}]"

    return re.sub(r"\{\{\s*(\d+)\s*\}\}", fill, question.code).rstrip("\n")


def _blank_result_line(question: BlanksQuestion, item: ItemState) -> str:
    bits = []
    for number in question.blanks():
        index = item.selections.get(number)
        picked = question.options[index] if index is not None and index < len(question.options) else "—"
        right = question.answers[number]
        bits.append(f"[{number}] `{picked}` {'✅' if picked == right else f'❌ (answer: `{right}`)'}")
    return " · ".join(bits)


def correct_answer_text(question: AnyQuestion) -> str:
    if isinstance(question, ChoiceQuestion):
        right = [c.text for c in question.choices if c.correct]
        return "The answer: " + "; ".join(right)
    if isinstance(question, BlanksQuestion):
        return "The answer: " + ", ".join(f"[{n}] `{question.answers[n]}`" for n in question.blanks())
    if isinstance(question, ShortQuestion):
        if question.accept:
            return f"The answer: `{question.accept[0]}`"
        if question.number is not None:
            return f"The answer: `{question.number.value:g}`"
        return ""
    return "A model solution:\n```python\n" + (question.solution or "").rstrip() + "\n```"


def run_report(outcome: RunOutcome, *, graded: bool) -> list[Text | Code]:
    """Summarise a sandbox result: one line per test, the first output lines, time and memory."""
    parts: list[Text | Code] = []
    lines: list[str] = []
    if outcome.status == "rejected":
        return [Text(f"⏳ {outcome.message or 'The sandbox is busy; try again in a few seconds.'}")]
    if outcome.message and outcome.status not in ("passed", "failed"):
        lines.append(f"⚠️ {outcome.message}")
    if outcome.error_text:
        where = f" (line {outcome.error_line})" if outcome.error_line else ""
        lines.append(f"💥 {outcome.error_text}{where}")
    if graded and outcome.tests:
        passed = sum(1 for _, ok, _ in outcome.tests if ok)
        lines.append(f"**{passed} of {len(outcome.tests)} tests passed**")
        failing_first = sorted(outcome.tests, key=lambda t: t[1])
        for name, ok, message in failing_first[:MAX_TESTS_SHOWN]:
            detail = "" if ok or not message or message == name else f" — {_clip(message, 200)}"
            lines.append(f"{'✅' if ok else '❌'} {_clip(name, 200)}{detail}")
        if len(outcome.tests) > MAX_TESTS_SHOWN:
            lines.append(f"… and {len(outcome.tests) - MAX_TESTS_SHOWN} more tests")
    if lines:
        parts.append(Text("\n".join(lines)))
    output = (outcome.stdout or "") + (("\n" + outcome.stderr) if outcome.stderr and not graded else "")
    output = output.strip("\n")
    if output:
        out_lines = output.splitlines()
        shown = "\n".join(out_lines[:MAX_OUTPUT_LINES])
        cut = len(out_lines) > MAX_OUTPUT_LINES or outcome.truncated
        parts.append(Code(shown, "text"))
        if cut:
            parts.append(Text(f"_Output cut: showing the first {min(len(out_lines), MAX_OUTPUT_LINES)} lines._"))
    elif not graded and outcome.status == "passed":
        parts.append(Text("_(no output)_"))
    parts.append(Text(f"_{outcome.wall_ms} ms · {outcome.peak_memory_mb:.0f} MB_"))
    return parts


HELP = (
    "**/quiz start** `[pack] [topic] [difficulty] [count]` — a personal quiz, one item at a time\n"
    "**/quiz answer** — answer a short or code item in a form\n"
    "**/quiz hint**, **/quiz skip**, **/quiz stop** — on the current item or quiz\n"
    "**/quiz run** — run Python (PyTorch available) in the sandbox\n"
    "**/quiz stats** `[user]` — attempts, accuracy by topic, streak, reviews due\n"
    "**/quiz packs** — the packs and topics here\n"
    "**/quiz pack load|enable|disable** — admins only\n\n"
    "Code can also be sent in a code block that starts with `` ```python `` (or as an attached .py file) "
    "while a code item is open."
)


def help_message() -> Message:
    return Message(kind="help", title="QuizBot", parts=(Text(HELP),))


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
        topic = pack.topic_title(q.topic) if pack and q else ""
        lines.append(f"{mark} {n}. `{item.question}`" + (f" — {topic}" if topic else ""))
    head = f"**{right} of {len(session.items)} right** · {points}/{total_points} points" + (
        f" · {answered} answered" if stopped else ""
    )
    restart = Button(ax.make(session.id, 0, ax.RESTART), "New quiz", "primary")
    return Message(
        kind="summary",
        title="Quiz stopped" if stopped else "Quiz finished",
        parts=(Text(head), Text("\n".join(lines))),
        rows=((restart,),),
        tone=Tone.SUCCESS if right * 2 >= len(session.items) else Tone.INFO,
        session_id=session.id,
    )
