"""The daily post as a member saw it: a press on a post whose pack changed its question since it showed.

A quiz's item keeps what the learner answers by position (`ItemState.seen`) and is made again when
its pack changes that (`items.remade`); a channel's post is one message everyone answers, so what
it showed travels with the press instead. Its positional controls carry the question's
`ItemType.seen` digest (`post_version`): a choice button in its id (`Action.tag`), a menu after
each option's value and a `~`; menu picks kept for Check are stored with the digest they were made
under (`VERSION_KEY`). A press or a Check whose digest is not the question's now grades nothing:
the member is told the question changed and is shown it as it is now (`changed`). Controls
without a digest (posts made before this) are graded as they always were.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from bot.core import actions as ax
from bot.core.i18n import _
from bot.core.items import QUESTION_CHANGED, kind_of
from bot.core.packs.models import AnyQuestion
from bot.core.replies import Control, Message, Reply, Select, Text

from .channel import MemberAnswer

TAG = "~"
VERSION_KEY = -(1 << 20)  # in `MemberAnswer.selections`: the digest the picks were made under (never a pick's key)


def post_version(question: AnyQuestion) -> str:
    """The digest a post's controls carry: what a member answers by position ("" when nothing is)."""
    return kind_of(question).seen(question) or ""


def tagged(control: Control, version: str) -> Control:
    """The post's control with what it answers by position tagged with `version`."""
    if not version:
        return control
    if isinstance(control, Select):  # a choice menu, a select-all menu, a blank's menu: the values are positions
        return replace(control, options=tuple(replace(o, value=f"{o.value}{TAG}{version}") for o in control.options))
    parsed = ax.parse(control.action, prefix=None)
    if parsed is None or parsed.verb != ax.CHOOSE:  # a choice button: its id carries the digest (`Action.tag`)
        return control
    return replace(control, action=replace(parsed, tag=version).encode())


def untagged(action: ax.Action, values: Sequence[str]) -> tuple[ax.Action, tuple[str, ...], set[str]]:
    """The press without its tags, and the digests it carried (none: a post made before they were)."""
    tags: set[str] = {action.tag} if action.tag else set()

    def cut(text: str) -> str:
        head, sep, tag = text.partition(TAG)
        if sep:
            tags.add(tag)
        return head

    return replace(action, argument=cut(action.argument), tag=""), tuple(cut(v) for v in values), tags


def picks_version(mine: MemberAnswer | None) -> str | None:
    """The digest the member's kept picks were made under; None when there are none or they carry none."""
    if mine is None or VERSION_KEY not in mine.selections:
        return None
    return f"{mine.selections[VERSION_KEY]:08x}"


def with_version(selections: dict[int, int], version: str) -> dict[int, int]:
    return {**selections, VERSION_KEY: int(version, 16)} if version else selections


def stale(question: AnyQuestion, verb: str, tags: set[str], mine: MemberAnswer | None) -> bool:
    """Say whether the press answers the question as it was before its pack changed it."""
    version = post_version(question)
    if tags - {version}:
        return True
    kept = picks_version(mine)
    return verb == ax.CHECK and kept is not None and kept != version


def changed(post_now: Message) -> Reply:
    """The member's private answer to a stale press: the question changed, and the post as it is now."""
    note = Text(f"⚠️ {_(QUESTION_CHANGED)}")
    return Reply(messages=(replace(post_now, parts=(*post_now.parts, note), session_id=None),), private=True)
