"""Tensors across the bridge: as dtype, shape and bytes, or as a view of a tensor the caller sent."""

from __future__ import annotations

import base64
import contextlib
from typing import TYPE_CHECKING, Any

from .shapes import MAX_FRAME, Refused, TooLarge, is_tensor

if TYPE_CHECKING:
    from .decode import Decoder
    from .encode import Encoder
    from .rpc import Peer

_DTYPE_NAMES = (
    "float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool",
    "complex64", "complex128",
)  # fmt: skip


def dtype_table(peer: Peer) -> dict[str, Any]:
    """Return the dtypes a tensor may have on the wire, by name (made once per peer)."""
    if peer.dtypes is None:
        import torch

        peer.dtypes = {name: getattr(torch, name) for name in _DTYPE_NAMES}
    return peer.dtypes


class History:
    """A learner's tensor kept with the caller's tensors it may depend on, for a later backward."""

    __slots__ = ("inputs", "tensor")

    def __init__(self, tensor: Any, inputs: list[Any]) -> None:
        self.tensor = tensor
        self.inputs = inputs


def encode_tensor(enc: Encoder, value: Any, depth: int) -> Any:
    """Return a tensor as data: dtype, shape, bytes, and its autograd flags (a subclass as a plain tensor)."""
    import torch

    _TENSOR: Any = torch.Tensor  # its descriptors, read past whatever a subclass overrides
    i = enc._remember(value)
    with torch._C.DisableTorchFunctionSubclass(), torch.no_grad():
        plain = torch.Tensor.detach(value)
        if enc.room is not None:  # a snapshot holds no tensor with a history, nor a large one
            if _TENSOR.grad_fn.__get__(value) is not None:
                raise Refused("a tensor with a history is sent when asked for")
            enc.take_room(plain.numel() * plain.element_size())
        view = _view_of_incoming(enc, plain)
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
        if plain.numel() * plain.element_size() > MAX_FRAME // 2:
            raise TooLarge  # before it is made dense and contiguous (an expanded view, a sparse shape)
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
        raise TooLarge
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
        out["g"] = enc.encode(grad, depth + 1)
    if is_param:
        out["p"] = True
    version = int(_TENSOR._version.__get__(value))
    if version:
        out["ver"] = version  # tests read it to see in-place updates; data like any other
    if enc.peer.learner and requires_grad and _TENSOR.grad_fn.__get__(value) is not None and not enc.strict:
        # By position among what the call received (a write-back's own tensor is out of ``incoming``).
        inputs = [(n, o) for n, o in enumerate(enc._incoming_objects) if is_tensor(o)]
        record = History(value, [o for _, o in inputs])
        out["gf"] = {"h": enc.peer.export(record), "in": [n for n, _ in inputs]}
    hooks = getattr(value, "_backward_hooks", None) if not enc.peer.learner else None
    if isinstance(hooks, dict) and hooks and not enc.strict:
        out["hk"] = [enc.encode(h, depth + 1) for h in hooks.values()]
    return out


def _view_of_incoming(enc: Encoder, plain: Any) -> dict[str, Any] | None:
    """Describe a tensor that shares memory with one the caller sent (a ``state_dict`` entry)."""
    if not enc.peer.learner or not enc._incoming_objects or enc._fresh:
        return None
    if enc._storages is None:
        enc._storages = {}
        for n, o in enumerate(enc._incoming_objects):
            if is_tensor(o):
                with contextlib.suppress(Exception):
                    enc._storages.setdefault(o.untyped_storage().data_ptr(), n)
    try:
        ptr = plain.untyped_storage().data_ptr()
    except Exception:
        return None
    base = enc._storages.get(ptr)
    if base is None or not ptr:
        return None
    source = enc._incoming_objects[base]
    if source.dtype != plain.dtype:
        return None
    return {
        "base": base,
        "sh": [int(s) for s in plain.shape],
        "st": [int(s) for s in plain.stride()],
        "off": int(plain.storage_offset()),
    }


def decode_tensor(dec: Decoder, data: dict[str, Any], depth: int) -> Any:
    """Build a plain dense tensor from dtype, shape and bytes (its grad and hooks decoded by ``dec``)."""
    import torch

    dtype = dtype_table(dec.peer).get(str(data.get("dt")))
    shape = data.get("sh")
    if dtype is None or not isinstance(shape, list) or not all(type(s) is int and s >= 0 for s in shape):
        raise Refused("malformed tensor")
    if data.get("dev") == "meta":
        if len(shape) > 64:
            raise Refused("malformed tensor")
        t = torch.empty(shape, dtype=dtype, device="meta")
        if data.get("rg") and (t.is_floating_point() or t.is_complex()):
            t.requires_grad_(True)
        dec._register(data, t)
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
    dec._register(data, t)
    if "g" in data:
        grad = dec.decode(data["g"], depth + 1)
        if is_tensor(grad):
            with contextlib.suppress(RuntimeError):
                t.grad = grad
    for hook in data.get("hk") or []:
        fn = dec.decode(hook, depth + 1)
        if callable(fn) and t.requires_grad:
            t.register_hook(fn)  # type: ignore[no-untyped-call]
    return t


def decode_view(dec: Decoder, data: dict[str, Any]) -> Any:
    """Build a view of a tensor the caller sent (a ``state_dict`` entry), inside that tensor."""
    import torch

    base_index = data.get("base")
    if not isinstance(base_index, int) or not 0 <= base_index < len(dec.sent):
        raise Refused("unknown reference")
    base = dec.sent[base_index]
    shape, stride, offset = data.get("sh"), data.get("st"), data.get("off")
    if not is_tensor(base) or not isinstance(shape, list) or not isinstance(stride, list):
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
    dec._register(data, view)
    return view
