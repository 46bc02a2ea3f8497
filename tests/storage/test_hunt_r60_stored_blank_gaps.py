"""A pack stored before blanks had to be numbered without a gap still reads back from the database.

The loader now refuses `{{1}}` and `{{3}}` without `{{2}}` (a learner looks for blank 2); a pack
stored before that rule was valid when it was loaded, and reading it back must not fail every quiz
and daily post of its pack.
"""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError
from sqlalchemy import update

from bot.core.packs import Pack, load_path
from bot.core.packs.models import STORED
from bot.storage import open_repository
from bot.storage import tables as t
from tests.conftest import DEMO_PACK


def with_a_gap(pack: Pack) -> str:
    data = json.loads(pack.model_dump_json())
    blanks = next(q for q in data["questions"] if q["type"] == "blanks")
    blanks["code"] = blanks["code"].replace("{{2}}", "{{3}}")
    blanks["answers"] = {"1": blanks["answers"]["1"], "3": blanks["answers"]["2"]}
    return json.dumps(data)


def test_a_gap_is_refused_when_loaded_and_kept_when_read_back() -> None:
    text = with_a_gap(load_path(DEMO_PACK).pack)
    with pytest.raises(ValidationError, match="without a gap"):
        Pack.model_validate_json(text)
    assert Pack.model_validate_json(text, context={STORED: True}).pack == "demo"


async def test_a_stored_pack_with_a_gap_reads_back(any_url: str) -> None:
    repo = await open_repository(any_url)
    try:
        pack = load_path(DEMO_PACK).pack
        await repo.import_pack(pack)
        async with repo.engine.begin() as c:
            await c.execute(update(t.packs).where(t.packs.c.id == "demo").values(data=with_a_gap(pack)))
    finally:
        await repo.close()
    again = await open_repository(any_url, migrate=False)
    try:
        stored = await again.get_pack("demo")
        assert stored is not None and any("{{3}}" in getattr(q, "code", "") for q in stored.questions)
    finally:
        await again.close()
