"""The command line, tried as a new user would: ``run`` with and without a test, ``--json``, ``doctor``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox import ErrorInfo, Result, TestOutcome
from sandbox.cli import main, render
from tests.sandbox.sandbox_support import FIXTURES


@pytest.fixture(autouse=True)
def _small_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUIZBOT_SANDBOX_WORKERS", "1")


def test_run_grades_a_correct_solution_one_line_per_test(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["run", str(FIXTURES / "seed_style_solution.py"), "--test", str(FIXTURES / "seed_style_test.py")]
    )
    out = capsys.readouterr().out
    assert code == 0
    lines = out.splitlines()
    assert sum(line.startswith("✓ ") for line in lines) == 8
    assert "✓ `W` is 1x3." in lines and "passed: All 8 tests passed." in lines
    assert "--- output ---" in lines and any(line.startswith("time ") for line in lines)


def test_run_json_prints_the_design_result(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "run",
            str(FIXTURES / "seed_style_wrong.py"),
            "--test",
            str(FIXTURES / "seed_style_test.py"),
            "--json",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    assert list(data) == [
        "status",
        "tests",
        "stdout",
        "stderr",
        "truncated",
        "wall_ms",
        "cpu_ms",
        "peak_memory_mb",
        "isolation",
        "error",
        "message",
    ]
    assert data["status"] == "failed" and len(data["tests"]) == 8
    assert {"name": "Print `W.grad`.", "passed": False, "message": "Print `W.grad`."} in data["tests"]
    assert "seccomp" in data["isolation"] and "netns" in data["isolation"]


def test_doctor_reports_layers_checked_from_inside_a_job(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["doctor", "--runs", "2"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "isolation: userns, pidns" in out
    assert "capabilities 0000000000000000, no_new_privs 1, seccomp mode 2" in out
    assert "IPv4 socket refused" in out and "write to / refused" in out
    assert "job round trip: median" in out


def test_render_of_a_failed_and_an_erroring_result() -> None:
    failed = Result(
        status="failed",
        tests=(TestOutcome("`W` exists.", True), TestOutcome("Print `W.grad`.", False, "Print `W.grad`.")),
        message="1 of 2 tests failed.",
    )
    assert render(failed).splitlines()[:3] == [
        "✓ `W` exists.",
        "✗ Print `W.grad`.",
        "failed: 1 of 2 tests failed.",
    ]
    err = Result(status="error", error=ErrorInfo("NameError", "name 'x' is not defined", 3, 1), message="x")
    assert "  NameError at line 3, column 1: name 'x' is not defined" in render(err).splitlines()


def test_missing_file_and_module_entry_point(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "/nonexistent/code.py"]) == 2
    assert "error:" in capsys.readouterr().err
    done = subprocess.run(
        [sys.executable, "-m", "sandbox", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and "run" in done.stdout and "doctor" in done.stdout


@pytest.mark.parametrize(
    ("name", "value", "problem"),
    [
        ("QUIZBOT_SANDBOX_WALL_S", "abc", "number"),
        ("QUIZBOT_SANDBOX_WALL_S", "1e999", "finite"),
        ("QUIZBOT_SANDBOX_MEMORY_MB", "-1", "64"),
        ("QUIZBOT_SANDBOX_WORKERS", "0", "1"),
        ("QUIZBOT_SANDBOX_START_TIMEOUT_S", "inf", "finite"),
    ],
)
@pytest.mark.parametrize("command", ["run", "doctor", "serve"])
def test_a_bad_setting_is_one_line_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str, value: str, problem: str, command: str
) -> None:
    hi = tmp_path / "hi.py"
    hi.write_text("print('hi')\n", encoding="utf-8")
    monkeypatch.setenv(name, value)
    monkeypatch.setenv("QUIZBOT_SANDBOX_TOKEN", "sandbox-token-secret")
    code = main({"run": ["run", str(hi)], "doctor": ["doctor", "--runs", "0"], "serve": ["serve"]}[command])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Bad settings: {name}: "), captured.err
    assert problem in lines[0] and "sandbox-token-secret" not in lines[0]


def test_a_bad_setting_through_the_quizbot_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hi = tmp_path / "hi.py"
    hi.write_text("print('hi')\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "sandbox", "run", str(hi)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "QUIZBOT_SANDBOX_WALL_S": "abc"},
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("Bad settings: QUIZBOT_SANDBOX_WALL_S: ") and len(done.stderr.splitlines()) == 1
