"""WritingBench for your own data: criteria for new queries, evaluation on them, and SFT curation.

Input files are JSON Lines. A query line needs the request under ``query`` (or
``instruction`` / ``prompt``) and may carry ``index`` or ``id``; a curation line also needs
the answer under ``response`` (or ``output`` / ``answer``). Every other field is kept.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from proseval.benchmarks.writingbench.criteria import (
    CRITERIA_PROMPTS,
    Criterion,
    criteria_messages,
    parse_criteria,
    validate_checklist,
)
from proseval.benchmarks.writingbench.jsonl import DataFormatError, iter_json_objects
from proseval.benchmarks.writingbench.judging import JUDGE_PROMPTS, criterion_ratings
from proseval.kit import GenerateConfig, Sample, SampleContext, Score, State, Task, scorer
from proseval.kit.runs import SampleRecord

QUERY_KEYS = ("query", "instruction", "prompt")
RESPONSE_KEYS = ("response", "output", "answer")
CRITERIA_CONFIG = GenerateConfig(temperature=0.7, max_tokens=4096)
CRITERIA_ATTEMPTS = 3


def _first(record: dict[str, Any], keys: Sequence[str]) -> str | None:
    for key in keys:
        if isinstance(record.get(key), str) and record[key].strip():
            return record[key]
    return None


def read_lines(path: Path, *, need_response: bool = False, need_checklist: bool = False) -> list[tuple[str, dict]]:
    """(sample id, record) per line; errors name the file and line."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DataFormatError(f"cannot read {path}: {exc.strerror}") from None
    rows: list[tuple[str, dict]] = []
    seen: set[str] = set()
    for line, record in iter_json_objects(raw, str(path)):
        if _first(record, QUERY_KEYS) is None:
            raise DataFormatError(f"{path}:{line}: no request text under {' / '.join(QUERY_KEYS)}")
        if need_response and _first(record, RESPONSE_KEYS) is None:
            raise DataFormatError(f"{path}:{line}: no answer text under {' / '.join(RESPONSE_KEYS)}")
        if need_checklist:
            try:
                validate_checklist(record.get("checklist") or [])
            except ValueError as exc:
                raise DataFormatError(f"{path}:{line}: checklist: {exc}") from None
            if not record.get("checklist"):
                raise DataFormatError(f"{path}:{line}: no criteria under 'checklist'")
        key = str(record.get("index", record.get("id", line)))
        if key in seen:
            raise DataFormatError(f"{path}:{line}: duplicate index/id {key!r}")
        seen.add(key)
        rows.append((key, record))
    if not rows:
        raise DataFormatError(f"{path}: no records")
    return rows


def request_text(record: dict[str, Any]) -> str:
    return _first(record, QUERY_KEYS) or ""


def response_text(record: dict[str, Any]) -> str:
    return _first(record, RESPONSE_KEYS) or ""


async def generate_criteria(ctx: SampleContext, query: str) -> tuple[tuple[Criterion, ...] | None, str, int]:
    """Criteria from the `criteria` role: (criteria or None, last error, attempts used)."""
    error = ""
    for attempt in range(CRITERIA_ATTEMPTS):
        completion = await ctx.generate(
            "criteria", criteria_messages(query, template=ctx.prompt("criteria")), turn=f"criteria#{attempt}"
        )
        parsed = parse_criteria(completion.text)
        if parsed.criteria is not None:
            return parsed.criteria, "", attempt + 1
        error = parsed.error or "unusable reply"
    return None, error, CRITERIA_ATTEMPTS


# --- criteria generation -----------------------------------------------------------------------


def criteria_task(in_file: Path) -> Task:
    rows = read_lines(in_file)

    def dataset() -> list[Sample]:
        return [Sample(id=f"criteria/{key}", input=request_text(record), target=record) for key, record in rows]

    async def protocol(sample: Sample, ctx: SampleContext) -> State:
        criteria, error, attempts = await generate_criteria(ctx, str(sample.input))
        checklist = [c.to_official_dict() for c in criteria] if criteria else None
        return State(
            output=json.dumps(checklist, ensure_ascii=False) if checklist else "",
            metadata={"checklist": checklist, "error": error, "attempts": attempts},
        )

    @scorer("criteria_valid")
    async def valid(sample: Sample, state: State, ctx: SampleContext) -> dict[str, Score]:
        if state.metadata.get("checklist") is None:  # the criteria model's answer was unusable: unscored
            return {"criteria_valid": Score.unscored("unparsable", state.metadata.get("error", ""))}
        return {"criteria_valid": Score(value=1.0)}

    return Task(
        name="writingbench-criteria",
        version="1",
        dataset=dataset,
        protocol=protocol,
        scorers=[valid],
        roles_required=("criteria",),
        role_configs={"criteria": CRITERIA_CONFIG},
        dataset_source={"source": str(in_file)},
        prompts=dict(CRITERIA_PROMPTS),
    )


def criteria_output(records: Sequence[SampleRecord]) -> tuple[str, int]:
    """Input lines with their `checklist` (or `criteria_error`), in input order; and the failure count."""
    lines, failed = [], 0
    for record in records:
        out = dict(record.target or {})
        checklist = record.state.metadata.get("checklist") if record.state else None
        if checklist:
            out["checklist"] = checklist
        else:
            failed += 1
            out["criteria_error"] = record.error or (record.state.metadata.get("error") if record.state else "failed")
        lines.append(json.dumps(out, ensure_ascii=False) + "\n")
    return "".join(lines), failed


# --- curation ----------------------------------------------------------------------------------


CURATE_PROMPTS = {**CRITERIA_PROMPTS, **JUDGE_PROMPTS}


def curate_task(in_file: Path, judge_scorer: Any) -> Task:
    """Criteria for each instruction, then the judge scores the given response against them."""
    rows = read_lines(in_file, need_response=True)

    def dataset() -> list[Sample]:
        return [Sample(id=f"curate/{key}", input=request_text(record), target=record) for key, record in rows]

    async def protocol(sample: Sample, ctx: SampleContext) -> State:
        criteria, error, attempts = await generate_criteria(ctx, str(sample.input))
        response = response_text(sample.target)
        checklist = [c.to_official_dict() for c in criteria] if criteria else None
        return State(output=response, metadata={"checklist": checklist, "error": error, "attempts": attempts})

    async def score(sample: Sample, state: State, ctx: SampleContext) -> dict[str, Score]:
        checklist = state.metadata.get("checklist")
        if not checklist:
            return {"writingbench": Score.unscored("error", f"no criteria: {state.metadata.get('error')}")}
        with_criteria = sample.model_copy(update={"target": {"checklist": checklist}})
        return await judge_scorer(with_criteria, state, ctx)

    return Task(
        name="writingbench-curate",
        version="1",
        dataset=dataset,
        protocol=protocol,
        scorers=[score],
        roles_required=("criteria", "judge"),
        role_configs={"criteria": CRITERIA_CONFIG},
        dataset_source={"source": str(in_file)},
        prompts=dict(CURATE_PROMPTS),
        # The judge's per-criterion verdicts; the criteria role writes criteria, it rates nothing.
        ratings=criterion_ratings,
    )


def select_top(scored: Sequence[tuple[dict, float | None]], keep: float) -> tuple[list[tuple[dict, float]], int]:
    """The best `keep` fraction of the scored records (stable for ties); unscored ones never kept."""
    ranked = sorted(((r, s) for r, s in scored if s is not None), key=lambda pair: -pair[1])
    count = int(round(keep * len(ranked)))
    return ranked[:count], sum(1 for _, s in scored if s is None)


def histogram(values: Sequence[float]) -> list[tuple[str, int]]:
    """Counts of query means in [1,2), [2,3), ..., [9,10]."""
    counts, _ = np.histogram(np.asarray(values, dtype=float), bins=np.arange(1, 11))
    return [(f"{low}–{low + 1}" + ("" if low < 9 else " (incl. 10)"), int(c)) for low, c in zip(range(1, 10), counts)]
