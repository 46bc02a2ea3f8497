"""What `pack validate` finds without running anything: Python that does not compile, every check
a type error would hide, and file references that leave the pack. Each problem at its own file:line:col.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from bot.core import PackInvalid
from bot.core.packs import load_bytes, load_path

HEAD = "pack: checks\ntitle: Checks\nversion: 1\nquestions:\n"

TEST = "import unittest\nimport user_code\n\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(user_code.f(), 1)\n"
BROKEN_TEST = TEST.replace("def test_a(self):", "def test_a(self)")  # line 6, the missing colon at column 21
SOLUTION = "def f():\n    return 1\n"


def problems(call: object, *args: object) -> list[str]:
    with pytest.raises(PackInvalid) as caught:
        call(*args)  # type: ignore[operator]
    return [str(p) for p in caught.value.problems]


def folder_pack(tmp_path: Path, pack_yaml: str, files: dict[str, str]) -> Path:
    folder = tmp_path / "checks"
    folder.mkdir()
    (folder / "pack.yaml").write_text(pack_yaml, encoding="utf-8")
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def zipped(members: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return buffer.getvalue()


# ------------------------------------------------------------------ D8: Python that does not compile


FILE_ITEM = "  - id: c\n    type: code\n    prompt: Write f\n    test_file: tests/c.py\n    solution_file: solutions/c.py\n"


def test_a_test_file_that_does_not_compile_is_named_at_its_own_line(tmp_path: Path) -> None:
    folder = folder_pack(tmp_path, HEAD + FILE_ITEM, {"tests/c.py": BROKEN_TEST, "solutions/c.py": SOLUTION})
    assert problems(load_path, folder) == [
        f"{folder / 'tests' / 'c.py'}:6:21: questions[0] (id `c`).test_file: syntax error: expected ':'"
    ]


def test_a_solution_file_that_does_not_compile_is_named_in_a_zip(tmp_path: Path) -> None:
    data = zipped({"checks/pack.yaml": HEAD + FILE_ITEM, "checks/tests/c.py": TEST, "checks/solutions/c.py": "def f(:\n    return 1\n"})
    assert problems(load_bytes, "checks.zip", data) == [
        "checks.zip/checks/solutions/c.py:1:7: questions[0] (id `c`).solution_file: syntax error: invalid syntax"
    ]


INLINE = (
    HEAD
    + "  - id: c\n"  # 5
    + "    type: code\n"
    + "    prompt: Write f\n"
    + "    starter: 'def f(:'\n"  # 8: the starter's `:` at column 21
    + "    test: |\n"  # 9
    + "      import unittest\n"
    + "      import user_code\n"
    + "      class T(unittest.TestCase):\n"
    + "          def test_a(self):\n"
    + "              self.assertEqual(user_code.f(), 1)\n"
    + "    solution: |\n"  # 15
    + "      def f():\n"
    + "          return 1 +\n"  # 17: the solution's error, after `+` at column 21
)


def test_inline_code_is_compiled_and_placed_at_its_line_in_pack_yaml() -> None:
    assert problems(load_bytes, "c.yaml", INLINE.encode()) == [
        "c.yaml:8:21: questions[0] (id `c`).starter: syntax error: invalid syntax",
        "c.yaml:17:21: questions[0] (id `c`).solution: syntax error: invalid syntax",
    ]


def test_inline_tests_are_compiled_too_and_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    text = INLINE.replace("'def f(:'", "'def f(): pass'").replace("          return 1 +\n", "          return 1\n")
    text = text.replace("      import unittest\n", f"      open({str(marker)!r}, 'w')\n      import unittest\n", 1)
    loaded = load_bytes("c.yaml", text.encode())
    assert not marker.exists() and loaded.pack.questions[0].id == "c"
    broken = text.replace("          def test_a(self):\n", "          def test_a(self)\n")
    assert problems(load_bytes, "c.yaml", broken.encode()) == ["c.yaml:14:27: questions[0] (id `c`).test: syntax error: expected ':'"]


# ------------------------------------------------------------------ D9: a type error hides nothing else


def test_a_type_error_does_not_hide_duplicate_ids_and_each_items_own_rules() -> None:
    text = (
        "pack: checks\n"
        "title: [a, b]\n"  # 2: a type error
        "version: 1\n"
        "questions:\n"
        "  - id: q1\n"  # 5
        "    type: choice\n"
        "    prompt: Pick\n"
        "    points: abc\n"  # 8: a type error
        "    choices: [{text: a, correct: true}, {text: b}]\n"
        "  - id: q1\n"  # 10: the same id again
        "    type: short\n"
        "    prompt: Say\n"  # 12: no accept, no number
        "  - id: b\n"  # 13
        "    type: blanks\n"
        "    prompt: Fill\n"
        "    code: 'x = {{1}}'\n"
        "    options: [a, c]\n"
        "    answers: {1: b}\n"  # 18: not an option
        "  - id: c\n"  # 19
        "    type: code\n"
        "    promt: Write\n"  # 21: a typo, and no test
        "    solution: 'x = 1'\n"
    )
    assert problems(load_bytes, "t.yaml", text.encode()) == [
        "t.yaml:2:8: title: should be text, not `['a', 'b']`",
        "t.yaml:8:13: questions[0] (id `q1`).points: `abc` is not a whole number",
        "t.yaml:10:5: questions[1] (id `q1`).id: duplicate id, first used by questions[0]",
        "t.yaml:10:5: questions[1] (id `q1`): a short question needs `accept` or `number`",
        "t.yaml:18:15: questions[2] (id `b`).answers.1: `b` is not one of the options",
        "t.yaml:19:5: questions[3] (id `c`): give exactly one of `test` and `test_file`",
        "t.yaml:21:5: questions[3] (id `c`): unknown key `promt`: did you mean `prompt`?",
    ]


def test_a_type_error_does_not_hide_a_topic_that_is_not_listed() -> None:
    text = (
        "pack: checks\ntitle: Checks\nversion: x\ntopics: [{id: t, title: T}]\nquestions:\n"
        "  - id: a\n    type: short\n    topic: nope\n    prompt: Say\n    accept: ['1']\n"
    )
    assert problems(load_bytes, "t.yaml", text.encode()) == [
        "t.yaml:3:10: version: `x` is not a whole number",
        "t.yaml:8:5: questions[0] (id `a`).topic: `nope` is not in the pack's topics (t)",
    ]


# ------------------------------------------------------------------ D10: references that leave the pack

OUTSIDE = "points outside the pack (absolute paths, `..` and symlinks leaving the pack are not followed)"


def test_references_that_leave_a_folder_pack_say_so(tmp_path: Path) -> None:
    secret = tmp_path / "secret.py"
    secret.write_text("import user_code\n", encoding="utf-8")
    items = "".join(
        f"  - id: c{i}\n    type: code\n    prompt: Write\n    test_file: {name}\n    solution: 'x = 1'\n"
        for i, name in enumerate(["tests/link.py", "../secret.py", str(secret), "tests/missing.py"])
    )
    folder = folder_pack(tmp_path, HEAD + items, {})
    (folder / "tests").mkdir()
    (folder / "tests" / "link.py").symlink_to(secret)
    assert problems(load_path, folder) == [
        f"{folder / 'pack.yaml'}:8:16: questions[0] (id `c0`).test_file: `tests/link.py` {OUTSIDE}",
        f"{folder / 'pack.yaml'}:13:16: questions[1] (id `c1`).test_file: `../secret.py` {OUTSIDE}",
        f"{folder / 'pack.yaml'}:18:16: questions[2] (id `c2`).test_file: `{secret}` {OUTSIDE}",
        f"{folder / 'pack.yaml'}:23:16: questions[3] (id `c3`).test_file: file `tests/missing.py` not found beside the pack",
    ]


def test_a_symlink_that_stays_inside_the_pack_is_followed(tmp_path: Path) -> None:
    item = "  - id: c\n    type: code\n    prompt: Write\n    test_file: tests/link.py\n    solution: 'x = 1'\n"
    folder = folder_pack(tmp_path, HEAD + item, {"shared/t.py": "import user_code\n"})
    (folder / "tests").mkdir()
    (folder / "tests" / "link.py").symlink_to(folder / "shared" / "t.py")
    assert load_path(folder).pack.questions[0].test == "import user_code\n"  # type: ignore[union-attr]


def test_a_zip_follows_the_folder_rule_even_inside_the_archive(tmp_path: Path) -> None:
    item = "  - id: c\n    type: code\n    prompt: Write\n    test_file: ../evil/test.py\n    solution: 'x = 1'\n"
    members = {"pack/pack.yaml": HEAD + item, "evil/test.py": "import user_code\n"}
    expected = f":8:16: questions[0] (id `c`).test_file: `../evil/test.py` {OUTSIDE}"
    assert problems(load_bytes, "t.zip", zipped(members)) == [f"t.zip/pack/pack.yaml{expected}"]
    (tmp_path / "evil").mkdir()
    (tmp_path / "evil" / "test.py").write_text("import user_code\n", encoding="utf-8")
    (tmp_path / "pack").mkdir()
    (tmp_path / "pack" / "pack.yaml").write_text(HEAD + item, encoding="utf-8")
    assert problems(load_path, tmp_path / "pack") == [f"{tmp_path / 'pack' / 'pack.yaml'}{expected}"]
    absolute = item.replace("../evil/test.py", "/evil/test.py")
    assert problems(load_bytes, "t.zip", zipped({"pack.yaml": HEAD + absolute, "evil/test.py": "import user_code\n"})) == [
        f"t.zip/pack.yaml:8:16: questions[0] (id `c`).test_file: `/evil/test.py` {OUTSIDE}"
    ]


def test_validate_run_names_the_broken_test_file_not_the_solution(tmp_path: Path) -> None:
    import subprocess
    import sys

    folder = folder_pack(tmp_path, HEAD + FILE_ITEM, {"tests/c.py": BROKEN_TEST, "solutions/c.py": SOLUTION})
    env = {"QUIZBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}", "QUIZBOT_PACKS": str(tmp_path / "none"), "PATH": "/usr/bin:/bin"}
    for run in ([], ["--run"]):
        result = subprocess.run(
            [sys.executable, "-m", "bot.cli", "pack", "validate", *run, str(folder)],
            capture_output=True, text=True, timeout=300, cwd=Path(__file__).parents[2], env=env,
        )
        assert result.returncode == 1, (run, result.stdout, result.stderr)
        assert result.stdout.splitlines() == [
            f"{folder / 'tests' / 'c.py'}:6:21: questions[0] (id `c`).test_file: syntax error: expected ':'"
        ], (run, result.stdout)
