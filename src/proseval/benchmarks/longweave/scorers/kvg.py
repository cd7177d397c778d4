"""KV Dictionary Generation (KVG): position, entry-count and key/value-length scores.

With N requested entries, target index t and key/value lengths Lk/Lv, on the answer's
dictionary (duplicate keys collapse: first position, last value):
  position = 1 / (1 + (|index of the target key - t| / (N/4))^2)
  entries  = 1 / (1 + (|number of keys - N| / max(1, N/4))^2)
  lengths  = mean of 1 / (1 + (|mean key length - Lk| / max(1, Lk/4))^2) and the same for values
  total    = harmonic mean of the three (0 if any is 0)
All four are 0 when the target entry is missing. Sub-scores are reported rounded to 4 dp; the
total uses the unrounded position and entry scores and the rounded length score, as officially.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

from proseval.benchmarks.longweave.scorers.result import (
    RuleScore,
    gated_harmonic_mean,
)
from proseval.kit.measures import closeness

_TRAILING_COMMA = re.compile(r",\s*}")
_METRICS = (
    "key_existence",
    "position_score",
    "entry_num_score",
    "avg_length_score",
    "total_score",
)


@dataclass(frozen=True)
class KVGConfig:
    """Which official behaviours to keep. The defaults fix the documented bugs.

    require_pairing: the target key must map to the target value (False: official, both need
        only appear somewhere in the dictionary).
    lenient_parsing: parse the ``{...}`` span as JSON, then as a Python literal, and only then
        with every ``'`` replaced by ``"`` (False: official, the replacement only, which fails
        on any apostrophe).
    """

    require_pairing: bool = True
    lenient_parsing: bool = True

    @classmethod
    def official(cls) -> KVGConfig:
        return cls(require_pairing=False, lenient_parsing=False)


@dataclass(frozen=True)
class KVGInstance:
    """What the prompt asked for."""

    target_key: str
    target_value: str
    target_index: int
    num_entries: int
    key_length: int = 32
    value_length: int = 32

    def __post_init__(self) -> None:
        if self.num_entries < 1 or self.key_length < 1 or self.value_length < 1:
            raise ValueError(f"KVG instance needs positive entry count and lengths: {self}")


def parse_dictionary(answer: str, *, lenient: bool = True) -> tuple[dict[str, str] | None, str]:
    """The answer's dictionary (keys and values as strings) and how it was read, or None."""
    start, end = answer.find("{"), answer.rfind("}")
    if start < 0 or end < start:
        return None, "no {...} span"
    span = answer[start : end + 1]
    attempts = [("JSON", _as_json), ("Python literal", _as_literal)] if lenient else []
    attempts.append(("JSON after quote replacement", _as_quote_replaced_json))
    for how, parse in attempts:
        parsed = parse(span)
        if isinstance(parsed, dict):
            return {str(k): str(v) for k, v in parsed.items()}, how
    return None, "the {...} span is not a dictionary"


def score_kvg(answer: str, instance: KVGInstance, *, config: KVGConfig = KVGConfig()) -> RuleScore:
    """Score one KVG answer."""
    parsed, how = parse_dictionary(answer, lenient=config.lenient_parsing)
    trace: dict[str, Any] = {"parsing": how}
    if parsed is None:
        return RuleScore(0.0, dict.fromkeys(_METRICS, 0.0), {**trace, "problem": how})
    keys, values = list(parsed), list(parsed.values())
    trace["entries"] = len(keys)
    if config.require_pairing:
        present = parsed.get(instance.target_key) == instance.target_value
        problem = "the target key does not map to the target value"
    else:
        present = instance.target_key in parsed and instance.target_value in values
        problem = "the target key or the target value is missing"
    if not present:
        return RuleScore(0.0, dict.fromkeys(_METRICS, 0.0), {**trace, "problem": problem})

    n = instance.num_entries
    trace["target_position"] = keys.index(instance.target_key)
    position = closeness(trace["target_position"], instance.target_index, 0.25 * n)
    entries = closeness(len(keys), n, max(1.0, 0.25 * n))
    trace["mean_key_length"] = sum(map(len, keys)) / len(keys)
    trace["mean_value_length"] = sum(map(len, values)) / len(values)
    lengths = round(
        (
            _length_score(trace["mean_key_length"], instance.key_length)
            + _length_score(trace["mean_value_length"], instance.value_length)
        )
        / 2,
        4,
    )
    total = gated_harmonic_mean([position, entries, lengths])
    metrics = {
        "key_existence": 1.0,
        "position_score": round(position, 4),
        "entry_num_score": round(entries, 4),
        "avg_length_score": lengths,
        "total_score": total,
    }
    return RuleScore(total, metrics, trace)


def _length_score(mean_length: float, target: int) -> float:
    return closeness(mean_length, target, max(1.0, 0.25 * target))


def _as_json(span: str) -> Any:
    try:
        return json.loads(span)
    except (ValueError, RecursionError):
        return None


def _as_literal(span: str) -> Any:
    try:
        return ast.literal_eval(span)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _as_quote_replaced_json(span: str) -> Any:
    return _as_json(_TRAILING_COMMA.sub("}", span.replace("'", '"')))
