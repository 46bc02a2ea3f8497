"""Write-back: after a call, the new state of the arguments the callee received goes back to the caller.

The learner's side takes what the grader's objects became (a model it lent, trained in place). The
grader's side takes only data into objects it already had: a tensor's values, shape,
``requires_grad`` and ``grad``; a list's, dict's or set's plain contents; an existing attribute's
new scalar of the same type, or an existing container attribute's new contents of the same type.
"""

from __future__ import annotations

import base64
import collections
import contextlib
import sys
from typing import TYPE_CHECKING, Any

from .shapes import Refused, TooLarge, is_tensor
from .tensors import encode_tensor
from .trust import state_class_name

if TYPE_CHECKING:
    from .decode import Decoder
    from .encode import Encoder


def collect(enc: Encoder) -> list[Any]:
    """Return the new state of every mutable object the call received (the callee's side)."""
    out = []
    for i, obj in enumerate(enc._incoming_objects):
        state = _state(enc, obj)
        if state is not None:
            out.append([i, state])
    return out


def _state(enc: Encoder, obj: Any) -> Any:
    tp = type(obj)
    if is_tensor(obj):
        return _compound_fresh(enc, obj)
    if tp is list:
        return {"$": "list", "v": enc._items(list.__iter__(obj), 0)}
    if tp in (dict, collections.OrderedDict, collections.defaultdict):
        return {"$": "dict", "v": enc._pairs(obj, 0)}
    if tp is set:
        return {"$": "set", "v": enc._items(iter(obj), 0)}
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Generator):
        return {"$": "gen", "v": base64.b64encode(obj.get_state().numpy().tobytes()).decode()}
    state = getattr(obj, "__dict__", None)
    if isinstance(state, dict) and state_class_name(tp, enc.peer.learner) is not None:
        return {"$": "o", "v": enc._pairs(state, 0)}
    return None


def _compound_fresh(enc: Encoder, obj: Any) -> Any:
    """Encode an incoming tensor's own new data (never as a reference or a view of itself)."""
    saved = enc.incoming.pop(id(obj))
    enc._fresh = True
    try:
        return encode_tensor(enc, obj, 0)
    finally:
        enc._fresh = False
        enc.incoming[id(obj)] = saved


def apply_back(dec: Decoder, back: Any) -> None:
    """Apply the new states of the objects this side sent with a call.

    On the grader's side only data is taken: a tensor's values, shape, ``requires_grad`` and
    ``grad``; a list's, dict's or set's plain contents; and an object's existing attributes that
    held a plain scalar (a ``training`` flag, a step count), each keeping its type. A function,
    a handle, a generator's state or a new attribute is never written into the grader's objects.
    """
    if back is None:
        return
    updates = []
    for entry in dec._list(back):
        if not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[0], int):
            raise Refused("malformed update")
        i, state = entry
        if not 0 <= i < len(dec.sent) or not isinstance(state, dict):
            raise Refused("malformed update")
        updates.append((dec.sent[i], state))
    if dec.peer.learner:
        decoded = [(obj, state.get("$"), _state_value(dec, state)) for obj, state in updates]
    else:
        decoded = []
        dec.refused = NOT_WRITTEN_BACK
        for obj, state in updates:
            with contextlib.suppress(_NotData):
                decoded.append((obj, state.get("$"), _data_state(dec, obj, state)))
    for obj, tag, value in decoded:
        _apply(obj, tag, value)


def _data_state(dec: Decoder, obj: Any, state: dict[str, Any]) -> Any:
    """Decode one write-back entry as data (grader side); raise _NotData to skip it."""
    tag = state.get("$")
    if tag == "o":
        current = getattr(obj, "__dict__", None)
        if not isinstance(current, dict):
            raise _NotData
        out = {}
        for pair in dec._list(state.get("v")):
            dec._tick()
            if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], str):
                raise Refused("malformed object")
            name, value = pair
            old = current.get(name, _MISSING)
            if type(value) in _SCALARS and type(old) is type(value):
                out[name] = value
            elif type(old) in _CONTAINERS:  # an optimizer's new ``state``, a module's ``_parameters``
                with contextlib.suppress(_NotData, Refused):
                    saved, dec.refused = dec.refused, dec.refused | {"h"}
                    try:
                        new = dec.decode(value, 1)
                    finally:
                        dec.refused = saved
                    if type(new) is type(old):
                        out[name] = new
        return out
    if tag not in ("t", "list", "dict", "set"):
        raise _NotData
    try:
        value = dec.decode(state)
    except TooLarge:
        raise
    except Refused:
        raise _NotData from None
    if isinstance(obj, dict) and isinstance(value, dict):
        olds, news = list(obj.values()), list(value.values())
    elif isinstance(obj, (list, set)) and isinstance(value, (list, set)):
        olds, news = list(obj), list(value)
    else:
        return value
    if any(isinstance(v, _Inert) for v in news) and any(is_tensor(v) for v in olds):
        raise _NotData  # a marker never takes a tensor's place (a module's ``_parameters``)
    return value


def _state_value(dec: Decoder, state: dict[str, Any]) -> Any:
    tag = state.get("$")
    if tag == "o":
        out = {}
        for pair in dec._list(state.get("v")):
            if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], str):
                raise Refused("malformed object")
            out[pair[0]] = dec.decode(pair[1], 1)
        return out
    if tag == "gen":
        return base64.b64decode(str(state.get("v")).encode())
    return dec.decode(state)


class _Inert:
    """What the grader keeps of a learner's function written into its containers (a hook left behind).

    It counts (``len(model._forward_hooks)`` is right) but is not callable and claims no class, so
    running the grader's model with it fails instead of running learner code.
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name or 'object'} of your code, not carried back>"


class _NotData(Exception):
    """A write-back entry that is not plain data: the grader leaves its object as it was."""


class _MISSING_TYPE:
    pass


_MISSING = _MISSING_TYPE()
_SCALARS = (bool, int, float, str)
_CONTAINERS = (list, dict, set, collections.OrderedDict, collections.defaultdict)
NOT_WRITTEN_BACK = frozenset({"y", "mod", "name", "gen"})


def _apply(obj: Any, tag: Any, value: Any) -> None:
    """Update a local object in place with the state the other side gave it."""
    import torch

    if is_tensor(obj):
        if not is_tensor(value):
            return
        with contextlib.suppress(RuntimeError):
            with torch.no_grad():
                if obj.shape == value.shape and obj.dtype == value.dtype:
                    if obj.untyped_storage().data_ptr() != value.untyped_storage().data_ptr():
                        obj.data.copy_(value.data)
                else:
                    obj.data = value.data
            if obj.is_leaf and obj.requires_grad != value.requires_grad:
                obj.requires_grad_(value.requires_grad)
            obj.grad = value.grad
        return
    if tag == "list" and type(obj) is list and isinstance(value, list):
        obj[:] = value
    elif (tag == "dict" and isinstance(obj, dict) and isinstance(value, dict)) or (
        tag == "set" and type(obj) is set and isinstance(value, set)
    ):
        obj.clear()
        obj.update(value)
    elif tag == "gen" and isinstance(obj, torch.Generator) and isinstance(value, bytes):
        with contextlib.suppress(RuntimeError):
            obj.set_state(torch.frombuffer(bytearray(value), dtype=torch.uint8))
    elif tag == "o" and isinstance(value, dict):
        state = getattr(obj, "__dict__", None)
        if isinstance(state, dict):
            state.update(value)
