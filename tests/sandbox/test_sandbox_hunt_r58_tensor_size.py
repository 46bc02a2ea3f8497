"""Round 58's hunt: a tensor small in memory but large once written out (an expanded view, a sparse tensor).

The bridge checked a tensor's size only after making it dense and contiguous and copying its bytes:
``torch.zeros(1).expand(10**8)`` (4 bytes of storage) or a sparse tensor of a large shape became
hundreds of megabytes in the learner process, and the whole job ended on the memory limit instead
of that one test failing with "your function returned something too large to check".
"""

from __future__ import annotations

import textwrap

from sandbox import bridge
from tests.sandbox.sandbox_support import Pool

TEST = textwrap.dedent(
    """
    import unittest
    import user_code

    class TestAnswer(unittest.TestCase):
        def test_expanded(self):
            self.assertEqual(user_code.expanded().shape[0], 10**8)

        def test_sparse(self):
            self.assertEqual(user_code.sparse().shape[0], 10**5)

        def test_small(self):
            self.assertEqual(user_code.small(), 1)
    """
)

CODE = textwrap.dedent(
    """
    import torch

    def expanded():
        return torch.zeros(1).expand(10**8)

    def sparse():
        return torch.sparse_coo_tensor(torch.tensor([[0], [0]]), torch.tensor([1.0]), (10**5, 10**4))

    def small():
        return 1
    """
)


def test_a_tensor_too_large_once_dense_fails_its_test_not_the_job(clean_pool: Pool) -> None:
    r = clean_pool.run(CODE, test=TEST)
    assert r.status == "failed", r
    by_name = {t.name: t for t in r.tests}
    assert by_name["test_small"].passed, r.tests
    for name in ("test_expanded", "test_sparse"):
        assert not by_name[name].passed and bridge.TOO_LARGE in by_name[name].message, r.tests
