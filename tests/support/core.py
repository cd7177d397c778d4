"""Small builders shared by the core tests."""

from __future__ import annotations

from proseval.core import Sample, Score, State, Task
from proseval.core.protocols import single_turn
from proseval.judging.parse import extract_json, parse_score
from proseval.models.base import GenerateConfig
from proseval.runtime.context import SampleContext
from proseval.runtime.records import RoleBinding


def make_samples(n: int) -> list[Sample]:
    return [
        Sample(id=f"s{i:05d}", input=f"Write about topic {i}.", metadata={"group": "even" if i % 2 == 0 else "odd"})
        for i in range(n)
    ]


async def words(sample: Sample, state: State, ctx: SampleContext) -> dict[str, Score]:
    return {"words": Score(value=float(len(state.output.split())))}


async def judged(sample: Sample, state: State, ctx: SampleContext) -> dict[str, Score]:
    completion = await ctx.generate("judge", [{"role": "user", "content": f"Rate: {state.output}"}], turn="judge")
    parsed = extract_json(completion.text)
    if not isinstance(parsed.value, dict):
        return {"judge": Score.unscored(parsed.status, parsed.detail)}
    score = parse_score(parsed.value.get("score"), 1, 10)
    if score.value is None:
        return {"judge": Score.unscored(score.status, score.detail)}
    return {"judge": Score(value=float(score.value))}


def make_task(n: int = 10, *, judge: bool = False, name: str = "unit", params: dict | None = None) -> Task:
    return Task(
        name=name,
        version="1",
        dataset=lambda: make_samples(n),
        protocol=single_turn,
        scorers=[words, judged] if judge else [words],
        roles_required=("candidate", "judge") if judge else ("candidate",),
        slice_keys=("group",),
        params=params or {},
    )


def binding(spec: str, *, base_urls: list[str] | None = None, concurrency: int = 8, **config) -> RoleBinding:
    return RoleBinding(
        spec=spec,
        base_urls=base_urls or [],
        concurrency=concurrency,
        config=GenerateConfig(timeout=config.pop("timeout", 5.0), **config),
    )


def refusal_line(result, code: int) -> str:
    """A CliRunner result that refused cleanly: `code`, no traceback, exactly one `error:` line (returned)."""
    assert isinstance(result.exception, SystemExit), f"{result.exception!r} escaped: {result.output}"
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, result.output
    return lines[0]


def sample_requests(server) -> list[dict]:
    """The request bodies a fake server received for a run's samples: its probe's left out
    (`runtime.probe`: one short request per remote binding before the run starts)."""
    from proseval.runtime.probe import PROBE_MESSAGES

    return [body for body in server.requests if body.get("messages") != PROBE_MESSAGES]


# A rules file (`PROSEVAL_MODEL_RULES`) that has Anthropic's models spoken to in the API version
# before 2026-10-21, which still takes `temperature` where the model has it (docs/models.md).
OLDER_ANTHROPIC_API = """families:
  - name: my-anthropic-version
    provider: anthropic
    models: ["*"]
    api_version: "2023-06-01"
    checked: 2026-12-01
"""
