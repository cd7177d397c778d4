"""What a person labelling a WritingBench answer is asked: the query's own criteria, each 1-10 with
its score bands, named as the judge's verdicts are (`judging.criterion_ratings`)."""

from __future__ import annotations

from typing import Any

from proseval.benchmarks.writingbench.criteria import BAND_LABELS
from proseval.kit.views import LabelCriterion, LabelForm


def _checklist(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The query's criteria: the sample's target (the benchmark, curation), else what the run generated."""
    for holder in (record.get("target"), (record.get("state") or {}).get("metadata")):
        if isinstance(holder, dict) and isinstance(holder.get("checklist"), list):
            return [c for c in holder["checklist"] if isinstance(c, dict) and c.get("name")]
    return []


def _criterion(entry: dict[str, Any]) -> LabelCriterion:
    lines = [str(entry.get("criteria_description", "")).strip()]
    lines += [f"{band}: {entry[band]}" for band in BAND_LABELS if entry.get(band)]
    name = str(entry["name"])  # the query's criterion in words ("Clarity of the argument")
    return LabelCriterion(name, "\n".join(line for line in lines if line), 1, 10, title=name)


def label_form(record: dict[str, Any]) -> LabelForm:
    criteria = [_criterion(entry) for entry in _checklist(record)]
    if not criteria:  # no checklist stored: the criteria the judge scored, by name
        score = (record.get("scores") or {}).get("writingbench") or {}
        judged = (score.get("metadata") or {}).get("criteria") if isinstance(score, dict) else None
        criteria = [LabelCriterion(str(name), "", 1, 10, title=str(name)) for name in (judged or {})]
    query = record.get("input")
    return LabelForm(
        question=query if isinstance(query, str) else str(query),
        criteria=criteria,
        pairwise="Which response meets this criterion better?",
    )
