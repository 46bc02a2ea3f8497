"""Packs: the format, reading and checking, and the JSON Schema."""

from .loader import LoadedPack, dump_pack, load_bytes, load_path
from .models import (
    DIFFICULTIES,
    AnyQuestion,
    BlanksQuestion,
    Choice,
    ChoiceQuestion,
    CodeQuestion,
    Limits,
    NumberSpec,
    Pack,
    Question,
    ShortQuestion,
    Topic,
)
from .schema import pack_json_schema

__all__ = [
    "DIFFICULTIES",
    "AnyQuestion",
    "BlanksQuestion",
    "Choice",
    "ChoiceQuestion",
    "CodeQuestion",
    "Limits",
    "LoadedPack",
    "NumberSpec",
    "Pack",
    "Question",
    "ShortQuestion",
    "Topic",
    "dump_pack",
    "load_bytes",
    "load_path",
    "pack_json_schema",
]
