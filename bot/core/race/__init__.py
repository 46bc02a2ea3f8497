"""Races in a channel: rules, scoring, what each step shows, and the service adapters call.

Adapters route every action id for which `is_race_action` is true to `RaceService.act`.
"""

from .actions import is_race_action
from .errors import (
    AlreadyAnswered,
    BadRaceOption,
    NoRace,
    NotEnoughItems,
    NotRaceStarter,
    RaceOver,
    RaceRunning,
    RoundClosed,
)
from .ports import Change, ChannelPost, Publisher, RaceStore, Recorded
from .rules import (
    ROUNDS_DEFAULT,
    ROUNDS_MAX,
    ROUNDS_MIN,
    SECONDS_DEFAULT,
    SECONDS_MAX,
    SECONDS_MIN,
    Race,
    RaceAnswer,
    RaceItem,
    Standing,
    check_options,
    points,
)
from .service import RaceService

__all__ = [
    "ROUNDS_DEFAULT",
    "ROUNDS_MAX",
    "ROUNDS_MIN",
    "SECONDS_DEFAULT",
    "SECONDS_MAX",
    "SECONDS_MIN",
    "AlreadyAnswered",
    "BadRaceOption",
    "Change",
    "ChannelPost",
    "NoRace",
    "NotEnoughItems",
    "NotRaceStarter",
    "Publisher",
    "Race",
    "RaceAnswer",
    "RaceItem",
    "RaceOver",
    "RaceRunning",
    "RaceService",
    "RaceStore",
    "Recorded",
    "RoundClosed",
    "Standing",
    "check_options",
    "is_race_action",
    "points",
]
