"""Keep a submission from rewriting the grader it runs beside.

The submission and its tests share one interpreter, so no in-process check is absolute: code that
deliberately walks the interpreter's frames (``sys._getframe().f_back``) or memory (ctypes) can
still reach the harness's objects. The guard closes the direct routes and turns the indirect ones
it can see into a failed grade:

- the namespaces of the modules tests rely on (``builtins``, ``torch``, ``unittest`` ...) and the
  dictionaries of the classes they rely on (unittest's, the harness's, ``torch.Tensor``,
  ``torch.nn.Module``, the test module's own) are compared with a snapshot after the submission
  ran and after every test; a change, even one undone later, fails the grade. CPython's dict
  version tags make the comparison cost nothing while nothing changed;
- an audit hook refuses, to code called by the submission, gc introspection (which reaches a
  class's private ``__dict__``), tracing (``sys.settrace``), replacing the code of functions that
  are not its own, and compiling code under the test file's name;
- after each test, instance attributes that shadow unittest's methods on the test case fail it;
- the equality assertions refuse to compare a plain expected value with an object whose class the
  submission defined with its own ``__eq__`` (an object "equal to everything").
"""

from __future__ import annotations

import ctypes
import gc
import sys
import types
import unittest
from collections.abc import Callable, Iterator
from typing import Any

GUARDED_MODULES = (
    "builtins",
    "unittest",
    "unittest.case",
    "unittest.result",
    "unittest.suite",
    "unittest.loader",
    "importlib",
    "io",
    "math",
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.testing",
    "numpy",
    "numpy.testing",
)
_COMPARISON_DUNDERS = (
    "__eq__",
    "__ne__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__bool__",
    "__torch_function__",
    "__torch_dispatch__",
    "__array_ufunc__",
    "__array_function__",
)
_REFUSED_EVENTS = frozenset(
    {
        "gc.get_referrers",
        "gc.get_referents",
        "gc.get_objects",
        "sys.settrace",
        "sys.setprofile",
        "sys._current_frames",
    }
)
# Classes whose dictionaries are watched: every class of these modules, and these few of torch's.
STRICT_CLASS_MODULES = (
    "unittest.case", "unittest.result", "unittest.suite", "unittest.loader", "sandbox.harness", "sandbox._guard",
)  # fmt: skip
LOOSE_CLASSES = ("torch.Tensor", "torch.nn.Module", "torch.nn.Parameter", "torch.nn.Linear")


class _Watched:
    """One dictionary under watch: the live object, a copy, and its version tag."""

    __slots__ = ("copy", "label", "live", "mode", "owner", "version")

    def __init__(self, label: str, owner: object, live: dict[str, Any], mode: str) -> None:
        self.label = label
        self.owner = owner
        self.live = live
        self.version = _dict_version(live)
        # "strict": any change counts, added keys too; "loose": changed or removed keys count;
        # "methods": only changed or removed functions count (a test class may set data in setUpClass).
        self.mode = mode
        if mode == "methods":
            self.copy = {k: v for k, v in live.items() if isinstance(v, _METHOD_TYPES)}
        else:
            self.copy = dict(live)


class Tampered(RuntimeError):
    """The submission tried to change the grader."""


class Guard:
    """Snapshots taken in the template, checks made in the job."""

    def __init__(self) -> None:
        self.trusted_types: frozenset[type] = frozenset()
        self.test_types: set[type] = set()
        self.watched: list[_Watched] = []
        self.modules: dict[str, types.ModuleType] = {}
        self.user_files: tuple[str, ...] = ()
        self.test_file = ""
        self.armed = False
        self.allow_test_code = False
        self.events: list[str] = []

    # --- template side -------------------------------------------------------------------
    def snapshot(self) -> None:
        """Record every class, and the dictionaries the guard watches (call before forking)."""
        self.trusted_types = frozenset(o for o in gc.get_objects() if issubclass(type(o), type))
        self.watched = []
        self.modules = {}
        for name in GUARDED_MODULES:
            mod = sys.modules.get(name)
            if mod is not None:
                self.modules[name] = mod
                self.watched.append(_Watched(name, mod, vars(mod), "loose"))
        for name in STRICT_CLASS_MODULES:
            mod = sys.modules.get(name)
            for value in vars(mod).values() if mod is not None else ():
                if isinstance(value, type) and value.__module__ == name:
                    self._watch_class(value, "strict")
        for dotted in LOOSE_CLASSES:
            mod_name, _, attr = dotted.rpartition(".")
            cls = getattr(sys.modules.get(mod_name), attr, None)
            if isinstance(cls, type):
                self._watch_class(cls, "loose")

    def _watch_class(self, cls: type, mode: str) -> None:
        live = gc.get_referents(cls.__dict__)  # the mapping proxy's one referent: the class's own dict
        if len(live) == 1 and isinstance(live[0], dict):
            self.watched.append(_Watched(f"{cls.__module__}.{cls.__qualname__}", cls, live[0], mode))

    # --- job side ------------------------------------------------------------------------
    def install(self, workdir: str, test_file: str) -> None:
        """Arm the audit hook for a job whose learner files live under ``workdir``."""
        self.user_files = (workdir.rstrip("/") + "/",)
        self.test_file = test_file
        self.armed = True
        sys.addaudithook(self._hook)

    def trust_module(self, module: types.ModuleType) -> None:
        """Protect the classes and namespace of the (trusted) test module."""
        # A set of its own: rebuilding the big frozenset would touch (and so copy) every page it is on.
        self.test_types = {o for o in vars(module).values() if issubclass(type(o), type)}
        self.modules[module.__name__] = module
        self.watched.append(_Watched(module.__name__, module, vars(module), "methods"))
        for cls in self.test_types:
            if cls.__module__ == module.__name__:
                self._watch_class(cls, "methods")

    def trusted(self, cls: type) -> bool:
        """Return True for a class that existed before the submission ran (or the test module's).

        Static (C) types are not tracked by the collector, and code can only create heap types.
        """
        return not cls.__flags__ & _HEAPTYPE or cls in self.trusted_types or cls in self.test_types

    def _from_submission(self) -> bool:
        """Return True when the code that triggered the event was called by the submission."""
        frame: types.FrameType | None = sys._getframe(2)
        while frame is not None:
            name = frame.f_code.co_filename
            if name.startswith(self.user_files):
                return name != self.test_file
            frame = frame.f_back
        return False

    def _hook(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.armed:
            return
        if event in ("object.__setattr__", "object.__delattr__"):
            target = args[0]
            if isinstance(target, type) and self.trusted(target) and self._from_submission():
                self._refuse(f"changing {getattr(target, '__qualname__', target)!s}.{args[1]}")
            if isinstance(target, types.FunctionType) and self._from_submission():
                code = target.__code__.co_filename
                if not code.startswith(self.user_files) or code == self.test_file:
                    self._refuse(f"changing the function {target.__qualname__}")
        elif event in _REFUSED_EVENTS:
            if self._from_submission():
                self._refuse(f"{event}()")
        elif event == "compile":
            filename = args[1] if len(args) > 1 else None
            if filename == self.test_file and not self.allow_test_code:
                self._refuse("compiling code under the test file's name")
        elif event == "code.__new__":
            filename = args[1] if len(args) > 1 else None
            if isinstance(filename, str) and filename == self.test_file and not self.allow_test_code:
                self._refuse("forging code under the test file's name")

    def _refuse(self, what: str) -> None:
        self.events.append(what)
        raise Tampered(f"the grader does not allow {what}")

    def changes(self) -> list[str]:
        """Return what the job changed in the watched modules and classes, restoring the originals."""
        changed: list[str] = []
        for w in self.watched:
            if w.version is not None and _dict_version(w.live) == w.version:
                continue  # untouched since the snapshot; comparing would copy every page it reaches
            found = []
            for key, value in w.copy.items():
                if key in ("__loader__", "__spec__", "__builtins__", "_", "__abstractmethods__"):
                    continue
                if w.live.get(key, _MISSING) is not value:
                    found.append(key)
            if w.mode == "strict":
                found += [k for k in w.live if k not in w.copy]
                if not found:
                    found.append("(changed, then changed back)")
            for key in found:
                changed.append(f"{w.label}.{key}")
                if key in w.copy:
                    self._restore(w, key, w.copy[key])
                elif key in w.live:
                    self._restore(w, key, _MISSING)
            w.version = _dict_version(w.live)
        for name, mod in self.modules.items():
            if sys.modules.get(name) is not mod:
                changed.append(f"sys.modules[{name!r}]")
                sys.modules[name] = mod
        return changed

    @staticmethod
    def _restore(w: _Watched, key: str, value: object) -> None:
        if isinstance(w.owner, type):  # through the type, so its method cache is invalidated
            if value is _MISSING:
                delattr(w.owner, key)
            else:
                setattr(w.owner, key, value)
        elif value is _MISSING:
            del w.live[key]
        else:
            w.live[key] = value

    def shadowed(self, test: unittest.TestCase) -> list[str]:
        """Return instance attributes of a test case that hide unittest's own methods."""
        return [k for k in vars(test) if callable(getattr(unittest.TestCase, k, None))]

    # --- hardened equality -------------------------------------------------------------------
    def suspicious(self, value: object) -> str | None:
        """Return the name of a submission-defined class with custom comparison inside ``value``."""
        for item in _walk(value):
            for cls in type(item).__mro__:
                if self.trusted(cls):
                    continue
                if any(d in vars(cls) for d in _COMPARISON_DUNDERS):
                    return cls.__qualname__
        return None


_MISSING = object()
_METHOD_TYPES = (types.FunctionType, classmethod, staticmethod, property)
_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE
_VERSION_OFFSET = 24  # PyDictObject: ob_refcnt, ob_type, ma_used, then ma_version_tag (CPython 3.11, 3.12)


def _dict_version(d: dict[str, Any]) -> int | None:
    """Return CPython's modification tag of a dict (PEP 509), or None where it is not available."""
    if sys.implementation.name != "cpython" or sys.version_info[:2] not in ((3, 11), (3, 12)):
        return None
    return int(ctypes.c_uint64.from_address(id(d) + _VERSION_OFFSET).value)


def _walk(value: object, depth: int = 0) -> Iterator[object]:
    yield value
    if depth >= 3:
        return
    items: Any = ()
    if type(value) in (list, tuple, set, frozenset):
        items = value
    elif type(value) is dict:
        items = [*value.keys(), *value.values()]
    for n, item in enumerate(items):
        if n >= 1000:
            return
        yield from _walk(item, depth + 1)


def harden_assertions(guard: Guard) -> None:
    """Wrap unittest's equality assertions so a submission-defined always-equal object cannot pass."""
    names = (
        "assertEqual", "assertNotEqual", "assertAlmostEqual", "assertNotAlmostEqual", "assertIn",
        "assertNotIn", "assertCountEqual", "assertListEqual", "assertTupleEqual", "assertSetEqual",
        "assertDictEqual", "assertSequenceEqual", "assertGreater", "assertGreaterEqual", "assertLess",
        "assertLessEqual",
    )  # fmt: skip
    for name in names:
        original = getattr(unittest.TestCase, name)
        if getattr(original, "__sandbox_hardened__", False):
            continue
        setattr(unittest.TestCase, name, _hardened(original, guard))


def _hardened(original: Callable[..., Any], guard: Guard) -> Callable[..., Any]:
    def check(self: unittest.TestCase, first: object, second: object, *args: Any, **kwargs: Any) -> Any:
        if guard.armed:
            a, b = guard.suspicious(first), guard.suspicious(second)
            if (a is None) != (b is None):
                cls = a or b
                raise self.failureException(
                    f"the value compared is a `{cls}` object whose class redefines comparison; "
                    "the grader compares plain values"
                )
        return original(self, first, second, *args, **kwargs)

    check.__name__ = original.__name__
    check.__qualname__ = original.__qualname__
    check.__doc__ = original.__doc__
    check.__sandbox_hardened__ = True  # type: ignore[attr-defined]
    return check
