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
from bot.core.replies import cmd


class RaceRunning(QuizError):
    def __init__(self, started_by: str = "") -> None:
        by = f" (started by {started_by})" if started_by else ""
        super().__init__(f"A race is already running in this channel{by}. Join it by answering, or wait for it to end.")


class NoRace(QuizError):
    def __init__(self) -> None:
        super().__init__(f"No race is running in this channel. Start one with {cmd('race')}.")


class RaceOver(QuizError):
    def __init__(self, status: str) -> None:
        self.status = status
        word = "was stopped" if status == "stopped" else "has finished"
        super().__init__(f"This race {word}. Start a new one with {cmd('race')}.")


class RoundClosed(QuizError):
    def __init__(self) -> None:
        super().__init__("Round closed: that round is over, so your answer was not counted. Try the next one!")


class AlreadyAnswered(QuizError):
    def __init__(self) -> None:
        super().__init__("You already answered this round; each member answers once per round.")


class BadRaceOption(QuizError):
    pass


class NotEnoughItems(QuizError):
    def __init__(self, have: int, asked: int, where: str) -> None:
        self.have, self.asked = have, asked
        super().__init__(
            f"{where} has {have} item{'s' if have != 1 else ''} a race can use (choice, select-all, blanks, short); "
            f"you asked for {asked} rounds. Ask for {have} or fewer rounds, or pick another pack."
            if have
            else f"{where} has no items a race can use (choice, select-all, blanks, short)."
        )


class NotRaceStarter(QuizError):
    def __init__(self, starter: str) -> None:
        super().__init__(f"Only {starter}, who started this race, or an admin can stop it.")
