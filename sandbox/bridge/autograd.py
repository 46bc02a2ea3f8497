"""Backward passes across the bridge: a tensor the learner computed from the test's tensors keeps
a ``grad_fn`` on the grader's side, whose backward asks the learner process for the gradients."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .encode import Encoder
from .shapes import Refused, is_tensor

if TYPE_CHECKING:
    from .rpc import Peer


def with_history(peer: Peer, sent: list[Any], t: Any, history: dict[str, Any]) -> Any:
    """Connect a tensor computed by the learner to the graph here: backward asks the learner."""
    h = history.get("h")
    indices = history.get("in")
    if not isinstance(h, int) or not isinstance(indices, list):
        raise Refused("malformed history")
    inputs = []
    for i in indices:
        if not isinstance(i, int) or not 0 <= i < len(sent) or not is_tensor(sent[i]):
            raise Refused("malformed history")
        inputs.append(sent[i])
    data = t.detach()
    return _remote_backward().apply(peer, h, data, _anchor(), *inputs)


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
                grads = peer.finish(reply, [])
                if not isinstance(grads, tuple) or len(grads) != ctx.count:
                    grads = (None,) * ctx.count
                return (None, None, None, None, *grads)

        _REMOTE_BACKWARD = RemoteBackward
    return _REMOTE_BACKWARD
