"""A review of the bridge read as an attacker: each wrong solution here must come back not passed.

The learner reads what its own process was given (the shared classes of the test), writes back a
forward hook on the grader's model, and returns a value whose failure message is exponential to
print. Each attack is one that a bridge with the hole lets through.
"""

from __future__ import annotations

import os
import textwrap
import time

import pytest

from tests.sandbox.sandbox_support import LEARNS_TEST, Pool, not_passed

# Each test module defines a class it may hand the learner (so the learner's process gets the
# module's shared classes), and a test whose expected value 4217 must stay hidden, whatever the
# test class derives from.
_SHARED = "class Box:\n    pass\n"
_BODY = (
    "    def test_answer(self):\n        import user_code\n        self.assertEqual(user_code.answer, 4217)\n"
)
HIDDEN_TESTS = {
    "local-base": f"import unittest\n\n{_SHARED}\nclass _Base(unittest.TestCase):\n    pass\n\n"
    f"class TestAnswer(_Base):\n{_BODY}",
    "aliased-import": f"from unittest import TestCase as Case\n\n{_SHARED}\nclass TestAnswer(Case):\n{_BODY}",
    "assigned-alias": f"import unittest\n\nCase = unittest.TestCase\n{_SHARED}\nclass TestAnswer(Case):\n{_BODY}",
    "shadowed-builtin": f"import unittest\n\nobject = unittest.TestCase\n{_SHARED}\nclass TestAnswer(object):\n{_BODY}",
    "same-line-constant": f"import unittest; EXPECTED = 4217\n\n{_SHARED}\n"
    "class TestAnswer(unittest.TestCase):\n    def test_answer(self):\n        import user_code\n"
    "        self.assertEqual(user_code.answer, EXPECTED)\n",
    "nested": "import unittest\n\nclass Box:\n    class TestAnswer(unittest.TestCase):\n"
    + textwrap.indent(_BODY, "    ")
    + "\nTestAnswer = Box.TestAnswer\n",
    "mixin": f"import unittest\n\n{_SHARED}\nclass Checks:\n{_BODY}\n"
    "class TestAnswer(Checks, unittest.TestCase):\n    pass\n",
}

# Reads the test source its process was given and answers the number the test expects.
READ_THE_EXPECTED = """
import gc, re
answer = 0
for obj in gc.get_objects():
    text = (getattr(obj, "__dict__", None) or {}).get("_test_source")
    if isinstance(text, str):
        found = re.search(r"\\b(\\d{4,})\\b", text)
        if found:
            answer = int(found.group(1))
print("read:", answer)
"""


@pytest.mark.parametrize("shape", sorted(HIDDEN_TESTS))
def test_a_test_class_is_never_shared_whatever_it_derives_from(clean_pool: Pool, shape: str) -> None:
    r = clean_pool.run(READ_THE_EXPECTED, test=HIDDEN_TESTS[shape])
    not_passed(r)
    assert "read: 0" in r.stdout, r.stdout


# No optimizer step: a forward hook of the learner's (an existing container attribute of the
# module, written back) would replace the untrained model's output with a classification of its own.
HOOKED_FORWARD = """
import torch

def _classify(module, inputs, output):
    return torch.stack([inputs[0].sum(1), -inputs[0].sum(1)], 1)

def train_epoch(model, x, y, optimizer):
    model._forward_hooks.clear()
    model.register_forward_hook(_classify)
"""


def test_write_back_does_not_install_a_forward_hook(clean_pool: Pool) -> None:
    r = clean_pool.run(HOOKED_FORWARD, test=LEARNS_TEST)
    not_passed(r)
    # The hook never classifies on the grader's side: either the model is judged untrained, or the
    # learner function left in the model's hooks is refused as it comes back (an inert marker).
    message = r.tests[0].message
    assert "not greater than or equal to 0.95" in message or "_Inert cannot be sent" in message, r.tests


ANSWER_TEST = textwrap.dedent(
    """
    import unittest

    class TestAnswer(unittest.TestCase):
        def test_answer(self):
            import user_code
            self.assertEqual(user_code.answer(), [1, 2, 3])
    """
)

# 80 list nodes on the wire, 2**40 paths through them: cheap to decode, endless for the grader to
# print in the failure message. The grader runs in the job's limits, so the job ends there.
SHARED_DAG = """
def answer():
    value = [0]
    for _ in range(40):
        value = [value, value]
    return value
"""


def test_an_endless_failure_message_ends_within_the_jobs_limits(clean_pool: Pool) -> None:
    r = clean_pool.run(SHARED_DAG, test=ANSWER_TEST)
    assert r.status == "timeout", (r.status, r.message, r.tests)
    assert not any(t.passed for t in r.tests), r.tests


# Reads its own memory (a fork of the template, like every job process) for the expected value of
# an earlier job's hidden test; prints what it found. The pattern is built so it cannot match itself.
SCAN_OWN_MEMORY = r"""
import ctypes, re
pattern = re.compile(rb"HIDDEN_EXPECTS_" + rb"([0-9a-f]{24})")
found = set()
for line in open("/proc/self/maps"):
    parts = line.split()
    path = parts[5] if len(parts) > 5 else ""
    if "r" not in parts[1] or path.startswith("/") or path in ("[vsyscall]", "[vvar]", "[vdso]", "[vvar_vclock]"):
        continue
    lo, hi = (int(x, 16) for x in parts[0].split("-"))
    try:
        found |= {m.group(1).decode() for m in pattern.finditer(ctypes.string_at(lo, hi - lo))}
    except Exception:
        pass
print("found:", sorted(found))
"""


def test_a_later_job_cannot_read_an_earlier_hidden_test_from_its_memory(clean_pool: Pool) -> None:
    secret = os.urandom(12).hex()
    test = (
        f'import unittest\n\nEXPECTED = "HIDDEN_EXPECTS_{secret}"\n\n'
        "class TestAnswer(unittest.TestCase):\n    def test_answer(self):\n        import user_code\n"
        "        self.assertEqual(str(user_code.answer), EXPECTED)\n"
    )
    clean_pool.run("answer = 0\n", test=test)
    time.sleep(2)  # every prepared worker is forked again after that job
    outputs = [clean_pool.run(SCAN_OWN_MEMORY).stdout for _ in range(4)]
    assert all(secret not in out for out in outputs), outputs


def test_a_later_job_cannot_read_another_learners_code_or_output_from_its_memory(clean_pool: Pool) -> None:
    secret = os.urandom(12).hex()
    clean_pool.run(f'SECRET = "HIDDEN_EXPECTS_{secret}"\nprint(SECRET)\n')  # its code and its output
    time.sleep(2)  # every prepared worker is forked again after that job
    outputs = [clean_pool.run(SCAN_OWN_MEMORY).stdout for _ in range(4)]
    assert all(secret not in out for out in outputs), outputs
