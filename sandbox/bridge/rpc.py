"""The rpc: each process holds a ``Peer`` over a pair of pipes and may call the other while a call
of its own is waiting (a learner's function may call a hook the test registered)."""

from __future__ import annotations

import codecs
import contextlib
import io
import os
import sys
import types
from collections.abc import Callable
from typing import Any, NoReturn, cast

from sandbox import _wire

from .decode import Decoder
from .encode import Encoder
from .errors import describe, rebuild
from .serve import handle
from .shapes import (
    MAX_CONTAINERS,
    MAX_FRAME,
    MAX_ITEMS,
    MAX_REPLY_FRAME,
    OVERDUE,
    TOO_LARGE,
    ErrorFields,
    PeerGone,
    Refused,
    Reply,
    Request,
    TooLarge,
)
from .sync import SharedState

CAPTURE_MAX = 1 << 20  # the most printed text a reply carries (characters)
CANNOT_CHECK = "the value your code returned cannot be checked"


class _CapturedBytes(io.RawIOBase):
    """The capture's ``buffer``: bytes written are its text, as UTF-8 (a sequence split across writes kept whole)."""

    def __init__(self, text: Captured) -> None:
        self._text = text
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        chunk = bytes(memoryview(data))
        self._text.write(self._decoder.decode(chunk))
        return len(chunk)


class Captured(io.TextIOBase):
    """What the learner's code prints while it serves a request: kept for the reply, up to CAPTURE_MAX.

    Past that the text goes on to the learner process's own stdout (the job's output pipe), where
    the supervisor's output limit ends the job (``output_limit``), as in a plain run, instead of a
    buffer growing until the memory limit ends it.
    """

    encoding = "utf-8"

    def __init__(self, through: Any) -> None:
        self._through = through
        self._parts: list[str] = []
        self._size = 0
        self.spilled = False
        self.buffer = _CapturedBytes(self)  # sys.stdout.buffer.write(b"...") works as in a plain run

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if self.spilled:
            return int(self._through.write(text))
        self._parts.append(text)
        self._size += len(text)
        if self._size > CAPTURE_MAX:
            self.spilled = True
            held, self._parts = "".join(self._parts), []
            self._through.write(held)
            self._through.flush()
        return len(text)

    def flush(self) -> None:
        if self.spilled:
            self._through.flush()

    def getvalue(self) -> str:
        return "".join(self._parts)


class Peer:
    """One end of the conversation: sends requests, serves the other side's while waiting."""

    def __init__(self, read_fd: int, write_fd: int, *, learner: bool, user_path: str) -> None:
        self.read_fd = read_fd
        self.write_fd = write_fd
        self.learner = learner
        self.user_path = user_path
        self.exports: dict[int, Any] = {}
        self._export_ids: dict[int, int] = {}
        self._next_id = 1
        self.proxies: dict[int, Any] = {}
        self.gone = False
        self._ended = True
        self._gone_text: str | None = None
        self.shared = SharedState()
        self.names_sent: set[str] = set()
        self.shared_test_classes: frozenset[str] = frozenset()  # the test's classes the grader rebuilds (grader side)
        self.names_received: dict[int, str] = {}
        self.module: types.ModuleType | None = None  # the learner's module (learner side)
        self.on_error: Callable[[BaseException], None] | None = None
        self._test_source: str | None = None
        self._test_module: types.ModuleType | None = None
        self.dtypes: dict[str, Any] | None = None  # the wire's dtypes by name (see ``tensors``)
        # The grader waits for the learner's replies until ``deadline`` (time.monotonic()) at most,
        # so it can still report before the job's wall limit, whatever the learner's code does.
        self.deadline: float | None = None
        self.overdue_text = OVERDUE
        self.prefetched: dict[str, Any] = {}  # the learner module's data sent ahead (grader side)

    # --- transport -------------------------------------------------------------------------------
    def _send(self, msg: Request | Reply) -> None:
        try:
            _wire.send(self.write_fd, cast(dict[str, Any], msg))
        except (OSError, _wire.WireError) as exc:
            self.gone = True
            raise PeerGone(ended=isinstance(exc, OSError)) from None

    def _recv(self) -> dict[str, Any]:
        if self.gone:
            raise PeerGone(ended=self._ended, text=self._gone_text)
        try:
            if self.learner:
                return _wire.recv(self.read_fd, MAX_FRAME)
            return _wire.recv_counted(self.read_fd, MAX_REPLY_FRAME, MAX_CONTAINERS, self.deadline)
        except _wire.Overdue:
            self.gone = True
            self._ended = False
            self._gone_text = self.overdue_text
            raise PeerGone(ended=False, text=self.overdue_text) from None
        except _wire.OverBudget:
            self.gone = True
            self._ended = False
            self._gone_text = TOO_LARGE
            raise PeerGone(ended=False, text=TOO_LARGE) from None
        except (EOFError, OSError, _wire.WireError, RecursionError, MemoryError) as exc:
            self.gone = True
            self._ended = isinstance(exc, (EOFError, OSError))
            raise PeerGone(ended=self._ended) from None

    def request(self, msg: Request) -> Reply:
        """Send a request; serve the other side's requests until its reply arrives."""
        if not (msg.get("op") == "get" and msg.get("h") == 0):
            self.prefetched.clear()  # a request that runs the learner's code may change its module
        msg["state"] = self.shared.outgoing()
        grad = self.shared.grad_mode()
        self._send(msg)
        while True:
            frame = self._recv()
            if frame.get("op") == "reply":
                reply = cast(Reply, frame)
                if self.learner:
                    self.shared.incoming(reply.get("state"))
                else:  # the grader's grad mode and random numbers stay its own
                    self.shared.restore(grad, reply.get("state"))
                    if msg.get("op") == "load" and reply.get("ok"):
                        self._keep_globals(reply.get("globals"))
                return reply
            self._serve_one(cast(Request, frame))

    def serve_forever(self) -> NoReturn:
        """Answer requests until the other side goes away (learner side)."""
        while True:
            try:
                frame = self._recv()
            except PeerGone:
                raise SystemExit(0) from None
            self._serve_one(cast(Request, frame))

    def _serve_one(self, req: Request) -> None:
        torch = sys.modules.get("torch")
        if self.learner or torch is None:
            self.shared.incoming(req.get("state"))
            self._serve_request(req)
            return
        # A callback of the test's (a function it lent) runs with the learner's random state, as in
        # one program; the test's own generator is put back afterwards, so it never adopts it.
        own = torch.get_rng_state()
        self.shared.incoming(req.get("state"))
        try:
            self._serve_request(req)
        finally:
            torch.set_rng_state(own)
            self.shared.rng = b""

    def _serve_request(self, req: Request) -> None:
        saved = sys.stdout
        captured = Captured(saved)
        if self.learner:
            sys.stdout = captured
        reply: Reply
        try:
            reply = handle(self, req)
        except PeerGone:
            raise
        except BaseException as exc:
            if self.learner and isinstance(exc, Refused):  # a budget of the bridge's, worded as the grader does
                text = TOO_LARGE if isinstance(exc, TooLarge) else f"{CANNOT_CHECK}: {exc}"
                exc = RuntimeError(text)
            reply = {"op": "reply", "ok": False, "exc": describe(self, exc)}
        finally:
            if self.learner and sys.stdout is captured:
                sys.stdout = saved
        reply["op"] = "reply"
        reply["out"] = captured.getvalue()
        reply["state"] = self.shared.outgoing()
        try:
            self._send(reply)
        except PeerGone:
            if self.learner:
                raise SystemExit(0) from None
            raise

    def load_test_module(self) -> types.ModuleType | None:
        """Load the test's shared classes here (learner side), so their objects can be rebuilt from data."""
        if self._test_module is None and self._test_source is not None:
            module = types.ModuleType("test_code")
            module.__file__ = os.path.join(os.path.dirname(self.user_path), "test_code.py")
            sys.modules["test_code"] = module
            self._test_module = module
            exec(compile(self._test_source, module.__file__, "exec", dont_inherit=True), module.__dict__)  # noqa: S102
        return self._test_module

    # --- exports ---------------------------------------------------------------------------------
    def export(self, obj: Any) -> int:
        """Return the handle of a local object the other side may use."""
        key = id(obj)
        h = self._export_ids.get(key)
        if h is not None and self.exports.get(h) is obj:
            return h
        h = self._next_id
        self._next_id += 1
        if len(self.exports) > MAX_ITEMS:
            raise Refused("too many handles")
        self.exports[h] = obj
        self._export_ids[key] = h
        return h

    def release(self, h: Any) -> None:
        """Forget an exported object the other side no longer holds."""
        obj = self.exports.pop(h, None)
        if obj is not None:
            self._export_ids.pop(id(obj), None)

    # --- errors ----------------------------------------------------------------------------------
    def describe(self, exc: BaseException) -> ErrorFields:
        """Return an exception as data, with the learner's line when it happened in their file."""
        return describe(self, exc)

    def rebuild(self, fields: ErrorFields) -> BaseException:
        """Return a local exception standing for one raised on the other side (grader side)."""
        return rebuild(self, fields)

    # --- grader-side calls -------------------------------------------------------------------
    def call_remote(
        self, h: int, args: tuple[Any, ...], kwargs: dict[str, Any], name: str | None = None
    ) -> Any:
        """Call a remote object (or its method ``name``) with copies of the arguments."""
        enc = Encoder(self)
        req: Request = {"op": "call", "h": h, "args": enc.encode(args), "kwargs": enc.encode(kwargs)}
        if name:
            req["name"] = name
        reply = self.request(req)
        return self.finish(reply, enc.objects)

    def get_remote(self, h: int, name: str) -> Any:
        """Read an attribute of a remote object (of the learner's module: sent ahead when plain data)."""
        if h == 0 and name in self.prefetched:
            return self.finish({"op": "reply", "ok": True, "value": self.prefetched[name]}, [])
        return self.finish(self.request({"op": "get", "h": h, "name": name}), [])

    def _keep_globals(self, entries: Any) -> None:
        """Keep the module data a load's reply carried, until the next request (grader side)."""
        if not isinstance(entries, list):
            return
        for entry in entries[:MAX_ITEMS]:
            if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str):
                self.prefetched[entry[0]] = entry[1]

    def load_remote(self, code: str) -> None:
        """Run the learner's file afresh in the learner process; its printed text is printed here."""
        self.finish(self.request({"op": "load", "code": code}), [])

    def finish(self, reply: Reply, sent: list[Any]) -> Any:
        out = reply.get("out")
        if isinstance(out, str) and out:
            with contextlib.suppress(Exception):
                sys.stdout.write(out[:CAPTURE_MAX])
        if not reply.get("ok"):
            exc = reply.get("exc")
            raise rebuild(
                self, exc if isinstance(exc, dict) else {"type": "RuntimeError", "message": "failed"}
            )
        try:
            dec = Decoder(self, sent=sent)
            value = dec.decode(reply.get("value"))
            dec.apply_back(reply.get("back"))
        except TooLarge:
            raise RuntimeError(TOO_LARGE) from None
        except Refused as exc:
            raise RuntimeError(f"{CANNOT_CHECK}: {exc}") from None
        return value
