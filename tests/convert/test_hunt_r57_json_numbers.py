"""An Open Trivia DB file holding a number too long for Python to read is refused in one line.

`json.loads` raises a plain ValueError (not JSONDecodeError) for an integer of more than 4,300
digits; `pack convert` died with a traceback.
"""

from __future__ import annotations

import pytest

from bot.core.convert import ConvertError, convert_bytes

RESULT = '{"type": "multiple", "difficulty": "easy", "category": "x", "question": "Q?", "correct_answer": "a", "incorrect_answers": ["b"]}'


def test_a_number_of_too_many_digits_is_broken_json() -> None:
    data = ('{"response_code": 0, "n": ' + "9" * 5000 + ', "results": [' + RESULT + "]}").encode()
    with pytest.raises(ConvertError) as caught:
        convert_bytes("trivia.json", data)
    assert str(caught.value).startswith("trivia.json: broken JSON: ")
    assert "digits" in str(caught.value)
