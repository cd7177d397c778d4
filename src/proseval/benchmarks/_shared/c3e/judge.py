"""The reference-anchored judge: its messages, the ablations, and reading its answers (pure)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from proseval.benchmarks._shared.c3e.data import Item
from proseval.benchmarks._shared.c3e.fields import PromptLookup, field_values, render_with
from proseval.kit import (
    ParseStatus,
    find_json_values,
    json_schema_format,
    parse_score,
    repair_json_value,
    strip_reasoning,
)

LOW, HIGH = 1, 10
REFERENCE_SCORE = 6


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
    return {"system": f"judge_{task}_{lang}",
            "traits": f"traits_{task}_{lang}" if setup.traits else f"traits_generic_{lang}",
            "scale": scale,
            "user": f"judge_user_{task}" + ("" if setup.reference else "_noref")}


def judge_messages(item: Item, candidate: str, setup: JudgeSetup, prompt: PromptLookup) -> list[dict[str, str]]:
    """System = the task's rubric (traits and scale filled in); user = the labelled fields."""
    names = template_names(item, setup)
    system = render_with(prompt(names["system"]), {"traits": prompt(names["traits"]).render(),
                                                    "scale": prompt(names["scale"]).render()})
    user = render_with(prompt(names["user"]), {**field_values(item), "candidate": candidate})
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


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
    analysis = {key: text if sub is None else _object({name: text for name in sub})
                for key, sub in ANSWER_FIELDS[task].items()}
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
