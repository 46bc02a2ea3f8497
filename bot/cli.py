"""The `quizbot` command."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .core.errors import PackInvalid, Problem, QuizError, StorageError
from .core.replies import plural
from .logs import setup_logging
from .loop import run as run_loop
from .settings import Settings, SettingsError, load_settings

if TYPE_CHECKING:
    from .core.packs import LoadedPack

log = logging.getLogger("quizbot.cli")
err = Console(stderr=True, highlight=False)
out = Console(highlight=False)


def _port(text: str) -> int:
    port = int(text)  # argparse turns a ValueError into "invalid _port value"
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1 to 65535, not {port}")
    return port


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="quizbot", description="QuizBot: a tutor that lives in chat.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    sub.add_parser("run", help="start every platform whose settings are present; the console when none are")
    sub.add_parser("console", help="the terminal front end")
    sub.add_parser("discord", help="the Discord front end (needs DISCORD_TOKEN)")
    slack = sub.add_parser("slack", help="the Slack front end (HTTP mode, or Socket Mode with SLACK_APP_TOKEN)")
    slack.add_argument("--port", type=_port, default=None, help="HTTP port for /slack/events (default 3000)")

    pack = sub.add_parser("pack", help="validate, import, list, remove, export and convert packs").add_subparsers(
        dest="pack_command", metavar="ACTION", required=True
    )
    validate = pack.add_parser("validate", help="check packs; every problem as file:line:col: message")
    validate.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="pack folders, .yaml or .zip files")
    validate.add_argument("--run", action="store_true", help="run every solution, starter and verified snippet in the sandbox (without it, code items are only compiled)")
    validate.add_argument(
        "--strict",
        action="store_true",
        help="count free points (the longest option is the key too often, a hint holds the solution) as problems",
    )
    imp = pack.add_parser(
        "import",
        help="prove a pack in the sandbox (as validate --run does), then load it into the database; "
        "another tool's file (Moodle XML, GIFT, ...) is converted first, as pack convert does",
    )
    imp.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="pack folders, .yaml or .zip files, or files to convert")
    imp.add_argument("--force", action="store_true", help="replace even when the version is not higher")
    imp.add_argument("--unproven", action="store_true", help="store without running the keys (logged)")
    imp.add_argument(
        "--skip-failing",
        action="store_true",
        help="store the questions that pass their proof and list the others with the reason (default: all or nothing)",
    )
    pack.add_parser("list", help="the packs in the database")
    remove = pack.add_parser("remove", help="remove a pack, whoever loaded it (learners' history of it is kept)")
    remove.add_argument("pack", help="the pack's id")
    export = pack.add_parser(
        "export", help="write a stored pack as one YAML file, or as GIFT, Moodle XML or CSV with --format"
    )
    export.add_argument("pack", metavar="PACK")
    export.add_argument("-o", "--output", type=Path, help="file to write (default: standard output)")
    export.add_argument(
        "--format",
        dest="export_format",
        choices=("yaml", "gift", "moodle-xml", "csv"),
        default="yaml",
        help="yaml (default: the whole pack) or gift, moodle-xml, csv (the item types each holds; code items are left out)",
    )
    convert = pack.add_parser(
        "convert", help="turn a Moodle XML, GIFT, Red trivia, Open Trivia DB, CSV/TSV, Anki text or Anki package file into a pack"
    )
    convert.add_argument("file", nargs="?", type=Path, metavar="FILE", help="the file to convert (at most 5 MiB)")
    convert.add_argument(
        "--format",
        dest="source_format",
        metavar="F",
        help="moodle-xml, gift, red-trivia, opentdb, csv (or tsv), anki, anki-package (apkg, colpkg); detected from the content when absent",
    )
    convert.add_argument(
        "-o", "--output", type=Path, metavar="OUT", help="pack folder to write, or a .zip when OUT ends in .zip (default: ./PACK-ID)"
    )
    convert.add_argument("--pack", metavar="ID", help="the pack id (default: derived from the file name)")
    convert.add_argument("--title", metavar="T", help="the pack title (default: derived from the file name)")
    convert.add_argument("--template", action="store_true", help="print a CSV template with one example row per item type")
    convert.add_argument(
        "--map",
        dest="column_map",
        action="append",
        default=[],
        metavar="COLUMN=FIELD",
        help="what a CSV/TSV column holds (repeatable): prompt, answer, option, wrong, options, explanation, hint, topic, "
        "difficulty, type, id or ignore; e.g. --map Front=prompt --map 'Correct=answer'",
    )

    sandbox = sub.add_parser("sandbox", help="run or grade code in the sandbox; check the host", add_help=False)
    sandbox.add_argument("args", nargs=argparse.REMAINDER, help="run CODE_FILE [--test TEST_FILE] [--json] | doctor | serve [--host H] [--port P]")
    user = sub.add_parser("user", help="export or delete everything kept about one learner").add_subparsers(
        dest="user_command", metavar="ACTION", required=True
    )
    user_export = user.add_parser("export", help="write the learner's data as JSON")
    user_export.add_argument("who", metavar="PLATFORM:ID", help="e.g. discord:123456789012345678 or slack:U012ABCDEF")
    user_export.add_argument("-o", "--output", type=Path, help="file to write (default: quizbot-data-PLATFORM-ID.json here)")
    user_delete = user.add_parser("delete", help="delete the learner's data (says what first; --yes deletes)")
    user_delete.add_argument("who", metavar="PLATFORM:ID")
    user_delete.add_argument("--yes", action="store_true", help="delete without asking")
    from .report_cli import add_parsers as add_report_parsers

    add_report_parsers(sub)
    db = sub.add_parser("db", help="database maintenance").add_subparsers(dest="db_command", metavar="ACTION", required=True)
    db.add_parser("upgrade", help="apply migrations (also done at start)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["sandbox"]:  # its own parser, --help included
        from sandbox.cli import main as sandbox_main

        return sandbox_main(words[1:])
    args = _parser().parse_args(words)
    try:
        settings = load_settings()
        if _uses_sandbox(args):  # refused here, before the database or any platform is opened
            from .app import sandbox_config

            sandbox_config()
    except SettingsError as exc:
        return _bad_settings(exc)
    setup_logging(
        settings.log_level,
        quiet=args.command in ("console", "pack", "db", "user", "report", "grades") or _console_only(args, settings),
        log_format=settings.log_format,
    )
    try:
        return run_loop(_dispatch(args, settings), use_uvloop=settings.uvloop)
    except StorageError as exc:
        err.print(f"[red]Database error:[/red] {escape(str(exc))}", soft_wrap=True)  # one line, however long
        return 1
    except SettingsError as exc:
        return _bad_settings(exc)
    except KeyboardInterrupt:
        return 130


def _bad_settings(exc: SettingsError) -> int:
    err.print(f"[red]Bad settings:[/red] {escape(str(exc))}", soft_wrap=True)  # one line, naming each, no value
    return 2


def _uses_sandbox(args: argparse.Namespace) -> bool:
    """Whether the command runs code in the sandbox (the front ends, pack import, pack validate --run)."""
    if args.command == "pack":
        return (args.pack_command == "import" and not args.unproven) or (args.pack_command == "validate" and args.run)
    return args.command in ("run", "console", "discord", "slack")


def _console_only(args: argparse.Namespace, settings: Settings) -> bool:
    return args.command == "run" and not (settings.discord_enabled or settings.slack_enabled)


async def _dispatch(args: argparse.Namespace, settings: Settings) -> int:
    if args.command == "pack":
        try:
            return await _pack(args, settings)
        except OSError as exc:  # -o OUT in no folder or a folder, an unreadable FILE: one line, not a traceback
            verb = "read" if exc.filename == str(getattr(args, "file", None)) else "write"
            err.print(f"Cannot {verb} {exc.filename}: {exc.strerror or exc}", markup=False, soft_wrap=True)
            return 1
    if args.command == "user":
        from .user_data import user_command

        return await user_command(args, settings, out=out, err=err)
    if args.command in ("report", "grades"):
        from .report_cli import report_command

        return await report_command(args, settings, out=out, err=err)
    if args.command == "db":
        from .storage import open_repository, safe_url

        repo = await open_repository(settings.database_url, db_timeout=settings.database_timeout_seconds)
        await repo.close()
        out.print(f"Database {safe_url(settings.database_url)} is at the newest schema.")
        return 0
    from .runner import run_front_ends

    which = {"run": None, "console": ["console"], "discord": ["discord"], "slack": ["slack"]}[args.command]
    return await run_front_ends(settings, which, slack_port=getattr(args, "port", None))


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=err, transient=True
    )


def _print_problems(problems: Sequence[Problem], paths: Sequence[Path] = ()) -> None:
    from .pack_import import in_source_files

    for problem in in_source_files(problems, paths):
        out.print(str(problem), markup=False, soft_wrap=True)


async def _pack(args: argparse.Namespace, settings: Settings) -> int:
    from .core.packs import dump_pack, load_path
    from .shipped import pack_dirs

    if args.pack_command == "convert":
        return await asyncio.to_thread(_convert, args)
    if args.pack_command == "validate":
        paths: list[Path] = []
        for path in args.paths:
            inner = pack_dirs([path]) if path.is_dir() and not (path / "pack.yaml").exists() else []
            paths.extend(inner or [path])
        problems: list[Problem] = []
        loaded: list[LoadedPack] = []
        with _progress() as progress:
            task = progress.add_task("Reading packs", total=len(paths))
            for path in paths:
                try:
                    loaded.append(await asyncio.to_thread(load_path, path))
                except PackInvalid as exc:
                    problems.extend(exc.problems)
                progress.advance(task)
        from .pack_import import id_clashes

        problems.extend(id_clashes(loaded))
        if args.run and loaded:
            problems.extend(await _prove(loaded))
        from .core.packs.freepoints import free_points

        free = [found for one in loaded for found in free_points(one)]
        if args.strict:
            problems.extend(free)
        _print_problems(problems, paths)
        for warning in [] if args.strict else free:
            out.print(f"{warning.file}:{warning.line}:{warning.col}: warning: {warning.message}", markup=False, soft_wrap=True)
        total = sum(len(p.pack.questions) for p in loaded)
        if problems:
            err.print(f"[red]{plural(len(problems), 'problem')}[/red] in {plural(len(paths), 'pack')}.")
            return 1
        err.print(f"[green]OK[/green]: {plural(len(paths), 'pack')}, {plural(total, 'question')}" + (", every key proven by running it." if args.run else "."))
        return 0

    from .app import build
    from .pack_import import import_one

    proving = args.pack_command == "import" and not args.unproven
    async with build(settings, sandbox=proving, shipped_packs=False) as app:
        service, repo = app.service, app.repository
        if args.pack_command == "import":
            status = 0
            for path in args.paths:
                for one in (pack_dirs([path]) if path.is_dir() and not (path / "pack.yaml").exists() else []) or [path]:
                    status = max(status, await import_one(service, one, force=args.force, proving=proving, skip=args.skip_failing))
            return status
        if args.pack_command == "list":
            table = Table("pack", "version", "questions", "title", "topics")
            table.add_column("owner", overflow="fold")  # a guild's id whole, even on a narrow terminal
            owners = await repo.pack_owners()  # who may change it from the chat; the operator may change any
            for info in await repo.list_packs():
                topics = ", ".join(t for t, _ in info.topics)
                table.add_row(info.id, str(info.version), str(info.questions), info.title, topics, owners.get(info.id) or "operator")
            out.print(table)
            return 0
        if args.pack_command == "remove":
            if not await service.catalogue.remove(args.pack):  # as the operator: any owner's
                names = ", ".join(p.id for p in await repo.list_packs()) or "none"
                err.print(f"There is no pack `{args.pack}`. Stored: {names}.", markup=False)
                return 1
            out.print(f"Removed the pack `{args.pack}`; learners' history of it is kept.", markup=False)
            return 0
        if args.pack_command == "export":
            pack = await repo.get_pack(args.pack)
            if pack is None:
                names = ", ".join(p.id for p in await repo.list_packs()) or "none"
                err.print(f"There is no pack `{args.pack}`. Stored: {names}.", markup=False)
                return 1
            if args.export_format == "yaml":
                text = dump_pack(pack)
            else:
                from .core.convert import export_pack

                exported = export_pack(pack, args.export_format)
                for qid, why in exported.left_out:
                    err.print(f"Left out `{qid}`: {why}", markup=False, soft_wrap=True)
                for what in exported.lost:
                    err.print(f"Not carried: {what}", markup=False, soft_wrap=True)
                if not exported.written:
                    err.print(f"Nothing in `{pack.pack}` can be written as {args.export_format}.", markup=False, soft_wrap=True)
                    return 1
                text = exported.text
            if args.output:
                args.output.write_text(text, encoding="utf-8")
                err.print(f"Wrote {args.output}", markup=False)
            else:
                sys.stdout.write(text)
            return 0
    return 2


def _convert(args: argparse.Namespace) -> int:
    """Convert a quiz file from another tool and write the pack (runs in a worker thread)."""
    from .core.convert import MAX_INPUT_BYTES, convert_bytes, csv_template
    from .core.convert.columns import parse_map

    if args.template:
        sys.stdout.write(csv_template())
        return 0
    if args.file is None:
        err.print("Give the FILE to convert (or --template for a CSV template).", markup=False, soft_wrap=True)
        return 2
    path: Path = args.file
    if not path.is_file():
        err.print(f"{path}: " + ("a folder, not a file; give the quiz file to convert" if path.is_dir() else "no such file"), markup=False, soft_wrap=True)
        return 1
    if path.stat().st_size > MAX_INPUT_BYTES:
        err.print(f"{path}: the file is larger than {MAX_INPUT_BYTES // 1048576} MiB, the limit for conversion", markup=False, soft_wrap=True)
        return 1
    try:
        column_map = parse_map(args.column_map)
    except ValueError as exc:
        err.print(f"--map {exc}", markup=False, soft_wrap=True)
        return 2
    from .pack_import import read_source

    try:
        data = read_source(path, MAX_INPUT_BYTES + 1)
        conversion = convert_bytes(str(path), data, fmt=args.source_format, pack_id=args.pack, title=args.title, column_map=column_map)
    except QuizError as exc:  # ConvertError, or a file that cannot be read
        err.print(str(exc), markup=False, soft_wrap=True)
        return 1
    for line in conversion.report_lines():
        out.print(line, markup=False, soft_wrap=True)
    if not conversion.ok:
        err.print("Nothing was converted; no pack written.", markup=False, soft_wrap=True)
        return 1
    target: Path = args.output or Path(conversion.pack["pack"])
    files = conversion.folder_files()
    if target.suffix.lower() == ".zip":
        target.write_bytes(conversion.zip_bytes())
    else:
        if target.exists() and (not target.is_dir() or (any(target.iterdir()) and not (target / "pack.yaml").exists())):
            err.print(f"{target} exists and is not a pack folder; choose another -o OUT", markup=False, soft_wrap=True)
            return 1
        for name, content in files.items():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            (target / name).write_bytes(content)
    extra = len(conversion.files)
    err.print(
        f"Wrote pack `{conversion.pack['pack']}` to {target}"
        + (f" (pack.yaml and {extra} test file{'s' if extra != 1 else ''})" if extra else "")
        + f". Check it with: quizbot pack validate --run {target}",
        markup=False,
        soft_wrap=True,
    )
    return 0


async def _prove(loaded: Sequence[object]) -> list[Problem]:
    from .app import make_runner
    from .core.packs.loader import LoadedPack
    from .core.packs.proof import count_jobs, prove

    runner = make_runner(start=True)
    if runner is None:
        return [Problem("sandbox", 1, 1, "the sandbox is not available; cannot --run")]
    problems: list[Problem] = []
    packs = [p for p in loaded if isinstance(p, LoadedPack)]
    try:
        with _progress() as progress:
            task = progress.add_task("Running keys in the sandbox", total=sum(count_jobs(p) for p in packs))
            for pack in packs:
                problems.extend(await prove(pack, runner, on_step=lambda: progress.advance(task)))
    finally:
        await runner.close()
    return problems


if __name__ == "__main__":
    raise SystemExit(main())
