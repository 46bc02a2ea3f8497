"""The pack format as pydantic models: the single source of the JSON Schema."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError

from bot.core.i18n import M_, Said

PACK_ID = r"^[a-z0-9][a-z0-9-]{0,38}[a-z0-9]$"
ITEM_ID = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
BLANK = re.compile(r"\{\{\s*(\d{1,9})\s*\}\}")  # a longer number is text (Python reads at most 4,300 digits)
MAX_VERSION = 2**31 - 1  # a 32-bit INTEGER column on SQLite and PostgreSQL
TOPIC_CHARS = 64  # the topic columns are VARCHAR(64)
STORED = "stored"  # validation context: a pack read back from the database, validated when it was loaded

Difficulty = Literal["easy", "medium", "hard"]
DIFFICULTIES: tuple[str, ...] = ("easy", "medium", "hard")


class EntryError(ValueError):
    """A validator's problem with one entry of the list it checks, said for the pack's author.

    `message` is made with `M_` (the chat says it in the admin's language); `index` is the entry's,
    so the validator points at that entry's line rather than at the list (None: at the field).
    """

    def __init__(self, message: Said, index: int | None = None) -> None:
        super().__init__(message)
        self.message, self.index = message, index


def _no_bool(kind: str) -> BeforeValidator:
    """Refuse `true`/`false` where a number belongs (pydantic would read them as 1 and 0): a slip, not a number."""

    def check(value: object) -> object:
        if isinstance(value, bool):
            raise PydanticCustomError(kind, "a boolean is not a number")
        return value

    return BeforeValidator(check)


WHOLE, REAL = _no_bool("int_type"), _no_bool("float_type")  # last in an `Annotated`: the schema keeps its bounds


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, coerce_numbers_to_str=True)


class Topic(Strict):
    id: Annotated[str, Field(pattern=ITEM_ID, description="Topic id, referenced by questions.")]
    title: Annotated[str, Field(min_length=1, max_length=100)]


class Choice(Strict):
    text: Annotated[str, Field(min_length=1, max_length=1000, description="Markdown.")]
    correct: StrictBool = False
    feedback: str | None = Field(default=None, description="Shown when this choice is picked.")


class Limits(Strict):
    time_s: Annotated[float, Field(gt=0, le=60), REAL] | None = None
    memory_mb: Annotated[int, Field(ge=64, le=4096), WHOLE] | None = None


class NumberSpec(Strict):
    value: Annotated[float, Field(allow_inf_nan=False), REAL]
    tolerance: Annotated[float, Field(ge=0, allow_inf_nan=False), REAL] = 0.0


class QuestionBase(Strict):
    id: Annotated[str, Field(pattern=ITEM_ID, description="Unique in the pack; progress is keyed by it.")]
    title: Annotated[str, Field(min_length=1, max_length=80)] | None = Field(
        default=None, description="A short name for summaries; else the prompt's first words."
    )
    topic: Annotated[str, Field(min_length=1, max_length=TOPIC_CHARS)] | None = None
    difficulty: Difficulty = "medium"
    prompt: Annotated[str, Field(min_length=1, max_length=3500, description="Markdown; fenced code allowed.")]
    hint: str | None = None
    explanation: str | None = None
    attempts: Annotated[int, Field(ge=1, le=10), WHOLE] | None = None
    points: Annotated[int, Field(ge=0, le=100), WHOLE] = 1

    def max_attempts(self) -> int:
        return self.attempts or 3


class ChoiceQuestion(QuestionBase):
    type: Literal["choice"]
    choices: Annotated[list[Choice], Field(min_length=2, max_length=25)]
    multiple: StrictBool = Field(default=False, description="The learner selects every correct choice.")
    shuffle: StrictBool = True

    def max_attempts(self) -> int:
        return self.attempts or 1


class BlanksQuestion(QuestionBase):
    type: Literal["blanks"]
    code: Annotated[str, Field(min_length=1, description="The template; {{1}}, {{2}} ... mark blanks.")]
    options: Annotated[list[Annotated[str, Field(min_length=1, max_length=80)]], Field(min_length=2, max_length=25)]
    answers: dict[int, str] = Field(description="Each blank's right option, by blank number.")
    verify: Literal["none", "run"] = "none"
    also_correct: list[dict[int, str]] = Field(
        default_factory=list,
        description=(
            "Other fillings that are right too, each a map of every blank to an option; graded right, "
            "and exempt from `pack validate --run`'s check that no other filling runs."
        ),
    )

    @field_validator("code")
    @classmethod
    def _numbered(cls, value: str, info: ValidationInfo) -> str:
        """Blanks are numbered from 1 without a gap: a learner shown blanks 1 and 3 looks for blank 2.

        A pack read back from the database (`STORED` in the context) was stored before this rule: kept."""
        if info.context and info.context.get(STORED):
            return value
        numbers = sorted({int(m.group(1)) for m in BLANK.finditer(value)})
        wanted = list(range(1, len(numbers) + 1))
        if numbers != wanted:
            missing = next(n for n in wanted if n not in numbers)
            listed = ", ".join(str(n) for n in numbers)
            message = M_("the blanks are numbered {listed}; number them from {first} without a gap (no {missing})", listed=listed, first="{{1}}", missing=f"{{{{{missing}}}}}")
            raise EntryError(message)
        return value

    @field_validator("also_correct")
    @classmethod
    def _alternatives(cls, value: list[dict[int, str]], info: ValidationInfo) -> list[dict[int, str]]:
        code = info.data.get("code")
        options = info.data.get("options")
        if code is None or options is None:
            return value  # reported on those fields
        blanks = sorted({int(m.group(1)) for m in BLANK.finditer(code)})
        answers = info.data.get("answers")
        for i, filling in enumerate(value):
            if sorted(filling) != blanks:
                listed = ", ".join(str(n) for n in sorted(filling)) or "none"
                wanted = ", ".join(str(n) for n in blanks)
                raise EntryError(M_("entry {i} fills blanks {listed}; it must fill every blank ({wanted}) and no other", i=i, listed=listed, wanted=wanted), i)
            for number, option in filling.items():
                if option not in options:
                    raise EntryError(M_("entry {i}: `{option}` (blank {number}) is not one of the options", i=i, option=option, number=number), i)
            if filling == answers:
                raise EntryError(M_("entry {i} is the key itself (`answers`)", i=i), i)
            if filling in value[:i]:
                raise EntryError(M_("entry {i} is listed twice", i=i), i)
        return value

    @field_validator("options")
    @classmethod
    def _distinct(cls, value: list[str]) -> list[str]:
        seen: set[str] = set()
        for j, option in enumerate(value):
            if option in seen:
                raise EntryError(M_("option {option} is listed twice", option=repr(option)), j)
            seen.add(option)
        return value

    def blanks(self) -> list[int]:
        """Return the blank numbers in the order they first appear."""
        found: list[int] = []
        for match in BLANK.finditer(self.code):
            number = int(match.group(1))
            if number not in found:
                found.append(number)
        return found

    def filled(self, chosen: dict[int, str] | None = None) -> str:
        values = chosen if chosen is not None else self.answers
        return BLANK.sub(lambda m: values.get(int(m.group(1)), m.group(0)), self.code)

    def right_fillings(self) -> list[dict[int, str]]:
        """Return every filling graded right: the key first, then each `also_correct` entry."""
        return [dict(self.answers), *(dict(f) for f in self.also_correct)]

    def is_right(self, chosen: dict[int, str]) -> bool:
        """Return True when the chosen option of every blank matches one right filling."""
        picked = {n: chosen.get(n) for n in self.blanks()}
        return any(picked == {n: f.get(n) for n in self.blanks()} for f in self.right_fillings())

    def marks(self, chosen: dict[int, str]) -> dict[int, bool]:
        """Mark each blank against the right filling that the choice matches best (the key on a tie)."""
        blanks = self.blanks()
        best: dict[int, bool] = {}
        for filling in self.right_fillings():
            marks = {n: chosen.get(n) == filling.get(n) for n in blanks}
            if not best or sum(marks.values()) > sum(best.values()):
                best = marks
        return best


class ShortQuestion(QuestionBase):
    type: Literal["short"]
    accept: list[Annotated[str, Field(min_length=1)]] = Field(default_factory=list)
    number: NumberSpec | None = None
    exact: StrictBool = Field(
        default=False,
        description=(
            "Compare as typed only (after trimming, case-folding and collapsing spaces): no comparison by "
            "value of numbers, lists, tuples, None, booleans or quoted strings."
        ),
    )
    verify: Literal["none", "output"] = Field(
        default="none", description="output: the prompt's first code block must print accept[0]."
    )


class CodeQuestion(QuestionBase):
    type: Literal["code"]
    starter: str = ""
    test: str | None = Field(default=None, description="A unittest module that imports `user_code`.")
    test_file: str | None = None
    solution: str | None = None
    solution_file: str | None = None
    limits: Limits | None = None


Question = Annotated[
    ChoiceQuestion | BlanksQuestion | ShortQuestion | CodeQuestion, Field(discriminator="type")
]


class Pack(Strict):
    """A question pack: the top level of pack.yaml."""

    pack: Annotated[str, Field(pattern=PACK_ID, description="Pack id: 2-40 of a-z, 0-9 and '-'.")]
    title: Annotated[str, Field(min_length=1, max_length=120)]
    version: Annotated[int, Field(ge=1, le=MAX_VERSION, description="Raise it on every change."), WHOLE]
    description: str = ""
    language: Annotated[
        str,
        Field(
            pattern=r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$",
            max_length=35,
            description="The language the pack is written in, as a BCP 47 tag (en, es, de, pt-BR). "
            "Packs are not translated; learners can pick packs by language.",
        ),
    ] = "en"
    authors: list[str] = Field(default_factory=list)
    license: str | None = None
    topics: list[Topic] = Field(default_factory=list)
    questions: Annotated[list[Question], Field(min_length=1)]

    def topic_title(self, topic_id: str | None) -> str:
        for topic in self.topics:
            if topic.id == topic_id:
                return topic.title
        return topic_id or ""

    def question(self, question_id: str) -> ChoiceQuestion | BlanksQuestion | ShortQuestion | CodeQuestion | None:
        """The question with this id (the first, were ids repeated), else None.

        Asked several times per answer: found in an index built at the first ask, kept beside the
        fields (never compared or dumped; a copy with other questions builds its own).
        """
        built = self.__dict__.get("_question_index")
        if built is None or built[0] is not self.questions:
            index: dict[str, ChoiceQuestion | BlanksQuestion | ShortQuestion | CodeQuestion] = {}
            for q in self.questions:
                index.setdefault(q.id, q)
            built = self.__dict__["_question_index"] = (self.questions, index)
        return built[1].get(question_id)


AnyQuestion = ChoiceQuestion | BlanksQuestion | ShortQuestion | CodeQuestion
