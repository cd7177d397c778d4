"""Model-family rules as data: what each family is sent, what is left out and why, refused user
settings, a user's rules file, and how a run records it (header, preset deviations)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proseval.errors import UsageError
from proseval.models.base import GenerateConfig
from proseval.models.families import (
    RULES_VARIABLE,
    check_user_rules,
    not_sendable,
    refused_setting,
    rules_for,
    wire_params,
)
from proseval.planning import plan
from proseval.runtime.roles import RoleError, RoleRequest
from support.core import OLDER_ANTHROPIC_API
from writingbench.wb_fixtures import tiny_files, write_files


@pytest.fixture
def user_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    def write(text: str) -> Path:
        path = tmp_path / "rules.yaml"
        path.write_text(text, encoding="utf-8")
        monkeypatch.setenv(RULES_VARIABLE, str(path))
        return path

    return write


def sent(provider: str, model: str, **settings) -> dict:
    return wire_params(GenerateConfig(**settings).sent_params(), rules_for(provider, model))


@pytest.mark.parametrize("model", ["gpt-5-mini", "gpt-5", "o4-mini", "o3", "o1-preview", "GPT-5-nano"])
def test_openai_reasoning_models_get_max_completion_tokens_and_only_default_sampling(model):
    body = sent("openai", model, temperature=0.7, top_p=0.8, max_tokens=16000, seed=3, presence_penalty=0.5)
    assert body == {"max_completion_tokens": 16000, "seed": 3}
    assert sent("openai", model, temperature=1.0) == {"temperature": 1.0}  # the default is accepted
    reasons = {
        d.setting: d.reason for d in not_sendable({"temperature": 0.7, "top_p": 0.8}, rules_for("openai", model))
    }
    assert reasons == {
        "temperature": "this model takes only the default (1)",
        "top_p": "this model takes only the default (1)",
    }


def test_openai_chat_models_keep_sampling_and_max_tokens_but_never_top_k():
    assert sent("openai", "gpt-4.1-mini", temperature=0.7, top_k=20, max_tokens=50) == {
        "temperature": 0.7,
        "max_tokens": 50,
    }
    assert sent("openai", "gpt-5-chat-latest", temperature=0.7, max_tokens=50) == {"temperature": 0.7, "max_tokens": 50}


def test_gpt_5_1_takes_sampling_only_with_reasoning_effort_none():
    assert sent("openai", "gpt-5.1", temperature=0.2, reasoning_effort="none") == {
        "temperature": 0.2,
        "reasoning_effort": "none",
    }
    assert sent("openai", "gpt-5.1", temperature=0.2, reasoning_effort="low") == {"reasoning_effort": "low"}


def test_openai_compatible_endpoints_get_the_settings_as_they_are():
    assert rules_for("openai-compatible", "gpt-5-mini").plain
    assert sent("openai-compatible", "Qwen3-8B", temperature=0.7, top_k=20, max_tokens=9, reasoning_effort="high") == {
        "temperature": 0.7,
        "top_k": 20,
        "max_tokens": 9,
        "reasoning_effort": "high",
    }


def test_anthropic_current_api_version_takes_no_sampling_parameters():
    rules = rules_for("anthropic", "claude-sonnet-4-5")
    assert rules.api_version == "2026-10-21"
    assert sent("anthropic", "claude-sonnet-4-5", temperature=1.0, top_p=0.95, top_k=5, max_tokens=9) == {
        "max_tokens": 9
    }
    assert {d.setting for d in not_sendable({"temperature": 1.0, "min_p": 0.1}, rules)} == {"temperature", "min_p"}


def test_claude_4_5_under_the_older_api_version_takes_temperature_or_top_p(user_rules):
    user_rules(OLDER_ANTHROPIC_API)
    rules = rules_for("anthropic", "claude-sonnet-4-5-20250929")
    assert rules.api_version == "2023-06-01"
    assert sent("anthropic", "claude-sonnet-4-5", temperature=1.0, top_p=0.95, top_k=5) == {
        "temperature": 1.0,
        "top_k": 5,
    }
    kept_top_p = not_sendable({"temperature": 1.0, "top_p": 0.95}, rules, prefer={"top_p"})
    assert [d.setting for d in kept_top_p] == ["temperature"] and "top_p is kept" in kept_top_p[0].reason
    assert sent("anthropic", "claude-3-5-haiku", temperature=0.5, top_p=0.9) == {"temperature": 0.5, "top_p": 0.9}
    assert sent("anthropic", "claude-opus-4-7", temperature=0.5) == {}  # removed on the model, whatever the version


def test_reasoning_effort_goes_where_each_family_reads_it():
    assert sent("openai", "gpt-5-mini", reasoning_effort="low") == {"reasoning_effort": "low"}
    assert sent("anthropic", "claude-sonnet-4-6", reasoning_effort="high") == {
        "output_config": {"effort": "high"},
        "thinking": {"type": "adaptive"},
    }
    dropped = not_sendable({"reasoning_effort": "high"}, rules_for("anthropic", "claude-sonnet-4-5"))
    assert [d.setting for d in dropped] == ["reasoning_effort"]


def test_a_broken_rules_file_names_the_file_and_the_family(user_rules):
    path = user_rules("families:\n  - name: x\n    provider: openai\n    models: ['*']\n    token_limt: y\n")
    with pytest.raises(UsageError, match=rf"{path}: family 1: token_limt: Extra inputs"):
        check_user_rules()
    user_rules("families: [\n")
    with pytest.raises(UsageError, match="line 2: not valid YAML"):
        check_user_rules()


def test_a_user_rule_extends_the_shipped_ones(user_rules):
    user_rules(
        "families:\n  - name: gateway\n    provider: openai-compatible\n    models: ['my-reasoner*']\n"
        "    token_limit: max_completion_tokens\n    refuses: [top_k]\n"
    )
    assert sent("openai-compatible", "my-reasoner-7b", max_tokens=5, top_k=3) == {"max_completion_tokens": 5}
    assert sent("openai-compatible", "other", max_tokens=5, top_k=3) == {"max_tokens": 5, "top_k": 3}


@pytest.mark.parametrize(
    ("detail", "setting"),
    [
        (
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead. "
            "(param: max_tokens)",
            "max_tokens",
        ),
        (
            "Unsupported value: 'temperature' does not support 0.7 with this model. Only the default (1) value is "
            "supported. (param: temperature)",
            "temperature",
        ),
        ("invalid_request_error: temperature: Extra inputs are not permitted", "temperature"),
        (
            "invalid_request_error: `temperature` and `top_p` cannot both be specified for this model. Please use only one.",
            "top_p",
        ),
        (
            "Unsupported value: 'minimal' is not supported with the 'gpt-5.1' model. (param: reasoning.effort)",
            "reasoning_effort",
        ),
        ("The model `nosuch` does not exist or you do not have access to it.", None),
    ],
)
def test_the_setting_a_refusal_names(detail, setting):
    assert refused_setting(detail) == setting


@pytest.fixture
def wb(tmp_path: Path) -> dict:
    """WritingBench's options on a tiny data set of its own."""
    return {"data_dir": str(write_files(tmp_path / "benchmark_query", tiny_files())), "verify": False}


def judge_binding(wb: dict, **gen):
    request = RoleRequest(
        model="scripted/echo", roles={"judge": "openai/gpt-5-mini"}, generation={"judge": gen} if gen else {}
    )
    return plan("writingbench", request, params=wb)


def test_a_task_setting_the_model_refuses_is_left_out_and_recorded(wb):
    planned = judge_binding(wb)
    judge = planned.bindings["judge"]
    # WritingBench's judge: temperature 1.0 (the model's default, sent), top-p 0.95 (not sent)
    assert judge.config.temperature == 1.0 and judge.config.top_p is None and judge.config.max_tokens == 2048
    assert [(item["setting"], item["value"], item["rule"]) for item in judge.not_sent] == [
        ("top_p", 0.95, "openai-reasoning, checked 2026-12-01")
    ]
    assert judge.rules == ["openai", "openai-reasoning"]
    assert any(
        "judge (openai/gpt-5-mini): top_p=0.95 not sent: this model takes only the default (1)" in w
        for w in planned.warnings
    )


def test_a_setting_the_user_gave_is_refused_with_the_g_that_unsets_it(wb):
    with pytest.raises(RoleError, match=r"temperature=0\.3 cannot be sent.*-g judge\.temperature=null"):
        judge_binding(wb, temperature=0.3)


def test_a_preset_setting_left_out_marks_the_run_as_deviating(wb):
    request = RoleRequest(model="openai/gpt-5-mini", roles={"judge": "scripted/echo"})
    planned = plan("writingbench", request, params=wb, preset="paper")
    assert planned.task.preset["not_sent"] == ["candidate.temperature", "candidate.top_p", "candidate.top_k"]
    assert any("deviates from the preset 'paper'" in w for w in planned.warnings)
