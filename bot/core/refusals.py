"""A core error as the private note the person sees, in the language the request was answered in."""

from __future__ import annotations

from dataclasses import replace

from . import actions as ax
from .errors import NotAllowed, NotYourQuiz, QuizError, QuizExpired
from .i18n import _, current, use_locale
from .replies import Button, Reply, Tone, notice


def error_reply(exc: QuizError) -> Reply:
    """Turn a core error into the private note the person sees; an ended quiz offers a new one."""
    with use_locale(exc.locale or current()) as code:
        return replace(_error_reply(exc), locale=code)


def _error_reply(exc: QuizError) -> Reply:
    tone = Tone.ERROR if isinstance(exc, NotYourQuiz | NotAllowed) else Tone.WARNING
    reply = replace(notice(str(exc), tone=tone), aside=exc.aside)
    if isinstance(exc, QuizExpired) and exc.session_id:
        again = Button(ax.make(exc.session_id, 0, ax.RESTART), _("New quiz"), "primary", role="restart")
        reply = Reply(messages=(replace(reply.messages[0], rows=((again,),)),))
    if exc.before:  # work a restart dropped: told first, whatever this request's answer
        reply = replace(reply, messages=(*exc.before, *reply.messages))
    return reply
