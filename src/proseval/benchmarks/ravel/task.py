"""The `ravel` task: an agentic writing environment on C3EBench's End2End topics.

The policy is the `candidate` role (the model under test). Each tool runs on the policy's model
unless its role (planner, writer, reviewer, reviser) is bound apart with ``--role``. Scorers: the
trajectory metrics of each episode, and the final manuscript's C3EBench End2End judge score.
"""

from __future__ import annotations

from typing import Any

from proseval.benchmarks._shared.c3e import data as c3e_data
from proseval.benchmarks._shared.c3e.data import from_target, to_target
from proseval.benchmarks._shared.c3e.judge import (
    JudgeSetup,
    judge_messages,
    judge_response_format,
    parse_verdict,
    presented,
)
from proseval.benchmarks.ravel import state as st
from proseval.benchmarks.ravel.dryrun import dry_run_reply
from proseval.benchmarks.ravel.env import Step, replay
from proseval.benchmarks.ravel.episode import POLICY_ROLE, Setup, run_episode, tool_role
from proseval.benchmarks.ravel.metrics import measure
from proseval.benchmarks.ravel.params import TOOL_ROLES, RavelParams
from proseval.benchmarks.ravel.prompts import PROMPTS
from proseval.benchmarks.ravel.report import (
    EPISODE_METRICS,
    JUDGE,
    TRAJECTORY,
    curve_drawer,
    lifecycle_drawer,
    markdown,
    summarize,
    tables,
)
from proseval.benchmarks.ravel.reviews import RECORDED, last_reviews, ratings
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
)
from proseval.kit.charts import chart
from proseval.kit.runs import Results, ScoredSample

VERSION = "2"
# Every agent call at temperature 0.2 (official); an explicit token limit, the same for every provider.
AGENT_CONFIG = GenerateConfig(temperature=0.2, max_tokens=5000)
JUDGE_CONFIG = GenerateConfig(temperature=0.0, max_tokens=1000)
EMPTY_SCORE = 1.0  # no section written: the judge's lowest score, without a judge call
METRIC_VERSION = "ravel-metrics-3 (proseval docs ravel)"


def settings_of(params: RavelParams) -> st.Settings:
    return st.Settings(
        tau=params.tau,
        revision_cap=params.revision_cap,
        max_steps=params.max_steps,
        history_window=params.history_window,
        max_sections=params.max_sections,
        compat=params.compat,
    )


def load_items(params: RavelParams) -> tuple[c3e_data.C3EData, list[c3e_data.Item]]:
    data = c3e_data.load_data(params.data_file, params.data_dir, params.language)
    items = [i for i in data.items if i.language in params.language]
    items = c3e_data.select(items, tasks=["end2end"], genres=params.genre)
    return data, round_robin(items, lambda item: item.language)


def episode_start(item: c3e_data.Item, style_guide: str | None = None) -> st.Episode:
    """Topic = the End2End instruction; style guide = `style_guide` if given, else the item's genre
    (``sub_task``)."""
    return st.start(item.instruction, style_guide or item.genre or "easy to understand", item.language)


def final_episode(state: State) -> st.Episode:
    return st.Episode.model_validate(state.metadata["final_state"])


def steps_of(state: State) -> list[Step]:
    return [Step.model_validate(turn) for turn in state.turns]


def make_trajectory_scorer(settings: st.Settings, style_guide: str | None = None) -> Any:
    @scorer(TRAJECTORY, metrics=list(EPISODE_METRICS))
    async def trajectory(sample: Sample, state: State, ctx: SampleContext) -> dict[str, Score]:
        steps, final = steps_of(state), final_episode(state)
        start = episode_start(from_target(sample.target), style_guide)
        states = replay(start, steps, settings)
        m = measure(steps, final, states, max_steps=settings.max_steps)
        reviewed = last_reviews(start, steps, states, texts_from_policy=state.metadata.get("tool_text") == "policy")
        detail = {
            "lifecycles": list(m.lifecycles),
            "score_curve": list(m.score_curve),
            "deltas": list(m.deltas),
            "failed_actions": m.failed_actions,
            "failed_by": m.failed_by,
            "invalid_actions": m.invalid_actions,
            "tool_failures": m.tool_failures,
            "refines": m.refines,
            "reviews": m.reviews,
            "outlines": final.outlines,
            "skipped_actions": m.skipped,
            "executed_actions": m.executed,
            "truncated_policy_replies": sum(s.finish_reason == "length" for s in steps),
            "truncated_tool_replies": sum(s.tool is not None and s.tool.finish_reason == "length" for s in steps),
            RECORDED: [review.recorded() for review in reviewed],
        }
        out = {
            "success": Score(value=float(m.success)),
            "success_all_completed": Score(value=float(m.success_all_completed)),
            "premature_finish": Score(value=float(m.premature_finish)),
            "steps": Score(value=float(m.steps), metadata=detail),
            "outline_len": Score(value=float(m.outline_len)),
            "refines_per_step": Score(value=m.refines_per_step),
            "error_rate": Score(value=m.error_rate, metadata={"invalid_actions": m.invalid_actions}),
            "tool_error_rate": Score(value=m.tool_error_rate, metadata={"tool_failures": m.tool_failures}),
            "forced_completions": Score(value=float(m.forced_completions)),
        }
        if m.efficiency is not None:
            out["efficiency"] = Score(value=m.efficiency)
        if m.reviews_per_section is not None:
            out["reviews_per_section"] = Score(value=m.reviews_per_section, metadata={"reviews": m.reviews})
            out["refines_per_section"] = Score(value=m.refines_per_section, metadata={"refines": m.refines})
        if m.refine_delta is not None:
            out["refine_delta"] = Score(value=m.refine_delta, metadata={"pairs": len(m.deltas)})
        return out

    return trajectory


def make_judge_scorer(params: RavelParams) -> Any:
    setup = JudgeSetup()
    config = judge_response_format("end2end") if params.judge_structured else None

    @scorer(JUDGE, metrics=[JUDGE])
    async def judge(sample: Sample, state: State, ctx: SampleContext) -> dict[str, Score]:
        item = from_target(sample.target)
        if not state.output.strip():
            return {
                JUDGE: Score(
                    value=EMPTY_SCORE,
                    parse_status="empty",
                    explanation="no section was written: lowest score, no judge call",
                )
            }
        messages = judge_messages(item, state.output, setup, ctx.prompt)
        if params.judge_format == "single":  # the January scripts: rubric and fields in one user message
            messages = [{"role": "user", "content": "\n\n".join(m["content"] for m in messages)}]
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
        meta: dict[str, Any] = {"judge_calls": asked.attempts}
        if params.judge_order == "swapped":  # the position-bias probe: [Candidate] shown before [Reference]
            meta["judge_order"] = "swapped"
        if asked.error is not None:
            return {JUDGE: Score.unscored("error", f"{type(asked.error).__name__}: {asked.error}", **meta)}
        verdict = asked.last
        assert verdict is not None
        if not verdict.scored:
            return {JUDGE: Score.unscored(verdict.status, verdict.detail, **meta)}
        return {
            JUDGE: Score(
                value=float(verdict.score), parse_status=verdict.status, explanation=verdict.verdict, metadata=meta
            )
        }

    return judge


def make_task(params: RavelParams) -> Task:
    data, items = load_items(params)
    if not items:
        raise ValueError("no End2End item matches --language/--genre")
    settings = settings_of(params)
    setup = Setup(settings, params.protocol, params.structured_policy, params.structured_tools, params.tool_text)

    def dataset() -> list[Sample]:
        return [
            Sample(
                id=i.id, input=i.instruction, target=to_target(i), metadata={"language": i.language, "genre": i.genre}
            )
            for i in items
        ]

    async def protocol(sample: Sample, ctx: SampleContext) -> State:
        start = episode_start(from_target(sample.target), params.style_guide)
        final, steps, resumed_at = await run_episode(ctx, start, setup)
        return State(
            output=st.manuscript(final),
            finish_reason="finish" if final.finished else "max_steps",
            turns=[s.model_dump(mode="json") for s in steps],
            metadata={
                "final_state": final.model_dump(mode="json"),
                "termination": "finish" if final.finished else "max_steps",
                "resumed_at_step": resumed_at,
                "protocol": params.protocol,
                "settings": settings.model_dump(mode="json"),
                "policy_role": POLICY_ROLE,
                "tool_roles": {tool: tool_role(ctx, tool) for tool in TOOL_ROLES},
                "structured": {"policy": params.structured_policy, "tools": params.structured_tools},
                "tool_text": params.tool_text,
                "metrics": METRIC_VERSION,
            },
        )

    def aggregate(samples: list[ScoredSample]) -> dict[str, Any]:
        return {"ravel": summarize(samples)}

    def artifacts(results: Results) -> dict[str, str | bytes]:
        summary = results.extra.get("ravel")
        if not summary:
            return {}
        files: dict[str, str | bytes] = {"ravel.md": markdown(summary)}
        for name, drawer in (
            ("ravel_lifecycles.png", lifecycle_drawer({"this run": summary["lifecycles"]})),
            ("ravel_score_curve.png", curve_drawer({"this run": summary["score_curve"]})),
        ):
            png = chart(drawer) if drawer is not None else None
            if png:
                files[name] = png
        return files

    roles = (POLICY_ROLE, "judge")
    return Task(
        name="ravel",
        version=VERSION,
        description="RAVEL: a policy plans, drafts, reviews and refines a text with tool models; trajectory "
        "metrics and the C3EBench End2End judge score of the manuscript",
        dataset=dataset,
        protocol=protocol,
        scorers=[make_trajectory_scorer(settings, params.style_guide), make_judge_scorer(params)],
        roles_required=roles,
        optional_roles=TOOL_ROLES,
        role_configs={**{role: AGENT_CONFIG for role in (POLICY_ROLE, *TOOL_ROLES)}, "judge": JUDGE_CONFIG},
        slice_keys=("language", "genre"),
        headline="judge",  # the final manuscript's score; the trajectory metrics follow
        dataset_source={
            "source": "C3EBench End2End items",
            "files": [{"path": f.path, "sha256": f.sha256, "verified": f.verified} for f in data.files],
            "n_selected": len(items),
            "protocol": params.protocol,
            "metrics": METRIC_VERSION,
        },
        aggregate=aggregate,
        artifacts=artifacts,
        prompts=presented(PROMPTS, params.judge_order),
        rescore_roles=("judge",),
        # The final manuscript's End2End judge score, and the reviewer's last score of each section
        # (role "reviewer"); the trajectory metrics are computed by rule, never ratings.
        ratings=ratings,
        # The final judge compares the manuscript with the item's human reference: `proseval score
        # --swap-order` re-judges with the two in the other order.
        swap_param="judge_order",
        # A dry run's policy and tools follow a complete trajectory, so each tool role is counted.
        dry_run_reply=dry_run_reply(settings, setup.texts_from_policy),
    )


def render(results: Any) -> list[Any]:
    from rich.table import Table

    summary = results.extra.get("ravel")
    if not summary:
        return []
    out = []
    for title, header, rows in tables(summary):
        table = Table(title=title, title_justify="left")
        for position, column in enumerate(header):
            table.add_column(column, justify="left" if position == 0 else "right")
        for row in rows:
            table.add_row(*row)
        out.append(table)
    return out
