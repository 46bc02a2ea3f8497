"""Why a channel's daily question paused: kept as a stable key and its values, said in the reader's language.

The schedule's `pause_reason` column holds `{"key": "no-question"}` or `{"key": "cannot-post", "detail": ...}`
(JSON); the admin's direct message, `/quiz daily show` and `/quiz daily now` say it in their reader's
language. Rows paused before the reasons were keys hold English text: that is shown as it is.
"""

from __future__ import annotations

import json

from bot.core.i18n import N_, _

NO_QUESTION = "no-question"
CANNOT_POST = "cannot-post"
_SENTENCES = {
    NO_QUESTION: N_("no question matches its packs, topic and difficulty (was a pack removed?)"),
    CANNOT_POST: N_("the bot cannot post there ({detail})"),  # detail: the platform's own words (`403 Missing Access`)
}
MAX_DETAIL = 200  # the column keeps 500 characters; a cut JSON text would no longer be a key


def pause_reason(key: str, **values: str) -> str:
    """Return what storage keeps for a pause: the reason's key and its values."""
    if key not in _SENTENCES:
        raise ValueError(f"unknown pause reason {key!r}")
    return json.dumps({"key": key, **{k: v[:MAX_DETAIL] for k, v in values.items()}}, ensure_ascii=False, sort_keys=True)


def pause_text(stored: str | None) -> str:
    """Say a stored pause reason in the current language (an old row's English text: as it is)."""
    if not stored:
        return ""
    if not stored.startswith("{"):
        return stored
    try:
        data = json.loads(stored)
    except ValueError:
        return stored
    sentence = _SENTENCES.get(str(data.get("key"))) if isinstance(data, dict) else None
    if sentence is None:
        return stored
    values = {k: str(v) for k, v in data.items() if k != "key"}
    try:
        return _(sentence).format(**values)
    except (KeyError, IndexError):  # a value missing from the row: the English template says what it was
        return stored
