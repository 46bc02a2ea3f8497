"""Anki packages (.apkg/.colpkg) as Anki writes them, and its other text exports."""

from __future__ import annotations

import io
import zipfile

import pytest
import zstandard

from bot.core.convert import ConvertError, convert_bytes
from bot.core.packs import load_bytes

from .anki_build import NOTES, apkg
from .helpers import skipped

IMAGE_REASON = (
    "the front shows only an image or a sound (`Eiffel Tower in Paris`); QuizBot carries no media, "
    "so the question cannot be asked"
)


@pytest.mark.parametrize("modern", [False, True], ids=["anki2", "anki21b"])
def test_an_exported_deck_converts_note_by_note(modern: bool) -> None:
    conversion = convert_bytes("PyTorch.apkg", apkg(NOTES, modern=modern))
    assert conversion.format == "anki-package"
    load_bytes("p.zip", conversion.zip_bytes())
    questions = conversion.pack["questions"]
    assert [(q["prompt"], q["accept"]) for q in questions] == [
        ("What does `torch.zeros(2, 3)` return?", ["a 2x3 tensor of zeros"]),
        ("Which method turns a one-element tensor into a Python number?", ["item"]),  # {{type:Back}} is the back
        ("Calling _____ fills the *.grad* of every leaf.", ["backward()"]),
        ("dtype of `torch.tensor([1, 2])`", ["torch.int64"]),  # a reversed note asks its first card
    ]
    assert questions[2]["explanation"] == "See the autograd notes." and questions[2]["topic"] == "autograd"
    assert [t["title"] for t in conversion.pack["topics"]] == ["Tensors", "Autograd"]
    reasons = skipped(conversion)
    assert reasons[4] == IMAGE_REASON
    assert reasons[5].startswith("the answer is 141 characters; a learner would have to type it back")
    assert reasons[6] == "the field holds only media (`hund.mp3`); QuizBot carries no media"
    assert "Eiffel" not in conversion.pack_yaml() and "update to the latest Anki" not in conversion.pack_yaml()
    ids = [q["id"] for q in questions]
    assert ids == [c.id for c in convert_bytes("PyTorch.apkg", apkg(NOTES, modern=modern)).converted]  # stable


def test_a_colpkg_and_a_damaged_package() -> None:
    assert convert_bytes("collection.colpkg", apkg(NOTES[:1])).format == "anki-package"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("collection.anki2", b"SQLite format 3\x00" + b"\x00" * 200)
    with pytest.raises(ConvertError, match="the Anki collection cannot be read"):
        convert_bytes("broken.apkg", buffer.getvalue())
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("collection.anki21b", b"not zstd")
    with pytest.raises(ConvertError, match=r"collection\.anki21b cannot be unpacked"):
        convert_bytes("broken.apkg", buffer.getvalue())


def test_a_collection_that_unpacks_too_large_is_refused_before_it_is_opened() -> None:
    big = zstandard.ZstdCompressor().compress(b"SQLite format 3\x00" + b"\x00" * (65 * 1024 * 1024))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("collection.anki21b", big)
    with pytest.raises(ConvertError, match="larger than 64 MiB unpacked"):
        convert_bytes("bomb.apkg", buffer.getvalue())


def test_cards_in_plain_text_with_html() -> None:
    style = "<style>.card {\n font-family: arial;\n color: black;\n}\n</style>"
    text = (
        "#separator:tab\n#html:true\n"
        f'"{style}What is 2 + 2?"\t"{style}What is 2 + 2?\n\n<hr id=answer>\n\n4"\n'
        f'"{style}Who wrote ""Hamlet""?"\t"{style}Who wrote ""Hamlet""?<hr id=answer>Shakespeare"\n'
    )
    conversion = convert_bytes("cards.txt", text.encode())
    assert conversion.format == "anki"
    assert [(q["prompt"], q["accept"]) for q in conversion.pack["questions"]] == [
        ("What is 2 + 2?", ["4"]), ('Who wrote "Hamlet"?', ["Shakespeare"])
    ]


def test_semicolon_lines_without_a_separator_header() -> None:
    conversion = convert_bytes("vocab.txt", b"der Hund; the dog\ndie Katze; the cat\nlaufen\n")
    assert conversion.format == "anki"
    assert [(q["prompt"], q["accept"]) for q in conversion.pack["questions"]] == [("der Hund", ["the dog"]), ("die Katze", ["the cat"])]
    assert skipped(conversion) == {3: "no `semicolon` separates a front from a back"}


def test_an_image_front_in_a_text_export_never_shows_its_description() -> None:
    text = '#separator:tab\n#html:true\n<img src="flag.png" alt="the flag of France">\tFrance\nCapital of France?<img src="map.png">\tParis\n'
    conversion = convert_bytes("flags.txt", text.encode())
    assert not conversion.ok
    assert skipped(conversion) == {
        3: "the front shows only an image or a sound (`the flag of France`); QuizBot carries no media, so the question cannot be asked",
        4: "the front shows an image or a sound (`map.png`); QuizBot carries no media, so the question cannot be asked",
    }
