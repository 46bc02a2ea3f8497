"""The trust policy: which names, classes and modules cross the bridge by name, and which classes
a learner's handle may claim or the grader may rebuild from data.

Nothing the learner names chooses a class on the grader's side beyond this: torch's behaviour
classes (modules, optimizers, data utilities) and the test's own classes. A data class (a tensor,
a number, a string, a container, torch's symbolic numbers) is never claimed and never rebuilt
from attributes, so a value that passes ``isinstance`` for one was built by the grader's decoder.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from .shapes import Refused

if TYPE_CHECKING:
    from .rpc import Peer

TRUSTED_FUNCTION_MODULES = ("torch", "builtins", "math", "operator", "functools", "collections")


def trusted_module_name(name: str) -> bool:
    return name in ("builtins", "math", "collections") or name.split(".")[0] in ("torch", "numpy")


def trusted_name(value: Any) -> str | None:
    """Return ``module:qualname`` for a function or class that a trusted module owns, else None."""
    if not isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)) and not callable(value):
        return None
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname:
        return None
    if module.split(".")[0] not in TRUSTED_FUNCTION_MODULES and module != "test_code":
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


def resolve_name(text: str, peer: Peer) -> Any:
    """Return the function or class named ``module:qualname`` from the modules this process loaded."""
    module, _, qualname = text.partition(":")
    if module.split(".")[0] not in TRUSTED_FUNCTION_MODULES and module != "test_code":
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


def state_class_name(tp: type, learner: bool) -> str | None:
    """Return the name of a class whose objects travel as their attributes, else None."""
    name = trusted_name(tp)
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
        classes += [
            c
            for c in (getattr(torch, n, None) for n in ("SymInt", "SymFloat", "SymBool"))
            if isinstance(c, type)
        ]
    return tuple(classes)


def _is_data_class(cls: type) -> bool:
    import numbers

    return issubclass(cls, _data_classes()) or issubclass(cls, numbers.Number)


def claimable(cls: type, peer: Peer | None = None) -> bool:
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


def rebuildable(cls: type, shared: Collection[str] = ()) -> bool:
    """Return True for a class the grader rebuilds from a learner's data (its state, never code).

    torch's behaviour classes, and of the test's own classes only those it shares with the learner
    (``shared``: their names, from ``_testprep``), never a test, a mixin or a helper of it.
    """
    module = getattr(cls, "__module__", "")
    if not isinstance(module, str):
        return False
    if module == "test_code":
        if getattr(cls, "__qualname__", None) not in shared:
            return False
    elif not module.startswith(_BEHAVIOUR_MODULES):
        return False
    return not _is_data_class(cls)


def resolve_state_class(text: str, peer: Peer) -> type:
    """The class an object the other side sent as its attributes is rebuilt as; Refused otherwise.

    The grader's refusal is the same whether the name exists or not (the test module's names are
    not the learner's to probe).
    """
    refused = Refused("an object of this class cannot be received")
    if peer.learner:
        cls = resolve_name(text, peer)
    else:
        try:
            cls = resolve_name(text, peer)
        except Refused:
            raise refused from None
        if not isinstance(cls, type) or not rebuildable(cls, peer.shared_test_classes):
            raise refused
    if not isinstance(cls, type) or state_class_name(cls, peer.learner) is None:
        raise refused
    if getattr(cls, "_sb_handle", None) is not None:
        raise Refused("a stand-in class cannot be received")
    return cls


def subclassable(base: type) -> bool:
    torch = sys.modules.get("torch")
    if torch is not None and issubclass(base, torch.Tensor):
        return False
    return not issubclass(base, BaseException) and base.__flags__ & (1 << 10) != 0  # Py_TPFLAGS_BASETYPE
