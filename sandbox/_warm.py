"""Warming the template: first-use costs paid once, before any fork, and nothing kept that no job needs.

- ``warm_torch`` runs a small exercise so torch's lazy initialisation happens in the template.
- ``spare_dynamo``: torch imports its compiler, ``torch._dynamo`` (about 1.4 s and 70 MB), from the
  first optimizer, only to mark places the compiler must not trace: functions wrapped so that they
  switch it off (every optimizer's ``add_param_group``, ``state_dict``, ...), and a
  ``torch._dynamo.graph_break()`` around every ``step``. Neither does anything unless
  ``torch.compile`` is in use. So each wrapped function gets a guard that calls it directly until the
  compiler is loaded, and ``torch._dynamo`` starts as a stand-in module whose ``graph_break`` does
  nothing; anything else asked of it (``torch.compile`` asks at once) loads the real compiler, which
  then takes the stand-in's place, and from then on the guards use torch's own wrappers.
  ``torch.use_deterministic_algorithms`` imports the compiler only to copy its setting into the
  compiler's configuration: until the compiler is loaded it sets torch's flag alone, and the copy is
  made when the compiler loads.
- ``_linux.page_out_files`` (called by the template after warming) then gives back the pages of
  torch's libraries that only the import touched.
"""

from __future__ import annotations

import functools
import gc
import importlib
import io
import sys
import types
from collections.abc import Callable
from typing import Any


def warm_torch(optimizers: bool = True) -> None:
    """Run a small single-threaded exercise so lazy initialisation happens once, here."""
    torch = sys.modules.get("torch")
    if torch is None:
        return
    w = torch.rand(1, 3, requires_grad=True)
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    y = w @ x
    loss = ((y - torch.zeros(1, 2)) ** 2).mean()
    loss.backward()
    torch.allclose(x.float(), x)
    print(w.grad, loss.item(), file=io.StringIO())
    layer = torch.nn.Linear(3, 2)
    out = torch.nn.functional.mse_loss(layer(torch.ones(4, 3)), torch.zeros(4, 2))
    out.backward()
    if optimizers:
        for opt in (torch.optim.SGD(layer.parameters(), lr=0.1), torch.optim.Adam(layer.parameters())):
            opt.step()
            opt.zero_grad()
    with torch.no_grad():
        (x * 2).sum()


# Set by the template once torch is warm (forks inherit it): ``torch.manual_seed`` would seed the CPU
# generator alone, after queueing a seeding for each accelerator torch lacks, each with a formatted
# stack (source files read: about 1.7 ms a job process), so a job seeds the CPU generator directly.
ONLY_CPU_GENERATOR = False


def only_cpu_generator() -> bool:
    """Return True when ``torch.manual_seed`` can seed nothing but the CPU generator.

    That is when torch was built without CUDA, XPU, MPS and MTIA and no custom device is registered:
    the seedings it queues for them can never run.
    """
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    try:
        return not (
            torch.cuda._is_compiled()
            or torch.xpu._is_compiled()
            or torch.backends.mps.is_built()
            or torch.mtia._is_compiled()
            or hasattr(torch, torch._C._get_privateuse1_backend_name())
        )
    except Exception:  # an API this torch lacks: seed the way torch does
        return False


class _StandIn(types.ModuleType):
    """``torch._dynamo`` until something other than ``graph_break`` is asked of it."""

    @staticmethod
    def graph_break(msg: str = "") -> None:
        """Outside a compiled region (the only place the stand-in is used) this does nothing."""

    def __getattr__(self, name: str) -> Any:
        return getattr(_load_compiler(), name)


_DETERMINISTIC: list[bool] = []  # what `torch.use_deterministic_algorithms` set while the compiler was not loaded


def _load_compiler() -> types.ModuleType:
    torch = sys.modules["torch"]
    if isinstance(sys.modules.get("torch._dynamo"), _StandIn):
        del sys.modules["torch._dynamo"]
        if isinstance(getattr(torch, "_dynamo", None), _StandIn):
            delattr(torch, "_dynamo")
    dynamo = importlib.import_module("torch._dynamo")
    if _DETERMINISTIC:  # the compiler's own copy of the setting, as torch would have made it
        setattr(importlib.import_module("torch._inductor.config"), "deterministic", _DETERMINISTIC[-1])  # noqa: B010
    return dynamo


def _use_deterministic_algorithms(torch: types.ModuleType) -> Callable[..., None]:
    """torch's `use_deterministic_algorithms`, which imports the compiler only to copy the setting into it."""
    original = torch.use_deterministic_algorithms

    @functools.wraps(original)
    def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
        if not isinstance(sys.modules.get("torch._dynamo"), _StandIn):
            return original(mode, warn_only=warn_only)  # type: ignore[no-any-return]
        torch._C._set_deterministic_algorithms(mode, warn_only=warn_only)
        _DETERMINISTIC.append(bool(mode))
        del _DETERMINISTIC[:-1]
        return None

    return use_deterministic_algorithms


def _guard(fn: Callable[..., Any], recursive: bool) -> Callable[..., Any]:
    """``fn`` called directly while ``torch._dynamo`` is not loaded; torch's disabled wrapper after."""
    real: list[Callable[..., Any]] = []

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if not real:
            dynamo = sys.modules.get("torch._dynamo")
            if dynamo is None or isinstance(dynamo, _StandIn):
                return fn(*args, **kwargs)
            real.append(dynamo.disable(fn, recursive, wrapping=False))
        return real[0](*args, **kwargs)

    return call


def _spare(inner: Callable[..., Any], code: object) -> bool:
    if getattr(inner, "__code__", None) is not code or not inner.__closure__:
        return False
    cells = dict(zip(inner.__code__.co_freevars, (c.cell_contents for c in inner.__closure__), strict=True))
    fn = cells.get("fn")
    if fn is None or getattr(fn, "__dynamo_disable", None) is not None:
        return False
    fn.__dynamo_disable = _guard(fn, bool(cells.get("recursive", True)))
    return True


def spare_dynamo() -> int:
    """Give torch's lazily dynamo-disabled functions a guard; return how many were found.

    Covers the functions defined so far and, through torch's own decorator, those of modules a job
    imports later.
    """
    compile_mod = sys.modules.get("torch._compile")
    torch = sys.modules.get("torch")
    if compile_mod is None or torch is None or "torch._dynamo" in sys.modules:
        return 0
    original = compile_mod._disable_dynamo
    code = original(spare_dynamo).__code__
    found = sum(_spare(obj, code) for obj in gc.get_objects() if type(obj) is type(spare_dynamo))

    def disable_dynamo(fn: Callable[..., Any] | None = None, recursive: bool = True) -> Any:
        if fn is None:
            return functools.partial(disable_dynamo, recursive=recursive)
        inner = original(fn, recursive)
        _spare(inner, code)
        return inner

    setattr(compile_mod, "_disable_dynamo", disable_dynamo)  # noqa: B010 - torch's module, typed by its stubs
    if getattr(torch, "_disable_dynamo", None) is original:
        setattr(torch, "_disable_dynamo", disable_dynamo)  # noqa: B010
    stand_in = _StandIn("torch._dynamo", _StandIn.__doc__)
    sys.modules["torch._dynamo"] = stand_in
    setattr(torch, "_dynamo", stand_in)  # noqa: B010
    setattr(torch, "use_deterministic_algorithms", _use_deterministic_algorithms(torch))  # noqa: B010
    return found
