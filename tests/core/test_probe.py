"""The probe before money is spent, and structured output negotiated with each endpoint: a wrong
model, key or setting ends the command before the first candidate request; an endpoint that refuses
`json_schema` is asked in the form it takes, learned once and recorded in the header."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proseval.cli import app
from proseval.models.base import FatalError, GenerateConfig
from proseval.models.openai_compat import make_endpoint
from proseval.models.structured_modes import in_mode
from proseval.runtime import probe
from proseval.runtime.runlog import RunFolder
from proseval.testing.fake_openai import FakeOpenAIServer, Reply, default_text

runner = CliRunner()
SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
FORMAT = {"response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": SCHEMA, "strict": True}}}
VERDICT = '{"ok": true, "score": 7, "reason": "clear"}'
LLAMA_REFUSAL = (
    "1 validation error: body -> response_format -> type: Input should be 'text' or 'json_object' (type=literal_error)"
)


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    probe.forget()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PROSEVAL_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("OPENAI_API_KEY", "PROSEVAL_API_KEY", "PROSEVAL_BASE_URL", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def refuses_json_schema(also_json_object: bool = False):
    """A server that refuses `json_schema` as llama-cpp-python's does (and, optionally, `json_object`)."""

    def behaviour(_n: int, body: dict) -> Reply:
        kind = (body.get("response_format") or {}).get("type")
        if kind == "json_schema" or (also_json_object and kind == "json_object"):
            return Reply("status", 500, text=LLAMA_REFUSAL if kind == "json_schema" else "response_format unsupported")
        return Reply("ok", text=VERDICT if kind else default_text(body))

    return behaviour


def test_the_modes_of_a_schema_held_request():
    messages = [{"role": "user", "content": "Rate it."}]
    params = {"temperature": 0.0, **FORMAT}
    assert in_mode(messages, params, "json_schema") == (messages, params)
    assert in_mode(messages, params, "json_object")[1]["response_format"] == {"type": "json_object", "schema": SCHEMA}
    asked, rest = in_mode(messages, params, "prompt")
    assert rest == {"temperature": 0.0} and asked[0]["content"].startswith("Rate it.\n\nAnswer with one JSON object")
    assert json.dumps(SCHEMA) in asked[0]["content"] and messages[0]["content"] == "Rate it."  # not changed in place
    assert in_mode(messages, {"temperature": 0.0}, "prompt") == (messages, {"temperature": 0.0})


@pytest.mark.parametrize(("also", "mode"), [(False, "json_object"), (True, "prompt")])
async def test_an_endpoint_that_refuses_the_format_is_asked_in_the_next_form(also, mode):
    async with FakeOpenAIServer(behaviour=refuses_json_schema(also)) as server:
        model = make_endpoint("openai-compatible", "m", [server.base_url])
        first = await model.generate([{"role": "user", "content": "Rate it."}], GenerateConfig(**FORMAT))
        again = await model.generate([{"role": "user", "content": "Rate it."}], GenerateConfig(**FORMAT))
        await model.aclose()
    assert (
        first.text
        == again.text
        == (
            VERDICT
            if mode == "json_object"
            else "echo: Rate it.\n\nAnswer with "
            "one JSON object and nothing else. It must follow this JSON Schema:\n" + json.dumps(SCHEMA)
        )
    )
    assert model.structured == mode
    kinds = [(body.get("response_format") or {}).get("type") for body in server.requests]
    learned = ["json_object"] if mode == "json_object" else [None]
    assert kinds == ["json_schema", *(["json_object"] if also else []), *learned, *learned]  # learned once


async def test_a_refusal_that_is_not_about_the_format_is_not_stepped_around():
    async with FakeOpenAIServer(behaviour=lambda n, b: Reply("status", 400, text="bad key")) as server:
        model = make_endpoint("openai-compatible", "m", [server.base_url])
        with pytest.raises(FatalError, match="bad key"):
            await model.generate([{"role": "user", "content": "x"}], GenerateConfig(**FORMAT))
        await model.aclose()
    assert len(server.requests) == 1 and model.structured == "json_schema"


def serve(behaviour=None) -> Iterator[FakeOpenAIServer]:
    server = FakeOpenAIServer(behaviour=behaviour).start_in_thread()
    try:
        yield server
    finally:
        server.stop_thread()


@pytest.fixture
def candidate_server():
    yield from serve()


@pytest.fixture
def judge_server():
    def behaviour(_n: int, body: dict) -> Reply:
        if body.get("model") == "nosuch-judge":
            return Reply("status", 404, text="The model `nosuch-judge` does not exist or you do not have access to it.")
        if body.get("model") == "reasoner" and body.get("temperature") not in (None, 1):
            return Reply(
                "status",
                400,
                text="Unsupported value: 'temperature' does not support 0.3 with this model. "
                "Only the default (1) value is supported.",
            )
        return refuses_json_schema()(_n, body)

    yield from serve(behaviour)


def run_demo(candidate: FakeOpenAIServer, judge: FakeOpenAIServer, judge_model: str, *extra: str):
    return runner.invoke(
        app,
        [
            "run",
            "demo",
            "-m",
            "openai-compatible/writer",
            "--base-url",
            candidate.base_url,
            "-r",
            f"judge=openai-compatible/{judge_model}",
            "--role-base-url",
            f"judge={judge.base_url}",
            "--limit",
            "3",
            "--display",
            "none",
            *extra,
        ],
    )


def test_a_wrong_judge_model_ends_the_command_before_any_candidate_request(candidate_server, judge_server):
    result = run_demo(candidate_server, judge_server, "nosuch-judge")
    assert result.exit_code == 2, result.output
    assert "--role judge openai-compatible/nosuch-judge: the endpoint does not know this model" in result.output
    assert len(candidate_server.requests) <= 1  # at most the candidate's own probe, never a sample
    assert not Path("runs").exists() or not any(Path("runs").iterdir())


def test_a_refused_setting_names_the_g_that_leaves_it_out(candidate_server, judge_server):
    result = run_demo(candidate_server, judge_server, "reasoner")  # the demo's judge temperature is 0
    assert result.exit_code == 2, result.output
    assert "refused the setting temperature" in result.output and "-g judge.temperature=null" in result.output
    assert len(candidate_server.requests) <= 1


def test_the_probe_learns_the_format_and_the_header_records_it(candidate_server, judge_server):
    result = run_demo(candidate_server, judge_server, "judge")
    assert result.exit_code == 0, result.output
    folder = RunFolder(next(Path("runs").iterdir()))
    header = folder.read_header()
    assert header.roles["judge"].structured_output == "json_object"
    assert header.roles["candidate"].structured_output == "json_schema"
    judged = [b for b in judge_server.requests if b.get("response_format")]
    assert [b["response_format"]["type"] for b in judged] == ["json_schema"] + ["json_object"] * (len(judged) - 1)
    assert len(candidate_server.requests) == 1 + 3  # the probe, then one answer per sample
    scored = [json.loads(line) for line in (folder.path / "samples.jsonl").read_text().splitlines()]
    assert all(r["status"] == "ok" for r in scored)
    assert all(score["value"] is not None for r in scored for score in r["scores"].values())


def test_no_probe_sends_nothing_before_the_samples(candidate_server, judge_server):
    result = run_demo(candidate_server, judge_server, "nosuch-judge", "--no-probe")
    assert result.exit_code == 4, result.output  # the judge's calls fail, after the candidate's were sent
    assert len(candidate_server.requests) == 3


def test_a_refused_setting_met_in_a_run_names_the_g_that_leaves_it_out(candidate_server, judge_server):
    result = run_demo(candidate_server, judge_server, "reasoner", "--no-probe", "--out", "runs")
    assert result.exit_code == 4, result.output
    record = json.loads((next(Path("runs").iterdir()) / "samples.jsonl").read_text().splitlines()[0])
    reason = record["scores"]["quality"]["explanation"]
    assert "the model refused temperature: leave it out with -g judge.temperature=null" in reason


def test_an_endpoint_that_does_not_answer_ends_the_command_at_the_probe(judge_server):
    dead = FakeOpenAIServer().start_in_thread()
    url = dead.base_url
    dead.stop_thread()
    result = runner.invoke(
        app,
        [
            "run",
            "demo",
            "-m",
            "openai-compatible/writer",
            "--base-url",
            url,
            "-r",
            "judge=scripted/echo",
            "--limit",
            "3",
            "--display",
            "none",
        ],
    )
    assert result.exit_code == 1, result.output
    assert "--model openai-compatible/writer: no answer after 3 tries" in result.output
    assert "--no-probe" in result.output and not Path("runs").exists()


def test_the_probe_is_counted_with_the_roles_requests_and_tokens(candidate_server, judge_server):
    result = run_demo(candidate_server, judge_server, "judge")
    assert result.exit_code == 0, result.output
    roles = json.loads((next(Path("runs").iterdir()) / "results.json").read_text())["roles"]
    assert roles["candidate"]["requests"] == roles["judge"]["requests"] == 1 + 3  # the probe, then the samples
    assert roles["judge"]["prompt_tokens"] > 0
