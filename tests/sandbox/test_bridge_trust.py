"""The bridge's trust policy on its own, and the grader's decoder fed frames that try to get round it.

The policy says which classes a learner's handle may claim, which the grader rebuilds from data,
and which names and modules it takes by name. Each frame here is one a learner that rewrote its
end of the bridge could send.
"""

from __future__ import annotations

import base64
import math
import sys
import types
from typing import Any

import pytest
import torch

from sandbox import bridge
from sandbox.bridge import trust

DATA_CLASSES = [int, float, bool, complex, str, bytes, list, tuple, dict, set, torch.Tensor, torch.Size]
DATA_CLASSES += [torch.SymInt, torch.SymFloat, torch.SymBool, torch.nn.Parameter, torch.Generator]


@pytest.fixture
def grader() -> bridge.Peer:
    return bridge.Peer(-1, -1, learner=False, user_path="/sandbox/user_code.py")


@pytest.mark.parametrize("cls", DATA_CLASSES, ids=lambda c: c.__name__)
def test_no_data_class_may_be_claimed_or_rebuilt(cls: type) -> None:
    assert not trust.claimable(cls)
    assert not trust.rebuildable(cls)


def test_behaviour_classes_may_be_claimed_and_rebuilt() -> None:
    for cls in (torch.nn.Module, torch.nn.Linear, torch.optim.SGD, torch.utils.data.DataLoader):
        assert trust.claimable(cls) and trust.rebuildable(cls), cls


def test_only_trusted_modules_own_names() -> None:
    assert trust.trusted_name(torch.nn.functional.relu) == "torch.nn.functional:relu"
    assert trust.trusted_name(lambda x: x) is None
    assert trust.trusted_name(math.sqrt) == "math:sqrt"
    for name in ("os", "subprocess", "sys", "importlib", "ctypes", "pickle"):
        assert not trust.trusted_module_name(name), name


@pytest.mark.parametrize(
    "name", ["os:system", "subprocess:Popen", "importlib:import_module", "pickle:loads", "ctypes:CDLL"]
)
def test_an_untrusted_name_is_never_resolved(grader: bridge.Peer, name: str) -> None:
    with pytest.raises(bridge.Refused):
        trust.resolve_name(name, grader)


@pytest.mark.parametrize("cls", ["torch:SymInt", "torch:Tensor", "builtins:float", "torch:Generator"])
def test_no_object_of_a_data_class_is_rebuilt_from_attributes(grader: bridge.Peer, cls: str) -> None:
    with pytest.raises(bridge.Refused):
        trust.resolve_state_class(cls, grader)
    with pytest.raises(bridge.Refused):
        bridge.Decoder(grader).decode({"$": "o", "i": 0, "c": cls, "v": []})


def test_a_module_the_grader_did_not_send_is_refused(grader: bridge.Peer) -> None:
    for name in ("torch", "os", "builtins"):
        with pytest.raises(bridge.Refused):
            bridge.Decoder(grader).decode({"$": "mod", "v": name})


def test_a_rebuilt_object_holds_none_of_the_graders_own_objects(grader: bridge.Peer) -> None:
    lent = grader.export(print)  # something the grader lent: the learner may call it, not store it
    frame = {"$": "o", "i": 0, "c": "torch.nn.modules.linear:Linear", "v": [["hook", {"$": "y", "h": lent}]]}
    with pytest.raises(bridge.Refused):
        bridge.Decoder(grader).decode(frame)


def test_a_stand_in_class_of_another_peer_is_not_claimable(grader: bridge.Peer) -> None:
    other = bridge.Peer(-1, -1, learner=False, user_path="/sandbox/user_code.py")
    cls = bridge.Decoder(other).decode({"$": "h", "h": 2, "k": "class", "n": "Net", "b": ["torch.nn:Module"]})
    assert trust.claimable(cls, other) and not trust.claimable(cls, grader)


def test_a_handle_claiming_a_learner_class_built_on_data_classes_is_no_data(grader: bridge.Peer) -> None:
    liar = {"$": "h", "h": 2, "k": "class", "n": "Liar", "b": ["builtins:float", "torch:Tensor"]}
    value = bridge.Decoder(grader).decode({"$": "h", "h": 3, "k": "object", "c": liar})
    assert not isinstance(value, (float, torch.Tensor))
    assert not issubclass(type(value), (float, torch.Tensor))


def _tensor_frame(**fields: Any) -> dict[str, Any]:
    raw = torch.zeros(4).numpy().tobytes()
    return {"$": "t", "i": 0, "dt": "float32", "sh": [4], "v": base64.b64encode(raw).decode(), **fields}


@pytest.mark.parametrize(
    "frame",
    [
        _tensor_frame(dt="object"),
        _tensor_frame(sh=[-4]),
        _tensor_frame(sh=[2, 3]),
        {"$": "view", "i": 0, "base": 0, "sh": [4], "st": [1], "off": 0},
        {"$": "r", "i": 5},
        {"$": "y", "h": 12345},
        {"$": "dict", "i": 0, "v": [[1]]},
        {"$": "no such kind"},
        ["not", "a", "tagged", "value"],
    ],
)
def test_malformed_frames_are_refused(grader: bridge.Peer, frame: Any) -> None:
    with pytest.raises(bridge.Refused):
        bridge.Decoder(grader).decode(frame)


def test_a_tensor_subclass_hook_on_a_sent_tensor_is_not_taken_as_a_function(grader: bridge.Peer) -> None:
    hooked = _tensor_frame(rg=True, hk=[{"$": "name", "v": "builtins:exec"}])
    with pytest.raises(bridge.Refused):
        bridge.Decoder(grader).decode(hooked)


HIDDEN_TEST = '''
import unittest
import torch

class Model(torch.nn.Module):
    pass

def _expected():
    return 42

class TestHidden(unittest.TestCase):
    def test_secret_name(self):
        pass
'''


@pytest.fixture
def test_code(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The hidden test loaded as the grader loads it, as the module ``test_code``."""

    module = types.ModuleType("test_code")
    exec(compile(HIDDEN_TEST, "test_code.py", "exec"), module.__dict__)
    monkeypatch.setitem(sys.modules, "test_code", module)
    return module


def _refusal(grader: bridge.Peer, frame: dict[str, Any]) -> str:
    with pytest.raises(bridge.Refused) as caught:
        bridge.Decoder(grader).decode(frame)
    return str(caught.value)


def test_the_grader_refuses_the_tests_names_alike_whether_they_exist_or_not(grader: bridge.Peer, test_code: Any) -> None:
    """A learner who rewrote its end of the bridge cannot list the hidden test's names by the refusals."""
    grader.shared_test_classes = frozenset(_testprep_names())
    refusals = {
        name: _refusal(grader, {"$": "name", "v": f"test_code:{name}"}).replace(name, "<name>")
        for name in ("_expected", "TestHidden", "TestHidden.test_secret_name", "no_such_name", "TestHidden.nothing")
    }
    assert len(set(refusals.values())) == 1, refusals
    objects = {
        name: _refusal(grader, {"$": "o", "i": 0, "c": f"test_code:{name}", "v": []})
        for name in ("TestHidden", "_expected", "no_such_name", "TestHidden.test_secret_name")
    }
    assert len(set(objects.values())) == 1, objects


def test_the_grader_rebuilds_only_the_classes_the_test_shares(grader: bridge.Peer, test_code: Any) -> None:
    assert _testprep_names() == ["Model"]
    frame = {"$": "o", "i": 0, "c": "test_code:TestHidden", "v": [["_testMethodName", "test_secret_name"]]}
    assert "cannot be received" in _refusal(grader, frame)  # with no class shared for this job, none
    grader.shared_test_classes = frozenset(_testprep_names())
    assert "cannot be received" in _refusal(grader, frame)
    rebuilt = bridge.Decoder(grader).decode({"$": "o", "i": 0, "c": "test_code:Model", "v": [["size", 3]]})
    assert type(rebuilt) is test_code.Model and rebuilt.size == 3


def _testprep_names() -> list[str]:
    from sandbox import _testprep

    return _testprep.shared_class_names(HIDDEN_TEST)
