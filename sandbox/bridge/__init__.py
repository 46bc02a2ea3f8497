"""Talk between the grader process and the learner process: values travel as data, the rest by handle.

A graded job runs in two processes. The learner process runs the submission and nothing else; the
grader process runs the test module and holds the results channel, and never runs a line the
learner wrote. Each side is a :class:`Peer` over a pair of pipes; either may call the other while a
call of its own is waiting (a learner's function may call a hook the test registered).

What the grader takes from the learner is plain data its own decoder builds from a closed set of
shapes, decoded within budgets (size, depth, nodes, hash collisions, CPU time):

- ``None``, booleans, numbers, strings, bytes, tuples, lists, dicts, sets (subclasses arrive as the
  plain type: a ``float`` subclass is a ``float``);
- tensors as dtype, shape, bytes, ``requires_grad``, ``grad`` (a Tensor subclass arrives as a plain
  tensor, so whatever its methods claim, its data is what is judged);
- objects of torch's behaviour classes (modules, optimizers, data utilities) and of the classes
  the test shares with the learner, as their attributes, holding data only;
- anything else (a function, class or object the learner defined) as a *handle*: a stand-in whose
  every use is a call back to the learner, answered with data; it never passes ``isinstance`` for a
  data class.

A call carries its arguments by copy; the callee sends back, with the result, the new state of
every mutable argument, and the grader takes only data from it (tensor values and shapes, plain
container contents, existing scalar attributes). torch's grad mode travels with each call; the
learner's random state never becomes the grader's.

Modules: ``shapes`` (messages, budgets, errors), ``rpc`` (the ``Peer``), ``serve`` (answering a
request), ``encode`` and ``decode``, ``tensors``, ``autograd`` (backward across the bridge),
``writeback``, ``proxy`` (handles), ``trust`` (which classes and names cross), ``errors``
(exceptions across the bridge), ``sync`` (torch's process-wide state).
"""

from .decode import Decoder
from .encode import Encoder
from .proxy import CallableProxy, Proxy
from .rpc import Peer
from .shapes import (
    CONTROL_FLOW,
    OVERDUE,
    TOO_LARGE,
    PeerGone,
    Refused,
    RemoteControlFlow,
    Reply,
    Request,
    TooLarge,
    close_quietly,
)

__all__ = [
    "CONTROL_FLOW",
    "OVERDUE",
    "TOO_LARGE",
    "CallableProxy",
    "Decoder",
    "Encoder",
    "Peer",
    "PeerGone",
    "Proxy",
    "Refused",
    "RemoteControlFlow",
    "Reply",
    "Request",
    "TooLarge",
    "close_quietly",
]
