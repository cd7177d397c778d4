"""The fake servers' strict mode, over HTTP: each documented request rule answers with the
provider's own status, body and wording, each reply shape is the provider's, and the lenient
default is unchanged. The expected bodies are written out here as the providers send them, so a
change to a rule or its wording in the fakes fails a test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import httpx
import pytest

from proseval.testing.fake_anthropic import FakeAnthropicServer
from proseval.testing.fake_openai import FakeOpenAIServer, Reply

KEY = "sk-proj-strict-fake-0123456789abcdef"
MESSAGES = [{"role": "user", "content": "Say hi"}]
REASONING_MODELS = [
    "o1",
    "o3",
    "o3-mini",
    "o4-mini",
    "o3-2025-04-16",
    "gpt-5",
    "gpt-5-mini",
    "gpt-5-nano",
    "gpt-5-2025-08-07",
    "gpt-5.1",
    "gpt-5.2",
    "gpt-5.4",
    "gpt-5.1-chat-latest",
    "gpt-5-pro",
]
CHAT_MODELS = ["gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-nano", "gpt-4o-2024-08-06", "gpt-5-chat-latest"]


def local_client(**kwargs: Any) -> httpx.AsyncClient:
    """A client for the fakes' plain HTTP on 127.0.0.1 (no TLS context to build for each request)."""
    return httpx.AsyncClient(verify=False, **kwargs)


def openai_error(message: str, param: str | None = None, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}


async def chat(server: FakeOpenAIServer, key: str | None = KEY, **body: Any) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"} if key is not None else {}
    async with local_client() as client:
        return await client.post(
            f"{server.base_url}/chat/completions", headers=headers, json={"messages": MESSAGES, **body}
        )


def strict_openai(**kwargs: Any) -> FakeOpenAIServer:
    return FakeOpenAIServer(strict=True, api_key=KEY, **kwargs)


# --- OpenAI: token limits -------------------------------------------------------------------------


@pytest.mark.parametrize("model", REASONING_MODELS)
async def test_a_reasoning_model_refuses_max_tokens(model):
    async with strict_openai() as server:
        refused = await chat(server, model=model, max_tokens=100)
        taken = await chat(server, model=model, max_completion_tokens=100)
    assert refused.status_code == 400
    assert refused.json() == openai_error(
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        "max_tokens",
        "unsupported_parameter",
    )
    assert taken.status_code == 200


@pytest.mark.parametrize("model", CHAT_MODELS)
async def test_a_chat_model_takes_either_token_limit_and_any_temperature_up_to_2(model):
    async with strict_openai() as server:
        answers = [
            await chat(server, model=model, max_tokens=100, temperature=0),
            await chat(server, model=model, max_completion_tokens=100, temperature=2, top_p=0.5),
        ]
    assert [answer.status_code for answer in answers] == [200, 200]


async def test_an_answer_is_cut_at_the_token_limit():
    async with strict_openai(responder=lambda body: "one two three four five") as server:
        answer = (await chat(server, model="gpt-4o", max_tokens=3)).json()
    assert answer["choices"][0]["message"]["content"] == "one two three"
    assert answer["choices"][0]["finish_reason"] == "length"
    assert answer["usage"]["completion_tokens"] == 3


# --- OpenAI: sampling parameters --------------------------------------------------------------------


@pytest.mark.parametrize("model", ["o3", "gpt-5", "gpt-5-mini", "gpt-5.1-chat-latest"])
@pytest.mark.parametrize(
    ("name", "value", "shown"),
    [("temperature", 0, "0"), ("temperature", 0.0, "0.0"), ("temperature", 0.7, "0.7"), ("top_p", 0.5, "0.5")],
)
async def test_a_reasoning_model_takes_only_the_default_sampling(model, name, value, shown):
    async with strict_openai() as server:
        refused = await chat(server, model=model, **{name: value})
        default = await chat(server, model=model, **{name: 1})
    assert refused.status_code == 400
    assert refused.json() == openai_error(
        f"Unsupported value: '{name}' does not support {shown} with this model. "
        "Only the default (1) value is supported.",
        name,
        "unsupported_value",
    )
    assert default.status_code == 200


@pytest.mark.parametrize("model", ["gpt-5.1", "gpt-5.2", "gpt-5.4-2026-03-05"])
async def test_gpt_5_1_and_later_take_sampling_only_without_reasoning(model):
    async with strict_openai() as server:
        by_default = await chat(server, model=model, temperature=0.2)  # their default effort is "none"
        said_none = await chat(server, model=model, temperature=0.2, reasoning_effort="none")
        reasoning = await chat(server, model=model, temperature=0.2, reasoning_effort="low")
    assert (by_default.status_code, said_none.status_code, reasoning.status_code) == (200, 200, 400)
    assert reasoning.json()["error"]["code"] == "unsupported_value"


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        (
            "temperature",
            2.5,
            ("decimal above maximum value. Expected a value <= 2, but got 2.5", "decimal_above_max_value"),
        ),
        (
            "temperature",
            -1,
            ("decimal below minimum value. Expected a value >= 0, but got -1", "decimal_below_min_value"),
        ),
        ("top_p", 1.5, ("decimal above maximum value. Expected a value <= 1, but got 1.5", "decimal_above_max_value")),
    ],
)
async def test_a_chat_model_refuses_sampling_out_of_range(name, value, expected):
    async with strict_openai() as server:
        refused = await chat(server, model="gpt-4.1", **{name: value})
    assert refused.status_code == 400
    assert refused.json() == openai_error(f"Invalid '{name}': {expected[0]} instead.", name, expected[1])


async def test_a_sampling_value_of_another_type_is_refused():
    async with strict_openai() as server:
        refused = await chat(server, model="gpt-4o", temperature="0.5")
    assert refused.json() == openai_error(
        "Invalid type for 'temperature': expected a decimal, but got a string instead.", "temperature", "invalid_type"
    )


# --- OpenAI: reasoning effort -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "taken"),
    [
        ("o3", ["low", "medium", "high"]),
        ("o4-mini", ["low", "medium", "high"]),
        ("gpt-5", ["minimal", "low", "medium", "high"]),
        ("gpt-5-nano", ["minimal", "low", "medium", "high"]),
        ("gpt-5.1", ["none", "low", "medium", "high"]),
        ("gpt-5.2", ["none", "low", "medium", "high", "xhigh"]),
        ("gpt-5-pro", ["high"]),
        ("gpt-5.2-chat-latest", ["medium"]),
    ],
)
async def test_each_family_takes_its_documented_efforts_and_refuses_the_others(model, taken):
    async with strict_openai() as server:
        codes = {
            effort: (await chat(server, model=model, reasoning_effort=effort)).status_code
            for effort in ["none", "minimal", "low", "medium", "high", "xhigh"]
        }
    assert {effort for effort, code in codes.items() if code == 200} == set(taken)


async def test_an_effort_the_model_does_not_take_is_an_unsupported_value():
    async with strict_openai() as server:
        refused = await chat(server, model="gpt-5-mini", reasoning_effort="none")
    assert refused.json() == openai_error(
        "Unsupported value: 'reasoning_effort' does not support 'none' with this model. Supported values are: "
        "'minimal', 'low', 'medium', and 'high'.",
        "reasoning_effort",
        "unsupported_value",
    )


async def test_an_effort_no_model_takes_is_an_invalid_value():
    async with strict_openai() as server:
        refused = await chat(server, model="o3", reasoning_effort="extreme")
    assert refused.json() == openai_error(
        "Invalid value: 'extreme'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high', and 'xhigh'.",
        "reasoning_effort",
        "invalid_value",
    )


async def test_a_chat_model_does_not_know_reasoning_effort():
    async with strict_openai() as server:
        refused = await chat(server, model="gpt-4o", reasoning_effort="low")
    assert refused.json() == openai_error("Unrecognized request argument supplied: reasoning_effort")


# --- OpenAI: reasoning tokens and usage ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("budget", "content", "finish", "completion", "reasoning"),
    [
        (50, "", "length", 50, 50),  # below the reasoning cost: all of it reasoning, no answer
        (100, "", "length", 100, 100),  # exactly the cost: nothing left to answer with
        (102, "one two", "length", 102, 100),  # the answer cut after the reasoning
        (500, "one two three four five", "stop", 105, 100),
    ],
)
async def test_a_reasoning_model_spends_its_budget_on_reasoning_first(budget, content, finish, completion, reasoning):
    async with strict_openai(reasoning_cost=100, responder=lambda body: "one two three four five") as server:
        answer = (await chat(server, model="gpt-5-mini", max_completion_tokens=budget)).json()
    assert answer["choices"][0]["message"]["content"] == content
    assert answer["choices"][0]["finish_reason"] == finish
    assert answer["usage"]["completion_tokens"] == completion
    assert answer["usage"]["completion_tokens_details"]["reasoning_tokens"] == reasoning


async def test_no_reasoning_tokens_without_reasoning():
    async with strict_openai(reasoning_cost=100, responder=lambda body: "one two") as server:
        none = (await chat(server, model="gpt-5.1", max_completion_tokens=50)).json()  # effort "none" by default
        chat_model = (await chat(server, model="gpt-4o", max_tokens=50)).json()
    for answer in (none, chat_model):
        assert answer["choices"][0]["message"]["content"] == "one two"
        assert answer["usage"]["completion_tokens_details"]["reasoning_tokens"] == 0


async def test_strict_usage_has_the_details_openai_reports():
    async with strict_openai(cached_tokens=3) as server:
        answer = (await chat(server, model="gpt-4o", messages=[{"role": "user", "content": "a b c d e"}])).json()
    assert answer["usage"] == {
        "prompt_tokens": 5,
        "completion_tokens": 6,
        "total_tokens": 11,
        "prompt_tokens_details": {"cached_tokens": 3, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }
    assert answer["choices"][0]["message"] == {
        "role": "assistant",
        "content": "echo: a b c d e",
        "refusal": None,
        "annotations": [],
    }


# --- OpenAI: response formats ------------------------------------------------------------------------------

SCHEMA = {
    "type": "object",
    "properties": {"score": {"type": "integer"}},
    "required": ["score"],
    "additionalProperties": False,
}
EDIT_MISSING_WHY = {
    "type": "object",
    "additionalProperties": False,
    "required": ["span"],
    "properties": {"span": {"type": "string"}, "why": {"type": "string"}},
}


@pytest.mark.parametrize(
    "fmt",
    [
        {"type": "text"},
        {"type": "json_schema", "json_schema": {"name": "verdict", "schema": SCHEMA, "strict": True}},
        {
            "type": "json_schema",
            "json_schema": {"name": "verdict", "schema": {"type": "object"}},
        },  # not strict: any schema
    ],
)
async def test_documented_response_formats_are_taken(fmt):
    async with strict_openai() as server:
        taken = await chat(server, model="gpt-4o", response_format=fmt)
    assert taken.status_code == 200


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        (
            {"type": "json"},
            openai_error(
                "Invalid value: 'json'. Supported values are: 'json_object', 'json_schema', and 'text'.",
                "response_format.type",
                "invalid_value",
            ),
        ),
        (
            {},
            openai_error(
                "Missing required parameter: 'response_format.type'.",
                "response_format.type",
                "missing_required_parameter",
            ),
        ),
        (
            {"type": "json_schema"},
            openai_error(
                "Missing required parameter: 'response_format.json_schema'.",
                "response_format.json_schema",
                "missing_required_parameter",
            ),
        ),
        (
            {"type": "json_schema", "json_schema": {"schema": SCHEMA}},
            openai_error(
                "Missing required parameter: 'response_format.json_schema.name'.",
                "response_format.json_schema.name",
                "missing_required_parameter",
            ),
        ),
        (
            {
                "type": "json_schema",
                "json_schema": {
                    "name": "verdict",
                    "strict": True,
                    "schema": {"type": "object", "properties": {"score": {"type": "integer"}}, "required": ["score"]},
                },
            },
            openai_error(
                "Invalid schema for response_format 'verdict': In context=(), 'additionalProperties' is required "
                "to be supplied and to be false.",
                "response_format",
                "invalid_json_schema",
            ),
        ),
        (
            {
                "type": "json_schema",
                "json_schema": {
                    "name": "verdict",
                    "strict": True,
                    "schema": {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["edits"],
                        "properties": {"edits": {"type": "array", "items": EDIT_MISSING_WHY}},
                    },
                },
            },
            openai_error(
                "Invalid schema for response_format 'verdict': In context=('properties', 'edits', 'items'), "
                "'required' is required to be supplied and to be an array including every key in properties. "
                "Missing 'why'.",
                "response_format",
                "invalid_json_schema",
            ),
        ),
    ],
)
async def test_a_response_format_openai_refuses(fmt, expected):
    async with strict_openai() as server:
        refused = await chat(server, model="gpt-4o", response_format=fmt)
    assert refused.status_code == 400
    assert refused.json() == expected


async def test_json_mode_needs_the_word_json_in_the_messages():
    async with strict_openai() as server:
        refused = await chat(server, model="gpt-4.1", response_format={"type": "json_object"})
        taken = await chat(
            server,
            model="gpt-4.1",
            response_format={"type": "json_object"},
            messages=[{"role": "user", "content": "Answer in JSON."}],
        )
    assert refused.json() == openai_error(
        "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
        "messages",
    )
    assert taken.status_code == 200


# --- OpenAI: models and keys ---------------------------------------------------------------------------------


async def test_an_unknown_model_is_a_404_and_a_missing_one_a_400():
    async with strict_openai() as server:
        unknown = await chat(server, model="gpt-4-nonesuch")
        missing = await chat(server)
    assert unknown.status_code == 404
    assert unknown.json() == openai_error(
        "The model `gpt-4-nonesuch` does not exist or you do not have access to it.", code="model_not_found"
    )
    assert missing.status_code == 400
    assert missing.json() == openai_error("you must provide a model parameter")


async def test_a_served_model_name_follows_its_family():
    async with strict_openai(models={"deepseek-reasoner": "o-series", "Qwen/Qwen3-8B": "chat"}) as server:
        reasoner = await chat(server, model="deepseek-reasoner", max_tokens=10)
        qwen = await chat(server, model="Qwen/Qwen3-8B", max_tokens=10, temperature=0.6)
    assert reasoner.json()["error"]["code"] == "unsupported_parameter"
    assert qwen.status_code == 200


def test_a_served_model_needs_a_known_family():
    with pytest.raises(ValueError, match="unknown model family 'reasoner'"):
        FakeOpenAIServer(strict=True, models={"x": "reasoner"})


async def test_the_key_is_checked_when_one_is_set():
    async with strict_openai() as server:
        missing = await chat(server, key=None, model="gpt-4o")
        wrong = await chat(server, key="sk-proj-another-key-0000000000000000WXYZ", model="gpt-4o")
        right = await chat(server, model="gpt-4o")
    assert missing.status_code == wrong.status_code == 401
    assert missing.json() == openai_error(
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer "
        "auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're "
        "accessing the API from your browser and are prompted for a username. You can obtain an API key from "
        "https://platform.openai.com/account/api-keys."
    )
    assert wrong.json() == openai_error(
        "Incorrect API key provided: sk-proj-****************************WXYZ. You "
        "can find your API key at https://platform.openai.com/account/api-keys.",
        code="invalid_api_key",
    )
    assert right.status_code == 200


async def test_any_key_is_taken_when_none_is_set():
    async with FakeOpenAIServer(strict=True) as server:
        answer = await chat(server, key="sk-anything", model="gpt-4o")
    assert answer.status_code == 200


# --- OpenAI: reply shapes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("strict", [True, False])
async def test_a_refusal_and_a_content_filter_stop(strict):
    replies = [Reply("refusal", text="I can't help with that."), Reply("content_filter")]
    async with FakeOpenAIServer(strict=strict, behaviour=lambda i, body: replies[i]) as server:
        refusal = (await chat(server, model="gpt-4o")).json()["choices"][0]
        filtered = (await chat(server, model="gpt-4o")).json()["choices"][0]
    assert refusal["message"]["content"] is None and refusal["message"]["refusal"] == "I can't help with that."
    assert refusal["finish_reason"] == "stop"
    assert filtered["message"]["content"] is None and filtered["finish_reason"] == "content_filter"


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
@pytest.mark.parametrize("strict", [True, False])
async def test_a_compatible_reasoner_shows_its_reasoning_apart(field, strict):
    served = {"deepseek-reasoner": "chat"}
    behaviour = [Reply(), Reply(reasoning="a different thought")]
    async with FakeOpenAIServer(
        strict=strict,
        models=served,
        reasoning_field=field,
        reasoning_text="first a thought",
        responder=lambda body: "the answer",
        behaviour=lambda i, body: behaviour[i],
    ) as server:
        first = (await chat(server, model="deepseek-reasoner")).json()
        second = (await chat(server, model="deepseek-reasoner")).json()
    message = first["choices"][0]["message"]
    assert message["content"] == "the answer" and message[field] == "first a thought"
    assert {"reasoning_content", "reasoning"} - {field} & set(message) == set()
    assert first["usage"]["completion_tokens"] == 5
    assert first["usage"]["completion_tokens_details"]["reasoning_tokens"] == 3
    assert second["choices"][0]["message"][field] == "a different thought"


async def test_the_lenient_default_is_unchanged():
    async with FakeOpenAIServer() as server:
        answer = await chat(server, key=None, model="o3", max_tokens=5, temperature=0, reasoning_effort="extreme")
    assert answer.status_code == 200
    assert answer.json()["choices"] == [
        {"index": 0, "message": {"role": "assistant", "content": "echo: Say hi"}, "finish_reason": "stop"}
    ]
    assert answer.json()["usage"] == {"prompt_tokens": 2, "completion_tokens": 3, "total_tokens": 5}


async def test_requests_are_counted_per_model_answered_or_refused():
    async with strict_openai() as server:
        await chat(server, model="gpt-4o")
        await chat(server, model="o3", max_tokens=10)  # refused, still a request
        await chat(server, model="gpt-4o")
        await chat(server, model="nonesuch")
    assert server.model_requests == {"gpt-4o": 2, "o3": 1, "nonesuch": 1}


# --- Anthropic -------------------------------------------------------------------------------------------------

ANTHROPIC_KEY = "sk-ant-strict-fake-0123456789"


async def message(server: FakeAnthropicServer, *, headers: dict[str, str] | None = None, **body: Any) -> httpx.Response:
    sent = {"x-api-key": ANTHROPIC_KEY, "anthropic-version": "2023-06-01"} if headers is None else headers
    async with local_client() as client:
        return await client.post(f"{server.base_url}/v1/messages", headers=sent, json={"messages": MESSAGES, **body})


def anthropic_error(response: httpx.Response, kind: str = "invalid_request_error") -> str:
    """The message of an Anthropic error body, after checking the rest of its shape."""
    body = response.json()
    assert body["request_id"].startswith("req_")
    assert body == {
        "type": "error",
        "error": {"type": kind, "message": body["error"]["message"]},
        "request_id": body["request_id"],
    }
    return body["error"]["message"]


def strict_anthropic(**kwargs: Any) -> FakeAnthropicServer:
    return FakeAnthropicServer(strict=True, api_key=ANTHROPIC_KEY, **kwargs)


BOTH = "`temperature` and `top_p` cannot both be specified for this model. Please use only one."


@pytest.mark.parametrize(
    "model",
    [
        "claude-sonnet-4-5",
        "claude-sonnet-4-5-20250929",
        "claude-haiku-4-5",
        "claude-haiku-4-5-20251001",
        "claude-opus-4-5",
        "claude-sonnet-4-6",
        "claude-opus-4-6",
    ],
)
async def test_claude_4_5_and_later_take_temperature_or_top_p_not_both(model):
    async with strict_anthropic() as server:
        both = await message(server, model=model, max_tokens=100, temperature=0.5, top_p=0.9)
        one = [
            await message(server, model=model, max_tokens=100, temperature=0.5),
            await message(server, model=model, max_tokens=100, top_p=0.9),
        ]
    assert both.status_code == 400 and anthropic_error(both) == BOTH
    assert [answer.status_code for answer in one] == [200, 200]


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("temperature", 1.5, "temperature: Input should be less than or equal to 1"),
        ("top_p", -0.1, "top_p: Input should be greater than or equal to 0"),
        ("temperature", "hot", "temperature: Input should be a valid number"),
    ],
)
async def test_sampling_values_claude_refuses(name, value, expected):
    async with strict_anthropic() as server:
        refused = await message(server, model="claude-sonnet-4-6", max_tokens=100, **{name: value})
    assert refused.status_code == 400 and anthropic_error(refused) == expected


@pytest.mark.parametrize("model", ["claude-opus-4-1-20250805", "claude-sonnet-4-20250514", "claude-3-7-sonnet-latest"])
async def test_a_retired_model_is_not_found(model):
    async with strict_anthropic() as server:
        refused = await message(server, model=model, max_tokens=100)
    assert refused.status_code == 404 and anthropic_error(refused, "not_found_error") == f"model: {model}"


@pytest.mark.parametrize(
    "model",
    [
        "claude-opus-4-7",
        "claude-opus-4-8",
        "claude-sonnet-5",
        "claude-opus-5",
        "claude-haiku-5-5",
        "claude-sonnet-5-5",
        "claude-opus-5-5",
        "claude-fable-5",
    ],
)
@pytest.mark.parametrize("name", ["temperature", "top_p", "top_k"])
async def test_opus_4_7_and_later_refuse_every_sampling_parameter(model, name):
    async with strict_anthropic() as server:
        refused = await message(server, model=model, max_tokens=100, **{name: 1})
        taken = await message(server, model=model, max_tokens=100)
    assert refused.status_code == 400 and anthropic_error(refused) == f"`{name}` is deprecated for this model."
    assert taken.status_code == 200


@pytest.mark.parametrize("model", ["claude-haiku-4-5", "claude-sonnet-4-6"])
async def test_api_version_2026_10_21_has_no_sampling_parameters_on_any_model(model):
    new = {"x-api-key": ANTHROPIC_KEY, "anthropic-version": "2026-10-21"}
    async with strict_anthropic() as server:
        refused = await message(server, headers=new, model=model, max_tokens=100, temperature=0.5)
        taken = await message(server, headers=new, model=model, max_tokens=100)
        first_version = await message(server, model=model, max_tokens=100, temperature=0.5)
    assert refused.status_code == 400 and anthropic_error(refused) == "temperature: Extra inputs are not permitted"
    assert taken.status_code == first_version.status_code == 200


@pytest.mark.parametrize(
    ("headers", "status", "kind", "expected"),
    [
        ({"x-api-key": ANTHROPIC_KEY}, 400, "invalid_request_error", "anthropic-version: header is required"),
        (
            {"x-api-key": ANTHROPIC_KEY, "anthropic-version": "2024-10-22"},
            400,
            "invalid_request_error",
            'anthropic-version: "2024-10-22" is not a valid version',
        ),
        ({"anthropic-version": "2023-06-01"}, 401, "authentication_error", "x-api-key header is required"),
        (
            {"x-api-key": "sk-ant-another", "anthropic-version": "2023-06-01"},
            401,
            "authentication_error",
            "invalid x-api-key",
        ),
    ],
)
async def test_headers_the_api_requires(headers, status, kind, expected):
    async with strict_anthropic() as server:
        refused = await message(server, headers=headers, model="claude-sonnet-4-5", max_tokens=100)
    assert refused.status_code == status and anthropic_error(refused, kind) == expected


async def test_an_unknown_model_and_a_missing_max_tokens():
    async with strict_anthropic() as server:
        unknown = await message(server, model="claude-3-5-sonnet-20241022", max_tokens=100)  # retired
        no_limit = await message(server, model="claude-sonnet-4-5")
    assert unknown.status_code == 404
    assert anthropic_error(unknown, "not_found_error") == "model: claude-3-5-sonnet-20241022"
    assert no_limit.status_code == 400 and anthropic_error(no_limit) == "max_tokens: Field required"


TEMPERATURE_WITH_THINKING = (
    "`temperature` may only be set to 1 when thinking is enabled or in adaptive mode. "
    "Please consult our documentation at "
    "https://platform.claude.com/docs/en/build-with-claude/extended-thinking"
)


@pytest.mark.parametrize(
    ("request_body", "expected"),
    [
        (
            {"thinking": {"type": "enabled", "budget_tokens": 1000}, "max_tokens": 4000},
            "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
        ),
        ({"thinking": {"type": "enabled"}, "max_tokens": 4000}, "thinking.enabled.budget_tokens: Field required"),
        (
            {"thinking": {"type": "enabled", "budget_tokens": 4000}, "max_tokens": 4000},
            "`max_tokens` must be greater than `thinking.budget_tokens`.",
        ),
        (
            {"thinking": {"type": "enabled", "budget_tokens": 2000}, "max_tokens": 4000, "temperature": 0.5},
            TEMPERATURE_WITH_THINKING,
        ),
        (
            {"thinking": {"type": "enabled", "budget_tokens": 2000}, "max_tokens": 4000, "top_k": 5},
            "`top_k` must be unset when thinking is enabled or in adaptive mode",
        ),
        (
            {"thinking": {"type": "enabled", "budget_tokens": 2000}, "max_tokens": 4000, "top_p": 0.9},
            "`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled",
        ),
        ({"thinking": {"type": "adaptive"}, "max_tokens": 4000}, '"thinking.type.adaptive" is not supported'),
        (
            {"thinking": {"type": "on"}, "max_tokens": 4000},
            "thinking: Input tag 'on' found using 'type' does not match any of the expected tags: 'adaptive', "
            "'between_tools', 'disabled', 'enabled'",
        ),
    ],
)
async def test_thinking_rules_of_claude_sonnet_4_5(request_body, expected):
    async with strict_anthropic() as server:
        refused = await message(server, model="claude-sonnet-4-5", **request_body)
    assert refused.status_code == 400 and anthropic_error(refused) == expected


@pytest.mark.parametrize(
    "request_body",
    [
        {"thinking": {"type": "enabled", "budget_tokens": 1024}, "max_tokens": 1025},
        {"thinking": {"type": "enabled", "budget_tokens": 2000}, "max_tokens": 4000, "temperature": 1},
        {"thinking": {"type": "enabled", "budget_tokens": 2000}, "max_tokens": 4000, "top_p": 0.95},
        {"thinking": {"type": "disabled"}, "max_tokens": 100, "temperature": 0},
    ],
)
async def test_thinking_claude_sonnet_4_5_takes(request_body):
    async with strict_anthropic() as server:
        taken = await message(server, model="claude-sonnet-4-5", **request_body)
    assert taken.status_code == 200


THINKING = {
    "enabled": {"type": "enabled", "budget_tokens": 2000},
    "adaptive": {"type": "adaptive"},
    "disabled": {"type": "disabled"},
    "between_tools": {"type": "between_tools"},
}
THINKING_REFUSED = {
    "enabled": (
        '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and '
        '"output_config.effort" to control thinking behavior.'
    ),
    "adaptive": '"thinking.type.adaptive" is not supported',
    "disabled": '"thinking.type.disabled" is not supported for this model.',
    "between_tools": '"thinking.type.between_tools" is not supported for this model.',
}


@pytest.mark.parametrize(
    ("model", "taken"),
    [
        ("claude-haiku-4-5", {"enabled", "disabled"}),
        ("claude-opus-4-5", {"enabled", "disabled"}),
        ("claude-sonnet-4-6", {"enabled", "adaptive", "disabled"}),
        ("claude-opus-4-8", {"adaptive", "disabled"}),
        ("claude-sonnet-5", {"adaptive", "disabled"}),
        ("claude-haiku-5-5", {"adaptive", "disabled"}),
        ("claude-sonnet-5-5", {"adaptive", "between_tools"}),
        ("claude-opus-5-5", {"adaptive"}),
        ("claude-fable-5-1", {"adaptive"}),
        ("claude-mythos-5", {"adaptive"}),
    ],
)
async def test_the_thinking_types_each_family_takes(model, taken):
    async with strict_anthropic() as server:
        answers = {
            kind: await message(server, model=model, max_tokens=4000, thinking=thinking)
            for kind, thinking in THINKING.items()
        }
    assert {kind for kind, answer in answers.items() if answer.status_code == 200} == taken
    for kind, answer in answers.items():
        if kind not in taken:
            assert answer.status_code == 400 and anthropic_error(answer) == THINKING_REFUSED[kind]


async def test_with_thinking_on_temperature_is_1_or_unset_where_sampling_remains():
    async with strict_anthropic() as server:
        adaptive = await message(
            server, model="claude-sonnet-4-6", max_tokens=4000, thinking={"type": "adaptive"}, temperature=0
        )
        removed = await message(
            server, model="claude-opus-4-8", max_tokens=4000, thinking={"type": "adaptive"}, temperature=0
        )
    assert adaptive.status_code == 400 and anthropic_error(adaptive) == TEMPERATURE_WITH_THINKING
    assert removed.status_code == 400 and anthropic_error(removed) == "`temperature` is deprecated for this model."


@pytest.mark.parametrize(
    ("model", "thinking", "blocks"),
    [
        ("claude-sonnet-5", None, ["thinking", "text"]),  # Claude 5 thinks unless told not to
        ("claude-sonnet-5", {"type": "disabled"}, ["text"]),
        ("claude-sonnet-5-5", {"type": "between_tools"}, ["text"]),  # no thinking before the answer
        ("claude-opus-4-8", None, ["text"]),  # Opus 4.7 and 4.8 think only when asked
        ("claude-opus-4-8", {"type": "adaptive"}, ["thinking", "text"]),
        ("claude-sonnet-4-6", None, ["text"]),
    ],
)
async def test_whether_a_reply_thinks_follows_the_request_or_the_family(model, thinking, blocks):
    async with strict_anthropic() as server:
        answer = (
            await message(server, model=model, max_tokens=4000, **({} if thinking is None else {"thinking": thinking}))
        ).json()
    assert [block["type"] for block in answer["content"]] == blocks


@pytest.mark.parametrize(
    ("model", "taken"),
    [
        ("claude-haiku-4-5", []),
        ("claude-sonnet-4-5", []),
        ("claude-opus-4-5", ["low", "medium", "high"]),
        ("claude-sonnet-4-6", ["low", "medium", "high", "max"]),
        ("claude-opus-4-7", ["low", "medium", "high", "xhigh", "max"]),
    ],
)
async def test_effort_per_family(model, taken):
    async with strict_anthropic() as server:
        answers = {
            effort: await message(server, model=model, max_tokens=100, output_config={"effort": effort})
            for effort in ["low", "medium", "high", "xhigh", "max"]
        }
    assert [effort for effort, answer in answers.items() if answer.status_code == 200] == taken
    refused = [answer for answer in answers.values() if answer.status_code == 400]
    if not taken:
        assert {anthropic_error(answer) for answer in refused} == {"This model does not support the effort parameter."}
    else:
        allowed = ", ".join(f"'{effort}'" for effort in taken[:-1]) + f" or '{taken[-1]}'"
        assert {anthropic_error(answer) for answer in refused} <= {f"output_config.effort: Input should be {allowed}"}


async def test_a_thinking_reply_puts_signed_thinking_before_the_text():
    async with strict_anthropic(
        thinking_text="weighing the options",
        responder=lambda body: "the answer",
        cache_read_tokens=7,
        cache_creation_tokens=2,
    ) as server:
        answer = (
            await message(
                server, model="claude-sonnet-4-5", max_tokens=2000, thinking={"type": "enabled", "budget_tokens": 1024}
            )
        ).json()
    thinking, text = answer["content"]
    assert thinking["type"] == "thinking" and thinking["thinking"] == "weighing the options"
    assert isinstance(thinking["signature"], str) and thinking["signature"]
    assert text == {"type": "text", "text": "the answer"}
    assert answer["usage"] == {
        "input_tokens": 2,
        "output_tokens": 5,
        "cache_creation_input_tokens": 2,
        "cache_read_input_tokens": 7,
    }


@pytest.mark.parametrize(
    ("thinking", "shown"), [({"type": "adaptive"}, ""), ({"type": "adaptive", "display": "summarized"}, "weighing it")]
)
async def test_opus_4_7_omits_its_thinking_unless_asked(thinking, shown):
    async with strict_anthropic(thinking_text="weighing it") as server:
        answer = (await message(server, model="claude-opus-4-7", max_tokens=2000, thinking=thinking)).json()
    assert answer["content"][0]["type"] == "thinking" and answer["content"][0]["thinking"] == shown
    assert answer["usage"]["output_tokens"] == 2 + 3  # the thinking is paid for, shown or not


async def test_redacted_thinking():
    async with strict_anthropic() as server:
        server.redact_thinking = True
        answer = (
            await message(server, model="claude-sonnet-4-6", max_tokens=2000, thinking={"type": "adaptive"})
        ).json()
    redacted = answer["content"][0]
    assert redacted["type"] == "redacted_thinking" and isinstance(redacted["data"], str) and redacted["data"]
    assert set(redacted) == {"type", "data"}
    assert answer["content"][1]["type"] == "text"


async def test_the_answer_is_cut_at_max_tokens_after_the_thinking():
    words = " ".join(f"w{i}" for i in range(2000))
    async with strict_anthropic(thinking_text="weighing it", responder=lambda body: words) as server:
        cut = (
            await message(
                server, model="claude-sonnet-4-5", max_tokens=1100, thinking={"type": "enabled", "budget_tokens": 1024}
            )
        ).json()
        plain = (await message(server, model="claude-sonnet-4-5", max_tokens=10)).json()
    assert cut["stop_reason"] == "max_tokens" and cut["usage"]["output_tokens"] == 1100
    assert cut["content"][1]["text"] == " ".join(f"w{i}" for i in range(1098))
    assert plain["stop_reason"] == "max_tokens"
    assert plain["content"] == [{"type": "text", "text": " ".join(f"w{i}" for i in range(10))}]


@pytest.mark.parametrize("strict", [True, False])
async def test_a_refusal_stop_and_reasoning_from_the_behaviour(strict):
    replies = [Reply("refusal", text=""), Reply(text="fine", reasoning="thought it over")]
    async with FakeAnthropicServer(strict=strict, behaviour=lambda i, body: replies[i]) as server:
        refused = (await message(server, model="claude-sonnet-4-5", max_tokens=100)).json()
        reasoned = (await message(server, model="claude-sonnet-4-5", max_tokens=100)).json()
    assert refused["stop_reason"] == "refusal" and refused["content"] == []
    assert [block["type"] for block in reasoned["content"]] == ["thinking", "text"]
    assert reasoned["content"][0]["thinking"] == "thought it over"


async def test_the_lenient_anthropic_default_is_unchanged():
    async with FakeAnthropicServer() as server:
        answer = await message(
            server,
            model="claude-made-up",
            max_tokens=100,
            temperature=0.5,
            top_p=0.9,
            thinking={"type": "enabled", "budget_tokens": 5},
        )
    assert answer.status_code == 200
    assert answer.json()["content"] == [{"type": "text", "text": "echo: Say hi"}]
    assert answer.json()["usage"] == {"input_tokens": 2, "output_tokens": 3}


async def test_batch_items_meet_the_same_rules_and_are_counted():
    requests = [
        {"custom_id": "good", "params": {"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": MESSAGES}},
        {
            "custom_id": "both",
            "params": {
                "model": "claude-sonnet-4-5",
                "max_tokens": 100,
                "messages": MESSAGES,
                "temperature": 0.5,
                "top_p": 0.9,
            },
        },
        {"custom_id": "unknown", "params": {"model": "claude-nonesuch", "max_tokens": 100, "messages": MESSAGES}},
    ]
    headers = {"x-api-key": ANTHROPIC_KEY, "anthropic-version": "2023-06-01"}
    async with strict_anthropic(polls_to_complete=0) as server, local_client(headers=headers) as client:
        created = (await client.post(f"{server.base_url}/v1/messages/batches", json={"requests": requests})).json()
        await client.get(f"{server.base_url}/v1/messages/batches/{created['id']}")
        lines = (await client.get(f"{server.base_url}/v1/messages/batches/{created['id']}/results")).text
    results = {item["custom_id"]: item["result"] for item in map(json.loads, lines.splitlines())}
    assert results["good"]["type"] == "succeeded"
    assert results["both"]["type"] == "errored" and results["both"]["error"]["error"]["message"] == BOTH
    assert results["unknown"]["error"]["error"] == {"type": "not_found_error", "message": "model: claude-nonesuch"}
    assert server.model_requests == {"claude-sonnet-4-5": 2, "claude-nonesuch": 1}


# --- both, as programs ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("module", "path", "headers", "body", "expected"),
    [
        (
            "proseval.testing.fake_openai",
            "/chat/completions",
            {"Authorization": "Bearer sk-wrong"},
            {"model": "gpt-4o", "messages": MESSAGES},
            401,
        ),
        (
            "proseval.testing.fake_openai",
            "/chat/completions",
            {"Authorization": f"Bearer {KEY}"},
            {"model": "o3", "max_tokens": 5, "messages": MESSAGES},
            400,
        ),
        (
            "proseval.testing.fake_anthropic",
            "/v1/messages",
            {"x-api-key": "sk-wrong", "anthropic-version": "2023-06-01"},
            {"model": "claude-sonnet-4-5", "max_tokens": 5, "messages": MESSAGES},
            401,
        ),
        (
            "proseval.testing.fake_anthropic",
            "/v1/messages",
            {"x-api-key": KEY, "anthropic-version": "2023-06-01"},
            {"model": "claude-sonnet-4-5", "max_tokens": 5, "messages": MESSAGES, "temperature": 0, "top_p": 1},
            400,
        ),
    ],
)
def test_the_strict_flag_of_the_programs(module, path, headers, body, expected):
    environment = {**os.environ, "FAKE_PROVIDER_KEY": KEY}
    program = subprocess.Popen(
        [sys.executable, "-m", module, "--strict", "--api-key-env", "FAKE_PROVIDER_KEY"],
        stdout=subprocess.PIPE,
        text=True,
        env=environment,
    )
    try:
        assert program.stdout is not None
        banner = program.stdout.readline()
        assert "(strict" in banner
        answer = httpx.post(banner.split()[2] + path, headers=headers, json=body, verify=False)
    finally:
        program.terminate()
        program.wait(30)
    assert answer.status_code == expected


def test_the_program_refuses_a_model_of_an_unknown_family():
    finished = subprocess.run(
        [sys.executable, "-m", "proseval.testing.fake_openai", "--strict", "--model", "deepseek-reasoner=reasoner"],
        capture_output=True,
        text=True,
    )
    assert finished.returncode == 2
    assert "unknown model family 'reasoner'; families: gpt-5-chat," in finished.stderr
