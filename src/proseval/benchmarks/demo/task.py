"""`demo`: eight short prompts, a judge's 1–10 rating and length adherence (the shared bell curve).

A pipeline check that runs anywhere (no data files), not a benchmark.
"""

from __future__ import annotations

from proseval.kit import (
    GenerateConfig,
    PromptTemplate,
    Sample,
    SampleContext,
    Scale,
    Score,
    State,
    Task,
    count_words,
    extract_json,
    json_schema_format,
    parse_score,
    rated_metrics,
    score_schema,
    scorer,
    single_turn,
)
from proseval.kit.measures import length_adherence

from .prompts import PROMPTS

JUDGE_TEXT = """You are grading a piece of writing produced for the request below.
Consider how well it fulfils the request, its clarity, organisation and language.
Give one integer score from 1 (very poor) to 10 (excellent).

Request:
{request}

Writing to grade:
{response}

Reply with JSON only, in this form: {"score": <integer 1-10>, "reason": "<one sentence>"}"""

# The judge's reply is held to this shape (a llama.cpp grammar for the embedded model, a
# `response_format` for OpenAI-compatible endpoints; Anthropic has only the prompt), so even the
# 135M model answers a usable score. The score comes first: a reason cut by `max_tokens` keeps it.
JUDGE_FORMAT = {"response_format": json_schema_format("quality_score", score_schema(scale=(1, 10)))}

TEMPLATES = {
    "judge": PromptTemplate(
        "judge", JUDGE_TEXT, ("request", "response"), description="the judge's rating request (one user message)"
    ),
}


def dataset() -> list[Sample]:
    return [
        Sample(
            id=str(item["id"]),
            input=f"{item['prompt']} Aim for about {item['words']} words.",
            target={"words": item["words"]},
            metadata={"genre": item["genre"]},
        )
        for item in PROMPTS
    ]


@scorer("length")
async def length(sample: Sample, state: State, ctx: SampleContext) -> dict[str, Score]:
    target, words = int(sample.target["words"]), count_words(state.output)
    return {
        "length": Score(value=length_adherence(words, target), explanation=f"{words} words for a target of {target}")
    }


@scorer("quality")
async def judge_quality(sample: Sample, state: State, ctx: SampleContext) -> dict[str, Score]:
    if not state.output.strip():  # a model failure: the lowest quality, without asking the judge
        return {
            "quality": Score(
                value=1.0, parse_status="empty", explanation="the candidate's answer is empty: lowest score (1)"
            )
        }
    prompt = ctx.prompt("judge").render(request=sample.input, response=state.output)
    completion = await ctx.generate("judge", [{"role": "user", "content": prompt}], JUDGE_FORMAT, turn="judge")
    parsed = extract_json(completion.text)
    if parsed.value is None:
        return {"quality": Score.unscored(parsed.status, parsed.detail, raw=completion.text[:500])}
    answer = parsed.value if isinstance(parsed.value, dict) else {}
    score = parse_score(answer.get("score"), 1, 10)
    if score.value is None:
        return {"quality": Score.unscored(score.status, score.detail, raw=completion.text[:500])}
    status = "repaired" if parsed.status == "repaired" else "ok"
    return {
        "quality": Score(value=float(score.value), explanation=str(answer.get("reason", ""))[:500], parse_status=status)
    }


def make_task() -> Task:
    return Task(
        name="demo",
        version="2",
        description="8 short writing prompts bundled with proseval; judge rating 1-10 and length adherence",
        dataset=dataset,
        protocol=single_turn,
        scorers=[length, judge_quality],
        roles_required=("candidate", "judge"),
        role_configs={
            "candidate": GenerateConfig(temperature=0.7, max_tokens=400),
            "judge": GenerateConfig(temperature=0.0, max_tokens=200),
        },
        slice_keys=("genre",),
        headline="quality",
        dataset_source={"source": "proseval built-in demo prompts"},
        prompts=dict(TEMPLATES),
        # The judge's 1-10 quality is its verdict; `length` is counted, and an empty answer's 1 is set by rule.
        ratings=rated_metrics({"quality": Scale(1, 10, "ordinal")}),
    )
