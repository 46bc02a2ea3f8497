"""Errors of daily practice; adapters show their messages to the person who acted.

QuizError
 └── DailyError
      ├── BadTime          a time that is not HH:MM
      ├── UnknownZone      a time zone the database does not know (names close matches)
      ├── BadSetting       a cap, an hour count or a name out of its range
      ├── CantPost         a channel the platform says the bot cannot post in (says what to do)
      ├── NoSchedule       a channel with no daily question
      ├── NotServed        a platform whose front end this bot process does not run
      ├── AlreadyAnswered  a second scored answer to the same day's question
      └── QuestionClosed   an answer to a question already revealed (carries the answer)
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.errors import QuizError
from bot.core.i18n import _
from bot.core.replies import cmd


class DailyError(QuizError):
    """A problem with a daily-practice command that the person can fix."""


class BadTime(DailyError):
    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__(
            _("`{text}` is not a time: use HH:MM on a 24-hour clock, for example `09:30` or `18:05`.").format(text=text[:20])
        )


class UnknownZone(DailyError):
    def __init__(self, name: str, close: Sequence[str]) -> None:
        self.name, self.close = name, tuple(close)
        hint = (
            _("Did you mean {names}?").format(names=", ".join(f"`{c}`" for c in self.close))
            if self.close
            else _("Use an IANA name such as `Europe/Berlin` or `America/New_York`.")
        )
        super().__init__(_("There is no time zone `{name}`.").format(name=name[:64]) + " " + hint)


class BadSetting(DailyError):
    pass


class CantPost(DailyError):
    """`/quiz daily set` on a channel the bot cannot post in: the platform's reason, nothing stored."""

    def __init__(self, channel_id: str, problem: str) -> None:
        self.channel_id, self.problem = channel_id, problem
        super().__init__(
            _("I can't post in {channel}: {problem} Nothing was changed.").format(
                channel=f"<#{channel_id}>", problem=problem
            )
        )


class NoSchedule(DailyError):
    def __init__(self) -> None:
        super().__init__(_("This channel has no daily question. An admin can set one with {set}.").format(set=cmd("daily set")))


class NotServed(DailyError):
    def __init__(self, platform: str) -> None:
        self.platform = platform
        super().__init__(
            _(
                "This bot process does not run the {platform} front end, so it does not post {platform}'s"
                " daily questions: the process that runs it does."
            ).format(platform=platform[:20])
        )


class AlreadyAnswered(DailyError):
    """The member's answer to the post was scored: `correct` says how (when known), `key` by which delivery."""

    def __init__(self, *, correct: bool | None = None, key: str | None = None) -> None:
        self.correct = correct
        self.key = key
        if correct is None:
            text = _("You already answered today's question; the answer shows at reveal time.")
        elif correct:
            text = _("You already answered today's question, and got it right. The answer shows at reveal time.")
        else:
            text = _("You already answered today's question, without getting it right. The answer shows at reveal time.")
        super().__init__(text)


class AnswerCounted(DailyError):
    def __init__(self) -> None:
        super().__init__(_("That answer was already counted; see its feedback above."))


class QuestionClosed(DailyError):
    def __init__(self, answer: str) -> None:
        self.answer = answer
        super().__init__(f"{_('This question closed.')} {answer}".strip())
