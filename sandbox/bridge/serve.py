"""Serving: what each side does with a request of the other's (load, get, call, grad, release).

The grader only lends callables (a hook, a function the test passed): it answers calls of them and
nothing else. The learner's side answers every request about the module it loaded.
"""

from __future__ import annotations

import builtins
import sys
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .decode import Decoder
from .encode import Encoder
from .shapes import SNAPSHOT_BYTES, SNAPSHOT_NODES, Refused, Reply, Request, is_tensor
from .tensors import History

if TYPE_CHECKING:
    from .rpc import Peer


def handle(peer: Peer, req: Request) -> Reply:
    """Answer one request of the other side (``peer`` is this side)."""
    op = req.get("op")
    if not peer.learner and (op != "call" or req.get("name")):
        # The grader only lends callables (a hook, a function the test passed): they may be
        # called, never searched for attributes or methods that reach the grader's state.
        raise Refused("the grader only answers calls of what it passed")
    if op == "load":
        _load(peer, str(req.get("code", "")), bool(req.get("main")), req.get("classes"))
        return {"op": "reply", "ok": True, "value": None, "globals": snapshot(peer)}
    if op == "release":
        for h in req.get("args") or []:
            peer.release(h)
        return {"op": "reply", "ok": True, "value": None}
    if op == "get":
        target = _target(peer, req)
        value = getattr(target, str(req.get("name")))
        enc = Encoder(peer)
        return {"op": "reply", "ok": True, "value": enc.encode(value)}
    if op == "call":
        target = _target(peer, req)
        dec = Decoder(peer)
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
        enc = Encoder(peer, incoming=dec.objects)
        encoded = enc.encode(value)
        back = enc.write_back()
        return {"op": "reply", "ok": True, "value": encoded, "back": back}
    if op == "grad" and peer.learner:
        record = _target(peer, req)
        if not isinstance(record, History):
            raise Refused("not a tensor's history")
        dec = Decoder(peer)
        grad_output = dec.decode(req.get("args"))
        import torch

        wanted = [t for t in record.inputs if is_tensor(t) and t.requires_grad]
        grads: list[Any] = []
        if wanted:
            found = torch.autograd.grad(
                [record.tensor], wanted, grad_outputs=[grad_output], allow_unused=True, retain_graph=True
            )
            grads = list(found)
        by_input = iter(grads)
        out = [next(by_input) if (is_tensor(t) and t.requires_grad) else None for t in record.inputs]
        return {"op": "reply", "ok": True, "value": Encoder(peer, strict=True).encode(tuple(out))}
    raise Refused(f"unknown request {op!r}")


def _target(peer: Peer, req: Request) -> Any:
    h = req.get("h")
    if h == 0 and peer.learner:
        if peer.module is None:
            raise Refused("the module is not loaded")
        return peer.module
    if not isinstance(h, int) or h not in peer.exports:
        raise Refused("unknown handle")
    return peer.exports[h]


def _load(peer: Peer, code: str, main: bool, classes: Any) -> None:
    """Run the learner's file as the module ``user_code`` (learner side).

    ``classes`` is the test module with everything but its imports and the classes it may hand
    the learner's functions (a model to train) blanked out: never the tests themselves.
    """
    if isinstance(classes, str):
        peer._test_source = classes
    name = "__main__" if main else "user_code"
    module = types.ModuleType(name)
    module.__file__ = peer.user_path
    module.__builtins__ = builtins  # type: ignore[attr-defined]
    sys.modules[name] = module
    peer.module = module
    try:
        compiled = compile(code, peer.user_path, "exec", dont_inherit=True)
        exec(compiled, module.__dict__)  # noqa: S102 - this process exists to run the learner's code
    except BaseException as exc:
        if peer.on_error is not None:
            peer.on_error(exc)
        raise


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


_ASKED = object()


def snapshot(peer: Peer) -> list[Any]:
    """Return ``[name, value]`` for the loaded module's globals that are small plain data (learner side).

    The grader reads these without asking (``user_code.W``), decoding each read afresh as it would
    a reply, until it next asks the learner's process anything but another module attribute;
    anything else (a function, a tensor with a history, a large value) is asked for when read. A
    module whose attribute reads run code (a module ``__getattr__``) sends nothing ahead.
    """
    module = peer.module
    if module is None or type(module) is not types.ModuleType or "__getattr__" in vars(module):
        return []  # reading an attribute may run the learner's code: each read is asked for
    out: list[Any] = []
    nodes, room = 0, SNAPSHOT_BYTES
    for name, value in list(vars(module).items()):
        if name.startswith("__") or isinstance(value, (types.ModuleType, types.FunctionType, type)):
            continue
        enc = Encoder(peer, strict=True, room=room)
        try:
            data = enc.encode(value)
        except BaseException:  # not plain data: asked for when read
            data = _ASKED
        if data is _ASKED:
            continue
        nodes += enc.nodes
        if nodes > SNAPSHOT_NODES:
            break
        room = enc.room if enc.room is not None else 0
        out.append([name, data])
    return out
