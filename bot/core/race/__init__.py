"""The social side: races in a channel, leaderboards, progress pictures.

Adapters route every action id for which `is_race_action` is true to `RaceService.act`, and
`/quiz leaderboard` and `/quiz privacy` to `SocialService`.
"""

from .actions import is_race_action
from .board import ACCURACY_MIN, PERIODS, WEIGHTS, Board, BoardRow, leaderboard_message, period_start
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
from .outbox import Outbox
from .ports import BoardStore, Change, ChannelPost, Publisher, RaceStore, Recorded
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
from .social import SocialService, with_image

__all__ = [
    "ACCURACY_MIN",
    "PERIODS",
    "ROUNDS_DEFAULT",
    "ROUNDS_MAX",
    "ROUNDS_MIN",
    "SECONDS_DEFAULT",
    "SECONDS_MAX",
    "SECONDS_MIN",
    "WEIGHTS",
    "AlreadyAnswered",
    "BadRaceOption",
    "Board",
    "BoardRow",
    "BoardStore",
    "Change",
    "ChannelPost",
    "NoRace",
    "NotEnoughItems",
    "NotRaceStarter",
    "Outbox",
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
    "SocialService",
    "Standing",
    "check_options",
    "is_race_action",
    "leaderboard_message",
    "period_start",
    "points",
    "with_image",
]
