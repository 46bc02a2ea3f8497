import unittest

import torch
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.submodule = nn.Linear(3, 3)
        self.encoder = nn.Linear(3, 1)

    def forward(self, x):
        return self.encoder(self.submodule(x))


def _plain():
    torch.manual_seed(0)
    return Block()


def _clean(state):
    import user_code

    fn = getattr(user_code, "clean_keys", None)
    if not callable(fn):
        return None, "`clean_keys` is not defined as a function."
    try:
        out = fn(state)
    except Exception as exc:
        return None, f"`clean_keys` raised {type(exc).__name__}: {exc}"
    if not isinstance(out, dict):
        return None, f"`clean_keys` must return a dict, not {type(out).__name__}."
    return out, None


def _compiled(state):
    """The keys `torch.compile(model).state_dict()` has: the compiled wrapper keeps the model as `_orig_mod`."""
    return {"_orig_mod." + key: value for key, value in state.items()}


def _loads(state):
    target = Block()
    try:
        target.load_state_dict(state)
    except Exception:
        return False
    return all(torch.equal(a, b) for a, b in zip(target.state_dict().values(), _plain().state_dict().values(), strict=True))


class TestCleanKeys(unittest.TestCase):
    def test_data_parallel(self):
        out, problem = _clean(nn.DataParallel(_plain()).state_dict())
        ok = problem is None and _loads(out)
        _report(
            self,
            ok,
            "A `nn.DataParallel` checkpoint (`module.` prefix) loads strictly into the plain model.",
            problem or f"After cleaning, the keys should be {sorted(_plain().state_dict())}, got {sorted(out)}.",
        )

    def test_compile(self):
        out, problem = _clean(_compiled(_plain().state_dict()))
        ok = problem is None and _loads(out)
        _report(
            self,
            ok,
            "A `torch.compile` checkpoint (`_orig_mod.` prefix) loads strictly into the plain model.",
            problem or f"Remove `_orig_mod.` as well; got keys {sorted(out)}.",
        )

    def test_both(self):
        out, problem = _clean(_compiled(nn.DataParallel(_plain()).state_dict()))
        ok = problem is None and _loads(out)
        _report(
            self,
            ok,
            "Stacked prefixes (`_orig_mod.module.`) are all removed.",
            problem or f"Keep removing prefixes while the key starts with one; got keys {sorted(out)}.",
        )

    def test_wrapped_compiled(self):
        state = {"module." + key: value for key, value in _compiled(_plain().state_dict()).items()}
        out, problem = _clean(state)
        ok = problem is None and _loads(out)
        _report(
            self,
            ok,
            "Prefixes in the other order (`module._orig_mod.`, a wrapped compiled model) are all removed.",
            problem or f"Prefixes can come in any order and more than once; got keys {sorted(out)}.",
        )

    def test_inner_names_kept(self):
        state = _plain().state_dict()
        out, problem = _clean(state)
        ok = problem is None and sorted(out) == sorted(state) and _loads(out)
        _report(
            self,
            ok,
            "Keys without a prefix stay as they are, such as `submodule.weight` and `encoder.bias`.",
            problem or f"Only a prefix at the start of a key may be removed; `submodule.weight` and `encoder.bias` must survive. Got {sorted(out)}.",
        )

    def test_input_unchanged(self):
        state = nn.DataParallel(_plain()).state_dict()
        keys = list(state)
        _, problem = _clean(state)
        ok = problem is None and list(state) == keys
        _report(
            self,
            ok,
            "The dict passed in is not changed.",
            problem or "`clean_keys` changed the dict it was given; build and return a new one.",
        )


if __name__ == "__main__":
    unittest.main()
