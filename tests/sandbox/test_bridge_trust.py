"""The bridge's trust policy on its own, and the grader's decoder fed frames that try to get round it.

The policy says which classes a learner's handle may claim, which the grader rebuilds from data,
and which names and modules it takes by name. Each frame here is one a learner that rewrote its
end of the bridge could send.
"""

from __future__ import annotations

import base64
import math
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
