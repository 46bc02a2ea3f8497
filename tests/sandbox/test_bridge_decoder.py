"""The grader's decoder and trust policy, fed hand-made hostile frames (no pool, no learner process).

Each frame is what a learner that rewrote its end of the bridge could send; the grader must build
plain data from it or refuse it, never a value whose behaviour the learner chooses.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
import torch

from sandbox import bridge


@pytest.fixture
def grader() -> bridge.Peer:
    return bridge.Peer(-1, -1, learner=False, user_path="/sandbox/user_code.py")


def decode(peer: bridge.Peer, data: Any, sent: list[Any] | None = None) -> Any:
    return bridge.Decoder(peer, sent=sent).decode(data)


def test_a_symbolic_number_is_not_rebuilt(grader: bridge.Peer) -> None:
    frame = {"$": "o", "i": 0, "c": "torch:SymInt", "v": [["node", {"$": "h", "h": 7, "k": "object"}]]}
    with pytest.raises(bridge.Refused):
        decode(grader, frame)


def test_a_handle_claiming_a_data_class_is_a_plain_handle(grader: bridge.Peer) -> None:
    for claimed in ("torch:Tensor", "builtins:float", "builtins:list", "test_code:Probe"):
        frame = {"$": "h", "h": 3, "k": "object", "c": {"$": "name", "v": claimed}}
        grader.proxies.clear()
        value = decode(grader, frame)
        assert type(value) is bridge.Proxy and value.__class__ is bridge.Proxy, claimed
        assert not isinstance(value, (torch.Tensor, float, list))


def test_a_handle_may_claim_a_behaviour_class(grader: bridge.Peer) -> None:
    frame = {"$": "h", "h": 4, "k": "object", "c": {"$": "name", "v": "torch.nn.modules.module:Module"}}
    assert isinstance(decode(grader, frame), torch.nn.Module)


def test_a_learner_class_never_derives_from_a_data_class(grader: bridge.Peer) -> None:
    frame = {"$": "h", "h": 5, "k": "class", "n": "Liar", "b": ["builtins:float", "builtins:int", "torch:Tensor"]}
    cls = decode(grader, frame)
    assert not issubclass(cls, (float, int, torch.Tensor))


def test_functions_are_taken_by_name_only_when_the_grader_sent_them(grader: bridge.Peer) -> None:
    for name in ("builtins:exec", "torch:load", "torch.serialization:load"):
        with pytest.raises(bridge.Refused):
            decode(grader, {"$": "name", "v": name})


def test_a_rebuilt_object_holds_no_learner_callable(grader: bridge.Peer) -> None:
    frame = {
        "$": "o", "i": 0, "c": "torch.nn.modules.linear:Linear",
        "v": [["forward", {"$": "h", "h": 9, "k": "function", "n": "forward"}]],
    }  # fmt: skip
    with pytest.raises(bridge.Refused):
        decode(grader, frame)


def _tensor(values: list[float]) -> dict[str, Any]:
    raw = torch.tensor(values, dtype=torch.float32).numpy().tobytes()
    return {"$": "t", "i": 0, "dt": "float32", "sh": [len(values)], "v": base64.b64encode(raw).decode()}


def test_write_back_takes_tensor_values_but_no_function_or_new_attribute(grader: bridge.Peer) -> None:
    model = torch.nn.Linear(2, 1)
    model.training = True
    weight = model.weight
    sent: list[Any] = [model, weight]
    back = [
        [0, {"$": "o", "v": [
            ["forward", {"$": "h", "h": 11, "k": "function", "n": "forward"}],
            ["training", False],
            ["extra", 5],
            ["_parameters", {"$": "dict", "v": [["weight", {"$": "h", "h": 12, "k": "object"}]]}],
        ]}],
        [1, {**_tensor([3.0, 4.0]), "sh": [1, 2]}],
    ]  # fmt: skip
    bridge.Decoder(grader, sent=sent).apply_back(back)
    assert "forward" not in model.__dict__ and "extra" not in model.__dict__
    assert model.training is False
    assert model.weight is weight and model.weight.tolist() == [[3.0, 4.0]]


def test_generator_state_is_not_written_back(grader: bridge.Peer) -> None:
    gen = torch.Generator().manual_seed(0)
    before = gen.get_state().clone()
    state = torch.Generator().manual_seed(99).get_state().numpy().tobytes()
    bridge.Decoder(grader, sent=[gen]).apply_back([[0, {"$": "gen", "v": base64.b64encode(state).decode()}]])
    assert torch.equal(gen.get_state(), before)


def test_the_learners_random_state_is_not_adopted(grader: bridge.Peer) -> None:
    torch.manual_seed(5)
    expected = torch.Generator().manual_seed(5)
    steered = base64.b64encode(torch.Generator().manual_seed(1234).get_state().numpy().tobytes()).decode()
    grader.shared.restore(True, {"grad": True, "rng": steered})
    torch.rand(1, generator=expected)  # the grader's own sequence moves on by one draw, no more
    assert torch.equal(torch.randn(3), torch.randn(3, generator=expected))


def test_colliding_keys_are_too_large_to_check(grader: bridge.Peer) -> None:
    modulus = 2**61 - 1
    frame = {"$": "set", "i": 0, "v": [k * modulus for k in range(1, 200)]}
    with pytest.raises(bridge.TooLarge):
        decode(grader, frame)


def test_deep_nesting_is_too_large_to_check(grader: bridge.Peer) -> None:
    frame: Any = 1
    for _ in range(60):
        frame = {"$": "tuple", "v": [frame]}
    with pytest.raises(bridge.TooLarge):
        decode(grader, frame)


@pytest.mark.parametrize("kind", [*bridge.CONTROL_FLOW, "ExceptionGroup"])
def test_control_flow_from_the_learner_is_a_runtime_error(grader: bridge.Peer, kind: str) -> None:
    bases = [kind, "BaseException"] if kind != "ExceptionGroup" else [kind, "BaseExceptionGroup", "Exception"]
    exc = grader.rebuild({"type": kind, "bases": bases, "message": "stop"})
    assert isinstance(exc, RuntimeError) and kind in str(exc)
