"""The JSON Schema for editors, generated from the models."""

from __future__ import annotations

import json
from typing import Any

from .models import Pack

SCHEMA_ID = "https://quizbot.invalid/schema/pack.schema.json"


def pack_json_schema() -> dict[str, Any]:
    schema = Pack.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = SCHEMA_ID
    schema["title"] = "QuizBot question pack"
    return schema


def render() -> str:
    return json.dumps(pack_json_schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    import sys

    sys.stdout.write(render())
