"""Stand-ins for the other process's objects (handles): every use is a call into that process.

A stand-in never passes ``isinstance`` for a data class: its ``__class__`` is ``Proxy`` or a
behaviour class the trust policy lets it claim (``trust.claimable``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .shapes import MAX_ITEMS, RemoteControlFlow

if TYPE_CHECKING:
    from .rpc import Peer


class Proxy:
    """A stand-in for an object of the other process: every use is a call to that process.

    It compares equal only to a stand-in of the same object: an object the learner defined cannot
    claim to equal a plain value the test expects.
    """

    __slots__ = ("__weakref__", "_sb_callable", "_sb_class", "_sb_handle", "_sb_name", "_sb_peer")

    def __init__(self, peer: Peer, handle: int, name: str, cls: type | None, is_callable: bool) -> None:
        object.__setattr__(self, "_sb_peer", peer)
        object.__setattr__(self, "_sb_handle", handle)
        object.__setattr__(self, "_sb_name", name)
        object.__setattr__(self, "_sb_class", cls)
        object.__setattr__(self, "_sb_callable", is_callable)

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        cls = object.__getattribute__(self, "_sb_class")
        return cls if isinstance(cls, type) else Proxy

    def _sb_call(self, name: str | None, *args: Any, **kwargs: Any) -> Any:
        return self._sb_peer.call_remote(self._sb_handle, args, kwargs, name)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_sb_"):
            raise AttributeError(name)
        return self._sb_peer.get_remote(self._sb_handle, name)

    def __setattr__(self, name: str, value: Any) -> None:
        self._sb_call("__setattr__", name, value)

    def __len__(self) -> int:
        n = self._sb_call("__len__")
        if type(n) is not int:
            raise TypeError("'__len__' did not return an int")
        return n

    def __getitem__(self, key: Any) -> Any:
        return self._sb_call("__getitem__", key)

    def __setitem__(self, key: Any, value: Any) -> None:
        self._sb_call("__setitem__", key, value)

    def __contains__(self, item: Any) -> bool:
        return self._sb_call("__contains__", item) is True

    def __iter__(self) -> Iterator[Any]:
        it = self._sb_call("__iter__")
        if it is self:
            return _ProxyIterator(self)
        if isinstance(it, Proxy):
            return _ProxyIterator(it)
        return iter(it)

    def __next__(self) -> Any:
        return _remote_next(self)

    def __bool__(self) -> bool:
        try:
            return self._sb_call("__bool__") is True
        except AttributeError:
            try:
                return len(self) > 0
            except (AttributeError, TypeError):
                return True

    def __eq__(self, other: object) -> bool:
        if (
            type(other) in (Proxy, CallableProxy)
            and object.__getattribute__(other, "_sb_peer") is self._sb_peer
        ):
            return self._sb_call("__eq__", other) is True
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self) -> int:
        return hash((id(self._sb_peer), self._sb_handle))

    def __repr__(self) -> str:
        try:
            text = self._sb_call("__repr__")
        except Exception:
            text = None
        return text if isinstance(text, str) else f"<{self._sb_name or 'object'} of your code>"

    def __str__(self) -> str:
        try:
            text = self._sb_call("__str__")
        except Exception:
            text = None
        return text if isinstance(text, str) else repr(self)

    def __format__(self, spec: str) -> str:
        text = self._sb_call("__format__", spec)
        return text if isinstance(text, str) else str(self)

    def __float__(self) -> float:
        value = self._sb_call("__float__")
        if type(value) is not float:
            raise TypeError("__float__ returned non-float")
        return value

    def __int__(self) -> int:
        value = self._sb_call("__int__")
        if type(value) is not int:
            raise TypeError("__int__ returned non-int")
        return value

    def __index__(self) -> int:
        value = self._sb_call("__index__")
        if type(value) is not int:
            raise TypeError("__index__ returned non-int")
        return value

    def __enter__(self) -> Any:
        return self._sb_call("__enter__")

    def __exit__(self, *exc: Any) -> Any:
        return self._sb_call("__exit__", None, None, None)

    def __del__(self) -> None:
        peer = object.__getattribute__(self, "_sb_peer")
        handle = object.__getattribute__(self, "_sb_handle")
        if peer.proxies.get(handle) is self:
            del peer.proxies[handle]


class CallableProxy(Proxy):
    """A stand-in for a function or a callable object of the other process."""

    __slots__ = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._sb_call(None, *args, **kwargs)


class _ProxyIterator:
    """Iterate a remote iterator, one item per call."""

    def __init__(self, remote: Proxy) -> None:
        self.remote = remote
        self.count = 0

    def __iter__(self) -> _ProxyIterator:
        return self

    def __next__(self) -> Any:
        self.count += 1
        if self.count > MAX_ITEMS:
            raise RuntimeError("your iterator yields too many items")
        return _remote_next(self.remote)


def _remote_next(remote: Proxy) -> Any:
    """Ask a remote iterator for its next item; its StopIteration (only there) ends the iteration."""
    try:
        return remote._sb_call("__next__")
    except RemoteControlFlow as exc:
        if exc.kind == "StopIteration":
            raise StopIteration from None
        raise


def remote_class(peer: Peer, h: int, name: str, qualname: str, bases: list[type], doc: Any) -> type:
    """Return a local class standing for a learner's class: subclass checks work, calls go remote."""

    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        return peer.call_remote(h, args, kwargs)

    namespace: dict[str, Any] = {
        "__new__": __new__,
        "__module__": "user_code",
        "__qualname__": qualname,
        "__doc__": doc if isinstance(doc, str) else None,
        "_sb_handle": h,
        "_sb_peer": peer,
    }
    chosen = _compatible_bases(bases)
    try:
        return type(name or "Remote", tuple(chosen), namespace)
    except TypeError:
        return type(name or "Remote", (), namespace)


def _compatible_bases(bases: list[type]) -> list[type]:
    """Keep the most derived of the trusted bases, in order, so a class can be made from them."""
    chosen: list[type] = []
    for base in bases:
        if base is object or any(issubclass(c, base) for c in chosen):
            continue
        chosen.append(base)
    return chosen[:1]
