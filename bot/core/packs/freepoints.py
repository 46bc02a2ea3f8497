"""Find free points in a pack: answers a learner can get without knowing the subject.

Two checks, reported by `quizbot pack validate` as warnings (problems with `--strict`):

- **Longest option.** Over a pack's single-answer choice items (`multiple: false`), the share a
  learner scores by always picking the longest option, counting an item whose key ties for the
  longest as 1/(number tied). Lengths are of the option's text with backticks dropped and runs of
  white space collapsed. More than `LONGEST_SHARE_MAX` (40%) is a warning.
- **A hint that holds the solution.** A code item's hint must not contain one of its solution's
  key lines, nor a code fragment of at least `MIN_FRAGMENT` characters taken from one; a blanks
  item's hint must not contain a template line with its blanks filled by the key. Key lines are
  the solution's lines that are not blank, comments, imports, or already in the starter. Spaces
  are collapsed and backticks dropped before comparing.
"""

from __future__ import annotations

import re

from bot.core.errors import Problem

from .loader import LoadedPack
from .models import AnyQuestion

LONGEST_SHARE_MAX = 0.40
MIN_FRAGMENT = 20  # characters without spaces: shorter code in a hint (`model.state_dict()`) names an idea
MIN_LINE = 10  # characters without spaces: a whole key line this long in a hint is the answer
_SPACES = re.compile(r"\s+")
_CODE_SPAN = re.compile(r"`([^`]+)`")
_SHOWN_ITEMS = 12


def _flat(text: str) -> str:
    return _SPACES.sub(" ", text.replace("`", "")).strip()


def _squeeze(text: str) -> str:
    """Drop every space: `f(a, b)` and `f(a,b)` are the same code."""
    return _SPACES.sub("", text.replace("`", ""))


def longest_score(question: AnyQuestion) -> float | None:
    """Return what "pick the longest option" scores on one item (0 to 1); None for other items."""
    from bot.core.items import kind_of  # the type modules read pack models: import them late, no cycle

    return kind_of(question).longest_option_score(question)


def longest_share(questions: list[AnyQuestion]) -> tuple[float, int, list[str]]:
    """Return the share "pick the longest" scores, the number of items, and the items it gets right."""
    scores = [(q.id, score) for q in questions if (score := longest_score(q)) is not None]
    if not scores:
        return 0.0, 0, []
    return sum(s for _, s in scores) / len(scores), len(scores), [qid for qid, s in scores if s > 0]


def hint_leak(question: AnyQuestion) -> str | None:
    """Return the solution code a hint gives away, or None."""
    from bot.core.items import kind_of

    if not question.hint:
        return None
    lines = [_squeeze(line).rstrip(",:") for line in kind_of(question).key_lines(question)]
    lines = [line for line in lines if line]
    hint = _squeeze(question.hint)
    for line in lines:
        if len(line) >= MIN_LINE and line in hint:
            return line
    for span in _CODE_SPAN.findall(question.hint):
        fragment = _squeeze(span)
        if len(fragment) >= MIN_FRAGMENT and any(fragment in line for line in lines):
            return _flat(span)
    return None


def free_points(loaded: LoadedPack) -> list[Problem]:
    """Return a problem for each free point in the pack (see the module's docstring)."""
    problems: list[Problem] = []
    share, count, keyed = longest_share(list(loaded.pack.questions))
    if share > LONGEST_SHARE_MAX:
        shown = ", ".join(keyed[:_SHOWN_ITEMS]) + (f" and {len(keyed) - _SHOWN_ITEMS} more" if len(keyed) > _SHOWN_ITEMS else "")
        problems.append(
            Problem(
                loaded.source,
                1,
                1,
                f"picking the longest option scores {share:.0%} of the {count} single-answer choice items "
                f"(at most {LONGEST_SHARE_MAX:.0%} allowed); the key is the longest in: {shown}. "
                "Lengthen distractors or shorten keys.",
            )
        )
    for q in loaded.pack.questions:
        leak = hint_leak(q)
        if leak is not None:
            shown_leak = leak if len(leak) <= 80 else leak[:77] + "..."
            problems.append(
                loaded.problem(
                    q.id,
                    f"question `{q.id}`: the hint gives away the solution (`{shown_leak}`); hint at the idea "
                    "and show the code in the explanation",
                )
            )
    return problems


__all__ = ["LONGEST_SHARE_MAX", "MIN_FRAGMENT", "free_points", "hint_leak", "longest_score", "longest_share"]
