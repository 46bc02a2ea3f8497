"""Daily practice: the channel's daily question, each learner's daily review, reminders, streaks.

Design
------
The rules here are pure (no storage, no platform): `timing` turns a wall-clock `HH:MM` in an
IANA zone into UTC instants day by day (DST by the zone database: a skipped time runs late by
the gap, a repeated time runs at its first occurrence) and says which local day is due; a run
missed while the bot was down happens when it is back on the same local day, never on a later
day. `rotation` draws items through the chosen packs without repeats until every item was
posted (a round), choosing by a seed of channel and day so every process would pick alike.
`channel` folds each member's attempts into one scored answer per day, and counts the tally
(answered, right: no names, no spoilers) and who got it right first. `queue` builds the personal
review (due cards most overdue first, then new items, within caps; the day rolls over at 04:00
local), `cards` rates answers (right Good, wrong Again, right after a hint Hard) and suspends
leeches (8 failures), `streak` counts days with freezes, `reminders` decides the daily DM.

`DailyService` is the adapters' entry (one method per command, a neutral `Reply` out) over the
`DailyStore` port, which `bot.storage.daily.DailyRepository` implements. `bot.scheduler` runs
the timed jobs (posts, reveals, tally edits, reminders): every job is taken by a claim that the
database makes unique (a post row unique per channel and local day, inserted in the transaction
that moves the schedule on; a reminder row unique per learner and day), so restarts and several
processes never repeat one. The claim comes before the platform call: at most once, never twice.
`/quiz daily set` first asks the platform's poster whether the bot can post in the channel
(`ChannelCheck`: the scheduler's posters, `bot.scheduling.posters`, given to `DailyService` as `channels`).
"""

from .actions import DailyAction
from .answering import ChannelAnswer
from .channel import DailyPost, MemberAnswer, Tally
from .errors import (
    AlreadyAnswered,
    BadSetting,
    BadTime,
    CantPost,
    DailyError,
    NoSchedule,
    QuestionClosed,
    UnknownZone,
)
from .learner import Learner
from .ports import ChannelCheck, PostAccess
from .queue import Caps, DailyQueue, DayCount, DueCard
from .reminders import Reminder
from .schedule import Schedule, parse_time, parse_zone
from .service import DailyService
from .streak import Streak

__all__ = [
    "AlreadyAnswered",
    "BadSetting",
    "BadTime",
    "CantPost",
    "Caps",
    "ChannelAnswer",
    "ChannelCheck",
    "DailyAction",
    "DailyError",
    "DailyPost",
    "DailyQueue",
    "DailyService",
    "DayCount",
    "DueCard",
    "Learner",
    "MemberAnswer",
    "NoSchedule",
    "PostAccess",
    "QuestionClosed",
    "Reminder",
    "Schedule",
    "Streak",
    "Tally",
    "UnknownZone",
    "parse_time",
    "parse_zone",
]
