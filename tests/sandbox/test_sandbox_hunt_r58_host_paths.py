"""Round 58's hunt: host paths in what a learner reads.

``from torch import Linearr`` (a common slip) raises ImportError naming the module's file by the
host's path: "cannot import name 'Linearr' from 'torch' (/work/.../site-packages/torch/__init__.py)".
That text went as it stood into the error, the one-line summary, the test's line and the
traceback on stderr, showing where the bot is installed.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

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

BAD_TEST = "import unittest\nfrom torch import Linearr\n\nclass TestAnswer(unittest.TestCase):\n    def test_a(self):\n        pass\n"

REPO = str(Path(__file__).resolve().parents[2])
LEAKS = sorted({REPO, sys.prefix, sys.base_prefix, "site-packages", ".venv"})


def _no_host_path(r: Result) -> None:
    data = r.to_dict()
    data.pop("stdout")
    text = json.dumps(data, ensure_ascii=False)
    for leak in LEAKS:
        assert leak not in text, (leak, text)


CASES = {
    "plain": ("from torch import Linearr\n", None),
    "graded-load": ("from torch.nn import Linearr\n\ndef f():\n    return 42\n", TEST),
    "graded-call": ("def f():\n    from torch import nope\n    return 42\n", TEST),
}


@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
def test_an_import_error_names_the_module_file_without_the_hosts_path(clean_pool: Pool, case: tuple) -> None:
    code, test = case
    r = clean_pool.run(code, test=test) if test else clean_pool.run(code)
    assert r.status in ("error", "failed"), r
    _no_host_path(r)
    text = r.error.message if r.error is not None else r.tests[0].message
    assert "cannot import name" in text and "__init__.py)" in text, text


def test_a_test_file_that_fails_to_import_names_no_host_path(clean_pool: Pool) -> None:
    r = clean_pool.run("def f():\n    return 42\n", test=BAD_TEST)
    assert r.status == "error", r
    _no_host_path(r)
    assert "cannot import name 'Linearr'" in r.message, r.message
