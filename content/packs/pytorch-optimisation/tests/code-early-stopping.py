import unittest

import torch
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _make(*args, **kwargs):
    import user_code

    cls = getattr(user_code, "EarlyStopping", None)
    if not isinstance(cls, type):
        return None, "`EarlyStopping` is not defined as a class."
    try:
        return cls(*args, **kwargs), None
    except Exception as exc:
        return None, f"`EarlyStopping(...)` raised {type(exc).__name__}: {exc}"


def _answers(stopper, losses, model):
    try:
        return [stopper.step(loss, model) for loss in losses], None
    except Exception as exc:
        return None, f"`step` raised {type(exc).__name__}: {exc}"


class TestEarlyStopping(unittest.TestCase):
    def test_initial_state(self):
        stopper, problem = _make(3)
        ok = problem is None and stopper.best_loss == float("inf") and stopper.best_state is None
        _report(self, ok, "A new stopper starts with `best_loss` infinite and `best_state` None.",
                problem or "Set `best_loss = float(\"inf\")` and `best_state = None` in `__init__`.")

    def test_patience(self):
        stopper, problem = _make(3)
        answers = None
        if problem is None:
            answers, problem = _answers(stopper, [3.0, 2.0, 2.5, 2.4, 2.6], nn.Linear(1, 1))
        expected = [False, False, False, False, True]
        ok = problem is None and answers == expected
        _report(self, ok, "With patience 3 it stops at the third epoch in a row without improvement.",
                problem or f"For losses 3.0, 2.0, 2.5, 2.4, 2.6 and patience 3, `step` should return {expected}; got {answers}.")

    def test_counter_resets(self):
        stopper, problem = _make(2)
        answers = None
        if problem is None:
            answers, problem = _answers(stopper, [1.0, 1.1, 0.9, 1.0, 0.8, 0.85, 0.86], nn.Linear(1, 1))
        expected = [False, False, False, False, False, False, True]
        ok = problem is None and answers == expected
        _report(self, ok, "An improvement resets the count of bad epochs.",
                problem or f"For losses 1.0, 1.1, 0.9, 1.0, 0.8, 0.85, 0.86 and patience 2, `step` should return "
                f"{expected}; got {answers}. Set the counter back to 0 on every improvement.")

    def test_min_delta(self):
        stopper, problem = _make(2, min_delta=0.1)
        answers = None
        if problem is None:
            answers, problem = _answers(stopper, [1.0, 0.95, 0.93], nn.Linear(1, 1))
        expected = [False, False, True]
        ok = problem is None and answers == expected and stopper.best_loss == 1.0
        _report(self, ok, "Improvements smaller than `min_delta` do not count.",
                problem or f"With min_delta 0.1, 0.95 and 0.93 are not better than 1.0 by more than 0.1: expected "
                f"{expected} and `best_loss` 1.0; got {answers} and {getattr(stopper, 'best_loss', None)}.")

    def test_exact_threshold_is_not_an_improvement(self):
        stopper, problem = _make(1, min_delta=0.5)
        answers = None
        if problem is None:
            answers, problem = _answers(stopper, [2.0, 1.5], nn.Linear(1, 1))
        expected = [False, True]
        ok = problem is None and answers == expected and stopper.best_loss == 2.0
        stopper, problem = (None, problem) if problem else _make(1)
        if problem is None:
            answers, problem = _answers(stopper, [1.0, 1.0], nn.Linear(1, 1))
            ok = ok and problem is None and answers == expected
        _report(self, ok, "A loss exactly `min_delta` below the best (or equal to it, with `min_delta` 0) is not an improvement.",
                problem or f"With min_delta 0.5, a loss of 1.5 after 2.0 is not better by *more* than 0.5, and with "
                f"min_delta 0 an equal loss is no improvement: patience 1 should give {expected}; got {answers}. "
                "The rule is strict: `val_loss < best_loss - min_delta`.")

    def test_best_state_is_a_copy(self):
        stopper, problem = _make(2)
        ok = False
        if problem is None:
            torch.manual_seed(0)
            model = nn.Linear(3, 1)
            kept = model.weight.detach().clone()
            _, problem = _answers(stopper, [0.5], model)
            if problem is None:
                with torch.no_grad():
                    model.weight.add_(1.0)  # training goes on
                _, problem = _answers(stopper, [0.7], model)  # worse: must not replace the best state
            if problem is None:
                state = stopper.best_state
                ok = isinstance(state, dict) and "weight" in state and torch.equal(state["weight"], kept)
                ok = ok and stopper.best_loss == 0.5
        _report(self, ok, "`best_state` keeps the weights of the best epoch while training changes the model.",
                problem or "After an improvement, later training changed `best_state` (or a worse epoch replaced "
                "it). Store a copy: `copy.deepcopy(model.state_dict())`, only when the loss improves.")


if __name__ == "__main__":
    unittest.main()
