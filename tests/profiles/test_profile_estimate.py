"""The profile's estimate counts every role's requests, RAVEL's End2End judge included (its agent,
on synthetic replies, writes no manuscript of its own: the judge is counted on a stand-in text)."""

from __future__ import annotations

from pathlib import Path

from proseval.commandline.sets import plan_set
from proseval.core.prices import Prices
from proseval.profile.plan import plan_profile, write_first_set
from proseval.profile.suite import load_suite
from proseval.runtime.loop import run_async
from proseval.runtime.sets import estimate_set

RAVEL_ONLY = """\
benchmarks:
  - name: ravel
    task: ravel
    dimension: agentic planning and revision
    data: c3ebench
    sizes:
      quick: {limit: 2, params: {max_steps: 4}}
      standard: {limit: 2}
      paper: {preset: official}
"""
PRICES = Prices.model_validate(
    {
        "currency": "USD",
        "models": {
            "openai-compatible/writer": {"input": 1.0, "output": 2.0},
            "openai-compatible/judge": {"input": 3.0, "output": 4.0},
        },
    }
)


def test_the_ravel_estimate_counts_its_judge_requests_tokens_and_cost(tmp_path: Path, shared_dir: Path):
    suite_file = tmp_path / "suite.yaml"
    suite_file.write_text(RAVEL_ONLY, encoding="utf-8")
    plan = plan_profile(
        load_suite(suite_file),
        "quick",
        tmp_path / "out",
        [{"spec": "openai-compatible/writer"}],
        judge="openai-compatible/judge",
        overrides={},
        data={"c3ebench": str(shared_dir / "data" / "c3ebench")},
        download=False,
        base_url=["http://127.0.0.1:9/v1"],
    )
    setplan = plan_set(write_first_set(plan, {}), report=False)
    ((_, decision, _, estimate),) = run_async(estimate_set(setplan, prices=PRICES))
    assert decision == "start" and estimate is not None and estimate.samples == 2
    judge, policy = estimate.roles["judge"], estimate.roles["candidate"]
    assert judge.requests == 2  # one End2End verdict per item
    # the candidate plays the policy (every step the limit allows) and, unbound, the four tools: one
    # tool call per step (RAVEL's dry-run trajectory never finishes before the limit)
    assert policy.requests == 2 * (4 + 4)
    assert judge.input_tokens > policy.output_tokens // 8  # the judged text is there, at the policy's size
    assert judge.output_tokens > 0
    assert judge.cost() is not None and judge.cost() > 0  # type: ignore[operator]  # not None: asserted first
    assert estimate.cost() == judge.cost() + policy.cost()  # type: ignore[operator]  # both priced here
