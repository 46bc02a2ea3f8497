"""`quizbot user export|delete PLATFORM:ID`: an operator acts on one learner's data."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from rich.console import Console

from .core.privacy import export_document, export_filename
from .settings import Settings
from .storage import open_repository
from .storage.privacy import PrivacyStore

PLATFORMS = ("discord", "slack", "console")


def parse_who(text: str) -> tuple[str, str] | None:
    """Read `platform:id`; None when the platform is unknown or the id empty or too long."""
    platform, sep, user_id = text.partition(":")
    if not sep or platform not in PLATFORMS or not user_id or len(user_id) > 100:
        return None
    return platform, user_id


async def user_command(args: argparse.Namespace, settings: Settings, *, out: Console, err: Console) -> int:
    """Export (to a file) or delete one learner's data; return the exit status."""
    who = parse_who(args.who)
    if who is None:
        err.print(f"Name the learner as PLATFORM:ID with PLATFORM one of {', '.join(PLATFORMS)}, e.g. discord:1234.", markup=False)
        return 2
    platform, user_id = who
    repository = await open_repository(settings.database_url, db_timeout=settings.database_timeout_seconds)
    try:
        store = PrivacyStore(repository.engine)
        if args.user_command == "export":
            from datetime import UTC, datetime

            tables = await store.export_user(platform, user_id)
            data = export_document(platform, user_id, tables, datetime.now(UTC).isoformat())
            target: Path = args.output or Path(export_filename(platform, user_id))
            await asyncio.to_thread(target.write_bytes, data)
            rows = sum(len(r) for r in tables.values())
            err.print(f"Wrote {target}: {rows} rows in {len(tables)} tables.", markup=False)
            return 0
        tables = await store.export_user(platform, user_id)
        counts = {name: len(rows) for name, rows in tables.items()}
        if not args.yes:
            listed = ", ".join(f"{name} {n}" for name, n in counts.items()) or "no rows"
            out.print(f"{platform}:{user_id} has {listed}. Run again with --yes to delete them.", markup=False)
            return 1
        deleted = await store.delete_user(platform, user_id)
        out.print(f"Deleted {sum(deleted.values())} rows of {platform}:{user_id}.", markup=False)
        return 0
    finally:
        await repository.close()
