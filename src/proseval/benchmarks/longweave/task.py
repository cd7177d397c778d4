"""The `longweave` task: generated long-writing instances, scored by rules and by the judge."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from proseval.benchmarks.longweave.aggregate import (
    aggregate,
    aggregate_official_drop,
    score_by_length_png,
)
from proseval.benchmarks.longweave.budgets import output_budget
from proseval.benchmarks.longweave.generators import generate
from proseval.benchmarks.longweave.judging.calls import (
    JudgeCall,
    biog_judge_calls,
    cf_relevance_messages,
    nw_judge_calls,
    sr_judge_calls,
)
from proseval.benchmarks.longweave.judging.config import JudgedConfig
from proseval.benchmarks.longweave.judging.prompts import PROMPTS as JUDGE_PROMPTS
from proseval.benchmarks.longweave.judging.ratings import ratings as judged_ratings
from proseval.benchmarks.longweave.judging.replies import ParsedBatch, parse_cf_relevance, parse_reply
from proseval.benchmarks.longweave.judging.scores import empty_answer_score, score_biog, score_nw, score_sr
from proseval.benchmarks.longweave.params import JUDGED_TASKS, LongWeaveParams
from proseval.benchmarks.longweave.scorers import (
    CFConfig,
    KVGConfig,
    KVGInstance,
    PRConfig,
    RuleScore,
    SMSConfig,
    SMSInstance,
    length_adherence,
    score_cf,
    score_kvg,
    score_pr,
    score_sms,
)
from proseval.benchmarks.longweave.scorers.cf import extract_code
from proseval.benchmarks.longweave.scorers.code_checks import shared_pool
from proseval.kit import (
    GenerateConfig,
    ModelError,
    Sample,
    SampleContext,
    Score,
    State,
    Task,
    as_messages,
    ask_until,
    scorer,
    strip_reasoning,
)
from proseval.kit.runs import Results, ScoredSample

SCORE = "longweave"
# Official settings: candidate 0.7 / 8,192 tokens (example config); judge gpt-4o at 0.7 / 8,192.
# The candidate's max_tokens is replaced per sample by its output budget unless
# --output-budget role (see budgets.py).
CANDIDATE_CONFIG = GenerateConfig(temperature=0.7, max_tokens=8192)
JUDGE_CONFIG = GenerateConfig(temperature=0.7, max_tokens=8192)
BUDGET_KEY = "max_output_tokens"


def dataset_order(params: LongWeaveParams) -> list[tuple[str, str, int]]:
    """Index-major order, so that `--limit N` takes a balanced share of every cell."""
    return [
        (task, length, index) for index in range(params.per_cell) for task in params.task for length in params.length
    ]


def sample_budget(params: LongWeaveParams, task: str, length: str) -> int | None:
    """The candidate's max_tokens for one sample; None leaves the role's setting."""
    if params.output_budget == "role":
        return None
    if params.output_budget == "auto":
        return output_budget(task, length)
    return int(params.output_budget)


def make_sample(params: LongWeaveParams, task: str, length: str, index: int) -> Sample:
    """The generated sample with the run's options recorded in its metadata."""
    sample = generate(task, length, index, params.seed, sms_leaky_example=params.sms_leaky_example)
    budget = sample_budget(params, task, length)
    if budget is not None:
        sample.metadata[BUDGET_KEY] = budget
    if task == "sms":
        sample.metadata["sms_example"] = "input prefix" if params.sms_leaky_example else "independent"
    return sample


async def candidate_turn(sample: Sample, ctx: SampleContext) -> State:
    """Ask the candidate once, with the sample's output budget as max_tokens when it has one."""
    messages = as_messages(sample.input)
    budget = sample.metadata.get(BUDGET_KEY)
    config = None if budget is None else {"max_tokens": int(budget)}
    completion = await ctx.generate("candidate", messages, config)
    return State(
        messages=[*messages, {"role": "assistant", "content": completion.text}],
        output=completion.text,
        finish_reason=completion.finish_reason,
    )


class Scorers:
    """The rule configurations and the judge behaviour for one run (official or fixed)."""

    def __init__(self, params: LongWeaveParams):
        self.params = params
        official = params.official
        self.judge_config = JudgedConfig.official() if official else JudgedConfig()
        self.cf = CFConfig.official() if official else CFConfig()
        self.kvg = KVGConfig.official() if official else KVGConfig()
        self.sms = SMSConfig.official() if official else SMSConfig()
        self.pr = PRConfig.official() if official else PRConfig()

    async def judge_batches(self, ctx: SampleContext, calls: list[JudgeCall]) -> list[ParsedBatch]:
        """Every call, re-asked while some of its targets stay without a verdict."""

        async def ask(call: JudgeCall) -> list[ParsedBatch]:
            key = f"{call.label}:{','.join(map(str, call.target_ids))}"
            asked = await ask_until(
                ctx,
                "judge",
                call.messages,
                lambda reply: parse_reply(call, reply),
                lambda batch: not batch.unscored_ids,
                attempts=self.params.judge_attempts,
                turn=key,
            )
            return asked.replies + ([parse_reply(call, None)] if asked.error is not None else [])

        return [batch for batches in await asyncio.gather(*(ask(c) for c in calls)) for batch in batches]

    async def judged(self, task: str, response: str, sample: Sample, ctx: SampleContext) -> RuleScore:
        target, words = sample.target, int(sample.metadata["target_words"])
        if task == "biog":
            calls = biog_judge_calls(response, target, words, self.judge_config, ctx.prompts)
            return score_biog(response, target, await self.judge_batches(ctx, calls), words, self.judge_config)
        if task == "sr":
            calls = sr_judge_calls(response, target, self.judge_config, ctx.prompts)
            return score_sr(response, target, await self.judge_batches(ctx, calls), words, self.judge_config)
        calls = nw_judge_calls(response, target, words, self.judge_config, ctx.prompts)
        return score_nw(response, target, await self.judge_batches(ctx, calls), words, self.judge_config)

    async def code_fixing(self, response: str, sample: Sample, ctx: SampleContext) -> RuleScore:
        original = sample.target["original_code"]
        code, _ = extract_code(response, strip_lone_fence=self.cf.strip_lone_fence)
        messages = cf_relevance_messages(original, code, ctx.prompts)
        strict = replace(self.judge_config, cf_unscored_relevant=False)
        verdict = parse_cf_relevance(None, strict)
        for attempt in range(self.params.judge_attempts):
            try:
                reply = (await ctx.generate("judge", messages, turn=f"relevance#{attempt}")).text
            except ModelError:
                break
            verdict = parse_cf_relevance(reply, strict)
            if verdict.relevant is not None:
                break
        relevant = verdict.relevant
        if relevant is None and self.judge_config.cf_unscored_relevant:
            relevant = True  # the official default when the gate cannot be read
        if relevant is None:
            return RuleScore(None, {"total_score": None}, {"relevance": verdict.status}, verdict.reason)

        # Off the event loop, in one of the process-wide flake8 workers (one per CPU), so that
        # concurrent samples are checked in parallel.
        pool = shared_pool(self.cf.flake8_settings())
        # A generated program records how many functions it has (by either count): no parse.
        known = sample.target.get("def_count")
        rule = await asyncio.to_thread(
            score_cf, response, original, relevant=relevant, original_functions=known, config=self.cf, pool=pool
        )
        return replace(rule, trace={**rule.trace, "relevance_status": verdict.status})

    def rules(self, task: str, response: str, sample: Sample) -> RuleScore:
        target = sample.target
        if task == "kvg":
            instance = KVGInstance(
                target["target_key"],
                target["target_value"],
                target["target_index"],
                target["num_entries"],
                target["key_length"],
                target["value_length"],
            )
            return score_kvg(response, instance, config=self.kvg)
        if task == "sms":
            machine = SMSInstance(
                target["input_string"], target["num_states"], target["output_size"], target["initial_state"]
            )
            return score_sms(response, machine, config=self.sms)
        return score_pr(response, target["segments"], config=self.pr)

    async def __call__(self, sample: Sample, state: State, ctx: SampleContext) -> dict[str, Score]:
        task = sample.metadata["task"]
        cleaned = strip_reasoning(state.output)
        response = cleaned.text
        adherence = length_adherence(response, int(sample.metadata["target_words"]))
        scores = {"length_adherence": Score(value=adherence.value, metadata=adherence.trace)}
        meta: dict[str, Any] = {"reasoning_removed": cleaned.stripped}
        if not response.strip():
            rule = empty_answer_score(task) if task in ("biog", "sr", "nw") else RuleScore(0.0, {}, {}, "empty answer")
            scores[SCORE] = Score(
                value=0.0,
                parse_status="empty",
                explanation="empty answer scores 0",
                metadata={**meta, "outcome": "empty", "metrics": rule.metrics},
            )
            return scores
        if task == "cf":
            rule = await self.code_fixing(response, sample, ctx)
        elif task in JUDGED_TASKS:
            rule = await self.judged(task, response, sample, ctx)
        else:
            rule = self.rules(task, response, sample)
        meta.update(metrics=rule.metrics, trace=rule.trace)
        if rule.value is None:
            scores[SCORE] = Score(
                value=None,
                parse_status="unparsable",
                explanation=rule.reason or "unscored",
                metadata={**meta, "outcome": "unscored"},
            )
        else:
            scores[SCORE] = Score(
                value=float(rule.value), explanation=rule.reason or "", metadata={**meta, "outcome": "ok"}
            )
        return scores


def outcomes(samples: list[ScoredSample]) -> list[dict[str, Any]]:
    rows = []
    for sample in samples:
        task, length = sample.metadata.get("task"), sample.metadata.get("length")
        score = sample.scores.get(SCORE)
        if sample.model_failure == "context_overflow":  # the model cannot take the task: like an empty answer
            rows.append({"task": task, "length": length, "score": None, "status": "empty"})
        elif sample.status != "ok" or score is None:
            rows.append({"task": task, "length": length, "score": None, "status": "failed"})
        else:
            rows.append(
                {
                    "task": task,
                    "length": length,
                    "score": score.value,
                    "status": score.metadata.get("outcome", "ok" if score.value is not None else "unscored"),
                }
            )
    return rows


def target_counts(samples: list[ScoredSample]) -> dict[str, int]:
    """Judged targets over the run: with a verdict, unscored, and samples scored despite unscored targets."""
    judged = unscored = partial = 0
    for sample in samples:
        score = sample.scores.get(SCORE)
        trace = (score.metadata.get("trace") or {}) if score is not None else {}
        judged += int(trace.get("judged_targets") or 0)
        missing = int(trace.get("unscored_targets") or 0)
        unscored += missing
        partial += int(bool(missing) and score is not None and score.value is not None)
    return {"judged": judged, "unscored": unscored, "samples_scored_with_unscored_targets": partial}


def make_task(params: LongWeaveParams) -> Task:
    score = scorer(SCORE, metrics=(SCORE, "length_adherence"))(Scorers(params))
    needs_judge = any(task in JUDGED_TASKS for task in params.task)

    def dataset() -> Any:
        return (make_sample(params, task, length, index) for task, length, index in dataset_order(params))

    def aggregate_run(samples: list[ScoredSample]) -> dict[str, Any]:
        rows = outcomes(samples)
        return {
            "longweave": aggregate(rows).to_dict(),
            "longweave_official_drop": aggregate_official_drop(rows).to_dict(),
            "longweave_targets": target_counts(samples),
        }

    def artifacts(results: Results) -> dict[str, str | bytes]:
        from proseval.benchmarks.longweave.render import (
            markdown_table,
            report_from_dict,
        )

        report = report_from_dict(results.extra["longweave"])
        files: dict[str, str | bytes] = {"longweave.md": markdown_table(report)}
        chart = score_by_length_png(report)
        if chart is not None:
            files["longweave_by_length.png"] = chart
        return files

    return Task(
        name="longweave",
        version="1",
        description="LongWeave: 7 generated long-writing tasks at 1k-8k words",
        dataset=dataset,
        protocol=candidate_turn,
        scorers=[score],
        roles_required=("candidate", "judge") if needs_judge else ("candidate",),
        role_configs={"candidate": CANDIDATE_CONFIG, "judge": JUDGE_CONFIG},
        slice_keys=("task", "length"),
        headline="longweave",
        dataset_source={
            "source": "proseval LongWeave generators",
            "generator_version": "1",
            "per_cell": params.per_cell,
            "seed": params.seed,
        },
        aggregate=aggregate_run,
        artifacts=artifacts,
        prompts=dict(JUDGE_PROMPTS),
        # The judge's yes/no per target (BioG, SR, NW) and CF's relevance gate (judging/ratings.py);
        # None when the run has only rule-scored tasks.
        ratings=judged_ratings if needs_judge else None,
    )
