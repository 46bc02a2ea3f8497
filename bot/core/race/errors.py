"""Errors of races; each is a QuizError, so adapters already show its message to the person.

QuizError
 ├── RaceRunning        a race is already running in this channel
 ├── NoRace             no race is running in this channel
 ├── RaceOver           an answer or stop after the race finished or was stopped
 ├── RoundClosed        an answer after its round closed (shown privately)
 ├── AlreadyAnswered    a second answer in the same round
 ├── BadRaceOption      rounds or seconds outside their range, or a channel-less place
 ├── NotEnoughItems     the pack has fewer race items than the rounds asked
 └── NotRaceStarter     a stop by someone who neither started the race nor is an admin
"""

from __future__ import annotations

from bot.core.errors import QuizError
from bot.core.i18n import _, ngettext, number
from bot.core.replies import cmd


class RaceRunning(QuizError):
    def __init__(self, started_by: str = "") -> None:
        text = (
            _("A race is already running in this channel (started by {who}). Join it by answering, or wait for it to end.")
            if started_by
            else _("A race is already running in this channel. Join it by answering, or wait for it to end.")
        )
        super().__init__(text.format(who=started_by))


class NoRace(QuizError):
    def __init__(self) -> None:
        super().__init__(_("No race is running in this channel. Start one with {race}.").format(race=cmd("race")))


class RaceOver(QuizError):
    def __init__(self, status: str) -> None:
        self.status = status
        text = (
            _("This race was stopped. Start a new one with {race}.")
            if status == "stopped"
            else _("This race has finished. Start a new one with {race}.")
        )
        super().__init__(text.format(race=cmd("race")))


class RoundClosed(QuizError):
    def __init__(self) -> None:
        super().__init__(_("Round closed: that round is over, so your answer was not counted. Try the next one!"))


class AlreadyAnswered(QuizError):
    def __init__(self) -> None:
        super().__init__(_("You already answered this round; each member answers once per round."))


class BadRaceOption(QuizError):
    pass


class NotEnoughItems(QuizError):
    def __init__(self, have: int, asked: int, where: str, *, least: int = 0) -> None:
        """`least`: the fewest rounds a race has; with fewer items, asking for fewer rounds cannot help."""
        self.have, self.asked = have, asked
        text = (
            ngettext(
                "{where} has {n} item a race can use (choice, select-all, blanks, short); a race needs at least {least}. "
                "Pick another pack, or fewer filters.",
                "{where} has {n} items a race can use (choice, select-all, blanks, short); a race needs at least {least}. "
                "Pick another pack, or fewer filters.",
                have,
            )
            if 0 < have < least
            else ngettext(
                "{where} has {n} item a race can use (choice, select-all, blanks, short); you asked for {asked} rounds. "
                "Ask for {n} or fewer rounds, or pick another pack.",
                "{where} has {n} items a race can use (choice, select-all, blanks, short); you asked for {asked} rounds. "
                "Ask for {n} or fewer rounds, or pick another pack.",
                have,
            )
            if have
            else _("{where} has no items a race can use (choice, select-all, blanks, short).")
        )
        super().__init__(text.format(where=where, n=number(have), asked=number(asked), least=number(least)))


class NotRaceStarter(QuizError):
    def __init__(self, starter: str) -> None:
        if not starter:  # its starter deleted their data (`/quiz my-data delete`): nobody is named
            super().__init__(_("Only an admin can stop this race."))
            return
        super().__init__(_("Only {who}, who started this race, or an admin can stop it.").format(who=starter))
