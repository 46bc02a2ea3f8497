"""Round 59's hunt: a graded submission that writes bytes to its standard output.

``sys.stdout.buffer.write(b"...")`` works in a plain run (and in ``python user_code.py``), but in
a graded job the learner process's ``sys.stdout`` is the bridge's capture, which had no ``buffer``
and no ``encoding``: the same file failed to load with "AttributeError: 'Captured' object has no
attribute 'buffer'", a name of the sandbox's own the learner cannot act on. The capture now takes
bytes (as UTF-8, a sequence split across writes kept whole) and says its encoding.
"""

from __future__ import annotations

import textwrap

from sandbox import Result
from tests.sandbox.sandbox_support import Pool

TEST = textwrap.dedent(
    """
    import unittest
    import user_code

    class TestAnswer(unittest.TestCase):
        def test_value(self):
            self.assertEqual(user_code.f(), 42)
    """
)

CODE = textwrap.dedent(
    """
    import sys
    data = "héllo ✓\\n".encode()
    sys.stdout.buffer.write(data[:2])
    sys.stdout.buffer.write(data[2:])
    sys.stdout.buffer.flush()
    print(sys.stdout.encoding)

    def f():
        sys.stdout.buffer.write(b"in f\\n")
        return 42
    """
)


def test_bytes_written_to_stdout_are_output_in_a_graded_job(clean_pool: Pool) -> None:
    r: Result = clean_pool.run(CODE, test=TEST)
    assert r.status == "passed", (r.message, r.error, r.tests)
    assert r.stdout == "héllo ✓\nutf-8\nin f\n", repr(r.stdout)


def test_a_plain_run_prints_the_same(clean_pool: Pool) -> None:
    r = clean_pool.run(CODE + "f()\n")
    assert r.status == "passed", (r.message, r.error)
    assert r.stdout == "héllo ✓\nutf-8\nin f\n", repr(r.stdout)
