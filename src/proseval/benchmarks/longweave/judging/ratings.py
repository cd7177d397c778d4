"""What LongWeave's judge rated (`Task.ratings`): one yes/no verdict per judged target field.

BioG, SR and NW: per target (a fact, a question, a statement) the fields the judge was asked,
from the trace's ``verdicts`` (`scores.score_biog` and its siblings record them): ``fact 3:
covered``, ``question 2: answered``, ``question 2: correct``, ``statement 7: exists``,
``statement 7: follows rules``. A target the judge's replies left unscored is an unscored
rating per field (the official preset then counts it as negative: that is a rule, not the
judge's verdict). A dependent field forced false by its gate (``correct`` when not
``answered``, ``follows rules`` when not ``exists``) is set by the reader, not the judge: no rating.

CF: the relevance gate's verdict, ``relevant and complete``; a reply that holds none is
unscored, also when the official preset then counts the answer as relevant (``defaulted``).

KVG, SMS and PR are scored by rule, and an empty answer scores 0 without a judge call: no ratings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from proseval.benchmarks.longweave.judging.replies import VERDICT_FIELDS
from proseval.kit import Rating, Scale, Score

SCORE = "longweave"
SCALE = Scale(0, 1, "binary")
TARGET_KIND = {"biog": "fact", "sr": "question", "nw": "statement"}
RELEVANCE = "relevant and complete"
# How a CF relevance verdict was read: from the reply (a verdict), or not at all.
READ = frozenset({"ok", "repaired", "text"})
UNREAD = frozenset({"defaulted", "unparsable", "no_reply"})


def field_name(task: str, target_id: int | str, field: str) -> str:
    """The criterion of one verdict field on one target (the ratings' and the labelling form's)."""
    return f"{TARGET_KIND[task]} {target_id}: {field.replace('_', ' ')}"


def _target_ratings(task: str, verdicts: Mapping[str, Any]) -> list[Rating]:
    fields = VERDICT_FIELDS[task]
    found = []
    for target_id, verdict in sorted(verdicts.items(), key=lambda item: int(item[0])):
        for position, field in enumerate(fields):
            name = field_name(task, target_id, field)
            if verdict is None:
                found.append(Rating(name, None, SCALE))
            elif position > 0 and verdict.get(fields[0]) is False:
                break  # gated: forced false by the reader
            else:
                found.append(Rating(name, float(bool(verdict[field])), SCALE))
    return found


def _relevance_rating(trace: Mapping[str, Any]) -> list[Rating]:
    status = trace.get("relevance_status")
    if status is None:  # unscored under the strict gate: the trace holds only how the reply failed
        status = trace.get("relevance")
        return [Rating(RELEVANCE, None, SCALE)] if status in UNREAD else []
    if status in UNREAD:
        return [Rating(RELEVANCE, None, SCALE)]
    relevance = trace.get("relevance")
    if status not in READ or relevance not in ("judged relevant", "judged irrelevant"):
        return []
    return [Rating(RELEVANCE, float(relevance == "judged relevant"), SCALE)]


def ratings(scores: Mapping[str, Score]) -> list[Rating]:
    score = scores.get(SCORE)
    if score is None or score.parse_status == "empty":
        return []
    trace = score.metadata.get("trace")
    if not isinstance(trace, dict):
        return []
    task = trace.get("judged_task")
    if task in TARGET_KIND and isinstance(trace.get("verdicts"), dict):
        return _target_ratings(task, trace["verdicts"])
    return _relevance_rating(trace)
