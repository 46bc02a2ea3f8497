"""Decoding: local values built from data by the receiver's own code, from a closed set of shapes.

Nothing in a frame runs code of the sender's or chooses a class outside the trust policy; every
frame is decoded within budgets of depth, nodes, hash collisions and CPU time (``TooLarge``).
"""

from __future__ import annotations

import base64
import collections
import contextlib
import sys
import time
from typing import TYPE_CHECKING, Any

from .autograd import with_history
from .proxy import CallableProxy, Proxy, remote_class
from .shapes import MAX_COLLISIONS, MAX_DECODE_S, MAX_DEPTH, MAX_NODES, PLAIN_FACTORIES, Refused, TooLarge
from .tensors import decode_tensor, decode_view, dtype_table
from .trust import claimable, resolve_name, resolve_state_class, subclassable, trusted_module_name
from .writeback import NOT_WRITTEN_BACK, _Inert, apply_back

if TYPE_CHECKING:
    from .rpc import Peer

_NOT_IN_OBJECTS = frozenset({"h", "y"})  # a rebuilt object holds no learner (or lent) callable


class Decoder:
    """Build local values from data; never runs code the sender chose."""

    def __init__(self, peer: Peer, *, sent: list[Any] | None = None, strict: bool = False) -> None:
        self.peer = peer
        self.strict = strict
        self.refused: frozenset[str] = frozenset()  # kinds of value not taken here (grader side)
        self.sent = sent or []
        self.memo: dict[int, Any] = {}
        self.objects: list[Any] = []
        self.nodes = 0
        self._deadline = time.thread_time() + MAX_DECODE_S

    def _tick(self) -> None:
        """Count one step of work; over the node or time budget the value is too large to check."""
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise TooLarge
        if not self.nodes & 255 and not self.peer.learner and time.thread_time() > self._deadline:
            raise TooLarge

    def _collides(self, hashes: dict[int, int], key: Any) -> Any:
        """Count a set item's or dict key's hash: many keys of one hash make insertion quadratic."""
        if not self.peer.learner:
            try:
                value = hash(key)
            except TypeError:
                raise Refused("an unhashable key") from None
            seen = hashes.get(value, 0) + 1
            if seen > MAX_COLLISIONS:
                raise TooLarge
            hashes[value] = seen
        return key

    def decode(self, data: Any, depth: int = 0) -> Any:
        self._tick()
        if depth > MAX_DEPTH:
            raise TooLarge
        if data is None or type(data) in (bool, int, float, str):
            return data
        if not isinstance(data, dict):
            raise Refused("malformed value")
        tag = data.get("$")
        v = data.get("v")
        if tag in self.refused:
            raise Refused("only data is written back")
        if tag == "h" and self.refused is NOT_WRITTEN_BACK:
            return _Inert(str(data.get("n") or "")[:200])  # kept as a marker: never callable
        if tag == "m":
            return self._memo(data.get("i"))
        if tag == "r":
            i = data.get("i")
            if not isinstance(i, int) or not 0 <= i < len(self.sent):
                raise Refused("unknown reference")
            return self.sent[i]
        if tag == "y":
            h = data.get("h")
            if not isinstance(h, int) or h not in self.peer.exports:
                raise Refused("unknown handle")
            return self.peer.exports[h]
        if tag == "tuple":
            return tuple(self.decode(x, depth + 1) for x in self._list(v))
        if tag == "list":
            out: list[Any] = []
            self._register(data, out)
            out.extend(self.decode(x, depth + 1) for x in self._list(v))
            return out
        if tag == "dict":
            kind = data.get("kind")
            d: dict[Any, Any]
            if kind == "od":
                d = collections.OrderedDict()
            elif kind == "dd":
                factory = PLAIN_FACTORIES.get(str(data.get("f"))) if data.get("f") is not None else None
                d = collections.defaultdict(factory)
            else:
                d = {}
            self._register(data, d)
            hashes: dict[int, int] = {}
            for pair in self._list(v):
                if not isinstance(pair, list) or len(pair) != 2:
                    raise Refused("malformed mapping")
                key = self.decode(pair[0], depth + 1)
                self._collides(hashes, key)
                d[key] = self.decode(pair[1], depth + 1)
            return d
        if tag in ("set", "frozenset"):
            s: set[Any] = set()
            if tag == "set":
                self._register(data, s)
            hashes = {}
            for x in self._list(v):
                item = self._collides(hashes, self.decode(x, depth + 1))
                s.add(item)
            return s if tag == "set" else frozenset(s)
        if tag == "t":
            t = decode_tensor(self, data, depth)
            history = data.get("gf")
            if isinstance(history, dict) and not self.peer.learner and not data.get("p"):
                t = with_history(self.peer, self.sent, t, history)
                self.memo[data["i"]] = t
            return t
        if tag == "view":
            return decode_view(self, data)
        if tag == "c":
            parts = self._list(v)
            return complex(float(parts[0]), float(parts[1]))
        if tag == "b":
            return base64.b64decode(str(v).encode())
        if tag == "size":
            import torch

            return torch.Size([int(x) for x in self._list(v)])
        if tag == "dtype":
            dtypes = dtype_table(self.peer)
            if v not in dtypes:
                raise Refused("unknown dtype")
            return dtypes[v]
        if tag == "device":
            import torch

            return torch.device(str(v)[:40])
        if tag == "gen":
            import torch

            gen = torch.Generator()
            gen.set_state(torch.frombuffer(bytearray(base64.b64decode(str(v).encode())), dtype=torch.uint8))
            self._register(data, gen)
            return gen
        if tag == "slice":
            a, b, c = (self.decode(x, depth + 1) for x in self._list(v))
            return slice(a, b, c)
        if tag == "range":
            a, b, c = (int(x) for x in self._list(v))
            return range(a, b, c)
        if tag == "ellipsis":
            return Ellipsis
        if tag == "mod":
            name = str(v)
            mod = sys.modules.get(name)
            if mod is None or not trusted_module_name(name):
                raise Refused("unknown module")
            if not self.peer.learner and name not in self.peer.names_sent:
                raise Refused("a module the grader did not send")
            self.peer.names_received[id(mod)] = name
            return mod
        if tag == "name":
            text = str(v)
            if self.peer.learner or text in self.peer.names_sent:
                found = resolve_name(text, self.peer)
            else:
                # One refusal whether the name exists or not: the test module's names are not the
                # learner's to probe.
                found = None
                with contextlib.suppress(Refused):
                    found = resolve_name(text, self.peer)
                if not (isinstance(found, type) and claimable(found)):
                    raise Refused(f"the grader does not take {text[:100]} by name")
            self.peer.names_received[id(found)] = text
            return found
        if tag == "o":
            return self._object(data, depth)
        if tag == "h" and not self.strict:
            return self._proxy(data, depth)
        raise Refused("unknown kind of value")

    def _list(self, v: Any) -> list[Any]:
        if not isinstance(v, list):
            raise Refused("malformed value")
        return v

    def _register(self, data: dict[str, Any], obj: Any) -> None:
        i = data.get("i")
        if isinstance(i, int) and i >= 0:
            self.memo[i] = obj
            self.objects.append(obj)

    def _memo(self, i: Any) -> Any:
        if not isinstance(i, int) or i not in self.memo:
            raise Refused("unknown back-reference")
        return self.memo[i]

    def _object(self, data: dict[str, Any], depth: int) -> Any:
        cls = resolve_state_class(str(data.get("c")), self.peer)
        obj: Any = object.__new__(cls)
        self._register(data, obj)
        state = {}
        # The grader rebuilds a learner's module, optimizer or loader from data only: no attribute
        # of it may be a handle (a ``forward`` of the learner's) or a name the grader did not send.
        saved = self.refused
        if not self.peer.learner:
            self.refused = saved | _NOT_IN_OBJECTS
        try:
            for pair in self._list(data.get("v")):
                if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], str):
                    raise Refused("malformed object")
                state[pair[0]] = self.decode(pair[1], depth + 1)
        finally:
            self.refused = saved
        obj.__dict__.update(state)
        return obj

    def _proxy(self, data: dict[str, Any], depth: int) -> Any:
        h = data.get("h")
        if not isinstance(h, int):
            raise Refused("malformed handle")
        known = self.peer.proxies.get(h)
        if known is not None:
            return known
        kind = data.get("k")
        name = str(data.get("n") or "")[:200]
        proxy: Any
        if kind == "class":
            bases = []
            for base_name in self._list(data.get("b") or [])[:30]:
                with contextlib.suppress(Refused):
                    base = resolve_name(str(base_name), self.peer)
                    if isinstance(base, type) and subclassable(base) and claimable(base):
                        bases.append(base)
            proxy = remote_class(self.peer, h, name, str(data.get("q") or name), bases, data.get("d"))
        else:
            cls = None
            if kind == "object" and "c" in data:
                with contextlib.suppress(Refused):
                    cls = self.decode(data["c"], depth + 1)
            if not (isinstance(cls, type) and claimable(cls, self.peer)):
                cls = None  # a handle never passes isinstance for a data class (nor any it names)
            is_callable = kind == "function" or data.get("call") is True
            maker = CallableProxy if is_callable else Proxy
            proxy = maker(self.peer, h, name, cls, is_callable)
        self.peer.proxies[h] = proxy
        return proxy

    def apply_back(self, back: Any) -> None:
        """Apply the new states of the objects this side sent with a call (see ``writeback``)."""
        apply_back(self, back)
