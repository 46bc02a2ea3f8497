"""Attacks on the bridge between the grader and the learner's process: each must come back not passed.

The learner's side of the bridge is the learner's to change (its encoder, its pipe to the grader,
its random state), so these submissions do: they return symbolic numbers around their own objects,
claim a data class for a handle, steer the grader's random numbers, install their functions on the
grader's objects, raise control-flow exceptions, write oversized or slow-to-decode frames, and look
for the hidden test.
"""

from __future__ import annotations

import textwrap

from sandbox import Result
from tests.sandbox.sandbox_support import LEARNS_TEST, SEED_SOLUTION, SEED_TEST, Pool, not_passed

# Helpers the attacks share: the learner process's end of the bridge, and raw frames written to it.
_REACH = textwrap.dedent(
    """
    import gc, json, os, struct, sys

    def learner_peer():
        for obj in gc.get_objects():
            if getattr(type(obj), "__name__", "") == "Peer" and getattr(obj, "learner", False) is True:
                return obj
        raise RuntimeError("no peer")

    def bridge_class(name):
        for mod_name, mod in list(sys.modules.items()):
            if mod_name.startswith("sandbox") and isinstance(getattr(mod, name, None), type):
                return getattr(mod, name)
        raise RuntimeError("no " + name)

    def send_raw(body):
        fd = learner_peer().write_fd
        data = struct.pack("!I", len(body)) + body
        while data:
            data = data[os.write(fd, data):]
    """
)


def _text(r: Result) -> str:
    return " ".join([r.message, r.stdout, r.stderr, *(f"{t.name} {t.message}" for t in r.tests)])


COUNT_TEST = textwrap.dedent(
    """
    import unittest
    import torch

    class TestCount(unittest.TestCase):
        def test_count(self):
            import user_code
            self.assertEqual(user_code.count_params(torch.nn.Linear(7, 7)), 58)
    """
)

SYMBOLIC = """
import torch

class Node:
    def is_constant(self): return False
    def is_symbolic(self): return True
    def is_nested_int(self): return False
    def is_int(self): return False
    def is_float(self): return False
    def is_bool(self): return True
    def maybe_as_int(self): return None
    def maybe_as_bool(self): return None
    def constant_int(self): return None
    def guard_bool(self, *a): return True
    def expect_true(self, *a): return True
    def bool_(self): return True
    def wrap_int(self, n): return Node()
    def eq(self, other): return Node()
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *a, **k: Node()

def count_params(model):
    return torch.SymInt(Node())
"""


def test_symbolic_numbers_around_a_learner_object_do_not_compare_equal(clean_pool: Pool) -> None:
    r = clean_pool.run(SYMBOLIC, test=COUNT_TEST)
    not_passed(r)


# The seed exercise, all right except a (2, 3) W whose handle claims to be a tensor of shape (1, 3).
CLAIMED_TENSOR = (
    SEED_SOLUTION
    + _REACH
    + """
class FakeW:
    shape = torch.Size([1, 3])
    requires_grad = True
    grad = torch.ones(1, 3)

_real_W = torch.zeros(2, 3)
W = FakeW()
_Encoder = bridge_class("Encoder")
_handle = _Encoder._handle
def _claim(self, value):
    out = _handle(self, value)
    if isinstance(value, FakeW):
        out["c"] = {"$": "name", "v": "torch:Tensor"}
    return out
_Encoder._handle = _claim
"""
)


def test_a_handle_claiming_a_tensor_is_not_a_tensor(clean_pool: Pool) -> None:
    r = clean_pool.run(CLAIMED_TENSOR, test=SEED_TEST)
    not_passed(r)
    assert "`W` must have shape (1, 3)." in {t.name for t in r.tests if not t.passed}


SOFTMAX_TEST = textwrap.dedent(
    """
    import unittest
    import torch

    class TestSoftmax(unittest.TestCase):
        def test_softmax(self):
            import user_code
            uniform = user_code.softmax(torch.zeros(5))
            self.assertTrue(torch.allclose(uniform, torch.full((5,), 0.2)))
            x = torch.randn(5)
            self.assertTrue(torch.allclose(user_code.softmax(x), torch.softmax(x, 0)))
    """
)

# Ignores its input: seeds the shared generator, then answers the softmax of what that seed draws next.
STEERED_RANDOM = """
import torch

calls = []
def softmax(x):
    calls.append(1)
    if len(calls) == 1:
        torch.manual_seed(1234)
        return torch.full((5,), 0.2)
    return torch.softmax(torch.randn(5, generator=torch.Generator().manual_seed(1234)), 0)
"""


def test_the_learners_random_state_does_not_flow_back(clean_pool: Pool) -> None:
    r = clean_pool.run(STEERED_RANDOM, test=SOFTMAX_TEST)
    not_passed(r)


# No optimizer step: the model never learns, but a forward of its own classifies the points.
INSTALLED_FORWARD = """
import torch

def train_epoch(model, x, y, optimizer):
    model.forward = lambda inputs: torch.stack([inputs.sum(1), -inputs.sum(1)], 1)
"""


def test_write_back_does_not_install_learner_functions(clean_pool: Pool) -> None:
    r = clean_pool.run(INSTALLED_FORWARD, test=LEARNS_TEST)
    not_passed(r)


STOP_TEST = textwrap.dedent(
    """
    import unittest

    class TestEven(unittest.TestCase):
        def test_all_even(self):
            import user_code
            self.assertTrue(all(map(user_code.is_even, [2, 4, 6])))

        def test_odd(self):
            import user_code
            with self.assertRaises(ValueError):
                user_code.parse("x")
    """
)

CONTROL_FLOW = """
def is_even(n):
    raise StopIteration

def parse(text):
    raise ExceptionGroup("several", [ValueError("bad")])
"""


def test_control_flow_exceptions_arrive_wrapped(clean_pool: Pool) -> None:
    r = clean_pool.run(CONTROL_FLOW, test=STOP_TEST)
    not_passed(r)
    by_name = {t.name: t for t in r.tests}
    assert not by_name["test_all_even"].passed
    assert "StopIteration" in by_name["test_all_even"].message
    assert "ExceptionGroup" in by_name["test_odd"].message, by_name["test_odd"]


ANSWER_TEST = textwrap.dedent(
    """
    import unittest

    class TestAnswer(unittest.TestCase):
        def test_answer(self):
            import user_code
            self.assertEqual(user_code.answer(), [1, 2, 3])
    """
)

HUGE_FRAME = (
    _REACH
    + """
def answer():
    items = b"[]," * 11_000_000 + b"[]"
    send_raw(b'{"op":"reply","ok":true,"value":{"$":"list","i":0,"v":[' + items + b']}}')
    os._exit(0)
"""
)


def test_a_huge_reply_frame_is_too_large_to_check(clean_pool: Pool) -> None:
    r = clean_pool.run(HUGE_FRAME, test=ANSWER_TEST)
    not_passed(r)
    assert "too large to check" in _text(r), (r.status, r.message, r.tests)


COLLIDING_SET = (
    _REACH
    + """
def answer():
    modulus = 2**61 - 1  # every multiple hashes to 0
    items = ",".join(str(k * modulus) for k in range(1, 60_000)).encode()
    send_raw(b'{"op":"reply","ok":true,"value":{"$":"set","i":0,"v":[' + items + b']}}')
    os._exit(0)
"""
)


def test_a_slow_to_decode_reply_is_too_large_to_check(clean_pool: Pool) -> None:
    r = clean_pool.run(COLLIDING_SET, test=ANSWER_TEST)
    not_passed(r)
    assert "too large to check" in _text(r), (r.status, r.message, r.tests)


def test_the_grader_counts_in_the_jobs_cgroup(clean_pool: Pool) -> None:
    """The grader's own allocation (decoding a reply) shows in the job's peak memory."""
    code = "def answer():\n    return [[0] * 200] * 1\n\nimport torch\n"
    test = textwrap.dedent(
        """
        import unittest

        class TestBig(unittest.TestCase):
            def test_big(self):
                import user_code
                ballast = bytearray(120 * 1024 * 1024)  # the grader's own memory, touched
                for i in range(0, len(ballast), 4096):
                    ballast[i] = 1
                self.assertEqual(user_code.answer(), [1])
        """
    )
    r = clean_pool.run(code, test=test)
    not_passed(r)
    assert r.peak_memory_mb >= 120, r.peak_memory_mb


# Threads reserve address space (stacks, allocator arenas) far beyond what they touch: with the
# slot's cgroup counting touched memory, a plain run needs no cap on its address space.
DATA_LIMIT = """
for line in open("/proc/self/limits"):
    if line.startswith("Max data size"):
        print(line.split()[3])
"""


def test_a_plain_run_does_not_get_the_graders_data_limit(clean_pool: Pool) -> None:
    r = clean_pool.run(DATA_LIMIT)
    assert "cgroup2:memory" in r.isolation or "cgroup1:memory" in r.isolation, r.isolation
    assert r.status == "passed" and r.stdout == "unlimited\n", (r.status, r.stdout, r.stderr[-500:])


MARKED_TEST = textwrap.dedent(
    """
    # hidden-marker-51c0de: the learner must never read this file
    import unittest

    class TestAnswer(unittest.TestCase):
        def test_answer(self):
            import user_code
            self.assertEqual(user_code.answer, 42)
    """
)

LOOK_FOR_THE_TEST = """
import gc, os
needle = "hidden-" + "marker"
found = []
for folder in (".", "/tmp", os.environ.get("HOME", ".")):
    try:
        names = os.listdir(folder)
    except OSError:
        continue
    for name in names:
        try:
            with open(os.path.join(folder, name), errors="replace") as fh:
                text = fh.read()
        except OSError:
            continue
        if needle in text and name != "user_code.py":
            found.append("file " + name)
for obj in gc.get_objects():
    for value in (getattr(obj, "__dict__", None) or {}).values():
        if isinstance(value, str) and needle in value and value != needle:
            found.append("object " + type(obj).__name__)
print("found:", found)
answer = 0
"""


def test_the_learner_never_sees_the_test_source(clean_pool: Pool) -> None:
    r = clean_pool.run(LOOK_FOR_THE_TEST, test=MARKED_TEST)
    not_passed(r)
    assert "found: []" in r.stdout, r.stdout


PRINTS_WITHOUT_END = {
    "at import": "while True:\n    print('A' * 100_000)\n",
    "in the tested call": "def answer():\n    for _ in range(3000):\n        print('A' * 100_000)\n    return [1, 2, 3]\n",
}


def test_a_graded_job_that_prints_without_end_meets_the_output_limit_not_the_memory_limit(clean_pool: Pool) -> None:
    """What the learner's code prints while the grader waits is held for the reply only up to a bound.

    300 MB printed inside the tested call (then the right answer) used to fill the learner
    process's buffer until the memory limit ended the job, with nothing of it shown.
    """
    for where, code in PRINTS_WITHOUT_END.items():
        r = clean_pool.run(code, test=ANSWER_TEST)
        assert r.status == "output_limit", (where, r.status, r.message)
        assert r.truncated and "AAAA" in r.stdout and len(r.stdout.encode()) <= 65536, where
