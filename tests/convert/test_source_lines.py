"""A converted pack that fails its checks or its proof names the uploaded file's lines, not the .zip."""

from __future__ import annotations

from pathlib import Path

from bot.core.convert import ORIGIN_FILE, convert_bytes, in_source
from bot.core.errors import Problem
from bot.core.packs import load_bytes
from bot.core.packs.proof import prove
from tests.fakes import LocalRunner

FIXTURES = Path(__file__).parents[1] / "fixtures" / "import"
MOODLE = "moodle-pytorch-basics-20261130-1412.xml"
RIGHT = "    return [i * i for i in range(n)]\n</answer>"
WRONG = "    return [i * i for i in range(1, n + 1)]\n</answer>"


def source_line(text: str, marker: str) -> int:
    return text[: text.index(marker)].count("\n") + 1


async def test_a_moodle_wrong_key_is_reported_at_its_question_in_the_xml() -> None:
    text = (FIXTURES / MOODLE).read_text(encoding="utf-8")
    assert RIGHT in text
    conversion = convert_bytes(MOODLE, text.replace(RIGHT, WRONG).encode())
    data = conversion.zip_bytes()
    problems = await prove(load_bytes("moodle-pytorch-basics.zip", data), LocalRunner())
    assert problems and all(".zip/" in str(p) for p in problems)  # what the admin saw before
    shown = [str(p) for p in in_source(problems, data)]
    line = source_line(text, '<question type="coderunner">\n    <name>\n      <text>Squares of a tensor')
    assert shown[0].startswith(f"{MOODLE}:{line}: question `squares-of-a-tensor`: ")
    assert not any(".zip/" in s or "pack.yaml" in s for s in shown)


def test_a_gift_item_problem_names_the_gift_file_and_the_item_line() -> None:
    name = "pytorch-gift.txt"
    text = (FIXTURES / name).read_text(encoding="utf-8")
    conversion = convert_bytes(name, text.encode())
    loaded = load_bytes("pytorch-gift.zip", conversion.zip_bytes())
    last = conversion.converted[-1]
    problem = loaded.problem(last.id, "the key is wrong")  # what a failing check or proof reports
    assert "pack.yaml" in str(problem)
    shown = [str(p) for p in in_source([problem], conversion.zip_bytes())]
    assert shown == [f"{name}:{last.line}: question `{last.id}`: the key is wrong"]
    whole = Problem(loaded.source, 1, 1, "too many keys are the longest option")
    assert [str(p) for p in in_source([whole], conversion.zip_bytes())] == [f"{name}: too many keys are the longest option"]


def test_an_edited_pack_keeps_its_own_positions() -> None:
    conversion = convert_bytes("pytorch-gift.txt", (FIXTURES / "pytorch-gift.txt").read_bytes())
    files = conversion.folder_files()
    assert ORIGIN_FILE in files
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("p/pack.yaml", files["pack.yaml"] + b"# edited\n")
        archive.writestr(f"p/{ORIGIN_FILE}", files[ORIGIN_FILE])
    problem = Problem("p.zip/p/pack.yaml", 30, 5, "something")
    assert in_source([problem], buffer.getvalue()) == [problem]
