"""Talk between the grader process and the learner process: values travel as data, the rest by handle.

A graded job runs in two processes. The learner process runs the submission and nothing else; the
grader process runs the test module and holds the results channel, and never runs a line the
learner wrote. Each side is a :class:`Peer` over a pair of pipes; either may call the other while a
call of its own is waiting (a learner's function may call a hook the test registered).

What crosses is data, decoded without running any code of the sender:

- ``None``, booleans, numbers, strings, bytes, tuples, lists, dicts, sets (subclasses arrive as the
  plain type: a ``float`` subclass is a ``float``);
- tensors as dtype, shape, bytes, ``requires_grad``, ``grad`` (a Tensor subclass arrives as a plain
  tensor, so whatever its methods claim, its data is what is judged);
- objects of torch's classes and of the test module's classes, as their class name and attribute
  dictionary (the receiver builds them from its own class, without calling ``__init__``);
  torch generators by their state; functions, classes and modules of trusted modules by name;
- anything else (a function, class or object the learner defined) as a *handle*: the receiver gets
  a stand-in whose use is a call back to the owner, answered with data or another handle.

A call carries its arguments by copy; the callee sends back, with the result, the new state of
every mutable argument (a model trained in place, a list appended to, a tensor's ``grad``), and the
caller applies it in place, so both processes see one program. torch's random generator and
grad mode travel with each call, so seeding before a call and ``torch.no_grad()`` around one behave
as in one process.
"""

from __future__ import annotations

import base64
import builtins
import collections
import contextlib
import io
import os
import sys
import time
import types
from collections.abc import Callable, Iterator
from typing import Any, Literal, NoReturn, TypedDict, cast

from . import _wire

MAX_DEPTH = 48
MAX_NODES = 200_000
MAX_FRAME = 32 * 1024 * 1024  # what the learner takes from the grader
MAX_REPLY_FRAME = 16 * 1024 * 1024  # what the grader takes from the learner
MAX_CONTAINERS = 400_000  # arrays and objects in one frame, counted before it is parsed
MAX_COLLISIONS = 32  # set items or dict keys of one hash value
MAX_DECODE_S = 0.5  # CPU seconds the grader spends building one frame's values
TOO_LARGE = "your function returned something too large to check"
# Exceptions that steer the caller's control flow: from learner code they arrive as a RuntimeError.
CONTROL_FLOW = ("StopIteration", "StopAsyncIteration", "GeneratorExit", "KeyboardInterrupt", "SystemExit")
MAX_TEXT = 4000
MAX_ITEMS = 100_000
TRUSTED_PREFIXES = ("torch", "collections")
_TRUSTED_FUNCTION_MODULES = ("torch", "builtins", "math", "operator", "functools", "collections")
_PLAIN_FACTORIES: dict[str, type] = {"list": list, "dict": dict, "set": set, "int": int, "float": float}
_ATOMS = (type(None), bool, int, float, str)
_FUNCTION_TYPES = (
    types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.BuiltinMethodType, types.LambdaType,
)  # fmt: skip


class PeerGone(Exception):
    """The other process ended or broke the protocol; nothing more can be asked of it."""

    def __init__(self, ended: bool = True, text: str | None = None) -> None:
        super().__init__(
            text
            or (
                "your program ended before this test could check it"
                if ended
                else "your program sent the grader data it could not read"
            )
        )


class Refused(Exception):
    """A value that may not cross (too deep, too large, of an unknown kind)."""


class TooLarge(Refused):
    """A value over one of the grader's budgets (size, depth, nodes, decode time)."""

    def __init__(self) -> None:
        super().__init__(TOO_LARGE)


class RemoteControlFlow(RuntimeError):
    """A control-flow exception (``StopIteration`` ...) raised by learner code, as a plain error."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"your code raised {kind}" + (f": {message}" if message else ""))
        self.kind = kind


def _tensor_dtypes() -> dict[str, Any]:
    import torch

    names = (
        "float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool",
        "complex64", "complex128",
    )  # fmt: skip
    return {name: getattr(torch, name) for name in names}


# --- wire shapes ---------------------------------------------------------------------------------
Op = Literal["load", "get", "call", "grad", "reply", "release"]


class SyncState(TypedDict):
    """Process-wide torch state that travels with every call."""

    grad: bool
    rng: str


class Request(TypedDict, total=False):
    """One call to the other side (``op`` is the discriminator)."""

    op: Op
    state: SyncState
    h: int
    name: str
    args: Any
    kwargs: Any
    code: str
    classes: str
    main: bool


class ErrorFields(TypedDict, total=False):
    """An exception raised on the other side, as data."""

    type: str
    bases: list[str]
    message: str
    args: Any
    line: int | None
    col: int | None
    source: str | None
    exit: Any


class Reply(TypedDict, total=False):
    """The answer to a request: a value (or an error), the arguments' new state, printed text."""

    op: Op
    ok: bool
    value: Any
    back: Any
    exc: ErrorFields
    out: str
    state: SyncState


# --- the peer ------------------------------------------------------------------------------------
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
        self.shared = _SharedState()
        self.names_sent: set[str] = set()
        self.names_received: dict[int, str] = {}
        self.module: types.ModuleType | None = None  # the learner's module (learner side)
        self.on_error: Callable[[BaseException], None] | None = None
        self._test_source: str | None = None
        self._test_module: types.ModuleType | None = None
        self._dtypes: dict[str, Any] | None = None

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
            return _wire.recv_counted(self.read_fd, MAX_REPLY_FRAME, MAX_CONTAINERS)
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

    # --- serving ---------------------------------------------------------------------------------
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
        captured = io.StringIO()
        saved = sys.stdout
        if self.learner:
            sys.stdout = captured
        reply: Reply
        try:
            reply = self._handle(req)
        except PeerGone:
            raise
        except BaseException as exc:
            reply = {"op": "reply", "ok": False, "exc": self.describe(exc)}
        finally:
            if self.learner and sys.stdout is captured:
                sys.stdout = saved
        reply["op"] = "reply"
        reply["out"] = captured.getvalue()[: 1 << 20]
        reply["state"] = self.shared.outgoing()
        try:
            self._send(reply)
        except PeerGone:
            if self.learner:
                raise SystemExit(0) from None
            raise

    def _handle(self, req: Request) -> Reply:
        op = req.get("op")
        if not self.learner and (op != "call" or req.get("name")):
            # The grader only lends callables (a hook, a function the test passed): they may be
            # called, never searched for attributes or methods that reach the grader's state.
            raise Refused("the grader only answers calls of what it passed")
        if op == "load":
            self._load(str(req.get("code", "")), bool(req.get("main")), req.get("classes"))
            return {"op": "reply", "ok": True, "value": None}
        if op == "release":
            for h in req.get("args") or []:
                obj = self.exports.pop(h, None)
                if obj is not None:
                    self._export_ids.pop(id(obj), None)
            return {"op": "reply", "ok": True, "value": None}
        if op == "get":
            target = self._target(req)
            value = getattr(target, str(req.get("name")))
            enc = Encoder(self)
            return {"op": "reply", "ok": True, "value": enc.encode(value)}
        if op == "call":
            target = self._target(req)
            dec = Decoder(self)
            args = dec.decode(req.get("args"))
            kwargs = dec.decode(req.get("kwargs"))
            if not isinstance(args, tuple) or not isinstance(kwargs, dict):
                raise Refused("malformed call")
            name = req.get("name")
            operation = _OPERATIONS.get(str(name)) if name else None
            if operation is not None:
                value = operation(target, *args)
            else:
                fn = getattr(target, name) if name else target
                value = fn(*args, **kwargs)
            enc = Encoder(self, incoming=dec.objects)
            encoded = enc.encode(value)
            back = enc.write_back()
            return {"op": "reply", "ok": True, "value": encoded, "back": back}
        if op == "grad" and self.learner:
            record = self._target(req)
            if not isinstance(record, _History):
                raise Refused("not a tensor's history")
            dec = Decoder(self)
            grad_output = dec.decode(req.get("args"))
            import torch

            wanted = [t for t in record.inputs if _is_tensor(t) and t.requires_grad]
            grads: list[Any] = []
            if wanted:
                found = torch.autograd.grad(
                    [record.tensor], wanted, grad_outputs=[grad_output], allow_unused=True, retain_graph=True
                )
                grads = list(found)
            by_input = iter(grads)
            out = [next(by_input) if (_is_tensor(t) and t.requires_grad) else None for t in record.inputs]
            return {"op": "reply", "ok": True, "value": Encoder(self, strict=True).encode(tuple(out))}
        raise Refused(f"unknown request {op!r}")

    def _target(self, req: Request) -> Any:
        h = req.get("h")
        if h == 0 and self.learner:
            if self.module is None:
                raise Refused("the module is not loaded")
            return self.module
        if not isinstance(h, int) or h not in self.exports:
            raise Refused("unknown handle")
        return self.exports[h]

    def _load(self, code: str, main: bool, classes: Any) -> None:
        """Run the learner's file as the module ``user_code`` (learner side).

        ``classes`` is the test module with everything but its imports and the classes it may hand
        the learner's functions (a model to train) blanked out: never the tests themselves.
        """
        if isinstance(classes, str):
            self._test_source = classes
        name = "__main__" if main else "user_code"
        module = types.ModuleType(name)
        module.__file__ = self.user_path
        module.__builtins__ = builtins  # type: ignore[attr-defined]
        sys.modules[name] = module
        self.module = module
        try:
            compiled = compile(code, self.user_path, "exec", dont_inherit=True)
            exec(compiled, module.__dict__)  # noqa: S102 - this process exists to run the learner's code
        except BaseException as exc:
            if self.on_error is not None:
                self.on_error(exc)
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

    # --- errors ----------------------------------------------------------------------------------
    def describe(self, exc: BaseException) -> ErrorFields:
        """Return an exception as data, with the learner's line when it happened in their file."""
        from traceback import extract_tb

        fields: ErrorFields = {
            "type": type(exc).__name__[:200],
            "bases": [c.__name__ for c in type(exc).__mro__ if c.__module__ == "builtins"][:20],
            "message": _clip(_safe_str(exc)),
            "line": None,
            "col": None,
            "source": None,
        }
        if isinstance(exc, SystemExit):
            fields["exit"] = exc.code if isinstance(exc.code, (int, str, type(None))) else str(exc.code)
        try:
            fields["args"] = Encoder(self, strict=True).encode(tuple(exc.args))
        except Exception:
            fields["args"] = None
        if isinstance(exc, SyntaxError) and exc.filename in (self.user_path, None):
            fields["message"] = _clip(str(exc.msg))
            fields["line"] = exc.lineno
            fields["col"] = exc.offset
            fields["source"] = (exc.text or "").rstrip("\r\n")[:400] or None
            return fields
        for summary in extract_tb(exc.__traceback__):
            if summary.filename == self.user_path:
                fields["line"] = summary.lineno
                colno = getattr(summary, "colno", None)
                fields["col"] = colno + 1 if isinstance(colno, int) else None
                fields["source"] = (summary.line or "")[:400] or None
        if fields["source"] is not None and isinstance(fields["line"], int):
            fields["source"] = _source_line(self.user_path, fields["line"]) or fields["source"]
        return fields

    def rebuild(self, fields: ErrorFields) -> BaseException:
        """Return a local exception standing for one raised on the other side (grader side)."""
        name = str(fields.get("type") or "Exception")[:200]
        message = _clip(str(fields.get("message") or ""))
        base: type[BaseException] = Exception
        for candidate in fields.get("bases") or []:
            found = getattr(builtins, str(candidate), None)
            if isinstance(found, type) and issubclass(found, BaseException):
                base = found
                break
        args: Any = None
        with contextlib.suppress(Exception):
            args = Decoder(self, strict=True).decode(fields.get("args"))
        exc: BaseException
        control = next((getattr(builtins, n) for n in CONTROL_FLOW if issubclass(base, getattr(builtins, n))), None)
        if not self.learner and (control is not None or issubclass(base, BaseExceptionGroup)):
            # Rebuilt faithfully, a StopIteration would quietly end the test's map() or generator,
            # and a SystemExit or KeyboardInterrupt would end the grader: a plain error names it.
            exc = RemoteControlFlow(name if control is None else control.__name__, message)
        elif getattr(builtins, name, None) is base:
            exc = _make_exception(base, args, message, fields)
        else:
            cls = type(name, (base,), {"__module__": "user_code", "__str__": lambda self: message})
            try:
                exc = cls(*args) if isinstance(args, tuple) else cls(message)
            except Exception:
                exc = RuntimeError(f"{name}: {message}" if message else name)
        line = fields.get("line")
        if isinstance(line, int) and 0 < line < 100_000:
            exc = _raised_at(exc, self.user_path, line)
        return exc

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
        return self._finish(reply, enc.objects)

    def get_remote(self, h: int, name: str) -> Any:
        """Read an attribute of a remote object."""
        return self._finish(self.request({"op": "get", "h": h, "name": name}), [])

    def load_remote(self, code: str) -> None:
        """Run the learner's file afresh in the learner process; its printed text is printed here."""
        self._finish(self.request({"op": "load", "code": code}), [])

    def _finish(self, reply: Reply, sent: list[Any]) -> Any:
        out = reply.get("out")
        if isinstance(out, str) and out:
            with contextlib.suppress(Exception):
                sys.stdout.write(out[: 1 << 20])
        if not reply.get("ok"):
            exc = reply.get("exc")
            raise self.rebuild(
                exc if isinstance(exc, dict) else {"type": "RuntimeError", "message": "failed"}
            )
        try:
            dec = Decoder(self, sent=sent)
            value = dec.decode(reply.get("value"))
            dec.apply_back(reply.get("back"))
        except TooLarge:
            raise RuntimeError(TOO_LARGE) from None
        except Refused as exc:
            raise RuntimeError(f"the value your code returned cannot be checked: {exc}") from None
        return value


# --- synchronised torch state ------------------------------------------------------------------
class _SharedState:
    """torch's generator state and grad mode as both sides last agreed on them.

    The generator's state (5 KB) travels only when it changed since the last message either way.
    """

    def __init__(self) -> None:
        self.rng: bytes = b""

    def outgoing(self) -> SyncState:
        torch = sys.modules.get("torch")
        if torch is None:
            return {"grad": True, "rng": ""}
        raw = torch.get_rng_state().numpy().tobytes()
        if raw == self.rng:
            return {"grad": bool(torch.is_grad_enabled()), "rng": ""}
        self.rng = raw
        return {"grad": bool(torch.is_grad_enabled()), "rng": base64.b64encode(raw).decode()}

    def incoming(self, state: Any, *, adopt_rng: bool = True) -> None:
        """Take the other side's grad mode, and its random state when ``adopt_rng`` (learner side)."""
        torch = sys.modules.get("torch")
        if torch is None or not _valid_state(state):
            return
        torch.set_grad_enabled(state["grad"])
        if state["rng"] and not adopt_rng:
            self.rng = b""  # the other side's generator moved on: send ours again with the next call
        elif state["rng"]:
            with contextlib.suppress(Exception):
                raw = base64.b64decode(state["rng"].encode())
                torch.set_rng_state(torch.frombuffer(bytearray(raw), dtype=torch.uint8))
                self.rng = raw

    def grad_mode(self) -> bool:
        torch = sys.modules.get("torch")
        return True if torch is None else bool(torch.is_grad_enabled())

    def restore(self, grad: bool, state: Any) -> None:
        """Keep this side's random state after a reply (grader side); grad mode follows as in one program.

        A learner function that turns gradients off and leaves them off does so for the test too
        (an exercise checks exactly that); its random numbers never become the test's.
        """
        self.incoming(state, adopt_rng=False)
        torch = sys.modules.get("torch")
        if torch is not None and _valid_state(state) and state["rng"]:
            # The learner drew from the global generator: the grader's moves on too (one draw of its
            # own sequence), so a test can see the global state was used, but not steer its values.
            torch.rand(1)


def _valid_state(state: Any) -> bool:
    return (
        isinstance(state, dict) and isinstance(state.get("grad"), bool) and isinstance(state.get("rng"), str)
    )


# --- encoding ------------------------------------------------------------------------------------
class Encoder:
    """Turn a value into JSON-able data, exporting handles for what cannot travel as data."""

    def __init__(self, peer: Peer, *, incoming: list[Any] | None = None, strict: bool = False) -> None:
        self.peer = peer
        self.strict = strict
        self.memo: dict[int, int] = {}
        self.objects: list[Any] = []
        self.incoming = {id(o): i for i, o in enumerate(incoming or [])}
        self._incoming_objects = incoming or []
        self.nodes = 0
        self._storages: dict[int, int] | None = None
        self._fresh = False
        self.handles = 0

    def encode(self, value: Any, depth: int = 0) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES or depth > MAX_DEPTH:
            raise Refused("the value is too large or too deeply nested")
        tp = type(value)
        if tp in _ATOMS:
            if tp is str and len(value) > MAX_FRAME // 4:
                raise Refused("a string is too long")
            return value
        if isinstance(value, bool):
            return bool(value)
        if isinstance(value, int):
            return int.__int__(value)  # a subclass arrives as the plain value, whatever it overrides
        if isinstance(value, float):
            return float.__float__(value)
        if isinstance(value, str):
            return str.__str__(value)
        key = id(value)
        if key in self.incoming:
            return {"$": "r", "i": self.incoming[key]}
        if key in self.memo:
            return {"$": "m", "i": self.memo[key]}
        if isinstance(value, Proxy) and value._sb_peer is self.peer:
            return {"$": "y", "h": value._sb_handle}  # "yours": the other side's own object
        return self._compound(value, depth)

    def _may_name(self, value: Any, name: str) -> bool:
        """Return True when a function or module may be sent by name rather than as a handle.

        The grader names torch's functions freely. The learner names only those the grader named
        to it: the grader accepts no other function or module by name, since a function it would
        look up itself (``builtins:exec``) and then call with the learner's data would run the
        learner's code in the grader.
        """
        if not self.peer.learner:
            self.peer.names_sent.add(name)
            return True
        return self.peer.names_received.get(id(value)) == name

    def _remember(self, value: Any) -> int:
        index = len(self.objects)
        self.memo[id(value)] = index
        self.objects.append(value)
        return index

    def _compound(self, value: Any, depth: int) -> Any:
        tp = type(value)
        torch = sys.modules.get("torch")
        if _is_tensor(value):
            return self._tensor(value, depth)
        if tp is complex:
            return {"$": "c", "v": [value.real, value.imag]}
        if isinstance(value, (bytes, bytearray)):
            if len(value) > MAX_FRAME // 2:
                raise Refused("bytes too long")
            return {"$": "b", "v": base64.b64encode(bytes(value)).decode()}
        if torch is not None:
            if isinstance(value, torch.Size):
                return {"$": "size", "v": [int(v) for v in value]}
            if isinstance(value, torch.dtype):
                return {"$": "dtype", "v": str(value).removeprefix("torch.")}
            if isinstance(value, torch.device):
                return {"$": "device", "v": str(value)}
            if isinstance(value, torch.Generator):
                i = self._remember(value)
                state = value.get_state().numpy().tobytes()
                return {"$": "gen", "i": i, "v": base64.b64encode(state).decode()}
        if isinstance(value, tuple) and not hasattr(value, "_fields"):
            if len(value) > MAX_ITEMS:
                raise Refused("too many items")
            return {"$": "tuple", "v": [self.encode(v, depth + 1) for v in tuple.__iter__(value)]}
        if isinstance(value, list) and tp in (list,):
            i = self._remember(value)
            return {"$": "list", "i": i, "v": self._items(list.__iter__(value), depth)}
        if tp in (collections.OrderedDict, collections.defaultdict, dict):
            i = self._remember(value)
            out: dict[str, Any] = {"$": "dict", "i": i, "v": self._pairs(value, depth)}
            if tp is collections.OrderedDict:
                out["kind"] = "od"
            elif tp is collections.defaultdict:
                factory = value.default_factory
                name = next((k for k, f in _PLAIN_FACTORIES.items() if f is factory), None)
                if factory is not None and name is None:
                    return self._handle(value)
                out["kind"] = "dd"
                out["f"] = name
            return out
        if tp in (set, frozenset):
            i = self._remember(value) if tp is set else -1
            return {"$": tp.__name__, "i": i, "v": self._items(iter(value), depth)}
        if tp is slice:
            return {
                "$": "slice",
                "v": [self.encode(x, depth + 1) for x in (value.start, value.stop, value.step)],
            }
        if tp is range:
            return {"$": "range", "v": [value.start, value.stop, value.step]}
        if value is Ellipsis:
            return {"$": "ellipsis"}
        if isinstance(value, types.ModuleType):
            name = getattr(value, "__name__", "")
            if _trusted_module_name(name) and sys.modules.get(name) is value and self._may_name(value, name):
                return {"$": "mod", "v": name}
            return self._handle(value)
        named = _trusted_name(value)
        if named is not None and not isinstance(value, type) and named.startswith("test_code:"):
            return self._handle(value)  # the learner never gets the test's functions: it may call them
        if named is not None and (isinstance(value, type) or self._may_name(value, named)):
            return {"$": "name", "v": named}
        if isinstance(value, type):
            return self._handle(value)
        cls_name = _state_class_name(tp, self.peer.learner)
        if cls_name is not None:
            state = getattr(value, "__dict__", None)
            if isinstance(state, dict):
                mark, handles = len(self.objects), self.handles
                i = self._remember(value)
                out = {"$": "o", "i": i, "c": cls_name, "v": self._pairs(state, depth)}
                if not self.peer.learner or self.handles == handles:
                    return out
                # The grader rebuilds an object only from data: one holding a function or an object
                # of the learner's goes as a handle instead (its class still claimed).
                for obj in self.objects[mark:]:
                    self.memo.pop(id(obj), None)
                del self.objects[mark:]
        if self.strict:
            raise Refused(f"a {tp.__name__} cannot be sent")
        return self._handle(value)

    def _items(self, items: Iterator[Any], depth: int) -> list[Any]:
        out = []
        for n, item in enumerate(items):
            if n >= MAX_ITEMS:
                raise Refused("too many items")
            out.append(self.encode(item, depth + 1))
        return out

    def _pairs(self, mapping: dict[Any, Any], depth: int) -> list[Any]:
        out = []
        for n, (k, v) in enumerate(dict.items(mapping)):
            if n >= MAX_ITEMS:
                raise Refused("too many items")
            out.append([self.encode(k, depth + 1), self.encode(v, depth + 1)])
        return out

    def _tensor(self, value: Any, depth: int) -> Any:
        import torch

        _TENSOR: Any = torch.Tensor  # its descriptors, read past whatever a subclass overrides
        i = self._remember(value)
        with torch._C.DisableTorchFunctionSubclass(), torch.no_grad():
            plain = torch.Tensor.detach(value)
            view = self._view_of_incoming(plain)
            if view is not None and not _TENSOR.requires_grad.__get__(value):
                return {"$": "view", "i": i, **view}
            if plain.device.type == "meta":  # shape and dtype only: a meta tensor has no data to lie with
                meta: dict[str, Any] = {
                    "$": "t",
                    "i": i,
                    "dt": str(plain.dtype).removeprefix("torch."),
                    "sh": [int(s) for s in plain.shape],
                    "v": "",
                    "dev": "meta",
                }
                if _TENSOR.requires_grad.__get__(value):
                    meta["rg"] = True
                return meta
            if plain.layout != torch.strided:
                plain = plain.to_dense()
            if plain.device.type != "cpu" or plain.is_quantized:
                raise Refused("only CPU and meta tensors can be sent")
            dtype = str(plain.dtype).removeprefix("torch.")
            flat = plain.contiguous().reshape(-1)
            raw = flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b""
            shape = [int(s) for s in plain.shape]
            requires_grad = bool(_TENSOR.requires_grad.__get__(value))
            leaf = _TENSOR.is_leaf.__get__(value) or _TENSOR.retains_grad.__get__(value)
            grad = _TENSOR._grad.__get__(value) if leaf else None
            is_param = isinstance(value, torch.nn.Parameter)
        if len(raw) > MAX_FRAME // 2:
            raise Refused("a tensor is too large")
        out: dict[str, Any] = {
            "$": "t",
            "i": i,
            "dt": dtype,
            "sh": shape,
            "v": base64.b64encode(raw).decode(),
        }
        if requires_grad:
            out["rg"] = True
        if grad is not None:
            out["g"] = self.encode(grad, depth + 1)
        if is_param:
            out["p"] = True
        version = int(_TENSOR._version.__get__(value))
        if version:
            out["ver"] = version  # tests read it to see in-place updates; data like any other
        if (
            self.peer.learner
            and requires_grad
            and _TENSOR.grad_fn.__get__(value) is not None
            and not self.strict
        ):
            inputs = [o for o in self._incoming_objects if _is_tensor(o)]
            record = _History(value, inputs)
            out["gf"] = {"h": self.peer.export(record), "in": [self.incoming[id(o)] for o in inputs]}
        hooks = getattr(value, "_backward_hooks", None) if not self.peer.learner else None
        if isinstance(hooks, dict) and hooks and not self.strict:
            out["hk"] = [self.encode(h, depth + 1) for h in hooks.values()]
        return out

    def _view_of_incoming(self, plain: Any) -> dict[str, Any] | None:
        """Describe a tensor that shares memory with one the caller sent (a ``state_dict`` entry)."""
        if not self.peer.learner or not self._incoming_objects or self._fresh:
            return None
        if self._storages is None:
            self._storages = {}
            for n, o in enumerate(self._incoming_objects):
                if _is_tensor(o):
                    with contextlib.suppress(Exception):
                        self._storages.setdefault(o.untyped_storage().data_ptr(), n)
        try:
            ptr = plain.untyped_storage().data_ptr()
        except Exception:
            return None
        base = self._storages.get(ptr)
        if base is None or not ptr:
            return None
        source = self._incoming_objects[base]
        if source.dtype != plain.dtype:
            return None
        return {
            "base": base,
            "sh": [int(s) for s in plain.shape],
            "st": [int(s) for s in plain.stride()],
            "off": int(plain.storage_offset()),
        }

    def _handle(self, value: Any) -> Any:
        if self.strict or (not self.peer.learner and not callable(value)):
            raise Refused(f"a {type(value).__name__} cannot be sent")
        h = self.peer.export(value)
        self.handles += 1
        out: dict[str, Any] = {"$": "h", "h": h, "n": _clip(str(getattr(value, "__name__", "")), 200)}
        if isinstance(value, type):
            out["k"] = "class"
            out["b"] = [n for n in (_trusted_name(b) for b in value.__mro__[1:]) if n is not None][:30]
            out["q"] = _clip(str(getattr(value, "__qualname__", value.__name__)), 200)
            doc = value.__doc__ if isinstance(value.__doc__, str) else None
            if doc:
                out["d"] = _clip(doc)
        elif isinstance(value, _FUNCTION_TYPES):
            out["k"] = "function"
        else:
            out["k"] = "object"
            out["call"] = callable(value)
            out["c"] = self.encode(type(value))
        return out

    def write_back(self) -> list[Any]:
        """Return the new state of every mutable object the call received."""
        out = []
        for i, obj in enumerate(self._incoming_objects):
            state = self._state(obj)
            if state is not None:
                out.append([i, state])
        return out

    def _state(self, obj: Any) -> Any:
        tp = type(obj)
        if _is_tensor(obj):
            return self._compound_fresh(obj)
        if tp is list:
            return {"$": "list", "v": self._items(list.__iter__(obj), 0)}
        if tp in (dict, collections.OrderedDict, collections.defaultdict):
            return {"$": "dict", "v": self._pairs(obj, 0)}
        if tp is set:
            return {"$": "set", "v": self._items(iter(obj), 0)}
        torch = sys.modules.get("torch")
        if torch is not None and isinstance(obj, torch.Generator):
            return {"$": "gen", "v": base64.b64encode(obj.get_state().numpy().tobytes()).decode()}
        state = getattr(obj, "__dict__", None)
        if isinstance(state, dict) and _state_class_name(tp, self.peer.learner) is not None:
            return {"$": "o", "v": self._pairs(state, 0)}
        return None

    def _compound_fresh(self, obj: Any) -> Any:
        """Encode an incoming tensor's own new data (never as a reference or a view of itself)."""
        saved = self.incoming.pop(id(obj))
        self._fresh = True
        try:
            return self._tensor(obj, 0)
        finally:
            self._fresh = False
            self.incoming[id(obj)] = saved


# --- decoding ------------------------------------------------------------------------------------
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
        if tag == "h" and self.refused is _NOT_WRITTEN_BACK:
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
                factory = _PLAIN_FACTORIES.get(str(data.get("f"))) if data.get("f") is not None else None
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
            return self._tensor(data, depth)
        if tag == "view":
            return self._view(data)
        if tag == "c":
            parts = self._list(v)
            return complex(float(parts[0]), float(parts[1]))
        if tag == "b":
            return base64.b64decode(str(v).encode())
        if tag == "size":
            import torch

            return torch.Size([int(x) for x in self._list(v)])
        if tag == "dtype":
            dtypes = self._dtype_table()
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
            if mod is None or not _trusted_module_name(name):
                raise Refused("unknown module")
            if not self.peer.learner and name not in self.peer.names_sent:
                raise Refused("a module the grader did not send")
            self.peer.names_received[id(mod)] = name
            return mod
        if tag == "name":
            text = str(v)
            found = _resolve_name(text, self.peer)
            if not self.peer.learner and not (
                text in self.peer.names_sent or (isinstance(found, type) and _claimable(found))
            ):
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

    def _dtype_table(self) -> dict[str, Any]:
        if self.peer._dtypes is None:
            self.peer._dtypes = _tensor_dtypes()
        return self.peer._dtypes

    def _tensor(self, data: dict[str, Any], depth: int) -> Any:
        import torch

        dtype = self._dtype_table().get(str(data.get("dt")))
        shape = data.get("sh")
        if dtype is None or not isinstance(shape, list) or not all(type(s) is int and s >= 0 for s in shape):
            raise Refused("malformed tensor")
        if data.get("dev") == "meta":
            if len(shape) > 64:
                raise Refused("malformed tensor")
            t = torch.empty(shape, dtype=dtype, device="meta")
            if data.get("rg") and (t.is_floating_point() or t.is_complex()):
                t.requires_grad_(True)
            self._register(data, t)
            return t
        raw = base64.b64decode(str(data.get("v", "")).encode())
        numel = 1
        for s in shape:
            numel *= s
        itemsize = torch.empty((), dtype=dtype).element_size()
        if numel * itemsize != len(raw):
            raise Refused("a tensor's data does not match its shape")
        if numel:
            t = torch.frombuffer(bytearray(raw), dtype=dtype).reshape(shape).clone()
        else:
            t = torch.empty(shape, dtype=dtype)
        if data.get("p"):
            t = torch.nn.Parameter(t, requires_grad=bool(data.get("rg")))
        elif data.get("rg"):
            t.requires_grad_(True)
        version = data.get("ver")
        if type(version) is int and 0 < version < 2**31:
            torch._C._autograd._unsafe_set_version_counter((t,), (version,))
        self._register(data, t)
        if "g" in data:
            grad = self.decode(data["g"], depth + 1)
            if _is_tensor(grad):
                with contextlib.suppress(RuntimeError):
                    t.grad = grad
        for hook in data.get("hk") or []:
            fn = self.decode(hook, depth + 1)
            if callable(fn) and t.requires_grad:
                t.register_hook(fn)  # type: ignore[no-untyped-call]
        history = data.get("gf")
        if isinstance(history, dict) and not self.peer.learner and not data.get("p"):
            t = self._with_history(t, history)
            self.memo[data["i"]] = t
        return t

    def _with_history(self, t: Any, history: dict[str, Any]) -> Any:
        """Connect a tensor computed by the learner to the graph here: backward asks the learner."""
        h = history.get("h")
        indices = history.get("in")
        if not isinstance(h, int) or not isinstance(indices, list):
            raise Refused("malformed history")
        inputs = []
        for i in indices:
            if not isinstance(i, int) or not 0 <= i < len(self.sent) or not _is_tensor(self.sent[i]):
                raise Refused("malformed history")
            inputs.append(self.sent[i])
        data = t.detach()
        return _remote_backward().apply(self.peer, h, data, _anchor(), *inputs)

    def _view(self, data: dict[str, Any]) -> Any:
        import torch

        base_index = data.get("base")
        if not isinstance(base_index, int) or not 0 <= base_index < len(self.sent):
            raise Refused("unknown reference")
        base = self.sent[base_index]
        shape, stride, offset = data.get("sh"), data.get("st"), data.get("off")
        if not _is_tensor(base) or not isinstance(shape, list) or not isinstance(stride, list):
            raise Refused("malformed view")
        if not isinstance(offset, int) or len(shape) != len(stride):
            raise Refused("malformed view")
        if not all(type(v) is int and v >= 0 for v in [*shape, *stride, offset]):
            raise Refused("malformed view")
        with torch.no_grad():
            try:
                view = torch.as_strided(base.detach(), shape, stride, offset)
            except RuntimeError:
                raise Refused("a view outside its tensor") from None
        self._register(data, view)
        return view

    def _object(self, data: dict[str, Any], depth: int) -> Any:
        cls = _resolve_state_class(str(data.get("c")), self.peer)
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
                    base = _resolve_name(str(base_name), self.peer)
                    if isinstance(base, type) and _subclassable(base) and _claimable(base):
                        bases.append(base)
            proxy = _remote_class(self.peer, h, name, str(data.get("q") or name), bases, data.get("d"))
        else:
            cls = None
            if kind == "object" and "c" in data:
                with contextlib.suppress(Refused):
                    cls = self.decode(data["c"], depth + 1)
            if not (isinstance(cls, type) and _claimable(cls, self.peer)):
                cls = None  # a handle never passes isinstance for a data class (nor any it names)
            is_callable = kind == "function" or data.get("call") is True
            maker = CallableProxy if is_callable else Proxy
            proxy = maker(self.peer, h, name, cls, is_callable)
        self.peer.proxies[h] = proxy
        return proxy

    def apply_back(self, back: Any) -> None:
        """Apply the new states of the objects this side sent with a call.

        On the grader's side only data is taken: a tensor's values, shape, ``requires_grad`` and
        ``grad``; a list's, dict's or set's plain contents; and an object's existing attributes that
        held a plain scalar (a ``training`` flag, a step count), each keeping its type. A function,
        a handle, a generator's state or a new attribute is never written into the grader's objects.
        """
        if back is None:
            return
        updates = []
        for entry in self._list(back):
            if not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[0], int):
                raise Refused("malformed update")
            i, state = entry
            if not 0 <= i < len(self.sent) or not isinstance(state, dict):
                raise Refused("malformed update")
            updates.append((self.sent[i], state))
        if self.peer.learner:
            decoded = [(obj, state.get("$"), self._state_value(state)) for obj, state in updates]
        else:
            decoded = []
            self.refused = _NOT_WRITTEN_BACK
            for obj, state in updates:
                with contextlib.suppress(_NotData):
                    decoded.append((obj, state.get("$"), self._data_state(obj, state)))
        for obj, tag, value in decoded:
            _apply(obj, tag, value)

    def _data_state(self, obj: Any, state: dict[str, Any]) -> Any:
        """Decode one write-back entry as data (grader side); raise _NotData to skip it."""
        tag = state.get("$")
        if tag == "o":
            current = getattr(obj, "__dict__", None)
            if not isinstance(current, dict):
                raise _NotData
            out = {}
            for pair in self._list(state.get("v")):
                self._tick()
                if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], str):
                    raise Refused("malformed object")
                name, value = pair
                old = current.get(name, _MISSING)
                if type(value) in _SCALARS and type(old) is type(value):
                    out[name] = value
                elif type(old) in _CONTAINERS:  # an optimizer's new ``state``, a module's ``_parameters``
                    with contextlib.suppress(_NotData, Refused):
                        saved, self.refused = self.refused, self.refused | {"h"}
                        try:
                            new = self.decode(value, 1)
                        finally:
                            self.refused = saved
                        if type(new) is type(old):
                            out[name] = new
            return out
        if tag not in ("t", "list", "dict", "set"):
            raise _NotData
        try:
            value = self.decode(state)
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
        if any(isinstance(v, _Inert) for v in news) and any(_is_tensor(v) for v in olds):
            raise _NotData  # a marker never takes a tensor's place (a module's ``_parameters``)
        return value

    def _state_value(self, state: dict[str, Any]) -> Any:
        tag = state.get("$")
        if tag == "o":
            out = {}
            for pair in self._list(state.get("v")):
                if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], str):
                    raise Refused("malformed object")
                out[pair[0]] = self.decode(pair[1], 1)
            return out
        if tag == "gen":
            return base64.b64decode(str(state.get("v")).encode())
        return self.decode(state)


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
_NOT_IN_OBJECTS = frozenset({"h", "y"})  # a rebuilt object holds no learner (or lent) callable
_NOT_WRITTEN_BACK = frozenset({"y", "mod", "name", "gen"})


def _apply(obj: Any, tag: Any, value: Any) -> None:
    """Update a local object in place with the state the other side gave it."""
    import torch

    if _is_tensor(obj):
        if not _is_tensor(value):
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


class _History:
    """A learner's tensor kept with the caller's tensors it may depend on, for a later backward."""

    __slots__ = ("inputs", "tensor")

    def __init__(self, tensor: Any, inputs: list[Any]) -> None:
        self.tensor = tensor
        self.inputs = inputs


_REMOTE_BACKWARD: Any = None


def _anchor() -> Any:
    """Return a fresh leaf that requires grad, so a learner's computed tensor keeps a ``grad_fn``."""
    import torch

    return torch.zeros((), requires_grad=True)


def _remote_backward() -> Any:
    """Return the autograd function whose backward pass asks the learner process for gradients."""
    global _REMOTE_BACKWARD
    if _REMOTE_BACKWARD is None:
        import torch

        class RemoteBackward(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, peer: Peer, h: int, data: Any, anchor: Any, *inputs: Any) -> Any:
                ctx.peer, ctx.h, ctx.count = peer, h, len(inputs)
                return data.clone()

            @staticmethod
            def backward(ctx: Any, grad_output: Any) -> Any:
                peer: Peer = ctx.peer
                enc = Encoder(peer, strict=True)
                reply = peer.request({"op": "grad", "h": ctx.h, "args": enc.encode(grad_output.detach())})
                grads = peer._finish(reply, [])
                if not isinstance(grads, tuple) or len(grads) != ctx.count:
                    grads = (None,) * ctx.count
                return (None, None, None, None, *grads)

        _REMOTE_BACKWARD = RemoteBackward
    return _REMOTE_BACKWARD


def _special(name: str) -> Callable[..., Any]:
    import operator

    table: dict[str, Callable[..., Any]] = {
        "__len__": len,
        "__getitem__": operator.getitem,
        "__setitem__": operator.setitem,
        "__contains__": lambda target, item: item in target,
        "__iter__": iter,
        "__next__": next,
        "__bool__": bool,
        "__repr__": repr,
        "__str__": str,
        "__eq__": operator.eq,
        "__format__": format,
        "__float__": float,
        "__int__": int,
        "__index__": operator.index,
        "__setattr__": setattr,
    }
    return table[name]


_OPERATIONS: dict[str, Callable[..., Any]] = {
    name: _special(name)
    for name in (
        "__len__", "__getitem__", "__setitem__", "__contains__", "__iter__", "__next__", "__bool__", "__repr__",
        "__str__", "__eq__", "__format__", "__float__", "__int__", "__index__", "__setattr__",
    )
}  # fmt: skip


# --- stand-ins for the other side's objects ------------------------------------------------------
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


def _remote_class(peer: Peer, h: int, name: str, qualname: str, bases: list[type], doc: Any) -> type:
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


def _subclassable(base: type) -> bool:
    torch = sys.modules.get("torch")
    if torch is not None and issubclass(base, torch.Tensor):
        return False
    return not issubclass(base, BaseException) and base.__flags__ & (1 << 10) != 0  # Py_TPFLAGS_BASETYPE


# --- names -----------------------------------------------------------------------------------------
def _trusted_module_name(name: str) -> bool:
    return name in ("builtins", "math", "collections") or name.split(".")[0] in ("torch", "numpy")


def _trusted_name(value: Any) -> str | None:
    """Return ``module:qualname`` for a function or class that a trusted module owns, else None."""
    if not isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)) and not callable(value):
        return None
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname:
        return None
    if module.split(".")[0] not in _TRUSTED_FUNCTION_MODULES and module != "test_code":
        return None
    mod = sys.modules.get(module)
    if mod is None:
        return None
    found: Any = mod
    for part in qualname.split("."):
        found = vars(found).get(part) if hasattr(found, "__dict__") else None
        if found is None:
            return None
    return f"{module}:{qualname}" if found is value else None


def _resolve_name(text: str, peer: Peer) -> Any:
    """Return the function or class named ``module:qualname`` from the modules this process loaded."""
    module, _, qualname = text.partition(":")
    if module.split(".")[0] not in _TRUSTED_FUNCTION_MODULES and module != "test_code":
        raise Refused("an untrusted name")
    mod = sys.modules.get(module)
    if mod is None and module == "test_code" and peer.learner:
        mod = peer.load_test_module()
    if mod is None:
        raise Refused(f"unknown module {module}")
    found: Any = mod
    for part in qualname.split("."):
        found = vars(found).get(part) if hasattr(found, "__dict__") else None
        if found is None:
            raise Refused(f"unknown name {text}")
    return found


def _state_class_name(tp: type, learner: bool) -> str | None:
    """Return the name of a class whose objects travel as their attributes, else None."""
    name = _trusted_name(tp)
    if name is None:
        return None
    torch = sys.modules.get("torch")
    if torch is not None and issubclass(tp, torch.Tensor):
        return None
    if issubclass(tp, (BaseException, type, types.ModuleType)):
        return None
    return name


_BEHAVIOUR_MODULES = ("torch.nn.", "torch.optim.", "torch.utils.data.")


def _data_classes() -> tuple[type, ...]:
    classes: list[type] = [
        int, float, complex, str, bytes, bytearray, list, tuple, dict, set, frozenset, slice, range,
        BaseException, type, types.ModuleType,
    ]  # fmt: skip
    torch = sys.modules.get("torch")
    if torch is not None:
        classes += [torch.Tensor, torch.Size, torch.dtype, torch.device, torch.Generator]
        classes += [c for c in (getattr(torch, n, None) for n in ("SymInt", "SymFloat", "SymBool")) if isinstance(c, type)]
    return tuple(classes)


def _is_data_class(cls: type) -> bool:
    import numbers

    return issubclass(cls, _data_classes()) or issubclass(cls, numbers.Number)


def _claimable(cls: type, peer: Peer | None = None) -> bool:
    """Return True for a class a learner's handle may claim (``isinstance`` then holds for it).

    Only behaviour classes: torch's modules, optimizers and data utilities (a learner's model is an
    ``nn.Module``), or a stand-in for the learner's own class built from those. Never a data class
    (a tensor, a number, a string, a container), never a class of the test, never one it names freely.
    """
    if not isinstance(cls, type):
        return False
    if getattr(cls, "_sb_handle", None) is not None:
        return peer is not None and cls.__dict__.get("_sb_peer") is peer
    module = getattr(cls, "__module__", "")
    return isinstance(module, str) and module.startswith(_BEHAVIOUR_MODULES) and not _is_data_class(cls)


def _rebuildable(cls: type) -> bool:
    """Return True for a class the grader rebuilds from a learner's data (its state, never code)."""
    module = getattr(cls, "__module__", "")
    if not isinstance(module, str) or not (module.startswith(_BEHAVIOUR_MODULES) or module == "test_code"):
        return False
    return not _is_data_class(cls)


def _resolve_state_class(text: str, peer: Peer) -> type:
    cls = _resolve_name(text, peer)
    if not isinstance(cls, type) or _state_class_name(cls, peer.learner) is None:
        raise Refused("an object of this class cannot be received")
    if not peer.learner and not _rebuildable(cls):
        raise Refused("an object of this class cannot be received")
    if getattr(cls, "_sb_handle", None) is not None:
        raise Refused("a stand-in class cannot be received")
    return cls


# --- helpers ---------------------------------------------------------------------------------------
def _is_tensor(value: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def _clip(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _safe_str(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:
        return ""


def _source_line(path: str, line: int) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for n, text in enumerate(fh, 1):
                if n == line:
                    return text.rstrip("\r\n")[:400]
    except OSError:
        return None
    return None


def _make_exception(base: type[BaseException], args: Any, message: str, fields: ErrorFields) -> BaseException:
    if base is SystemExit:
        return SystemExit(fields.get("exit"))
    if base is SyntaxError or issubclass(base, SyntaxError):
        line = fields.get("line")
        return base(message, ("user_code.py", line, fields.get("col"), fields.get("source"), None, None))
    try:
        exc = base(*args) if isinstance(args, tuple) else base(message)
        if _safe_str(exc) != message:
            exc = base(message)
    except Exception:
        return RuntimeError(f"{base.__name__}: {message}" if message else base.__name__)
    return exc


def _raised_at(exc: BaseException, path: str, line: int) -> BaseException:
    """Return ``exc`` with a traceback whose last frame is line ``line`` of the learner's file."""
    code = compile("\n" * (line - 1) + "raise __sandbox_exc__", path, "exec", dont_inherit=True)
    try:
        exec(code, {"__sandbox_exc__": exc})  # noqa: S102 - our own one-line raise, placed at the learner's line
    except BaseException as raised:
        return raised
    return exc


def close_quietly(*fds: int) -> None:
    """Close descriptors, ignoring those already closed."""
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)
