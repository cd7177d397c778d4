"""The reference-anchored judge: its messages, the ablations, and reading its answers (pure)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from proseval.benchmarks._shared.c3e.data import Item
from proseval.benchmarks._shared.c3e.fields import PromptLookup, field_values, render_with
from proseval.kit import (
    ParseStatus,
    PromptError,
    PromptTemplate,
    Rating,
    Scale,
    Score,
    find_json_values,
    json_schema_format,
    parse_score,
    repair_json_value,
    strip_reasoning,
)

LOW, HIGH = 1, 10
SCALE = Scale(LOW, HIGH, "ordinal")


@dataclass(frozen=True)
class JudgeSetup:
    """What the judge is given; each False is one of the judge ablations (that part left out)."""

    reference: bool = True
    rubric: bool = True
    traits: bool = True

    @property
    def label(self) -> str:
        off = [name for name in ("reference", "rubric", "traits") if not getattr(self, name)]
        return "full" if not off else "no-" + ",no-".join(off)


def template_names(item: Item, setup: JudgeSetup) -> dict[str, str]:
    """The templates that make up the judge's messages for this item."""
    lang, task = item.language, item.task
    if setup.rubric:
        scale = f"bands_{task}_{lang}" if setup.reference else f"bands_noref_{lang}"
    else:
        scale = f"scale_plain_{lang}" if setup.reference else f"scale_plain_noref_{lang}"
    return {
        "system": f"judge_{task}_{lang}",
        "traits": f"traits_{task}_{lang}" if setup.traits else f"traits_generic_{lang}",
        "scale": scale,
        "user": f"judge_user_{task}" + ("" if setup.reference else "_noref"),
    }


def judge_messages(item: Item, candidate: str, setup: JudgeSetup, prompt: PromptLookup) -> list[dict[str, str]]:
    """System = the task's rubric (traits and scale filled in); user = the labelled fields."""
    names = template_names(item, setup)
    system = render_with(
        prompt(names["system"]), {"traits": prompt(names["traits"]).render(), "scale": prompt(names["scale"]).render()}
    )
    user = render_with(prompt(names["user"]), {**field_values(item), "candidate": candidate})
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


# --- the order of the two texts (position-bias probe) ------------------------------------------------

JudgeOrder = Literal["as_given", "swapped"]
# The two texts a reference-anchored judge compares; as given, the reference block comes first.
SWAPPED_SLOTS = ("reference", "candidate")
_SLOT = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_BLANK_LINE = re.compile(r"\n[ \t\r]*\n")


def _block(text: str, start: int, end: int, others: list[tuple[int, int]]) -> tuple[int, int]:
    """The span of the block around the placeholder at text[start:end] (see `swap_blocks`)."""
    previous = max((e for s, e in others if e <= start), default=0)
    following = min((s for s, e in others if s >= end), default=len(text))
    breaks = list(_BLANK_LINE.finditer(text))
    # the paragraph holding the placeholder, or the one above when the placeholder opens its paragraph
    begin = max((m.end() for m in breaks if m.end() <= start and text[m.end() : start].strip()), default=0)
    finish = min((m.start() for m in breaks if m.start() >= end), default=len(text))
    begin, finish = max(begin, previous), min(finish, following)
    while begin < start and text[begin].isspace():
        begin += 1
    while finish > end and text[finish - 1].isspace():
        finish -= 1
    return begin, finish


def swap_blocks(text: str, slots: Iterable[str], first: str = SWAPPED_SLOTS[0], second: str = SWAPPED_SLOTS[1]) -> str:
    """`text` (a template) with the blocks of ``{first}`` and ``{second}`` in each other's place.

    A placeholder's block is the paragraph it is in (paragraphs are separated by blank lines),
    with the paragraph just above when the placeholder opens its paragraph (a label set apart by a
    blank line), never reaching past another placeholder; the blank lines around a block stay
    where they are. A label in the block moves with its text, so the judge is still told which
    text is which: ``[Reference]\\n{reference}\\n\\n[Candidate]\\n{candidate}`` becomes
    ``[Candidate]\\n{candidate}\\n\\n[Reference]\\n{reference}``. Raises ValueError when the two
    cannot be told apart: a placeholder missing or used more than once, or both in one paragraph.
    `slots` are the template's placeholders (other braces in the text are not placeholders).
    """
    known = set(slots)
    found = [(m.group(1), m.start(), m.end()) for m in _SLOT.finditer(text) if m.group(1) in known]
    spans: dict[str, tuple[int, int]] = {}
    for name in (first, second):
        at = [(s, e) for n, s, e in found if n == name]
        if len(at) != 1:
            raise ValueError(f"{{{name}}} appears {len(at)} times; swapping the order needs it exactly once")
        spans[name] = at[0]
    blocks = {
        name: _block(text, *span, [(s, e) for n, s, e in found if (s, e) != span]) for name, span in spans.items()
    }
    (s1, e1), (s2, e2) = sorted(blocks.values())
    if e1 > s2:
        raise ValueError(
            f"{{{first}}} and {{{second}}} are in one paragraph; put a blank line between their "
            "blocks (each with its label) so that they can change places"
        )
    return text[:s1] + text[s2:e2] + text[e1:s2] + text[s1:e1] + text[e2:]


class SwappedOrder(PromptTemplate):
    """A judge user template shown with its reference and candidate blocks in each other's place
    (``judge_order=swapped``). Its text is the one given, built-in or a user's file, so the run
    records and checks it as usual; rendering swaps the blocks (`swap_blocks`). A text whose two
    blocks cannot change places is refused when it is loaded, before any request."""

    def __post_init__(self) -> None:
        super().__post_init__()
        try:
            swap_blocks(self.text, (*self.placeholders, *self.optional))
        except ValueError as exc:
            raise PromptError(
                f"prompt {self.name!r} ({self.source}): cannot show the judge its two texts in "
                f"the other order (judge_order swapped): {exc}"
            ) from None

    def render(self, **values: object) -> str:
        swapped = swap_blocks(self.text, (*self.placeholders, *self.optional))
        return PromptTemplate(
            self.name, swapped, self.placeholders, self.optional, self.description, self.source
        ).render(**values)


def presented(prompts: Mapping[str, PromptTemplate], order: JudgeOrder) -> dict[str, PromptTemplate]:
    """`prompts` with the judge user templates that show both texts (``{reference}`` and
    ``{candidate}``) in `order`: as given, the same templates; swapped, each as `SwappedOrder`."""
    if order == "as_given":
        return dict(prompts)
    return {
        name: SwappedOrder(t.name, t.text, t.placeholders, t.optional, t.description, t.source)
        if name.startswith("judge_user_") and set(SWAPPED_SLOTS) <= {*t.placeholders, *t.optional}
        else t
        for name, t in prompts.items()
    }


# The keys of each rubric's example answer besides score and verdict (see the judge_{task}_{lang} templates):
# None marks a text field, a tuple an object of text fields.
ANSWER_FIELDS: dict[str, dict[str, tuple[str, ...] | None]] = {
    "cloze": {"critique": ("strengths_and_weaknesses", "decisive_reason")},
    "expand": {"analysis": ("outline_coverage", "structure_and_style", "overall")},
    "edit": {"critique_uptake": ("applied", "missed_or_misread", "content_kept"), "quality": None},
    "end2end": {"analysis": ("instruction_fit_and_structure", "language_and_originality", "form")},
}


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def judge_schema(task: str) -> dict[str, Any]:
    """The JSON schema of a judge answer for `task`: the rubric's keys, with ``score`` (an integer) first.

    Score first: a judge whose answer is cut at its token limit has still given its score (a
    rubric-ordered answer would be cut inside the analysis); the price is that the judge commits
    to a score before writing its reasons.
    """
    text = {"type": "string"}
    analysis = {
        key: text if sub is None else _object({name: text for name in sub}) for key, sub in ANSWER_FIELDS[task].items()
    }
    return _object({"score": {"type": "integer"}, **analysis, "verdict": text})


def judge_response_format(task: str) -> dict[str, Any]:
    """Generation settings asking the judge for JSON of `judge_schema(task)` (``response_format``)."""
    return {"response_format": json_schema_format(f"c3ebench_{task}_judgment", judge_schema(task))}


@dataclass(frozen=True)
class Verdict:
    """A judge answer read: the score (None = unscored), how it was read, and the official reading."""

    score: int | None
    status: ParseStatus
    detail: str = ""
    verdict: str = ""
    official: float | None = None  # what the official aggregate would have kept (None: dropped)

    @property
    def scored(self) -> bool:
        return self.score is not None


def official_reading(text: str) -> float | None:
    """The score the official aggregate keeps; None when it drops the row.

    The official parser takes the text from the first ``{`` to the last ``}`` and ``json.loads`` it;
    the aggregate then averages ``score`` only where it is a JSON number. A missing score and any
    other type are dropped: a string (``"7"`` included), a list (``[7]``), an object, ``true`` or
    ``false``, ``null``.
    """
    match = re.search(r"\{.*\}", text or "", re.DOTALL)
    if match is None:
        return None
    try:
        obj = json.loads(match.group(0))
    except ValueError:
        return None
    score = obj.get("score") if isinstance(obj, dict) else None
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        return None
    return float(score)


def _with_score(values: list[Any]) -> dict[str, Any] | None:
    found = [value for value in values if isinstance(value, dict) and "score" in value]
    return found[-1] if found else None


def parse_verdict(text: str) -> Verdict:
    """The last JSON object with a ``score``; ``[7]`` and ``"7"`` are read as 7; a whole number 1-10 is required."""
    official = official_reading(text)
    cleaned = strip_reasoning(text or "").text
    if not cleaned.strip():
        return Verdict(None, "empty", "the judge returned no text", official=official)
    obj = _with_score(find_json_values(cleaned))
    status: ParseStatus = "ok"
    if obj is None:
        repaired = repair_json_value(cleaned)
        obj = repaired if isinstance(repaired, dict) and "score" in repaired else None
        status = "repaired"
    if obj is None:
        return Verdict(None, "unparsable", f"no JSON object with a score in: {cleaned[:200]!r}", official=official)
    raw = obj["score"]
    if isinstance(raw, list) and len(raw) == 1:
        raw, status = raw[0], "coerced"
    parsed = parse_score(raw, LOW, HIGH)
    if parsed.value is None:
        return Verdict(None, parsed.status, parsed.detail, official=official)
    if parsed.status == "coerced":
        status = "coerced"
    return Verdict(int(parsed.value), status, verdict=str(obj.get("verdict", ""))[:300], official=official)


def verdict_ratings(metric: str) -> Callable[[Mapping[str, Score]], list[Rating]]:
    """`Task.ratings` for a score `metric` that is this judge's one verdict on a sample (1-10).

    The judge's answer has one number: its analysis fields are text, and the ``official``
    reading in the metadata is the same reply read by the official parser, not a second verdict.
    An empty answer's lowest score (status ``empty`` with a value) is set by rule without asking
    the judge: no rating. An empty, unparsable or out-of-range judge reply and a failed judge
    call are unscored (value None): ratings with value None (an empty reply is status ``empty``
    too, but without a value).
    """

    def ratings(scores: Mapping[str, Score]) -> list[Rating]:
        score = scores.get(metric)
        if score is None or isinstance(score.value, dict):
            return []
        if score.parse_status == "empty" and score.value is not None:
            return []
        return [Rating(metric, None if score.value is None else float(score.value), SCALE)]

    return ratings
