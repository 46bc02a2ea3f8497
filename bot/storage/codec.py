"""Turn sessions, attempts and review cards into rows, and rows back into sessions.

A session's row holds its owner, status and position in columns, and the rest in `data` as JSON
with readable keys: `items` (see `ItemState.to_json`), `filters`, `anchor`, `started_by` and
`started_by_name`. Rows written before migration 0002 used `by` and `by_name` and one-letter item
keys; they are still read correctly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import orjson

from bot.core.model import Anchor, Attempt, ItemState, Owner, Review, Session

SESSION_FIELDS = ("status", "position", "data", "updated_at", "version")  # what a save changes


def dumps(value: Any) -> str:
    """Encode JSON compactly (orjson: several times faster than json on a session, see bench/)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # what orjson cannot encode (an int over 64 bits, say), json can; no session holds one
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def loads(text: str | bytes) -> Any:
    """Decode JSON."""
    return orjson.loads(text)


def session_data(session: Session) -> str:
    """Return the JSON kept in the `data` column."""
    return dumps(
        {
            "items": [i.to_json() for i in session.items],
            "filters": session.filters,
            "anchor": session.anchor.to_json(),
            "started_by": session.started_by,
            "started_by_name": session.started_by_name,
        }
    )


def session_row(session: Session, version: int) -> dict[str, Any]:
    """Return every column of the session's row, with the version it will have once stored."""
    o = session.owner
    return {
        "id": session.id,
        "platform": o.platform,
        "scope": o.scope,
        "owner_kind": o.kind,
        "owner_id": o.id,
        "status": session.status,
        "position": session.position,
        "data": session_data(session),
        "created_at": session.created_at,
        "updated_at": session.updated_at,
        "version": version,
    }


def session_from_row(row: Mapping[str, Any]) -> Session:
    """Rebuild a session from its row's columns (new or pre-0002 keys)."""
    data = loads(row["data"])
    started_by = data["started_by"] if "started_by" in data else data["by"]
    name = data.get("started_by_name", data.get("by_name", started_by))
    return Session(
        id=row["id"],
        owner=Owner(row["platform"], row["scope"], row["owner_kind"], row["owner_id"]),
        started_by=started_by,
        started_by_name=name,
        items=[ItemState.from_json(i) for i in data["items"]],
        position=row["position"],
        status=row["status"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        filters=data.get("filters", {}),
        anchor=Anchor.from_json(data.get("anchor")),
        version=row["version"],
    )


def attempt_row(attempt: Attempt) -> dict[str, Any]:
    """Return the attempt's row in `attempts`."""
    return {
        "platform": attempt.platform,
        "scope": attempt.scope,
        "user_id": attempt.user_id,
        "pack_id": attempt.pack,
        "question_id": attempt.question,
        "topic": attempt.topic,
        "answer": attempt.answer,
        "correct": attempt.correct,
        "points": attempt.points,
        "at": attempt.at,
        "session_id": attempt.session_id,
        "key": attempt.key,
        "mode": attempt.mode,
        "detail": attempt.detail,
    }


def review_row(review: Review) -> dict[str, Any]:
    """Return the review card's row in `reviews`, as first stored (one graded answer)."""
    return {
        "platform": review.platform,
        "user_id": review.user_id,
        "pack_id": review.pack,
        "question_id": review.question,
        "card": review.card,
        "due": review.due,
        "correct": review.correct,
        "answers": 1,
    }


Snapshot = tuple[Any, ...]  # a session as stored, in values no caller can change (see `freeze`)


class StoredItem(ItemState):
    """An item as a snapshot keeps it, shared by every copy of the session read from it: changing it raises.

    Its lists are tuples and its selections a read-only mapping; its JSON is made once, when it is
    stored, and written again by every save of its quiz. `Session.current`, where an item is
    answered, copies it into an `ItemState` of the session's own first; any other change is a mistake
    this makes loud.
    """

    __slots__ = ("_json",)  # its `to_json`, made once (every save writes every item of the quiz)

    _json: dict[str, Any]

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a stored item is read-only ({name}); change the copy `Session.current` gives")

    __delattr__ = __setattr__  # type: ignore[assignment]

    def to_json(self) -> dict[str, Any]:
        return self._json


_NO_SELECTIONS: Mapping[int, int] = MappingProxyType({})


def _stored(item: ItemState) -> StoredItem:
    state = item.__dict__.copy()
    state["order"] = tuple(state["order"])
    state["picked"] = tuple(state["picked"])
    state["selections"] = MappingProxyType(dict(state["selections"])) if state["selections"] else _NO_SELECTIONS
    stored = object.__new__(StoredItem)
    object.__setattr__(stored, "__dict__", state)
    object.__setattr__(stored, "_json", item.to_json())
    return stored


def freeze(session: Session) -> Snapshot:
    """Return the session in values no caller can change: plain values, and its items as `StoredItem`s.

    An item unchanged since the session was read is still the snapshot's own `StoredItem`, and is
    shared again: a click copies the one item it answers, not the whole quiz (each copy, item by
    item, was 4-6% of a click's CPU on either platform, py-spy). The filters are kept as their JSON,
    as in the row: orjson writes and reads them in a fraction of a copy made value by value.
    Stored items, unlike plain values, are objects the garbage collector tracks: a
    full cache (`session_cache.CAPACITY` quizzes) holds some tens of thousands, which only its rare
    full collections walk.
    """
    d = session.__dict__.copy()
    d["items"] = tuple([i if type(i) is StoredItem else _stored(i) for i in session.items])
    d["filters"] = dumps(session.filters)
    return tuple(d.items())


def thaw(snapshot: Snapshot) -> Session:
    """Return a new Session from a snapshot, sharing its stored items (`Session.current` copies the one it changes)."""
    d = dict(snapshot)
    d["items"] = list(d["items"])
    d["filters"] = loads(d["filters"])
    session = object.__new__(Session)
    session.__dict__ = d
    return session
