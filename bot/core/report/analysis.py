"""Item analysis: facility, discrimination, the options learners pick, and the flags an organiser acts on.

Classical test theory, as Moodle's quiz statistics report computes it, on each learner's first
attempt at each item:

- facility: the share of learners right on their first attempt (0 to 1);
- discrimination: the upper/lower 27% index. Learners are ranked by their share of right first
  answers over the whole pack; the index is the item's facility among the top 27% minus its
  facility among the bottom 27% (-1 to 1). A good item is answered right by those who know the
  pack and wrong by those who do not (0.3 and above is good, below 0.1 separates nobody, negative
  means the weaker learners do better: usually a wrong key or a misleading wording).

An item is judged only once `MIN_LEARNERS` learners have answered it: below that, one guess moves
every figure.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.core.i18n import N_
from bot.core.packs import Pack
from bot.core.packs.models import AnyQuestion, BlanksQuestion, ChoiceQuestion
from bot.core.progress import streak_on

from .model import Aggregates, Counted, Filters, ItemCounts, ItemStats, LearnerProgress, LearnerRow, Report

MIN_LEARNERS = 10
TOO_EASY = 0.9
TOO_HARD = 0.2
LOW_DISCRIMINATION = 0.1
TOP_WRONG = 3

FLAG_EASY = N_("too easy")  # marked for the catalog: the summary shows each flag in the reader's language
FLAG_HARD = N_("too hard")
FLAG_NEGATIVE = N_("negative discrimination")
FLAG_FLAT = N_("near-zero discrimination")
FLAG_DEAD = N_("a distractor nobody picks")
FLAG_RIVAL = N_("a wrong option picked more than the key")


def analyse(
    pack: Pack,
    counts: Aggregates,
    filters: Filters,
    *,
    learners: Iterable[LearnerRow] = (),
    min_learners: int = MIN_LEARNERS,
    stalled_days: int = 7,
    now: datetime | None = None,
) -> Report:
    """Turn storage's counts into the pack's report."""
    by_item = {c.question: c for c in counts.items}
    answers = _group(counts.answers)
    tries = _group(counts.tries_to_right)
    seconds = _group(counts.seconds)
    stats: list[ItemStats] = []
    for question in pack.questions:
        if filters.topic is not None and question.topic != filters.topic:
            continue
        item = by_item.get(question.id) or ItemCounts(question.id, 0, 0, 0, 0, 0, 0)
        stats.append(_item(question, item, answers.get(question.id, []), tries, seconds, min_learners))
    progress = tuple(_progress(row, now, stalled_days) for row in learners)
    return Report(
        pack=pack.pack,
        title=pack.title,
        filters=filters,
        learners=counts.learners,
        items=tuple(stats),
        progress=progress,
        min_learners=min_learners,
        generated=now,
    )


def _group(rows: Iterable[Counted]) -> dict[str, list[Counted]]:
    out: dict[str, list[Counted]] = defaultdict(list)
    for row in rows:
        out[row.question].append(row)
    return out


def _share(right: int, total: int) -> float | None:
    return right / total if total else None


def _median(rows: list[Counted]) -> float | None:
    """The median of values given as (value, how many) pairs."""
    pairs = sorted((float(r.value), r.count) for r in rows if r.count > 0)
    total = sum(n for _, n in pairs)
    if not total:
        return None
    half = total / 2
    seen = 0
    values: list[float] = []
    for value, n in pairs:
        before = seen
        seen += n
        # The median is the middle value, or the mean of the two middle ones for an even count.
        if total % 2 and before < half + 0.5 <= seen:
            return value
        if not total % 2:
            if before < half <= seen:
                values.append(value)
            if before < half + 1 <= seen:
                values.append(value)
                return sum(values[:2]) / len(values[:2])
    return pairs[-1][0]


def _item(
    question: AnyQuestion,
    item: ItemCounts,
    given: list[Counted],
    tries: dict[str, list[Counted]],
    seconds: dict[str, list[Counted]],
    min_learners: int,
) -> ItemStats:
    facility = _share(item.right, item.learners)
    upper, lower = _share(item.upper_right, item.upper), _share(item.lower_right, item.lower)
    discrimination = upper - lower if upper is not None and lower is not None else None
    options = _options(question, given)
    wrong = _wrong(question, given)
    judged = item.learners >= min_learners
    flags: list[str] = []
    if judged and facility is not None:
        if facility > TOO_EASY:
            flags.append(FLAG_EASY)
        if facility < TOO_HARD:
            flags.append(FLAG_HARD)
        if discrimination is not None:
            if discrimination < 0:
                flags.append(FLAG_NEGATIVE)
            elif discrimination < LOW_DISCRIMINATION:
                flags.append(FLAG_FLAT)
        if question.type == "choice":  # the options' counts say it (a type's own rule would live in items/)
            if any(n == 0 and not key for _, n, key in options):
                flags.append(FLAG_DEAD)
            keys = [n for _, n, key in options if key]
            if keys and any(n > max(keys) for _, n, key in options if not key):
                flags.append(FLAG_RIVAL)
    return ItemStats(
        question=question.id,
        kind=question.type,
        topic=question.topic,
        learners=item.learners,
        facility=facility,
        discrimination=discrimination,
        median_tries=_median(tries.get(question.id, [])),
        median_seconds=_median(seconds.get(question.id, [])),
        options=options,
        wrong_answers=wrong,
        flags=tuple(flags),
        judged=judged,
    )


_LETTERED = re.compile(r"(?:^|, )[A-Z]{1,2}\. ")


def picked_choices(question: ChoiceQuestion, answer: str) -> list[int]:
    """Return the indices of the choices a stored answer names (`B. text, D. other`)."""
    found: list[int] = []
    for index, choice in enumerate(question.choices):
        pattern = r"(?:^|, )[A-Z]{1,2}\. " + re.escape(choice.text) + r"(?=, [A-Z]{1,2}\. |$)"
        if re.search(pattern, answer):
            found.append(index)
    return found


def picked_blanks(question: BlanksQuestion, answer: str) -> dict[int, str]:
    """Return each blank's option from a stored answer (`1=True, 2=backward`)."""
    numbers = "|".join(str(n) for n in question.blanks())
    return {
        int(m.group(1)): m.group(2)
        for m in re.finditer(rf"(?:^|, )({numbers})=(.*?)(?=, (?:{numbers})=|$)", answer)
    }


def _options(question: AnyQuestion, given: list[Counted]) -> tuple[tuple[str, int, bool], ...]:
    if question.type == "choice":
        choice = question
        counts = [0] * len(choice.choices)
        for row in given:
            for index in picked_choices(choice, row.value):
                counts[index] += row.count
        return tuple((c.text, counts[i], c.correct) for i, c in enumerate(choice.choices))
    if question.type == "blanks":
        tally: dict[tuple[int, str], int] = defaultdict(int)
        for row in given:
            for number, option in picked_blanks(question, row.value).items():
                tally[(number, option)] += row.count
        out: list[tuple[str, int, bool]] = []
        for number in question.blanks():
            for option in question.options:
                out.append((f"[{number}] {option}", tally[(number, option)], question.answers.get(number) == option))
        return tuple(out)
    return ()


def _wrong(question: AnyQuestion, given: list[Counted]) -> tuple[tuple[str, int], ...]:
    if question.type not in ("short", "code"):
        return ()
    tally: dict[str, int] = defaultdict(int)
    for row in given:
        if row.correct:
            continue
        if question.type == "short":
            tally[" ".join(row.value.split()).casefold()] += row.count
        else:  # code: the stored detail lists the failing tests' sentences, one a line
            for line in row.value.splitlines():
                if line.strip():
                    tally[line.strip()] += row.count
    top = sorted(tally.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_WRONG]
    return tuple(top)


def _progress(row: LearnerRow, now: datetime | None, stalled_days: int) -> LearnerProgress:
    """A learner has stalled when reviews are overdue and they have not practised for `stalled_days`."""
    stalled = False
    streak = 0
    if now is not None:
        if row.overdue > 0:
            stalled = row.last is None or now - row.last > timedelta(days=stalled_days)
        if row.streak is not None:
            streak = streak_on(row.streak, now, _zone(row.zone)).current
    return LearnerProgress(
        platform=row.platform,
        user_id=row.user_id,
        items=row.items,
        attempts=row.attempts,
        accuracy=_share(row.right, row.attempts),
        mastered=row.mastered,
        overdue=row.overdue,
        last=row.last,
        streak=streak,
        stalled=stalled,
    )


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")
