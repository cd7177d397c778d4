"""`proseval export`: a run as flat tables (CSV, Parquet) or as an Inspect AI evaluation log.

The scores table has one row per sample and score: a failed sample has one row with no metric;
`status` is ``scored``, ``unscored`` (the score could not be obtained: no value) or ``failed``
(the candidate call failed). The metrics table has the headline metrics and every slice table
of `results.json`, one row per (scope, slice, metric).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.score import Score
from ..runtime.records import MetricSummary, SampleRecord
from .runs import ReportRun

if TYPE_CHECKING:
    from inspect_ai.model import StopReason

SCORE_COLUMNS = [
    "run_id",
    "task",
    "id",
    "epoch",
    "status",
    "model_failure",
    "metric",
    "value",
    "parse_status",
    "explanation",
    "error",
]
METRIC_COLUMNS = [
    "run_id",
    "task",
    "scope",
    "slice",
    "metric",
    "mean",
    "ci_low",
    "ci_high",
    "n_scored",
    "n_unscored",
    "n_failed",
]
FORMATS = ("csv", "parquet", "inspect")


def _scalar_metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    return {f"meta.{k}": v for k, v in metadata.items() if isinstance(v, (str, int, float, bool))}


def _flat(score_name: str, score: Score) -> list[tuple[str, float | None]]:
    if isinstance(score.value, dict):
        return [(f"{score_name}.{sub}", value) for sub, value in score.value.items()]
    return [(score_name, score.value)]


def score_rows(run: ReportRun) -> list[dict[str, Any]]:
    """One row per sample × score (see the module docstring)."""
    failed = {(s.id, s.epoch) for s in run.samples if s.status != "ok"}
    errors = {(r.id, r.epoch): r.error for r in run.records(failed)}
    rows = []
    for sample in run.samples:
        base = {
            "run_id": run.header.run_id,
            "task": run.header.task,
            "id": sample.id,
            "epoch": sample.epoch,
            "model_failure": sample.model_failure,
        }
        meta = _scalar_metadata(sample.metadata)
        if sample.status != "ok":
            rows.append(
                {
                    **base,
                    "status": "failed",
                    "metric": None,
                    "value": None,
                    "parse_status": None,
                    "explanation": None,
                    "error": errors.get((sample.id, sample.epoch)),
                    **meta,
                }
            )
            continue
        for name, score in sample.scores.items():
            for metric, value in _flat(name, score):
                rows.append(
                    {
                        **base,
                        "status": "unscored" if value is None else "scored",
                        "metric": metric,
                        "value": value,
                        "parse_status": score.parse_status,
                        "explanation": score.explanation,
                        "error": None,
                        **meta,
                    }
                )
    return rows


def metric_rows(run: ReportRun) -> list[dict[str, Any]]:
    """The headline metrics (scope ``overall``) and every slice table (scope = the slice key)."""

    def row(scope: str, label: str | None, metric: str, summary: MetricSummary) -> dict[str, Any]:
        return {
            "run_id": run.header.run_id,
            "task": run.header.task,
            "scope": scope,
            "slice": label,
            "metric": metric,
            **summary.model_dump(),
        }

    results = run.results
    rows = [row("overall", None, metric, summary) for metric, summary in results.metrics.items()]
    for key, groups in results.slices.items():
        rows += [
            row(key, label, metric, summary) for label, metrics in groups.items() for metric, summary in metrics.items()
        ]
    return rows


def frames(run: ReportRun) -> tuple[Any, Any]:
    """(scores, metrics) as pandas DataFrames with stable columns."""
    import pandas as pd

    scores = pd.DataFrame(score_rows(run))
    meta = sorted(c for c in scores.columns if c.startswith("meta."))
    scores = scores.reindex(columns=[*SCORE_COLUMNS, *meta])
    scores["value"] = scores["value"].astype("float64")
    metrics = pd.DataFrame(metric_rows(run)).reindex(columns=METRIC_COLUMNS)
    return scores, metrics


def table_paths(output: Path, fmt: str) -> tuple[Path, Path]:
    """The scores file and the metrics file beside it (``NAME.metrics.EXT``)."""
    suffix = f".{fmt}"
    scores = output if output.suffix == suffix else output.with_name(output.name + suffix)
    return scores, scores.with_name(scores.name[: -len(suffix)] + ".metrics" + suffix)


def write_tables(run: ReportRun, output: Path, fmt: str) -> tuple[Path, Path]:
    scores, metrics = frames(run)
    scores_path, metrics_path = table_paths(output, fmt)
    scores_path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "csv":
        scores.to_csv(scores_path, index=False)
        metrics.to_csv(metrics_path, index=False)
    else:
        scores.to_parquet(scores_path, index=False)
        metrics.to_parquet(metrics_path, index=False)
    return scores_path, metrics_path


# Inspect AI -----------------------------------------------------------------------------------
STOP_REASONS: dict[str, StopReason] = {
    "stop": "stop",
    "length": "max_tokens",
    "content_filter": "content_filter",
    "tool_calls": "tool_calls",
}
GRADER_STATUSES = {"unparsable", "out_of_range", "refused", "partial"}


def _messages(messages: list[dict[str, str]]) -> list[Any]:
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
    result = []
    for message in messages:
        role, content = message.get("role", "user"), str(message.get("content", ""))
        kind = kinds.get(role)
        result.append(kind(content=content) if kind else ChatMessageUser(content=f"[{role}] {content}"))
    return result


def _inspect_score(score: Score) -> Any:
    from inspect_ai.scorer import Score as InspectScore

    metadata = {"parse_status": score.parse_status, **score.metadata}
    if score.value is None:  # unscored: Inspect's own sentinel (NaN), left out of its metrics
        reason = "grader_failed" if score.parse_status in GRADER_STATUSES else "scoring_failed"
        return InspectScore.unscored(reason=reason, explanation=score.explanation, metadata=metadata)
    return InspectScore(value=score.value, explanation=score.explanation or None, metadata=metadata)


def _usage(tokens: dict[str, tuple[int, int]]) -> dict[str, Any]:
    from inspect_ai.model import ModelUsage

    return {name: ModelUsage(input_tokens=i, output_tokens=o, total_tokens=i + o) for name, (i, o) in tokens.items()}


def _sample(run: ReportRun, record: SampleRecord) -> Any:
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import ModelOutput

    state = record.state
    target = (
        record.target
        if isinstance(record.target, str)
        else ("" if record.target is None else json.dumps(record.target, ensure_ascii=False))
    )
    input_ = record.input if isinstance(record.input, str) else _messages(record.input or [])
    specs = {role: binding.spec for role, binding in run.header.roles.items()}
    by_model: dict[str, tuple[int, int]] = {}
    for role, usage in record.usage.items():
        spec = specs.get(role, role)
        before = by_model.get(spec, (0, 0))
        by_model[spec] = (before[0] + usage.prompt_tokens, before[1] + usage.completion_tokens)
    extra: dict[str, Any] = {"proseval_status": record.status, "model_failure": record.model_failure}
    if record.calls:
        extra["proseval_calls"] = [call.model_dump() for call in record.calls]
    if state is not None and (state.turns or state.metadata):
        extra["proseval_state"] = {"turns": state.turns, "metadata": state.metadata}
    output = None
    if state is not None:
        output = ModelOutput.from_content(
            run.model, state.output, stop_reason=STOP_REASONS.get(state.finish_reason or "stop", "unknown")
        )
    return EvalSample(
        id=record.id,
        epoch=record.epoch + 1,
        input=input_,
        target=target,
        messages=_messages(state.messages) if state is not None else [],
        output=output or ModelOutput(model=run.model),
        scores={name: _inspect_score(score) for name, score in record.scores.items()},
        metadata={**record.metadata, **extra},
        error=EvalError(message=record.error or "failed", traceback="", traceback_ansi="")
        if record.status != "ok"
        else None,
        model_usage=_usage(by_model),
        role_usage=_usage({role: (u.prompt_tokens, u.completion_tokens) for role, u in record.usage.items()}),
        total_time=record.duration_s,
    )


def _eval_score(name: str, summary: MetricSummary) -> Any:
    from inspect_ai.log import EvalMetric, EvalScore

    values = {"mean": summary.mean, "ci_low": summary.ci_low, "ci_high": summary.ci_high}
    return EvalScore(
        name=name,
        scorer=name.split(".")[0],
        scored_samples=summary.n_scored,
        unscored_samples=summary.n_unscored,
        metrics={k: EvalMetric(name=k, value=v) for k, v in values.items() if v is not None},
        metadata={"n_failed": summary.n_failed},
    )


def inspect_log(run: ReportRun) -> Any:
    """The run as an `inspect_ai.log.EvalLog` (needs ``proseval[inspect]``)."""
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalResults, EvalSpec, EvalStats
    from inspect_ai.model import ModelConfig

    header, results = run.header, run.results
    keys = {(s.id, s.epoch) for s in run.samples}
    main = "candidate" if "candidate" in header.roles else next(iter(header.roles))
    role_tokens = {
        role: (int(stats.get("prompt_tokens") or 0), int(stats.get("completion_tokens") or 0))
        for role, stats in results.roles.items()
    }
    model_tokens: dict[str, tuple[int, int]] = {}
    for role, (i, o) in role_tokens.items():
        spec = header.roles[role].spec if role in header.roles else role
        before = model_tokens.get(spec, (0, 0))
        model_tokens[spec] = (before[0] + i, before[1] + o)
    eval_spec = EvalSpec(
        run_id=header.run_id,
        eval_id=header.run_id,
        task_id=header.run_id,
        created=header.started_at,
        task=header.task,
        task_version=header.task_version,
        task_args=header.task_params,
        dataset=EvalDataset(name=header.task, samples=results.counts.total),
        model=run.model,
        model_roles={
            role: ModelConfig(model=b.spec, base_url=b.base_urls[0] if b.base_urls else None)
            for role, b in header.roles.items()
            if role != main
        }
        or None,
        config=EvalConfig(epochs=header.epochs, limit=header.limit),
        packages={"proseval": header.package_version},
        metadata={
            "proseval": {
                "config_hash": header.config_hash,
                "dataset": header.dataset,
                "seed": header.seed,
                "git_commit": header.git_commit,
                "counts": results.counts.model_dump(),
                "slices": {
                    k: {label: {m: s.model_dump() for m, s in g.items()} for label, g in groups.items()}
                    for k, groups in results.slices.items()
                },
                "extra": results.extra,
            }
        },
    )
    return EvalLog(
        status="success" if results.complete else "started",
        eval=eval_spec,
        results=EvalResults(
            total_samples=results.counts.total,
            completed_samples=results.counts.finished,
            scores=[_eval_score(name, s) for name, s in results.metrics.items()],
        ),
        stats=EvalStats(
            started_at=header.started_at,
            completed_at=results.finished_at,
            model_usage=_usage(model_tokens),
            role_usage=_usage(role_tokens),
        ),
        samples=[_sample(run, record) for record in run.records(keys)],
    )


def write_inspect(run: ReportRun, output: Path) -> Path:
    """Write the run as an Inspect log: ``.json`` gives the JSON format, anything else the ``.eval`` archive."""
    from inspect_ai.log import write_eval_log

    path = output if output.suffix in (".eval", ".json") else output.with_name(output.name + ".eval")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(inspect_log(run), str(path), format="json" if path.suffix == ".json" else "eval")
    return path
