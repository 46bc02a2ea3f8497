"""Helpers for the proofs the type modules hand to `quizbot pack validate --run`."""

from __future__ import annotations

from bot.core.coderun import RunOutcome

FENCE = "```"


def why(outcome: RunOutcome) -> str:
    """Say in one line why a run did not go as the key says it should."""
    failed = [f"{name}: {message}" for name, ok, message in outcome.tests if not ok]
    if outcome.error_text:
        where = f" at line {outcome.error_line}" if outcome.error_line else ""
        return f"{outcome.status}: {outcome.error_text}{where}"
    if failed:
        return f"{outcome.status}: " + "; ".join(failed[:3])
    return f"{outcome.status}: {outcome.message or outcome.stderr.strip()[-300:]}"


def first_code_block(markdown: str) -> str | None:
    """Return the body of the first fenced block in Markdown, or None."""
    lines = markdown.splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith(FENCE):
            body: list[str] = []
            for following in lines[i + 1 :]:
                if following.strip().startswith(FENCE):
                    return "\n".join(body) + "\n"
                body.append(following)
            return None
    return None
