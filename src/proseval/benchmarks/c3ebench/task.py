"""The `c3ebench` task: the candidate writes; a reference-anchored judge scores 1-10 (reference = 6)."""

from __future__ import annotations

from typing import Any

from proseval.benchmarks._shared.c3e import data as c3e_data
from proseval.benchmarks._shared.c3e.data import Item, from_target, to_target
from proseval.benchmarks._shared.c3e.judge import (
    JudgeSetup,
    Verdict,
    judge_messages,
    judge_response_format,
    parse_verdict,
    presented,
    template_names,
    verdict_ratings,
)
from proseval.benchmarks.c3ebench.params import C3EParams
from proseval.benchmarks.c3ebench.posing import candidate_prompt
from proseval.benchmarks.c3ebench.prompts import PROMPTS
from proseval.benchmarks.c3ebench.report import (
    METRIC,
    chart_drawer,
    markdown,
    summarize,
)
from proseval.kit import (
    GenerateConfig,
    Sample,
    SampleContext,
    Score,
    State,
    Task,
    ask_until,
    round_robin,
    scorer,
    strip_reasoning,
)
from proseval.kit.charts import chart
from proseval.kit.runs import Results, ScoredSample

VERSION = "1"
# Defaults from the official code: candidate temperature 0.7; judge temperature 0, 1,000 tokens.
CANDIDATE_CONFIG = GenerateConfig(temperature=0.7, max_tokens=8192)
JUDGE_CONFIG = GenerateConfig(temperature=0.0, max_tokens=1000)
EMPTY_SCORE = 1.0  # an empty answer: the lowest score, without asking the judge


def official_budget(item: Item) -> int:
    """The official candidate budget: int(1.5 x reference characters)."""
    return max(1, int(1.5 * len(item.reference)))


def to_sample(item: Item) -> Sample:
    return Sample(
        id=item.id,
        input=item.instruction,
        target=to_target(item),
        metadata={
            "task": item.task,
            "language": item.language,
            "genre": item.genre,
            "reference_source": item.reference_source,
            "task_type": item.task_type,
            "flags": list(item.flags),
        },
    )


def load(params: C3EParams) -> c3e_data.C3EData:
    return c3e_data.load_data(params.data_file, params.data_dir, params.language)


def select_items(data: c3e_data.C3EData, params: C3EParams) -> list[Item]:
    """The items the options select, in the order the run takes them."""
    items = [item for item in data.items if item.language in params.language]
    items = c3e_data.select(
        items,
        tasks=params.task,
        genres=params.genre,
        reference_source=params.reference_source,
        per_task=params.per_task,
    )
    if params.order == "interleaved":
        items = round_robin(items, lambda item: (item.language, item.task))
    return items


def dataset_source(data: c3e_data.C3EData, params: C3EParams, setup: JudgeSetup, items: list[Item]) -> dict[str, Any]:
    files = [
        {
            "path": f.path,
            "language": f.language,
            "sha256": f.sha256,
            "verified": f.verified if f.language is not None else None,
        }
        for f in data.files
    ]
    if params.data_file:
        source = f"user items {params.data_file} (not official data)"
    else:
        unverified = [str(f["path"]) for f in files if not f["verified"]]
        source = (
            f"{c3e_data.OFFICIAL_REPOSITORY}@{c3e_data.OFFICIAL_COMMIT}"
            if not unverified
            else f"user-supplied copy, UNVERIFIED (SHA-256 differs from the official file): {', '.join(unverified)}"
        )
    posing = (
        "official: the official code's posing reproduced, bugs included (ZH Cloze article omitted, ZH Edit "
        "labels swapped)"
        if params.compat == "official"
        else "fixed: proseval's posing (official bugs fixed)"
    )
    return {
        "source": source,
        "files": files,
        "verified": all(f["verified"] for f in files),
        "reference_lists": dict(data.reference_lists),
        "posing": posing,
        "judge": setup.label,
        "budget": params.budget,
        "reasoning_allowance": params.reasoning_allowance,
        "judge_output": "structured" if params.judge_structured else "free text",
        "n_selected": len(items),
        "counts": c3e_data.counts(items),
    }


def make_scorer(params: C3EParams, setup: JudgeSetup) -> Any:
    @scorer(METRIC, metrics=[METRIC])
    async def c3e(sample: Sample, state: State, ctx: SampleContext) -> dict[str, Score]:
        item = from_target(sample.target)
        answer = strip_reasoning(state.output).text
        if not answer.strip():  # a model failure, declared: the lowest score, no judge call
            return {
                METRIC: Score(
                    value=EMPTY_SCORE,
                    parse_status="empty",
                    explanation="empty answer: lowest score",
                    metadata={"official": EMPTY_SCORE, "judge_calls": 0},
                )
            }
        messages = judge_messages(item, answer, setup, ctx.prompt)
        config = judge_response_format(item.task) if params.judge_structured else None
        asked = await ask_until(
            ctx,
            "judge",
            messages,
            parse_verdict,
            lambda v: v.scored,
            attempts=params.judge_attempts,
            turn="judge",
            config=config,
        )
        first: Verdict | None = asked.replies[0] if asked.replies else None
        meta = {
            "judge_calls": asked.attempts,
            "official": first.official if first else None,
            "judge_prompts": template_names(item, setup),
        }
        if params.judge_order == "swapped":  # the position-bias probe: [Candidate] shown before [Reference]
            meta["judge_order"] = "swapped"
        if asked.error is not None:  # the judge request failed: infrastructure, unscored
            return {METRIC: Score.unscored("error", f"{type(asked.error).__name__}: {asked.error}", **meta)}
        verdict = asked.last
        assert verdict is not None
        if not verdict.scored:
            return {METRIC: Score.unscored(verdict.status, verdict.detail, **meta)}
        return {
            METRIC: Score(
                value=float(verdict.score), parse_status=verdict.status, explanation=verdict.verdict, metadata=meta
            )
        }

    return c3e


def make_task(params: C3EParams) -> Task:
    data = load(params)
    items = select_items(data, params)
    if params.reference_source and not data.reference_lists:
        raise ValueError(
            f"--reference-source needs the lists {c3e_data.HUMAN_IDS_FILE} and "
            f"{c3e_data.HYBRID_IDS_FILE} beside the Chinese file (English items have no such list)"
        )
    if not items:
        raise ValueError("no C3EBench item matches --language/--task/--genre/--reference-source")
    setup = JudgeSetup(
        reference=not params.judge_no_reference, rubric=not params.judge_no_rubric, traits=not params.judge_no_traits
    )

    def dataset() -> list[Sample]:
        return [to_sample(item) for item in items]

    async def protocol(sample: Sample, ctx: SampleContext) -> State:
        item = from_target(sample.target)
        name, text = candidate_prompt(item, params.compat, ctx.prompt, ctx.prompts)
        messages = [{"role": "user", "content": text}]
        budget = official_budget(item) + params.reasoning_allowance
        config = {"max_tokens": budget} if params.budget == "reference" else None
        completion = await ctx.generate("candidate", messages, config)
        # The answer is the reply without its reasoning (so an answer that is all reasoning counts as empty).
        return State(
            messages=[*messages, {"role": "assistant", "content": completion.text}],
            output=strip_reasoning(completion.text).text,
            finish_reason=completion.finish_reason,
            metadata={"prompt": name},
        )

    def aggregate(samples: list[ScoredSample]) -> dict[str, Any]:
        return {"c3ebench": summarize(samples)}

    def artifacts(results: Results) -> dict[str, str | bytes]:
        summary = results.extra.get("c3ebench")
        if not summary:
            return {}
        files: dict[str, str | bytes] = {"c3ebench.md": markdown(summary)}
        draw = chart_drawer(summary)
        png = chart(draw) if draw is not None else None
        if png:
            files["c3ebench_task_language.png"] = png
        return files

    return Task(
        name="c3ebench",
        version=VERSION,
        description="C3EBench: Cloze, Expand, Edit, End2End (EN/ZH), judged 1-10 against the human reference (= 6)",
        dataset=dataset,
        protocol=protocol,
        scorers=[make_scorer(params, setup)],
        roles_required=("candidate", "judge"),
        role_configs={"candidate": CANDIDATE_CONFIG, "judge": JUDGE_CONFIG},
        slice_keys=("task", "language", "genre", "reference_source"),
        headline="c3e",
        dataset_source=dataset_source(data, params, setup, items),
        aggregate=aggregate,
        artifacts=artifacts,
        prompts=presented(PROMPTS, params.judge_order),
        ratings=verdict_ratings(METRIC),  # the judge's one 1-10 score per item; an empty answer's 1 is not
        # The judge compares the candidate's text with the reference (unless it is not shown one):
        # `proseval score --swap-order` re-judges with the two in the other order.
        swap_param="judge_order" if setup.reference else None,
    )


def render(results: Any) -> list[Any]:
    from rich.table import Table

    from proseval.benchmarks.c3ebench.report import LABEL_COLUMNS, tables

    summary = results.extra.get("c3ebench")
    if not summary:
        return []
    out = []
    for title, header, rows in tables(summary):
        table = Table(title=title, title_justify="left")
        for column in header:
            table.add_column(column, justify="left" if column in LABEL_COLUMNS else "right")
        for row in rows:
            table.add_row(*row)
        out.append(table)
    return out
