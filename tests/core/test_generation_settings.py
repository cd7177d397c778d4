"""Generation settings: only what is set is sent, provider pass-through, time limits for long answers."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from proseval.cli import app
from proseval.judging.structured import json_schema_format, score_schema
from proseval.models.base import GenerateConfig, RetryableError
from proseval.models.local import local_params
from proseval.models.openai_compat import CompatModel
from proseval.runtime.executor import RoleModel
from proseval.testing.fake_openai import FakeOpenAIServer
from support.virtual_time import run_virtual

cli = CliRunner()


def test_nothing_is_sent_that_was_not_set():
    assert GenerateConfig().sent_params() == {}
    assert GenerateConfig(temperature=0.7, top_k=20).sent_params() == {"temperature": 0.7, "top_k": 20}


def test_extra_fields_are_sent_as_given_and_cannot_override_core_fields():
    config = GenerateConfig(top_p=0.8, extra={"chat_template_kwargs": {"enable_thinking": False}})
    assert config.sent_params() == {"top_p": 0.8, "chat_template_kwargs": {"enable_thinking": False}}
    with pytest.raises(ValueError, match="extra cannot set messages"):
        GenerateConfig(extra={"messages": []})
    with pytest.raises(ValueError, match="extra cannot set top_k"):
        GenerateConfig(extra={"top_k": 3})


def test_the_default_time_limit_grows_with_max_tokens():
    assert GenerateConfig(max_tokens=400).request_timeout() == 120.0
    # 8,192 tokens at 50 tokens/s take 164 s: the limit leaves room for a server six times slower.
    assert GenerateConfig(max_tokens=8192).request_timeout() >= 6 * 8192 / 50
    assert GenerateConfig(max_tokens=8192, timeout=30).request_timeout() == 30
    with pytest.raises(ValueError, match="positive number of seconds"):
        GenerateConfig(timeout=0)


def test_local_model_settings_use_llama_cpp_names_and_refuse_unknown_ones():
    config = GenerateConfig(top_k=20, min_p=0.05, repetition_penalty=1.1, max_tokens=10)
    assert local_params(config) == {"top_k": 20, "min_p": 0.05, "repeat_penalty": 1.1, "max_tokens": 10, "seed": 0}
    assert local_params(GenerateConfig(seed=7))["seed"] == 7  # a set seed is kept; unset, the fixed default
    with pytest.raises(Exception, match="response_format type 'x'"):
        local_params(GenerateConfig(response_format={"type": "x"}))
    with pytest.raises(Exception, match="does not take the setting.*chat_template_kwargs"):
        local_params(GenerateConfig(extra={"chat_template_kwargs": {}}))


def test_a_structured_request_becomes_a_llama_cpp_grammar():
    schema = score_schema()
    asked = local_params(GenerateConfig(response_format=json_schema_format("score", schema), max_tokens=5))
    assert asked == {"max_tokens": 5, "seed": 0, "response_format": {"type": "json_object", "schema": schema}}
    assert local_params(GenerateConfig(response_format={"type": "json_object"}))["response_format"] == {
        "type": "json_object"
    }
    with pytest.raises(Exception, match="json_schema.schema"):
        local_params(GenerateConfig(response_format={"type": "json_schema", "json_schema": {"name": "n"}}))


def test_the_paper_sampling_and_a_provider_field_reach_the_endpoint(tmp_path):
    server = FakeOpenAIServer().start_in_thread()
    try:
        plain = cli.invoke(
            app,
            [
                "run",
                "demo",
                "-m",
                "openai-compatible/m",
                "--base-url",
                server.base_url,
                "-r",
                "judge=scripted/echo",
                "-n",
                "1",
                "--out",
                str(tmp_path / "a"),
                "--display",
                "none",
                "--no-cache",
                "--no-probe",
            ],
        )
        tuned = cli.invoke(
            app,
            [
                "run",
                "demo",
                "-m",
                "openai-compatible/m",
                "--base-url",
                server.base_url,
                "-r",
                "judge=scripted/echo",
                "-n",
                "1",
                "--out",
                str(tmp_path / "b"),
                "--display",
                "none",
                "--no-cache",
                "--no-probe",
                "-g",
                "candidate.temperature=0.7",
                "-g",
                "candidate.top_k=20",
                "-g",
                "candidate.top_p=0.8",
                "-g",
                "candidate.min_p=0.05",
                "-g",
                "candidate.repetition_penalty=1.05",
                "-g",
                'candidate.extra.chat_template_kwargs={"enable_thinking": false}',
            ],
        )
    finally:
        server.stop_thread()
    assert plain.exit_code == 0 and tuned.exit_code == 0, plain.output + tuned.output
    first, second = ({k: v for k, v in body.items() if k not in ("model", "messages")} for body in server.requests)
    assert first == {"temperature": 0.7, "max_tokens": 400}  # the demo's own defaults, nothing else
    assert second == {
        "temperature": 0.7,
        "top_p": 0.8,
        "top_k": 20,
        "min_p": 0.05,
        "repetition_penalty": 1.05,
        "max_tokens": 400,
        "chat_template_kwargs": {"enable_thinking": False},
    }
    header = json.loads(next((tmp_path / "b").iterdir()).joinpath("header.json").read_text())
    assert header["roles"]["candidate"]["config"]["top_k"] == 20


def test_unknown_or_bad_settings_are_refused_before_any_request(tmp_path):
    for option, message in (
        ("candidate.top_kk=2", "top_kk"),
        ("candidate.top_k=0", "at least 1"),
        ("candidate.extra.model=x", "extra cannot set model"),
    ):
        result = cli.invoke(
            app,
            [
                "run",
                "demo",
                "-m",
                "scripted/echo",
                "-r",
                "judge=scripted/echo",
                "-g",
                option,
                "--out",
                str(tmp_path),
                "--display",
                "none",
            ],
        )
        assert result.exit_code == 2 and message in result.output, (option, result.output)
    assert not list(tmp_path.iterdir())


def _role(server: FakeOpenAIServer, **config) -> RoleModel:
    return RoleModel(
        role="candidate",
        model=CompatModel("openai-compatible", "m", [server.base_url]),
        config=GenerateConfig(**config),
        concurrency=1,
        max_attempts=1,
    )


def test_a_200_second_generation_completes_under_the_default_limit():
    async def main():
        async with FakeOpenAIServer(latency=200.0, responder=lambda body: "long answer") as server:
            role = _role(server, max_tokens=8192)
            try:
                completion = await role.generate([{"role": "user", "content": "x"}], sample_id="s")
            finally:
                await role.model.aclose()
            return completion.text

    text, skipped = run_virtual(main())
    assert text == "long answer" and skipped >= 200


def test_a_generation_longer_than_its_limit_fails_as_retryable():
    async def main():
        async with FakeOpenAIServer(latency=200.0) as server:
            role = _role(server, max_tokens=8192, timeout=120)
            try:
                with pytest.raises(RetryableError, match="timed out after 120s"):
                    await role.generate([{"role": "user", "content": "x"}], sample_id="s")
            finally:
                await role.model.aclose()

    _, skipped = run_virtual(main())
    assert 120 <= skipped < 200
