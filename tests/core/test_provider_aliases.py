"""Named OpenAI-compatible services (`openrouter/…`, `together/…`, `ollama/…`): parsing, keys,
which base URLs a role of one takes, and runs through one against the fake OpenAI server.

A service's key must only ever go where the user aimed it: the service's own endpoint, its
`PROSEVAL_<SERVICE>_BASE_URL`, or the role's own `--role-base-url`; never the shared `--base-url`.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from proseval.cli import app
from proseval.cli.panel import PanelJudge, panel_urls, parse_panel
from proseval.core.prices import ModelPrice, Prices
from proseval.models.base import FatalError, GenerateConfig
from proseval.models.openai_compat import CompatModel, resolve_api_key
from proseval.models.spec import PROVIDERS, SERVICES, build_model, parse_model_spec
from proseval.runtime.limits import endpoint_key_problem, matches
from proseval.runtime.records import RoleBinding
from proseval.runtime.roles import RoleError, RoleRequest, resolve_roles
from proseval.testing.fake_openai import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-or-v1-test-DO-NOT-LEAK-0123456789"
OTHER_KEYS = ("OPENAI_API_KEY", "PROSEVAL_API_KEY")
cli = CliRunner()

# What each service's own docs give its OpenAI SDK users (see the comments on `SERVICES`).
DOCUMENTED = {
    "openrouter": ("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", True),
    "together": ("https://api.together.ai/v1", "TOGETHER_API_KEY", True),
    "deepseek": ("https://api.deepseek.com", "DEEPSEEK_API_KEY", True),
    "groq": ("https://api.groq.com/openai/v1", "GROQ_API_KEY", True),
    "mistral": ("https://api.mistral.ai/v1", "MISTRAL_API_KEY", True),
    "fireworks": ("https://api.fireworks.ai/inference/v1", "FIREWORKS_API_KEY", True),
    "gemini": ("https://generativelanguage.googleapis.com/v1beta/openai", "GEMINI_API_KEY", True),
    "ollama": ("http://localhost:11434/v1", None, False),
    "vllm": ("http://localhost:8000/v1", "VLLM_API_KEY", False),
}


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No key or endpoint variable of the machine's, and no `.env` from elsewhere."""
    for service in SERVICES.values():
        monkeypatch.delenv(service.url_variable, raising=False)
        if service.key_variable:
            monkeypatch.delenv(service.key_variable, raising=False)
    for name in (*OTHER_KEYS, "PROSEVAL_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


class KeyRecordingServer(FakeOpenAIServer):
    """The fake server, also keeping the Authorization header of every request."""

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.authorizations: list[str | None] = []

    async def _respond(self, request_line: str, raw: bytes, writer: Any, headers: dict[str, str] | None = None) -> bool:
        self.authorizations.append((headers or {}).get("authorization"))
        return await super()._respond(request_line, raw, writer, headers)


# --- the table ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_each_service_is_its_documented_endpoint_and_key(name):
    service = SERVICES[name]
    assert (service.base_url, service.key_variable, service.key_required) == DOCUMENTED[name]
    assert service.description and service.checked[:4].isdigit() and name in PROVIDERS


def test_the_runtime_docs_list_every_service():
    text = (ROOT / "docs" / "runtime.md").read_text()
    for service in SERVICES.values():
        assert f"| `{service.name}/` | {service.base_url} |" in text, service.name
        assert service.key_variable is None or f"`{service.key_variable}`" in text


# --- parsing and endpoints ------------------------------------------------------------------------


def test_only_the_first_segment_names_the_service():
    spec = parse_model_spec("openrouter/anthropic/claude-sonnet-4.5")
    assert (spec.provider, spec.model) == ("openrouter", "anthropic/claude-sonnet-4.5")
    assert spec.spec == "openrouter/anthropic/claude-sonnet-4.5"  # as written, never rewritten
    assert spec.base_urls == ("https://openrouter.ai/api/v1",)
    assert spec.describe() == "openrouter/anthropic/claude-sonnet-4.5 @ https://openrouter.ai/api/v1"
    together = parse_model_spec("together/meta-llama/Llama-3.3-70B-Instruct-Turbo", ["http://proxy:9/v1"])
    assert together.model == "meta-llama/Llama-3.3-70B-Instruct-Turbo" and together.base_urls == ("http://proxy:9/v1",)
    with pytest.raises(ValueError, match="must look like provider/model"):
        parse_model_spec("openrouter/")
    with pytest.raises(ValueError, match="known: .*openrouter, together"):
        parse_model_spec("openroute/x")


def test_the_endpoint_variable_moves_a_service(monkeypatch):
    monkeypatch.setenv("PROSEVAL_OLLAMA_BASE_URL", "http://gpu1:11434/v1, http://gpu2:11434/v1")
    assert parse_model_spec("ollama/qwen3:8b").base_urls == ("http://gpu1:11434/v1", "http://gpu2:11434/v1")
    assert parse_model_spec("ollama/qwen3:8b", ["http://own:1/v1"]).base_urls == ("http://own:1/v1",)
    assert parse_model_spec("vllm/x").base_urls == ("http://localhost:8000/v1",)  # another service's is its own


def test_the_shared_base_url_is_not_a_services():
    """`--base-url` is for OpenAI-compatible servers: a service's key must not go there."""
    request = RoleRequest(
        model="openai-compatible/qwen",
        roles={"judge": "openrouter/anthropic/claude-sonnet-4.5"},
        base_urls=["http://gpu1:8000/v1"],
    )
    bindings, _, _ = resolve_roles(request, ("candidate", "judge"), {})
    assert bindings["candidate"].base_urls == ["http://gpu1:8000/v1"]
    assert bindings["judge"].base_urls == ["https://openrouter.ai/api/v1"]
    assert bindings["judge"].spec == "openrouter/anthropic/claude-sonnet-4.5"
    request = replace(request, role_base_urls={"judge": ["http://proxy:9000/v1"]})
    assert resolve_roles(request, ("candidate", "judge"), {})[0]["judge"].base_urls == ["http://proxy:9000/v1"]
    with pytest.raises(RoleError, match="--role judge: unknown provider 'openrouterx'"):
        resolve_roles(replace(request, roles={"judge": "openrouterx/m"}), ("candidate", "judge"), {})


def test_a_panel_judge_of_a_service_keeps_to_its_own_endpoint():
    main = RoleBinding(spec="openai-compatible/qwen", base_urls=["http://gpu1:8000/v1"])
    request = RoleRequest(base_urls=["http://gpu1:8000/v1"])
    judge = PanelJudge("judge", "groq/llama-3.3-70b-versatile")
    assert panel_urls(judge, main, request) == []  # then the service's own, as parsed
    (aimed,) = parse_panel(["judge=groq/llama-3.3-70b-versatile@http://proxy:1/v1"])
    assert aimed.base_urls == ("http://proxy:1/v1",)


def test_endpoint_limits_name_a_services_endpoint():
    binding = RoleBinding(spec="deepseek/deepseek-chat", base_urls=list(parse_model_spec("deepseek/x").base_urls))
    assert endpoint_key_problem("deepseek/deepseek-chat") is None
    assert matches("deepseek/deepseek-chat", binding.spec, binding.base_urls)
    assert matches("https://api.deepseek.com", binding.spec, binding.base_urls)


# --- keys -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [n for n, s in SERVICES.items() if s.key_required])
def test_a_services_key_comes_from_its_own_variable_only(name, monkeypatch):
    service = SERVICES[name]
    for other in OTHER_KEYS:  # neither OpenAI's key nor the openai-compatible one is sent to a service
        monkeypatch.setenv(other, "sk-other-0123456789")
    with pytest.raises(FatalError) as refused:
        resolve_api_key(name)
    assert str(refused.value) == (
        f"{service.key_variable} is not set: export it, or add it to a .env file in the current folder"
    )
    monkeypatch.setenv(service.key_variable, KEY)
    assert resolve_api_key(name) == KEY


def test_a_local_service_needs_no_key_and_gets_no_other_one(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-0123456789")
    assert resolve_api_key("ollama") == resolve_api_key("vllm") == "EMPTY"
    monkeypatch.setenv("VLLM_API_KEY", "token-abc123")
    assert resolve_api_key("vllm") == "token-abc123"


def test_the_cache_identity_is_the_resolved_endpoint_never_the_key(monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", KEY)
    model = build_model(parse_model_spec("openrouter/anthropic/claude-sonnet-4.5"))
    assert isinstance(model, CompatModel)
    assert model.cache_identity() == {
        "provider": "openrouter",
        "model": "anthropic/claude-sonnet-4.5",
        "base_url": ["https://openrouter.ai/api/v1"],
    }
    monkeypatch.setenv("PROSEVAL_OPENROUTER_BASE_URL", "http://mirror:1/api/v1/")
    moved = build_model(parse_model_spec("openrouter/anthropic/claude-sonnet-4.5"))
    assert moved.cache_identity()["base_url"] == ["http://mirror:1/api/v1"]  # another endpoint: another entry
    assert KEY not in json.dumps(model.cache_identity()) + json.dumps(moved.cache_identity())


def test_a_service_built_without_endpoints_never_falls_back_to_openais(monkeypatch):
    from proseval.models.openai_compat import make_endpoint

    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://openai-proxy:1/v1")
    assert make_endpoint("gemini", "gemini-2.5-flash").base_urls == [SERVICES["gemini"].base_url]


async def test_the_services_key_and_model_name_reach_the_endpoint(monkeypatch):
    monkeypatch.setenv("TOGETHER_API_KEY", KEY)
    async with KeyRecordingServer() as server:
        model = build_model(parse_model_spec("together/meta-llama/Llama-3.3-70B-Instruct-Turbo", [server.base_url]))
        completion = await model.generate([{"role": "user", "content": "hi"}], GenerateConfig(max_tokens=5))
        await model.aclose()
    assert completion.text == "echo: hi"
    assert server.requests[0]["model"] == "meta-llama/Llama-3.3-70B-Instruct-Turbo"
    assert server.authorizations == [f"Bearer {KEY}"]


# --- the command line -----------------------------------------------------------------------------


def run_demo(*args: str, judge: str = "scripted/echo") -> Any:
    return cli.invoke(
        app, ["run", "demo", "-r", f"judge={judge}", "-n", "2", "--display", "none", "--out", "runs", *args]
    )


def only_run() -> Path:
    (run,) = Path("runs").iterdir()
    return run


def assert_no_key_in(folder: Path) -> None:
    for file in folder.rglob("*"):
        if file.is_file():
            assert KEY.encode() not in file.read_bytes(), file


def test_a_run_through_a_service_with_its_role_base_url(monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", KEY)
    server = KeyRecordingServer().start_in_thread()
    try:
        result = run_demo(
            "-m", "openrouter/meta-llama/llama-3.3-70b-instruct", "--role-base-url", f"candidate={server.base_url}"
        )
    finally:
        server.stop_thread()
    assert result.exit_code == 0, result.output
    assert server.requests and {r["model"] for r in server.requests} == {"meta-llama/llama-3.3-70b-instruct"}
    assert set(server.authorizations) == {f"Bearer {KEY}"}
    header = json.loads((only_run() / "header.json").read_text())
    assert header["roles"]["candidate"]["spec"] == "openrouter/meta-llama/llama-3.3-70b-instruct"
    assert header["roles"]["candidate"]["base_urls"] == [server.base_url]
    assert KEY not in result.output
    assert_no_key_in(only_run())


def test_the_shared_base_url_never_gets_a_services_requests(monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", KEY)
    shared, own = KeyRecordingServer().start_in_thread(), KeyRecordingServer().start_in_thread()
    monkeypatch.setenv("PROSEVAL_DEEPSEEK_BASE_URL", own.base_url)
    try:
        result = run_demo("-m", "deepseek/deepseek-chat", "--base-url", shared.base_url)
    finally:
        shared.stop_thread()
        own.stop_thread()
    assert result.exit_code == 0, result.output
    assert not shared.requests and not shared.authorizations
    assert own.requests and set(own.authorizations) == {f"Bearer {KEY}"}
    header = json.loads((only_run() / "header.json").read_text())
    assert header["roles"]["candidate"]["base_urls"] == [own.base_url]  # where the key went, recorded


def test_a_missing_key_names_its_variable_before_anything_is_made():
    result = run_demo("-m", "openrouter/anthropic/claude-sonnet-4.5")
    assert result.exit_code == 1
    assert "OPENROUTER_API_KEY is not set: export it, or add it to a .env file" in result.output
    assert not Path("runs").exists() or not any(Path("runs").iterdir())


def test_batch_mode_is_refused_for_a_service(monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", KEY)
    result = run_demo("-m", "scripted/echo", "--batch", "judge", judge="openrouter/openai/gpt-5-mini")
    assert result.exit_code == 2
    assert "openrouter/openai/gpt-5-mini has no batch API" in result.output
    assert not Path("runs").exists() or not any(Path("runs").iterdir())


def test_a_service_model_is_priced_by_its_spec():
    prices = Prices(models={"openrouter/anthropic/claude-sonnet-4.5": ModelPrice(input=3.0, output=15.0)})
    assert prices.of("openrouter/anthropic/claude-sonnet-4.5") == ModelPrice(input=3.0, output=15.0)
    assert prices.of("together/anthropic/claude-sonnet-4.5") is None


def test_a_dry_run_prices_a_service_model_without_its_key():
    Path("prices.yaml").write_text(
        "currency: USD\nmodels:\n  openrouter/qwen/qwen3-235b: {input: 1.0, output: 2.0}\n"
        "  scripted/echo: {input: 0, output: 0}\n"
    )
    result = run_demo("-m", "openrouter/qwen/qwen3-235b", "--dry-run", "--prices", "prices.yaml")
    assert result.exit_code == 0, result.output
    assert "openrouter/qwen/qwen3-235b" in result.output and "prices missing" not in result.output
    assert not Path("runs").exists()
