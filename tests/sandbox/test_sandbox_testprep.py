"""The hidden test prepared once on the bot's side (``sandbox._testprep``): what the grader gets."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from sandbox import _testprep

TEST = (Path(__file__).parent / "fixtures" / "seed_style_test.py").read_text()
PATH = "/sandbox/test_code.py"


def test_the_prepared_code_is_the_test_compiled_for_the_graders_path() -> None:
    prepared = _testprep.prepare(TEST)
    code = _testprep.code_object(prepared, "raise SystemExit('compiled here')", PATH)
    assert code.co_filename == PATH
    namespace: dict[str, object] = {"__name__": "test_code"}
    exec(code, namespace)
    assert "TestSubmission" in namespace
    assert prepared["program"] is False and prepared["classes"] is None
    assert _testprep.prepare(TEST) is prepared  # once per source


def test_another_path_or_interpreter_compiles_the_source_instead() -> None:
    prepared = _testprep.prepare(TEST)
    assert _testprep.code_object(prepared, "x = 1\n", "/tmp/work/test_code.py").co_filename == (
        "/tmp/work/test_code.py"
    )
    foreign = {**prepared, "magic": "00000000"}
    namespace: dict[str, object] = {}
    exec(_testprep.code_object(foreign, "x = 1\n", PATH), namespace)
    assert namespace["x"] == 1
    broken = {**prepared, "code": "bm90IG1hcnNoYWw="}  # base64 of "not marshal"
    exec(_testprep.code_object(broken, "x = 2\n", PATH), namespace)
    assert namespace["x"] == 2


def test_a_test_that_does_not_compile_is_left_to_the_grader() -> None:
    prepared = _testprep.prepare("def test_(:\n")
    assert prepared["code"] is None and prepared["classes"] is None


def test_a_bot_run_with_dash_o_keeps_the_tests_asserts() -> None:
    probe = (
        "import base64, marshal\n"
        "from sandbox import _testprep\n"
        "p = _testprep.prepare('assert False, \"kept\"\\n')\n"
        "try:\n"
        "    exec(marshal.loads(base64.b64decode(p['code'])), {})\n"
        "except AssertionError as exc:\n"
        "    print(exc)\n"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-O", "-c", probe], cwd=root, capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "kept", out.stderr


def test_shared_classes_keep_a_model_class_and_blank_the_tests() -> None:
    source = (
        "import unittest\nimport torch\n\n"
        "class Net(torch.nn.Module):\n    pass\n\n"
        "EXPECTED = 58\n\n"
        "class TestNet(unittest.TestCase):\n    def test_it(self):\n        self.assertEqual(1, 1)\n"
    )
    shared = _testprep.prepare(source)["classes"]
    assert shared is not None
    assert "class Net" in shared and "EXPECTED" not in shared and "TestNet" not in shared
    assert shared.count("\n") == source.count("\n")  # line for line
