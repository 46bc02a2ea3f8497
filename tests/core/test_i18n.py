"""The catalogs: complete, placeholders kept, compiled and extracted up to date, and no text bypassing them.

English is the source language (the msgids); Spanish and German ship complete. `make messages`
extracts, merges and compiles; these tests fail when someone forgot to.
"""

from __future__ import annotations

import ast
import io
import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from bot.core import i18n
from bot.core.i18n import _, ngettext, pgettext, supported, use_locale, use_locales

ROOT = Path(__file__).resolve().parents[2]
LOCALES = ROOT / "bot" / "locales"
SHIPPED = ("es", "de")
KEYWORDS = {"_": None, "N_": None, "L_": None, "M_": None, "NC_": ((1, "c"), 2), "ngettext": (1, 2), "pgettext": ((1, "c"), 2)}
PLACEHOLDER = re.compile(r"(?<!\{)\{([a-z_]*)\}(?!\})")


def catalog(lang: str) -> Catalog:
    with (LOCALES / lang / "LC_MESSAGES" / "quizbot.po").open("rb") as f:
        return read_po(f, locale=lang)


def template() -> Catalog:
    with (LOCALES / "quizbot.pot").open("rb") as f:
        return read_po(f)


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


@pytest.mark.parametrize("lang", SHIPPED)
def test_every_message_is_translated_with_the_same_placeholders(lang: str) -> None:
    shipped = catalog(lang)
    problems = []
    messages = [m for m in template() if m.id]
    for message in messages:
        found = shipped.get(message.id, context=message.context)
        key = message.id[0] if isinstance(message.id, tuple) else message.id
        if found is None or not found.string or (isinstance(found.string, tuple) and not all(found.string)):
            problems.append(f"untranslated: {key!r}")
            continue
        if found.fuzzy:
            problems.append(f"fuzzy: {key!r}")
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = found.string if isinstance(found.string, tuple) else (found.string,)
        wanted = set().union(*(placeholders(i) for i in ids))
        given = [placeholders(s) for s in strings]
        # A plural's singular may leave the count out ("the first line"); together the forms name them all.
        if set().union(*given) != wanted or any(not g <= wanted for g in given):
            problems.append(f"placeholders differ in {key!r}: {sorted(wanted)} vs {[sorted(g) for g in given]}")
    assert problems == []
    assert len(shipped) >= len(messages)  # nothing the template has is missing


@pytest.mark.parametrize("lang", SHIPPED)
def test_the_compiled_catalogs_are_those_of_the_po_files(lang: str) -> None:
    """The .mo files are committed (a fresh clone runs without compiling): each must match its .po."""
    compiled = io.BytesIO()
    write_mo(compiled, catalog(lang))
    assert (LOCALES / lang / "LC_MESSAGES" / "quizbot.mo").read_bytes() == compiled.getvalue(), "run `make messages`"


def test_the_template_holds_every_text_the_code_marks() -> None:
    """`pybabel extract` over bot/ finds exactly the template's messages: nothing added since, nothing stale."""
    found = set()
    for _filename, _line, message, _comments, context in extract_from_dir(
        str(ROOT / "bot"), method_map=[("**.py", "python")], keywords=KEYWORDS, comment_tags=()
    ):
        found.add((context, message[0] if isinstance(message, tuple) else message))
    listed = {(m.context, m.id[0] if isinstance(m.id, tuple) else m.id) for m in template() if m.id}
    assert found - listed == set(), "new texts: run `make messages` and translate them"
    assert listed - found == set(), "texts no longer in the code: run `make messages`"


# Calls whose text arguments a person reads; a literal or f-string there bypasses the catalogs.
SHOWN = {
    "Button": (1,), "Select": (1,), "Option": (), "InputRequest": (1, 2), "notice": (0,), "Text": (0,),
    "QuizError": (0,), "BadSubmission": (0,), "BadSetting": (0,), "BadRaceOption": (0,), "Usage": (0,),
    "NotAllowed": (0,), "PackRefused": (0,),
}
SHOWN_KEYWORDS = {"title", "label", "placeholder", "footer", "text", "description"}
# Texts that are not words: marks, separators, the product's name, a code placeholder.
NOT_WORDS = re.compile(r"^[\W\d_]*$|^(QuizBot|A|B|C)$|^print\(.*\)$")


def bypasses(path: Path) -> list[str]:
    found = []
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        args = [node.args[i] for i in SHOWN.get(name, ()) if i < len(node.args)]
        args += [k.value for k in node.keywords if k.arg in SHOWN_KEYWORDS and name in (*SHOWN, "Message", "replace")]
        while any(isinstance(arg, ast.IfExp) for arg in args):  # `"Right" if ok else "Wrong"`: both
            args = [part for arg in args for part in ((arg.body, arg.orelse) if isinstance(arg, ast.IfExp) else (arg,))]
        for arg in args:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and not NOT_WORDS.match(arg.value):
                found.append(f"{where}:{arg.lineno}: {arg.value[:60]!r}")
            elif isinstance(arg, ast.JoinedStr):
                literal = "".join(v.value for v in arg.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
                if re.search(r"[A-Za-z]{3,}", literal):
                    found.append(f"{where}:{arg.lineno}: f-string {literal[:60]!r}")
    return found


def test_no_text_a_person_reads_bypasses_the_catalogs() -> None:
    files = [
        *sorted((ROOT / "bot" / "core").glob("*.py")),
        *sorted((ROOT / "bot" / "core" / "items").glob("*.py")),
        *sorted((ROOT / "bot" / "core" / "daily").glob("*.py")),
        *sorted((ROOT / "bot" / "core" / "race").glob("*.py")),
        *sorted((ROOT / "bot" / "adapters").rglob("*.py")),
        ROOT / "bot" / "scheduler.py",
    ]
    assert [b for f in files for b in bypasses(f)] == []


def test_the_scan_does_see_a_bypass(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        'notice("Hello there")\nButton("x", f"Load {pack}")\nText(_("fine"))\nText(_("Yes") if ok else "No way")\n', encoding="utf-8"
    )
    assert [line.split(":")[1] for line in bypasses(sample)] == ["1", "2", "4"]


def test_plurals_numbers_and_dates_follow_the_language() -> None:
    with use_locale("de"):
        assert ngettext("{n} attempt left", "{n} attempts left", 1).format(n=1) == "noch 1 Versuch"
        assert i18n.number(1234.5, 1) == "1.234,5"
        assert i18n.percent(0.83) == "83\xa0%"  # with a no-break space, as German writes it
    with use_locale("es"):
        assert ngettext("{n} attempt left", "{n} attempts left", 0).format(n=0) == "quedan 0 intentos"
        assert pgettext("button", "Stop") == "Parar"
    with use_locale("en"):
        assert i18n.number(1234.5, 1) == "1,234.5" and _("New quiz") == "New quiz"
    assert i18n.current() == "en"  # the block's language is gone after it


def test_a_platforms_locale_maps_to_a_language_the_bot_speaks() -> None:
    assert [supported(code) for code in ("es-ES", "es-419", "de", "de_AT", "en-GB", "ja", "", None)] == [
        "es", "es", "de", "de", "en", None, None, None,
    ]
    with use_locales("es", "de"):
        with i18n.public():
            assert _("Daily question") == "Tagesfrage"  # a public post: the server's language
        assert _("Daily question") == "Pregunta del día"  # a private reply: the learner's


def test_a_said_text_is_english_and_is_said_again_in_the_readers_language() -> None:
    import pickle

    from bot.core.i18n import M_, said

    text = M_("{where}: must not be empty", where=M_("the question"))
    assert text == "the question: must not be empty"  # the CLI and the logs read English
    with use_locale("de"):
        assert said(text) == "die Frage: darf nicht leer sein"
        assert said(pickle.loads(pickle.dumps(text))) == "die Frage: darf nicht leer sein"  # from a worker
        assert said("plain text") == "plain text"


def test_a_pause_reason_is_a_key_said_in_the_readers_language_and_old_rows_show_as_stored() -> None:
    from bot.core.daily.pauses import CANNOT_POST, pause_reason, pause_text

    stored = pause_reason(CANNOT_POST, detail="403 Missing Access")
    with use_locale("es"):
        assert pause_text(stored) == "el bot no puede publicar ahí (403 Missing Access)"
        assert pause_text("the bot cannot post there (gone)") == "the bot cannot post there (gone)"  # before keys
        assert pause_text('{"key": "unknown"}') == '{"key": "unknown"}' and pause_text(None) == ""
    with pytest.raises(ValueError, match="unknown pause reason"):
        pause_reason("nope")
