"""Candidate output budgets: measured per task x length, sent per sample, honoured end to end."""

from __future__ import annotations

import json

import pytest

from proseval.benchmarks.longweave.budgets import (
    MARGIN,
    OFFICIAL_MAX_TOKENS,
    budget_from_measure,
    output_budget,
    reference_answer,
)
from proseval.benchmarks.longweave.generators import LENGTHS, generate
from proseval.benchmarks.longweave.scorers import (
    KVGInstance,
    SMSInstance,
    score_cf,
    score_kvg,
    score_pr,
    score_sms,
)
from proseval.models.base import Completion, Usage
from proseval.models.scripted import ScriptedModel, register_script, unregister_script
from proseval.registry import get_task
from proseval.tokens import _encoding, count_tokens

RULE_TASKS = ("cf", "kvg", "sms", "pr")


def test_budget_rule_keeps_the_official_floor_and_adds_the_margin() -> None:
    assert budget_from_measure(100) == OFFICIAL_MAX_TOKENS
    assert budget_from_measure(10_901) == 14_336  # 10,901 x 1.3 = 14,171.3, up to 512s
    assert budget_from_measure(10_901) >= 10_901 * MARGIN


@pytest.mark.parametrize("task", RULE_TASKS)
@pytest.mark.parametrize("length", LENGTHS)
def test_correct_answers_fit_their_budget_with_the_margin(task: str, length: str) -> None:
    for index in range(0, 200, 40):
        answer = reference_answer(generate(task, length, index))
        assert answer is not None
        assert count_tokens(answer) * MARGIN <= output_budget(task, length), (task, length, index)


def test_pr_at_8k_needs_more_than_the_official_budget() -> None:
    sizes = [count_tokens(reference_answer(generate("pr", "8k", i)) or "") for i in range(5)]
    assert min(sizes) > OFFICIAL_MAX_TOKENS


@pytest.mark.parametrize("length", ["1k", "8k"])
def test_reference_answers_score_full_marks(length: str) -> None:
    kvg, sms, pr, cf = (generate(t, length, 3) for t in RULE_TASKS[1:] + ("cf",))
    t = kvg.target
    instance = KVGInstance(t["target_key"], t["target_value"], t["target_index"], t["num_entries"])
    assert score_kvg(reference_answer(kvg) or "", instance).value == 1.0
    assert score_sms(reference_answer(sms) or "", SMSInstance(sms.target["input_string"])).value == 1.0
    assert score_pr(reference_answer(pr) or "", pr.target["segments"]).value == pytest.approx(1.0)
    clean = score_cf(reference_answer(cf) or "", cf.target["original_code"], relevant=True)
    assert clean.metrics["func_count_score"] == 1.0 and clean.trace["violations"] == 1  # W292 only


def test_task_records_the_budget_and_respects_the_option() -> None:
    def first(options: dict) -> dict:
        return next(
            iter(get_task("longweave", {"task": "pr", "length": "8k", "per_cell": 1, **options}).dataset())
        ).metadata

    assert first({})["max_output_tokens"] == output_budget("pr", "8k") > OFFICIAL_MAX_TOKENS
    assert first({"output_budget": "12000"})["max_output_tokens"] == 12000
    assert "max_output_tokens" not in first({"output_budget": "role"})
    with pytest.raises(ValueError):
        get_task("longweave", {"output_budget": "lots"})


@pytest.fixture
def budget_aware_script(monkeypatch):
    """A scripted candidate that writes the correct answer, cut at max_tokens like a real server."""
    seen: list[int | None] = []
    original = ScriptedModel.generate

    async def generate_with_limit(self, messages, config):
        completion = await original(self, messages, config)
        if self.name != "lw-budget":
            return completion
        seen.append(config.max_tokens)
        tokens = _encoding().encode(completion.text, disallowed_special=())
        limit = config.max_tokens or len(tokens)
        text = _encoding().decode(tokens[:limit])
        return Completion(
            text=text,
            finish_reason="length" if len(tokens) > limit else "stop",
            usage=Usage(completion_tokens=min(limit, len(tokens))),
        )

    monkeypatch.setattr(ScriptedModel, "generate", generate_with_limit)
    answers = {generate("pr", "8k", i).input: reference_answer(generate("pr", "8k", i)) for i in range(2)}
    register_script("lw-budget", lambda messages: answers[messages[-1]["content"]])
    yield seen
    unregister_script("lw-budget")


def _run_pr_8k(tmp_path, *extra: str) -> list:
    """`proseval run longweave` on two PR 8k samples with the scripted candidate."""
    from typer.testing import CliRunner

    from proseval.cli import app

    args = [
        "run",
        "longweave",
        "--task",
        "pr",
        "--length",
        "8k",
        "--per-cell",
        "2",
        "--model",
        "scripted/lw-budget",
        "--out",
        str(tmp_path),
        "--display",
        "none",
        *extra,
    ]
    result = CliRunner().invoke(app, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    (folder,) = tmp_path.iterdir()
    return [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]


def test_a_correct_pr_8k_answer_scores_one_with_the_default_budget(tmp_path, budget_aware_script):
    records = _run_pr_8k(tmp_path)
    assert [r["scores"]["longweave"]["value"] for r in records] == pytest.approx([1.0, 1.0])
    needed = max(count_tokens(r["state"]["output"]) for r in records)
    assert needed > OFFICIAL_MAX_TOKENS
    assert len(budget_aware_script) == 2 and all(m is not None and m >= needed for m in budget_aware_script)
    assert all(r["metadata"]["max_output_tokens"] in budget_aware_script for r in records)
    assert all(r.get("model_failure") is None for r in records)


def test_the_official_budget_cuts_the_same_answer(tmp_path, budget_aware_script):
    records = _run_pr_8k(tmp_path, "--output-budget", "role")  # the role's default: 8,192
    assert budget_aware_script == [OFFICIAL_MAX_TOKENS, OFFICIAL_MAX_TOKENS]
    assert all(r["scores"]["longweave"]["value"] == 0.0 for r in records)  # segments missing: 0
    assert all(r["model_failure"] == "truncated" for r in records)


def test_a_fixed_budget_overrides_the_role_setting(tmp_path, budget_aware_script):
    _run_pr_8k(tmp_path, "--output-budget", "20000", "-g", "candidate.max_tokens=1000")
    assert budget_aware_script == [20000, 20000]


def test_role_budget_honours_the_generation_setting(tmp_path, budget_aware_script):
    _run_pr_8k(tmp_path, "--output-budget", "role", "-g", "candidate.max_tokens=15000")
    assert budget_aware_script == [15000, 15000]
