"""The grader's ``user_code``: a stand-in module whose values live in the learner process.

Every attribute read asks the learner process for a value (``bridge``); importing or reloading it
runs the learner's file there. ``from user_code import *`` in a test module brings the learner's
public names (its ``__all__``, else every name not starting with an underscore) but never a name
the test module already holds, a builtin, a dunder or a hook unittest calls on a module: those
would run the learner's code where the test expects its own (``sorted``, ``len``, ``torch``), and
answer what the learner likes.
"""

from __future__ import annotations

import builtins
import importlib.abc
import importlib.machinery
import sys
import types
from typing import Any

from . import bridge

USER_MODULE = "user_code"
TEST_MODULE = "test_code"
_UNITTEST_HOOKS = frozenset({"load_tests", "setUpModule", "tearDownModule"})


class UserModule(types.ModuleType):
    """The grader's ``user_code``: every attribute read asks the learner process for a value."""

    _sb_peer: bridge.Peer

    def __getattr__(self, name: str) -> Any:
        if name == "__all__":
            return self._sb_star_names()
        if name.startswith("__") and name.endswith("__") and name != "__version__":
            raise AttributeError(name)
        return self._sb_peer.get_remote(0, name)

    def __dir__(self) -> list[str]:
        names = self._sb_peer.call_remote(0, (), {}, "__dir__")
        return sorted(str(n) for n in names) if isinstance(names, (list, tuple)) else []

    def _sb_star_names(self) -> list[str]:
        """Return the names ``from user_code import *`` may bind in the test module."""
        try:
            names: Any = self._sb_peer.get_remote(0, "__all__")
        except AttributeError:
            names = None
        if not isinstance(names, (list, tuple)):
            names = [n for n in self.__dir__() if not n.startswith("_")]
        test = sys.modules.get(TEST_MODULE)
        held = set(vars(test)) if test is not None else set()
        return [
            n
            for n in dict.fromkeys(n for n in names if type(n) is str)
            if n.isidentifier()
            and not n.startswith("__")
            and n not in held
            and n not in _UNITTEST_HOOKS
            and not hasattr(builtins, n)
        ]


class UserLoader(importlib.abc.Loader):
    """Import (and reload) ``user_code`` by running the learner's file in the learner process."""

    def __init__(self, peer: bridge.Peer, code: str, user_path: str) -> None:
        self.peer = peer
        self.code = code
        self.user_path = user_path

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = UserModule(USER_MODULE)
        object.__setattr__(module, "_sb_peer", self.peer)
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        self.peer.load_remote(self.code)


class UserFinder(importlib.abc.MetaPathFinder):
    """Find ``user_code`` (only it) for the grader's import system."""

    def __init__(self, loader: UserLoader) -> None:
        self.loader = loader

    def find_spec(
        self, fullname: str, path: Any = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != USER_MODULE:
            return None
        return importlib.machinery.ModuleSpec(USER_MODULE, self.loader, origin=self.loader.user_path)
