"""Hostile packs cost bounded memory: each is loaded in a child process under an address-space cap.

A loader that trusts a zip header, expands every alias or reads a file whole dies of MemoryError
(or is killed) in the child; a bounded one answers with one located problem. The cap is far below
what the hostile inputs would take and far above what the loader needs (about 45 MiB).
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from bot.core import PackInvalid
from bot.core.packs import loader, yamlpos

MEMORY_CAP = 384 * 1024 * 1024
GiB = 1024 * 1024 * 1024

GOOD = """\
pack: budget
title: Budget
version: 1
questions:
  - id: c
    type: code
    prompt: Write
    test_file: tests/c.py
    solution_file: solutions/c.py
"""

CHILD = """
import json, resource, sys
cap = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
from pathlib import Path
from bot.core.errors import PackInvalid
from bot.core.packs import load_bytes, load_path
kind, target = sys.argv[2], sys.argv[3]
try:
    if kind == "path":
        load_path(Path(target))
    else:
        load_bytes(Path(target).name, Path(target).read_bytes())
    print(json.dumps({"accepted": True}))
except PackInvalid as exc:
    print(json.dumps({"problems": [str(p) for p in exc.problems]}))
"""


def load_capped(kind: str, target: Path) -> list[str]:
    """Load a pack in a child process whose address space is capped; return its problems."""
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(MEMORY_CAP), kind, str(target)],
        capture_output=True,
        text=True,
        timeout=300,  # a guard against a hang, not a speed assertion
        cwd=Path(__file__).parents[2],
    )
    assert result.returncode == 0, f"the loader died under the memory cap:\n{result.stderr[-2000:]}"
    answer = json.loads(result.stdout)
    assert "problems" in answer, answer
    problems: list[str] = answer["problems"]
    return problems


def alias_bomb() -> str:
    """The classic billion laughs: nine levels of nine aliases, 9**9 strings once expanded."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in "bcdefgh":
        previous = chr(ord(level) - 1)
        lines.append(f"{level}: &{level} [{','.join(['*' + previous] * 9)}]")
    lines.append(f"i: [{','.join(['*h'] * 9)}]")
    return "\n".join(lines) + "\n"


def test_the_alias_bomb_is_refused_within_the_cap(tmp_path: Path) -> None:
    bomb = alias_bomb()
    assert len(bomb) < 700
    path = tmp_path / "bomb.yaml"
    path.write_text(bomb, encoding="utf-8")
    problems = load_capped("bytes", path)
    assert problems == [f"bomb.yaml:5:1: `e` expands to more than {yamlpos.MAX_NODES:,} values (each alias repeats all it points at)"]


def test_aliases_within_the_budget_still_work(tmp_path: Path) -> None:
    text = (
        "pack: budget\ntitle: Budget\nversion: 1\nquestions:\n"
        "  - id: a\n    type: choice\n    prompt: Pick\n    choices: &same\n      - {text: x, correct: true}\n      - {text: y}\n"
        "  - id: b\n    type: choice\n    prompt: Pick again\n    choices: *same\n"
    )
    pack = loader.load_bytes("a.yaml", text.encode()).pack
    assert [len(q.choices) for q in pack.questions] == [2, 2]  # type: ignore[union-attr]


def _raw_zip(members: list[tuple[str, int, bytes, int, int]]) -> bytes:
    """Write a zip by hand: (name, method, stored bytes, CRC-32, size the headers claim) per member."""
    out = bytearray()
    central = bytearray()
    for name, method, data, crc, claimed in members:
        offset = len(out)
        encoded = name.encode()
        out += struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, method, 0, 0x21, crc, len(data), claimed, len(encoded), 0)
        out += encoded + data
        central += struct.pack(
            "<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, method, 0, 0x21, crc, len(data), claimed, len(encoded), 0, 0, 0, 0, 0, offset
        )
        central += encoded
    start = len(out)
    out += central
    out += struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(members), len(members), len(central), start, 0)
    return bytes(out)


def _deflated_run(byte: bytes, size: int) -> bytes:
    """Raw deflate of `size` copies of `byte`, built from one compressed MiB (a full flush resets the history)."""
    mib = 1024 * 1024
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = compressor.compress(byte * mib) + compressor.flush(zlib.Z_FULL_FLUSH)
    return block * (size // mib) + zlib.compressobj(9, zlib.DEFLATED, -15).flush()


def _stored(name: str, text: str) -> tuple[str, int, bytes, int, int]:
    data = text.encode()
    return name, 0, data, zlib.crc32(data), len(data)


def test_a_zip_whose_header_understates_a_member_is_read_within_the_cap(tmp_path: Path) -> None:
    # 1 GiB of 0xFF in about 1 MB, with headers claiming 1,000 bytes (and that prefix's checksum).
    bomb = _deflated_run(b"\xff", GiB)
    data = _raw_zip(
        [
            _stored("pack.yaml", GOOD),
            ("tests/c.py", zlib.DEFLATED, bomb, zlib.crc32(b"\xff" * 1000), 1000),
            _stored("solutions/c.py", "x = 1\n"),
        ]
    )
    assert len(data) < 1_200_000
    path = tmp_path / "lying.zip"
    path.write_bytes(data)
    problems = load_capped("bytes", path)
    assert problems == ["lying.zip/pack.yaml:8:16: questions[0] (id `c`).test_file: `tests/c.py` is not UTF-8 text (byte 0, line 1)"]


def test_a_zip_member_larger_than_its_cap_is_refused_by_reading(tmp_path: Path) -> None:
    bomb = _deflated_run(b"#", GiB)
    data = _raw_zip(
        [
            _stored("pack.yaml", GOOD),
            ("tests/c.py", zlib.DEFLATED, bomb, 0, GiB),
            _stored("solutions/c.py", "x = 1\n"),
        ]
    )
    path = tmp_path / "big.zip"
    path.write_bytes(data)
    problems = load_capped("bytes", path)
    assert problems == ["big.zip/pack.yaml:8:16: questions[0] (id `c`).test_file: `tests/c.py` is larger than 256 KiB"]
    # The pack file itself has the larger pack cap.
    path.write_bytes(_raw_zip([("pack.yaml", zlib.DEFLATED, bomb, 0, GiB)]))
    assert load_capped("bytes", path) == ["big.zip/pack.yaml:1:1: the file is larger than 2 MiB"]


def test_huge_files_in_a_folder_pack_are_not_read_whole(tmp_path: Path) -> None:
    folder = tmp_path / "budget"
    (folder / "tests").mkdir(parents=True)
    (folder / "solutions").mkdir()
    (folder / "pack.yaml").write_text(GOOD, encoding="utf-8")
    (folder / "solutions" / "c.py").write_text("x = 1\n", encoding="utf-8")
    with (folder / "tests" / "c.py").open("wb") as huge:
        huge.truncate(3 * GiB // 2)  # sparse: costs no disk
    problems = load_capped("path", folder)
    assert problems == [f"{folder / 'pack.yaml'}:8:16: questions[0] (id `c`).test_file: `tests/c.py` is larger than 256 KiB"]
    with (folder / "pack.yaml").open("wb") as huge:
        huge.truncate(GiB)
    assert load_capped("path", folder) == [f"{folder / 'pack.yaml'}:1:1: the file is larger than 2 MiB"]
    single = tmp_path / "single.yaml"
    with single.open("wb") as huge:
        huge.truncate(GiB)
    assert load_capped("path", single) == [f"{single}:1:1: the file is larger than 2 MiB"]


def test_the_whole_pack_has_a_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 40 questions share one 250 KiB test file: each file is under its cap, the pack is over its own.
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "budget"
    (folder / "tests").mkdir(parents=True)
    questions = "".join(
        f"  - id: c{i}\n    type: code\n    prompt: Write\n    test_file: tests/c.py\n    solution: 'x = 1'\n" for i in range(40)
    )
    (folder / "pack.yaml").write_text("pack: budget\ntitle: Budget\nversion: 1\nquestions:\n" + questions, encoding="utf-8")
    (folder / "tests" / "c.py").write_text("import user_code\n" + "#" * (250 * 1024) + "\n", encoding="utf-8")
    with pytest.raises(PackInvalid) as caught:
        loader.load_path(folder)
    over = [str(p) for p in caught.value.problems]
    first_over = loader.MAX_TOTAL_BYTES // (250 * 1024 + 18)  # the question whose read crosses 8 MiB
    assert over[0].endswith(f"questions[{first_over}] (id `c{first_over}`).test_file: `tests/c.py` takes the pack over 8 MiB read in all")
    assert len(over) == 40 - first_over


def test_the_cli_answers_a_hostile_pack_in_one_line_and_exit_1(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(alias_bomb(), encoding="utf-8")
    lying = tmp_path / "lying.zip"
    lying.write_bytes(
        _raw_zip(
            [
                _stored("pack.yaml", GOOD),
                ("tests/c.py", zlib.DEFLATED, _deflated_run(b"\xff", GiB), zlib.crc32(b"\xff" * 1000), 1000),
                _stored("solutions/c.py", "x = 1\n"),
            ]
        )
    )
    env = {"QUIZBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}", "QUIZBOT_PACKS": str(tmp_path / "none"), "PATH": "/usr/bin:/bin"}
    for action, target, expected in (
        ("validate", bomb, f"{bomb}:5:1: `e` expands to more than"),
        ("import", lying, f"{lying}/pack.yaml:8:16: questions[0] (id `c`).test_file: `tests/c.py` is not UTF-8 text"),
    ):
        result = subprocess.run(
            [sys.executable, "-m", "bot.cli", "pack", action, str(target)],
            capture_output=True, text=True, timeout=120, cwd=Path(__file__).parents[2], env=env,
        )
        assert result.returncode == 1, result.stderr
        assert result.stdout.splitlines() == [result.stdout.strip()] and result.stdout.startswith(expected), result.stdout
        assert "Traceback" not in result.stderr


def test_a_flat_document_is_refused_as_soon_as_the_value_budget_is_passed() -> None:
    # About a million values in 2 MiB: the parse must stop at the 50,001st, not compose them all first.
    head = "pack: budget\ntitle: Budget\nversion: 1\nquestions: ["
    text = head + ",".join(["1"] * ((loader.MAX_PACK_BYTES - len(head)) // 2 - 4)) + "]\n"
    assert text.count(",") > 1_000_000
    with pytest.raises(yamlpos.YamlProblem) as caught:
        yamlpos.parse(text)
    problem = caught.value
    assert problem.message == f"`questions` holds more than {yamlpos.MAX_NODES:,} values; a pack needs far fewer"
    # The value that passed the budget: the pack's root, its three fields and the list are the first five.
    assert (problem.line, problem.col) == (4, len("questions: [") + 1 + 2 * (yamlpos.MAX_NODES - 5))
    assert "alias" not in problem.message


def test_a_wide_mapping_is_refused_where_it_passes_the_budget_without_blaming_aliases() -> None:
    text = "pack: budget\nx: {" + ", ".join(f"k{i:06d}: 1" for i in range(120_000)) + "}\n"
    with pytest.raises(PackInvalid) as caught:
        loader.load_bytes("wide.yaml", text.encode())
    [problem] = caught.value.problems
    assert problem.line == 2 and problem.col < len(text) // 2, problem
    assert str(problem.message) == f"`x` holds more than {yamlpos.MAX_NODES:,} values; a pack needs far fewer"


def test_the_parse_stops_early_counting_the_events_it_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    events = 0
    original = yamlpos._StrictLoader.get_event

    def counted(self: yamlpos._StrictLoader) -> object:
        nonlocal events
        events += 1
        return original(self)

    monkeypatch.setattr(yamlpos._StrictLoader, "get_event", counted)
    with pytest.raises(yamlpos.YamlProblem):
        yamlpos.parse("questions: [" + ",".join(["1"] * 500_000) + "]\n")
    assert events <= yamlpos.MAX_NODES + 10
