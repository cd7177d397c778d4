"""Query-specific criteria: the schema, and generating new criteria with a model.

A criterion has a name, a description and five score bands (1-2, 3-4, 5-6, 7-8, 9-10),
serialised with the official keys ``name``, ``criteria_description``, ``"1-2"`` …
``"9-10"`` in that order. The official project ships pre-computed criteria and never
published how they were generated, so criteria written by :data:`CRITERIA_PROMPT` are a
proseval feature, never official criteria.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from proseval.benchmarks.writingbench.clean import strip_reasoning
from proseval.benchmarks.writingbench.jsonl import describe_validation_error
from proseval.kit import PromptTemplate, find_json_values, repair_json_value

BAND_LABELS = ("1-2", "3-4", "5-6", "7-8", "9-10")
CRITERIA_PER_QUERY = 5


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


def _no_outer_whitespace(value: str) -> str:
    if value != value.strip():
        raise ValueError("must not start or end with whitespace")
    return value


Text = Annotated[str, AfterValidator(_not_blank)]
Name = Annotated[str, AfterValidator(_not_blank), AfterValidator(_no_outer_whitespace)]


class Criterion(BaseModel):
    """One query-specific criterion with its five score bands."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    name: Name
    description: Text = Field(alias="criteria_description")
    band_1_2: Text = Field(alias="1-2")
    band_3_4: Text = Field(alias="3-4")
    band_5_6: Text = Field(alias="5-6")
    band_7_8: Text = Field(alias="7-8")
    band_9_10: Text = Field(alias="9-10")

    def to_official_dict(self) -> dict[str, str]:
        """The criterion with the official keys, in the official key order."""
        return self.model_dump(by_alias=True)


def validate_checklist(criteria: list[Any], *, size: int | None = None) -> tuple[Criterion, ...]:
    """Validate a list of criterion objects; names must be unique (scores are keyed by name).

    Raises ValueError (including pydantic's ValidationError) with the offending position.
    """
    if size is not None and len(criteria) != size:
        raise ValueError(f"expected {size} criteria, got {len(criteria)}")
    checked: list[Criterion] = []
    for position, item in enumerate(criteria):
        try:
            checked.append(Criterion.model_validate(item))
        except ValidationError as exc:
            raise ValueError(f"criterion {position}: {describe_validation_error(exc)}") from exc
    names = [criterion.name for criterion in checked]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"duplicate criterion names: {duplicates}")
    return tuple(checked)


CRITERIA_PROMPT = PromptTemplate(
    "criteria",
    """\
You design grading rubrics for writing tasks. Read the writing request below and write \
exactly {count} criteria that a reviewer would use to judge a response to this particular \
request. Make each criterion specific to the request: name the facts, materials, audience, \
structure, tone or length that the request asks for, rather than generic qualities. The \
criteria must not overlap.

For every criterion give:
- "name": a short title;
- "criteria_description": what the criterion checks and why it matters for this request;
- "1-2", "3-4", "5-6", "7-8", "9-10": what a response scoring in that band looks like, \
from failing the criterion (1-2) to fulfilling it outstandingly (9-10).

Answer with one JSON array of {count} objects with exactly these seven keys and string \
values, and nothing else.

Writing request:
```
{query}
```""",
    ("count", "query"),
    description="asks the criteria role for {count} criteria for one request",
)


CRITERIA_PROMPTS = {"criteria": CRITERIA_PROMPT}


def criteria_messages(
    query: str, count: int = CRITERIA_PER_QUERY, template: PromptTemplate = CRITERIA_PROMPT
) -> list[dict[str, str]]:
    """Chat messages asking a model to write ``count`` criteria for ``query``."""
    return [{"role": "user", "content": template.render(count=count, query=query)}]


class CriteriaParse(BaseModel):
    """Outcome of parsing generated criteria: criteria, or the reason there are none."""

    model_config = ConfigDict(frozen=True)

    criteria: tuple[Criterion, ...] | None = None
    error: str | None = None
    repaired: bool = False


def _criteria_list(value: Any) -> list[Any] | None:
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        for key in ("criteria", "checklist"):
            if isinstance(value.get(key), list):
                return value[key]
    return None


def _tidy(item: Any) -> Any:
    """Trim whitespace around string values; models often pad names."""
    if not isinstance(item, dict):
        return item
    return {key: value.strip() if isinstance(value, str) else value for key, value in item.items()}


def parse_criteria(text: str, count: int = CRITERIA_PER_QUERY) -> CriteriaParse:
    """Parse a model's reply to :func:`criteria_messages` into validated criteria."""
    body = strip_reasoning(text).text
    candidates = [found for found in map(_criteria_list, find_json_values(body)) if found is not None]
    repaired = False
    if not candidates:
        fixed = _criteria_list(repair_json_value(body))
        if fixed is None:
            return CriteriaParse(error="no JSON array of criteria found in the reply")
        candidates, repaired = [fixed], True
    try:
        criteria = validate_checklist([_tidy(item) for item in candidates[-1]], size=count)
    except ValueError as exc:
        return CriteriaParse(error=str(exc), repaired=repaired)
    return CriteriaParse(criteria=criteria, repaired=repaired)
