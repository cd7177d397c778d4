"""The haiku task: data, protocol, scorers, aggregate and chart, from `proseval.kit` alone."""

from __future__ import annotations

from typing import Any

from proseval.kit import (
    GenerateConfig,
    PromptTemplate,
    Sample,
    SampleContext,
    Scale,
    Score,
    State,
    Task,
    extract_json,
    parse_score,
    rated_metrics,
    scorer,
    single_turn,
)
from proseval.kit.charts import chart
from proseval.kit.runs import Results, ScoredSample
from proseval_haiku.form import form_score
from proseval_haiku.params import HaikuParams

# Every prompt the task sends is a named template: users replace it with --prompt judge=FILE.
PROMPTS = {
    "judge": PromptTemplate("judge", """Rate this haiku about "{theme}" from 1 (poor) to 10 (excellent) for imagery and fit.
Answer with JSON only: {"score": <1-10>, "reason": "<one sentence>"}

{haiku}""", ("theme", "haiku"), description="the judge's rating request"),
}


def make_task(params: HaikuParams) -> Task:
    def dataset() -> list[Sample]:
        return [Sample(id=f"haiku-{i}", input=f"Write a haiku about {theme}. Three lines, nothing else.",
                       target={"theme": theme}, metadata={"theme": theme}) for i, theme in enumerate(params.themes)]

    @scorer("form")
    async def form(sample: Sample, state: State, ctx: SampleContext) -> dict[str, Score]:
        return {"form": Score(value=form_score(state.output, strict=params.strict))}

    @scorer("quality")
    async def quality(sample: Sample, state: State, ctx: SampleContext) -> dict[str, Score]:
        if not state.output.strip():  # a model failure, declared: the lowest score, no judge call
            return {"quality": Score(value=1.0, parse_status="empty", explanation="empty answer")}
        prompt = ctx.prompt("judge").render(theme=sample.target["theme"], haiku=state.output)
        reply = await ctx.generate("judge", [{"role": "user", "content": prompt}], turn="judge")
        parsed = extract_json(reply.text)
        score = parse_score((parsed.value or {}).get("score") if isinstance(parsed.value, dict) else None, 1, 10)
        if score.value is None:  # an infrastructure failure: unscored, never 0
            return {"quality": Score.unscored(score.status, score.detail, raw=reply.text[:300])}
        return {"quality": Score(value=float(score.value), explanation=str(parsed.value.get("reason", ""))[:300])}

    def aggregate(samples: list[ScoredSample]) -> dict[str, Any]:
        by_theme: dict[str, list[float]] = {}
        for sample in samples:
            value = sample.scores.get("quality")
            if sample.status == "ok" and value is not None and value.value is not None:
                by_theme.setdefault(sample.metadata["theme"], []).append(float(value.value))
        return {"haiku": {"quality_by_theme": {t: sum(v) / len(v) for t, v in sorted(by_theme.items())}}}

    def artifacts(results: Results) -> dict[str, str | bytes]:
        themes = results.extra.get("haiku", {}).get("quality_by_theme", {})

        def draw(axes) -> None:
            axes.bar(list(themes), list(themes.values()), color="#4c72b0")
            axes.set_ylim(0, 10)
            axes.set_ylabel("mean judged quality (1-10)")

        png = chart(draw, size=(5, 3))
        return {"haiku_by_theme.png": png} if png else {}

    return Task(name="haiku", version="1", description="haiku to a theme", dataset=dataset, protocol=single_turn,
                scorers=[form, quality], roles_required=("candidate", "judge"),
                role_configs={"judge": GenerateConfig(temperature=0.0, max_tokens=200)}, slice_keys=("theme",),
                dataset_source={"source": "proseval-haiku themes", "themes": params.themes},
                aggregate=aggregate, artifacts=artifacts, prompts=dict(PROMPTS),
                # What the judge rated, for judge-reliability analysis: the 1-10 quality (not the
                # computed form check; an empty answer's 1 is set by rule and left out).
                ratings=rated_metrics({"quality": Scale(1, 10, "ordinal")}))
