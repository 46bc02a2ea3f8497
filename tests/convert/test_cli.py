"""`quizbot pack convert` and `quizbot pack export --format`, run as an admin would."""

from __future__ import annotations

import zipfile
from pathlib import Path

from bot.core.packs import load_path
from tests.conftest import DEMO_PACK
from tests.core.test_cli import quizbot

from .helpers import IMPORT_FIXTURES

MOODLE = IMPORT_FIXTURES / "moodle-pytorch-basics-20261130-1412.xml"


def test_convert_writes_a_pack_folder_and_reports(tmp_path: Path) -> None:
    result = quizbot("pack", "convert", str(MOODLE), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "Converted 8 items from Moodle XML (3 choice, 2 blanks, 2 short, 1 code); 4 not converted."
    assert f"  {MOODLE}:263: `About this part` (description): a description holds no question (Moodle shows it as text between questions)" in lines
    assert "Assumed:" in lines
    folder = tmp_path / "moodle-pytorch-basics"
    assert f"Wrote pack `moodle-pytorch-basics` to {folder.name} (pack.yaml and 1 test file)" in result.stderr
    loaded = load_path(folder)
    assert len(loaded.pack.questions) == 8 and (folder / "tests" / "squares-of-a-tensor.py").is_file()
    validated = quizbot("pack", "validate", str(folder), cwd=tmp_path)
    assert validated.returncode == 0, validated.stdout
    again = quizbot("pack", "convert", str(MOODLE), cwd=tmp_path)  # a pack folder may be written over
    assert again.returncode == 0


def test_convert_to_a_zip_with_id_title_and_format(tmp_path: Path) -> None:
    out = tmp_path / "tensors.zip"
    result = quizbot(
        "pack", "convert", str(IMPORT_FIXTURES / "pytorch-sheet.csv"), "--format", "csv", "-o", str(out),
        "--pack", "my-tensors", "--title", "My tensors", cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    with zipfile.ZipFile(out) as archive:
        assert archive.namelist() == ["my-tensors/pack.yaml", "my-tensors/source-lines.json"]
    pack = load_path(out).pack
    assert (pack.pack, pack.title, len(pack.questions)) == ("my-tensors", "My tensors", 6)
    imported = quizbot("pack", "import", str(out), cwd=tmp_path)
    assert imported.stdout.startswith("Pack `my-tensors` v1 added with 6 questions")


def test_malformed_input_is_one_line_and_exit_1(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gift"
    broken.write_text("::One::1 + 1?{=2}\n\n::Two::Which flag?{\n=requires_grad\n~track\n")
    result = quizbot("pack", "convert", str(broken), cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.strip() == (
        f"{broken}:3: `{{` opens an answer block that is never closed (a GIFT question ends at a blank line)"
    )
    assert not (tmp_path / "broken").exists()


def test_nothing_converted_exits_1_and_writes_nothing(tmp_path: Path) -> None:
    essays = tmp_path / "essays.gift"
    essays.write_text("::A::Explain autograd.{}\n")
    result = quizbot("pack", "convert", str(essays), cwd=tmp_path)
    assert result.returncode == 1
    assert f"{essays}:1: `A` (essay): an essay question has no answer to check" in result.stdout
    assert "Nothing was converted; no pack written." in result.stderr
    assert not (tmp_path / "essays").exists()


def test_unknown_file_and_a_folder_in_the_way(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("Some notes.\n")
    result = quizbot("pack", "convert", str(notes), cwd=tmp_path)
    assert result.returncode == 1 and "known formats: moodle-xml, gift, red-trivia, opentdb, csv, anki" in result.stderr
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "thesis.tex").write_text("mine")
    blocked = quizbot("pack", "convert", str(MOODLE), "-o", str(tmp_path / "busy"), cwd=tmp_path)
    assert blocked.returncode == 1 and "exists and is not a pack folder" in blocked.stderr
    assert (tmp_path / "busy" / "thesis.tex").read_text() == "mine"


def test_template_and_help(tmp_path: Path) -> None:
    template = quizbot("pack", "convert", "--template", cwd=tmp_path)
    assert template.returncode == 0
    assert template.stdout.splitlines()[0] == "type,topic,prompt,answer,options,hint,explanation,difficulty"
    (tmp_path / "t.csv").write_text(template.stdout)
    assert quizbot("pack", "convert", str(tmp_path / "t.csv"), cwd=tmp_path).returncode == 0
    helped = quizbot("pack", "convert", "--help", cwd=tmp_path).stdout
    for word in ("--format", "--pack", "--title", "--template", ".zip", "5 MiB"):
        assert word in helped
    assert "{yaml,gift,moodle-xml,csv}" in quizbot("pack", "export", "--help", cwd=tmp_path).stdout


def test_export_formats_round_trip_through_convert(tmp_path: Path) -> None:
    assert quizbot("pack", "import", str(DEMO_PACK), cwd=tmp_path).returncode == 0
    gift = tmp_path / "demo.gift"
    exported = quizbot("pack", "export", "demo", "--format", "gift", "-o", str(gift), cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    assert "Left out `q-code`: code items have no GIFT form" in exported.stderr
    assert "Not carried: hints (GIFT has none)" in exported.stderr
    back = quizbot("pack", "convert", str(gift), "--pack", "demo-again", cwd=tmp_path)
    assert back.returncode == 0 and back.stdout.startswith("Converted 3 items from GIFT (2 choice, 1 short).")
    assert [q.id for q in load_path(tmp_path / "demo-again").pack.questions] == ["q-choice", "q-short", "q-multi"]
    xml = quizbot("pack", "export", "demo", "--format", "moodle-xml", cwd=tmp_path)
    assert xml.returncode == 0 and xml.stdout.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<quiz>')
    sheet = quizbot("pack", "export", "demo", "--format", "csv", cwd=tmp_path)
    assert sheet.stdout.startswith("id,type,topic,prompt,answer,options,hint,explanation,difficulty\n")
    default = quizbot("pack", "export", "demo", cwd=tmp_path)
    assert default.stdout.startswith("pack: demo\n")


def test_a_converted_wrong_key_is_reported_at_its_line_in_the_xml(tmp_path: Path) -> None:
    text = MOODLE.read_text(encoding="utf-8")
    source = tmp_path / "wrongkey.xml"
    source.write_text(text.replace("return [i * i for i in range(n)]", "return [i * i for i in range(1, n + 1)]"), encoding="utf-8")
    line = text[: text.index('<question type="coderunner">\n    <name>\n      <text>Squares')].count("\n") + 1
    out = tmp_path / "wrongkey.zip"
    assert quizbot("pack", "convert", str(source), "-o", str(out), cwd=tmp_path).returncode == 0
    folder = tmp_path / "wrongkey"
    assert quizbot("pack", "convert", str(source), "-o", str(folder), cwd=tmp_path).returncode == 0
    imported = quizbot("pack", "import", str(out), cwd=tmp_path)
    validated = quizbot("pack", "validate", "--run", str(folder), cwd=tmp_path)
    for result in (imported, validated):
        assert result.returncode == 1
        assert f"wrongkey.xml:{line}: question `squares-of-a-tensor`: " in result.stdout, result.stdout
        assert ".zip/" not in result.stdout and "pack.yaml" not in result.stdout


def test_import_takes_a_moodle_xml_file_directly(tmp_path: Path) -> None:
    imported = quizbot("pack", "import", str(MOODLE), cwd=tmp_path)
    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert "Converted 8 items from Moodle XML" in imported.stderr  # the conversion's report, as `convert` gives it
    assert "Pack `moodle-pytorch-basics` v1 added with 8 questions." in imported.stdout
    assert "id: squares-of-a-tensor" in quizbot("pack", "export", "moodle-pytorch-basics", cwd=tmp_path).stdout


def test_skip_failing_loads_what_passes_and_lists_the_rest_at_their_xml_line(tmp_path: Path) -> None:
    text = MOODLE.read_text(encoding="utf-8")
    source = tmp_path / "wrongkey.xml"
    source.write_text(text.replace("return [i * i for i in range(n)]", "return [i * i for i in range(1, n + 1)]"), encoding="utf-8")
    line = text[: text.index('<question type="coderunner">\n    <name>\n      <text>Squares')].count("\n") + 1

    whole = quizbot("pack", "import", str(source), cwd=tmp_path)  # the default stays all or nothing
    assert whole.returncode == 1
    assert f"wrongkey.xml:{line}: question `squares-of-a-tensor`: " in whole.stdout
    assert quizbot("pack", "export", "wrongkey", cwd=tmp_path).returncode == 1  # nothing stored

    partial = quizbot("pack", "import", "--skip-failing", str(source), cwd=tmp_path)
    assert partial.returncode == 0, partial.stdout + partial.stderr
    assert "Left out 1 question that failed the proof (--skip-failing):" in partial.stderr
    assert f"wrongkey.xml:{line}: question `squares-of-a-tensor`: the solution does not pass its test" in partial.stdout
    assert "Pack `wrongkey` v1 added with 7 questions." in partial.stdout
    exported = quizbot("pack", "export", "wrongkey", cwd=tmp_path).stdout
    assert "squares-of-a-tensor" not in exported and "id: zero-the-gradients" in exported
