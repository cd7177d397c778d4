"""The `writingbench` task: candidate answers a query; the judge scores it against its 5 criteria."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from proseval.benchmarks.writingbench import data as wb_data
from proseval.benchmarks.writingbench.aggregate import QueryScores, Report, aggregate
from proseval.benchmarks.writingbench.clean import strip_reasoning, strip_reasoning_official
from proseval.benchmarks.writingbench.criteria import Criterion
from proseval.benchmarks.writingbench.export import domain_chart_png, report_to_csv, report_to_markdown
from proseval.benchmarks.writingbench.judging import (
    JUDGE_PROMPTS,
    SCORE_NAME,
    JudgeVerdict,
    batched_judge_messages,
    criterion_ratings,
    fit_response,
    judge_messages,
    parse_batched_reply,
    parse_judge_reply,
)
from proseval.benchmarks.writingbench.params import DATA_ENV, WritingBenchParams, data_folder
from proseval.benchmarks.writingbench.userdata import read_lines, request_text
from proseval.kit import (
    GenerateConfig,
    Sample,
    SampleContext,
    Score,
    State,
    Task,
    ask_until,
    json_schema_format,
    named_scores_schema,
    score_schema,
    scorer,
    single_turn,
)
from proseval.kit.measures import count_tokens
from proseval.kit.runs import Results, ScoredSample

SCORE = SCORE_NAME  # "writingbench"

# Official settings: candidate per the official README, judge per the official evaluator.
CANDIDATE_CONFIG = GenerateConfig(temperature=0.7, top_p=0.8, max_tokens=16000)
JUDGE_CONFIG = GenerateConfig(temperature=1.0, top_p=0.95, max_tokens=2048)


def resolve_data(params: WritingBenchParams) -> wb_data.WritingBench:
    folder = data_folder(params.data_dir)
    has_data = (folder / wb_data.ALL_FILE).is_file() or (folder / "benchmark_query" / wb_data.ALL_FILE).is_file()
    if not has_data:
        if not params.download:
            raise ValueError(
                f"no WritingBench data in {folder}: pass --data-dir PATH (the official benchmark_query/ "
                f"folder), set ${DATA_ENV}, or add --download to fetch the official files"
            )
        try:
            wb_data.download(folder)
        except wb_data.DownloadError as exc:
            raise ValueError(f"{exc} (or pass --data-dir with a local copy)") from exc
    return wb_data.load_benchmark(folder, verify=params.verify)


def select_queries(bench: wb_data.WritingBench, params: WritingBenchParams) -> list[wb_data.Query]:
    domain1 = params.domain if params.domain in wb_data.DOMAIN1_LABELS else None
    domain2 = params.domain if params.domain and domain1 is None else None
    queries = wb_data.select(bench, domain1=domain1, domain2=domain2, lang=params.lang, requirement=params.requirement)
    return wb_data.interleave(queries, "domain1") if params.order == "interleaved" else queries


def to_sample(query: wb_data.Query, bench: wb_data.WritingBench) -> Sample:
    requirements = [dim for dim, subset in bench.requirements.items() if query.index in subset.criteria]
    return Sample(
        id=f"writingbench/{query.index}",
        input=query.query,
        target={"index": query.index, "checklist": [c.to_official_dict() for c in query.checklist]},
        metadata={
            "index": query.index,
            "domain1": query.domain1,
            "domain2": query.domain2,
            "lang": query.lang or "unknown",
            "requirements": requirements,
        },
    )


# --- judging ---------------------------------------------------------------------------------


def _verdict_record(verdict: JudgeVerdict, **extra: Any) -> dict[str, Any]:
    return {"score": verdict.score, "reason": verdict.reason, "status": verdict.status, "error": verdict.error, **extra}


def _fit(messages_for: Any, response: str, limit: int | None) -> tuple[str | None, dict[str, Any]]:
    """The response as the judge will see it, cut to `limit` prompt tokens if given."""
    if limit is None:
        return response, {}
    empty = messages_for("")
    prompt_tokens = sum(count_tokens(m["content"]) for m in empty)
    fitted = fit_response(response, max_input_tokens=limit, prompt_tokens=prompt_tokens, count_tokens=count_tokens)
    info: dict[str, Any] = {"truncated": fitted.truncated, "response_tokens": fitted.original_tokens}
    if fitted.error:
        info["error"] = fitted.error
    return fitted.text, info


async def judge_criterion(
    ctx: SampleContext, query: str, response: str, criterion: Criterion, params: WritingBenchParams
) -> dict[str, Any]:
    def messages(r: str) -> list[dict[str, str]]:
        return judge_messages(query, r, criterion, ctx.prompt("judge"), ctx.prompt("judge_system"))

    text, info = _fit(messages, response, params.judge_max_input_tokens)
    if text is None:
        return {
            "score": None,
            "status": "context_overflow",
            "error": "the judge prompt exceeds --judge-max-input-tokens even without the response",
            **info,
        }
    structured = {"response_format": json_schema_format("criterion_score", score_schema())}
    asked = await ask_until(
        ctx,
        "judge",
        messages(text),
        parse_judge_reply,
        lambda verdict: verdict.scored,
        attempts=params.judge_attempts,
        turn=criterion.name,
        config=structured if params.judge_structured else None,
    )
    if asked.error is not None:
        return {
            "score": None,
            "status": "error",
            "error": f"{type(asked.error).__name__}: {asked.error}",
            "attempts": asked.attempts,
            **info,
        }
    assert asked.last is not None
    return _verdict_record(asked.last, attempts=asked.attempts, **info)


async def judge_batched(
    ctx: SampleContext, query: str, response: str, criteria: tuple[Criterion, ...], params: WritingBenchParams
) -> dict[str, dict[str, Any]]:
    def messages(r: str) -> list[dict[str, str]]:
        return batched_judge_messages(query, r, criteria, ctx.prompt("judge_batched"), ctx.prompt("judge_system"))

    text, info = _fit(messages, response, params.judge_max_input_tokens)
    names = [c.name for c in criteria]
    if text is None:
        return {n: {"score": None, "status": "context_overflow", "error": "prompt too long", **info} for n in names}
    results: dict[str, dict[str, Any]] = {}
    attempt = 0

    def merge(reply: str) -> bool:
        """Keep each criterion's first usable verdict across attempts; True once all are scored."""
        nonlocal attempt
        attempt += 1
        for name, verdict in parse_batched_reply(reply, names).items():
            if verdict.scored or name not in results or results[name]["score"] is None:
                results[name] = _verdict_record(verdict, attempts=attempt, **info)
        return all(results[name]["score"] is not None for name in names)

    structured = {"response_format": json_schema_format("criteria_scores", named_scores_schema())}
    asked = await ask_until(
        ctx,
        "judge",
        messages(text),
        merge,
        bool,
        attempts=params.judge_attempts,
        turn="batched",
        config=structured if params.judge_structured else None,
    )
    if asked.error is not None:
        for name in names:
            results.setdefault(
                name, {"score": None, "status": "error", "error": f"{type(asked.error).__name__}: {asked.error}"}
            )
    return results


def make_scorer(params: WritingBenchParams) -> Any:
    strip = strip_reasoning if params.reasoning == "robust" else strip_reasoning_official

    @scorer(SCORE)
    async def writingbench(sample: Sample, state: State, ctx: SampleContext) -> dict[str, Score]:
        criteria = tuple(Criterion.model_validate(c) for c in sample.target["checklist"])
        cleaned = strip(state.output)
        query = str(sample.input)
        if params.judge_mode == "batched":
            per_criterion = await judge_batched(ctx, query, cleaned.text, criteria, params)
        else:
            verdicts = await asyncio.gather(*(judge_criterion(ctx, query, cleaned.text, c, params) for c in criteria))
            per_criterion = {c.name: v for c, v in zip(criteria, verdicts)}
        scored = [v["score"] for v in per_criterion.values() if v["score"] is not None]
        unscored = len(per_criterion) - len(scored)
        explanation = f"{len(scored)} of {len(per_criterion)} criteria scored"
        metadata = {"criteria": per_criterion, "reasoning_removed": cleaned.stripped}
        if not scored:
            statuses = sorted({v["status"] for v in per_criterion.values()})
            return {
                SCORE: Score(
                    value=None,
                    parse_status="error" if "error" in statuses else "unparsable",
                    explanation=f"no criterion scored ({', '.join(statuses)})",
                    metadata=metadata,
                )
            }
        status = "ok" if unscored == 0 else "partial"
        return {
            SCORE: Score(
                value=sum(scored) / len(scored), explanation=explanation, parse_status=status, metadata=metadata
            )
        }

    return writingbench


# --- aggregation and reports -------------------------------------------------------------------


def query_scores(samples: list[ScoredSample]) -> list[QueryScores]:
    """Per-criterion scores of every judged sample; failed samples have none to give."""
    records = []
    for sample in samples:
        score = sample.scores.get(SCORE)
        if sample.status != "ok" or score is None:
            continue
        criteria = score.metadata.get("criteria", {})
        records.append(
            QueryScores(
                index=int(sample.metadata["index"]),
                scores={name: (entry.get("score"),) for name, entry in criteria.items()},
            )
        )
    return records


def custom_task(params: WritingBenchParams) -> Task:
    """The WritingBench protocol and judge on the user's own queries and criteria."""
    path = Path(params.queries or "")
    rows = read_lines(path, need_checklist=True)

    def dataset() -> list[Sample]:
        return [
            Sample(
                id=f"queries/{key}",
                input=request_text(record),
                target={"checklist": record["checklist"]},
                metadata={"index": key, **{k: record[k] for k in ("domain1", "domain2", "lang") if k in record}},
            )
            for key, record in rows
        ]

    def aggregate_run(samples: list[ScoredSample]) -> dict[str, Any]:
        scores = [
            entry.get("score")
            for s in samples
            if s.status == "ok" and SCORE in s.scores
            for entry in s.scores[SCORE].metadata.get("criteria", {}).values()
        ]
        scored = [v for v in scores if v is not None]
        return {
            "overall": sum(scored) / len(scored) if scored else None,
            "criteria_scored": len(scored),
            "criteria_unscored": len(scores) - len(scored),
        }

    return Task(
        name="writingbench",
        version="2",
        dataset=dataset,
        protocol=single_turn,
        scorers=[make_scorer(params)],
        roles_required=("candidate", "judge"),
        role_configs={"candidate": CANDIDATE_CONFIG, "judge": JUDGE_CONFIG},
        slice_keys=tuple(k for k in ("domain1", "lang") if any(k in r for _, r in rows)),
        headline=SCORE,
        dataset_source={"source": str(path)},
        aggregate=aggregate_run,
        prompts=dict(JUDGE_PROMPTS),
        ratings=criterion_ratings,
    )


def make_task(params: WritingBenchParams) -> Task:
    if params.queries:
        return custom_task(params)
    bench = resolve_data(params)
    queries = select_queries(bench, params)

    def dataset() -> list[Sample]:
        return [to_sample(query, bench) for query in queries]

    def aggregate_run(samples: list[ScoredSample]) -> dict[str, Any]:
        report = aggregate(query_scores(samples), bench)
        failed = sum(1 for s in samples if s.status != "ok")
        return {"writingbench": report.model_dump(mode="json"), "failed_samples": failed}

    def artifacts(results: Results) -> dict[str, str | bytes]:
        report = Report.model_validate(results.extra["writingbench"])
        failed = results.extra.get("failed_samples", 0)
        note = f"\n{failed} sample(s) failed before judging (e.g. generation errors) and are not in this table.\n"
        files: dict[str, str | bytes] = {
            "writingbench.csv": report_to_csv(report),
            "writingbench.md": report_to_markdown(report) + (note if failed else ""),
        }
        chart = domain_chart_png(report)
        if chart is not None:
            files["writingbench_domain1.png"] = chart
        return files

    return Task(
        name="writingbench",
        version="2",
        description="WritingBench v2: query-specific criteria scored 1-10 by a judge",
        dataset=dataset,
        protocol=single_turn,
        scorers=[make_scorer(params)],
        roles_required=("candidate", "judge"),
        role_configs={"candidate": CANDIDATE_CONFIG, "judge": JUDGE_CONFIG},
        slice_keys=("domain1", "lang"),
        headline=SCORE,
        dataset_source={
            "source": "X-PLUG/WritingBench benchmark_query (v2)",
            "commit": wb_data.OFFICIAL_COMMIT,
            "sha256": bench.sha256,
            "verified": bench.verified,
            "n_selected": len(queries),
        },
        aggregate=aggregate_run,
        artifacts=artifacts,
        prompts=dict(JUDGE_PROMPTS),
        ratings=criterion_ratings,
    )
