"""The sandbox's command line: ``run CODE_FILE [--test TEST_FILE] [--json]``, ``doctor`` and ``serve``.

``quizbot sandbox ...`` and ``python -m sandbox ...`` both land in :func:`main`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from pathlib import Path

from pydantic import ValidationError

from . import doctor
from .config import SandboxConfig, describe_invalid
from .errors import SandboxError
from .result import Result
from .runner import Sandbox

TOKEN_VARIABLE = "QUIZBOT_SANDBOX_TOKEN"  # noqa: S105 - the name of the variable


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quizbot sandbox", description="Run untrusted Python in the sandbox."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run or grade one file and print the result")
    run.add_argument("code_file", type=Path, help="the submission (saved as user_code.py)")
    run.add_argument("--test", type=Path, help="a unittest module that imports user_code")
    run.add_argument("--json", action="store_true", help="print the result as JSON")
    doc = sub.add_parser("doctor", help="show which isolation layers work on this host")
    doc.add_argument("--json", action="store_true", help="print the findings as JSON")
    doc.add_argument("--runs", type=int, default=20, help="small jobs to time (default 20)")
    serve = sub.add_parser("serve", help="serve the sandbox over HTTP (needs QUIZBOT_SANDBOX_TOKEN)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8060, help="port to listen on (default 8060)")
    return parser


def render(result: Result) -> str:
    """Return a result as a learner would read it: one line per test, then output and figures."""
    lines = [f"✓ {t.name}" if t.passed else f"✗ {t.name}" + (f" — {t.message}" if t.message and t.message != t.name else "")
             for t in result.tests]  # fmt: skip
    lines.append(f"{result.status}: {result.message}")
    if result.error is not None and result.error.describe() != result.message:
        lines.append(f"  {result.error.describe()}")
    if result.stdout:
        lines += ["--- output ---", result.stdout.rstrip("\n")]
    if result.stderr:
        lines += ["--- errors ---", result.stderr.rstrip("\n")]
    if result.truncated:
        lines.append("(output truncated)")
    lines.append(f"time {result.wall_ms} ms wall, {result.cpu_ms} ms CPU; memory {result.peak_memory_mb} MB")
    return "\n".join(lines)


async def _run(code: str, test: str | None, config: SandboxConfig) -> Result:
    async with Sandbox(config) as sb:
        return await sb.run(code, test=test)


def _serve(config: SandboxConfig, host: str, port: int) -> int:
    from .service import serve

    token = os.environ.get(TOKEN_VARIABLE, "")
    if not token:
        print(f"error: set {TOKEN_VARIABLE} (the bearer token the bot sends)", file=sys.stderr)
        return 2
    logging.getLogger("sandbox").setLevel(logging.INFO)
    asyncio.run(serve(config, token, host=host, port=port))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (0 when the code passed)."""
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        config = SandboxConfig()
    except ValidationError as exc:  # as the bot's own settings: one line, exit code 2
        print(f"Bad settings: {describe_invalid(exc)}", file=sys.stderr)
        return 2
    try:
        if args.command == "serve":
            return _serve(config, args.host, args.port)
        if args.command == "doctor":
            diag = asyncio.run(doctor.diagnose(config, runs=max(0, args.runs)))
            print(json.dumps(diag.to_dict(), indent=2) if args.json else doctor.render(diag))
            return 1 if diag.error else 0
        try:
            code = args.code_file.read_text(encoding="utf-8")
            test = args.test.read_text(encoding="utf-8") if args.test else None
        except (OSError, UnicodeDecodeError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        result = asyncio.run(_run(code, test, config))
    except SandboxError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(render(result))
    return 0 if result.ok else 1
