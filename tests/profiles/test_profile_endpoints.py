"""Where each role of a profile sends its requests (`--base-url`, `--role-base-url`), and the probe of
every binding before the estimate, against fake OpenAI-compatible servers on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from profiles.profile_support import SMALL_SUITE
from proseval.cli import app
from proseval.errors import UsageError
from proseval.profile.plan import model_entries, plan_profile
from proseval.profile.suite import load_suite
from proseval.runtime.probe import PROBE_MESSAGES
from proseval.testing.fake_openai import FakeOpenAIServer

pytestmark = pytest.mark.slow

CANDIDATE = "openai-compatible/writer"
JUDGE = "openai-compatible/judge"


@pytest.fixture
def suite_file(tmp_path: Path) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(SMALL_SUITE, encoding="utf-8")
    return path


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[tuple[FakeOpenAIServer, FakeOpenAIServer]]:
    """Two endpoints (the models' and the judges'); no endpoint from the environment."""
    monkeypatch.delenv("PROSEVAL_BASE_URL", raising=False)
    monkeypatch.setenv("PROSEVAL_API_KEY", "test-key")
    monkeypatch.setenv("PROSEVAL_CACHE_DIR", str(tmp_path / "cache"))
    first, second = FakeOpenAIServer().start_in_thread(), FakeOpenAIServer().start_in_thread()
    try:
        yield first, second
    finally:
        first.stop_thread()
        second.stop_thread()


def profile(suite_file: Path, out: Path, *args: str):
    return CliRunner().invoke(
        app, ["profile", CANDIDATE, "--suite", str(suite_file), "-o", str(out), "--yes", "--display", "none", *args]
    )


def probes(server: FakeOpenAIServer) -> list[str]:
    """The models the server was probed for."""
    return [body["model"] for body in server.requests if body["messages"] == PROBE_MESSAGES]


def test_base_url_serves_the_judges_of_every_benchmark_revision_distance_included(servers, suite_file, tmp_path):
    server, _ = servers
    out = tmp_path / "out"
    result = profile(suite_file, out, "--base-url", server.base_url, "--judge", JUDGE)
    assert result.exit_code == 0, result.output
    assert (out / "profile.json").is_file()
    assert server.model_requests["writer"] > 0 and server.model_requests["judge"] > 0
    later = yaml.safe_load((out / "revision" / "openai-compatible-writer.yaml").read_text(encoding="utf-8"))
    assert later["models"] == [{"spec": CANDIDATE}]  # that set's task has no candidate role
    assert later["tasks"][0]["role_base_url"] == {"reviser": [server.base_url]}


def test_role_base_url_of_the_judge_reaches_every_role_the_judge_binds(servers, suite_file, tmp_path):
    models, judges = servers
    out = tmp_path / "out"
    result = profile(
        suite_file, out, "--base-url", models.base_url, "--judge", JUDGE, "--role-base-url", f"judge={judges.base_url}"
    )
    assert result.exit_code == 0, result.output
    assert set(models.model_requests) == {"writer"}
    assert set(judges.model_requests) == {"judge"}
    reviser = [
        body
        for body in judges.requests
        if body["messages"] != PROBE_MESSAGES and "revis" in str(body["messages"]).lower()
    ]
    assert reviser  # Revision Distance's reviser went to the judges' endpoint


def test_every_binding_is_probed_once_before_the_estimate(servers, suite_file, tmp_path):
    server, _ = servers
    result = profile(suite_file, tmp_path / "out", "--base-url", server.base_url, "--judge", JUDGE)
    assert result.exit_code == 0, result.output
    probed = probes(server)
    assert sorted(set(probed)) == ["judge", "writer"] and probed.count("writer") == 1
    assert probed.count("judge") <= 2  # LongWeave's judge and Revision Distance's reviser, each once
    # every probe came first, Revision Distance's reviser's too, and no run probed again
    kinds = [body["messages"] == PROBE_MESSAGES for body in server.requests]
    assert kinds == sorted(kinds, reverse=True)


def test_a_judge_the_endpoint_does_not_serve_ends_the_command_before_the_estimate(monkeypatch, suite_file, tmp_path):
    monkeypatch.delenv("PROSEVAL_BASE_URL", raising=False)
    monkeypatch.setenv("PROSEVAL_API_KEY", "test-key")
    server = FakeOpenAIServer(strict=True, models={"writer": "chat"}).start_in_thread()
    try:
        result = profile(suite_file, tmp_path / "out", "--base-url", server.base_url, "--judge", JUDGE)
    finally:
        server.stop_thread()
    assert result.exit_code == 2, result.output
    assert "judge" in result.output and "does not know this model" in result.output
    assert "Estimate" not in result.output  # no estimate printed
    assert all(body["messages"] == PROBE_MESSAGES for body in server.requests)


def test_no_probe_sends_no_probe(servers, suite_file, tmp_path):
    server, _ = servers
    result = profile(suite_file, tmp_path / "out", "--base-url", server.base_url, "--judge", JUDGE, "--no-probe")
    assert result.exit_code == 0, result.output
    assert probes(server) == [] and server.model_requests["judge"] > 0


def test_the_dry_run_sends_nothing(servers, suite_file, tmp_path):
    server, _ = servers
    result = profile(suite_file, tmp_path / "out", "--base-url", server.base_url, "--judge", JUDGE, "--dry-run")
    assert result.exit_code == 0, result.output
    assert server.requests == []


def plan(tmp_path: Path, models: list[str], judge: str, base_url: list[str], role_urls: dict[str, list[str]]):
    suite = tmp_path / "suite.yaml"
    suite.write_text(SMALL_SUITE, encoding="utf-8")
    return plan_profile(
        load_suite(suite),
        "quick",
        tmp_path / "out",
        model_entries(models, base_url, role_urls),
        judge=judge,
        overrides={},
        data={},
        download=False,
        base_url=base_url,
        role_urls=role_urls,
    )


def test_base_url_goes_only_to_openai_and_openai_compatible_models(tmp_path, monkeypatch):
    monkeypatch.delenv("PROSEVAL_BASE_URL", raising=False)
    made = plan(
        tmp_path,
        ["anthropic/claude-sonnet-4-5", "openrouter/openai/gpt-4o", CANDIDATE],
        "anthropic/claude-opus-4-1",
        ["http://127.0.0.1:9/v1"],
        {},
    )
    assert made.models == [
        {"spec": "anthropic/claude-sonnet-4-5"},
        {"spec": "openrouter/openai/gpt-4o"},
        {"spec": CANDIDATE, "base_url": ["http://127.0.0.1:9/v1"]},
    ]
    assert all(not entry.role_base_url for entry in (*made.entries.values(), *made.later.values()))


def test_a_role_base_url_of_its_own_wins_over_the_judges(tmp_path, monkeypatch):
    monkeypatch.delenv("PROSEVAL_BASE_URL", raising=False)
    made = plan(
        tmp_path,
        [CANDIDATE],
        JUDGE,
        ["http://127.0.0.1:9/v1"],
        {"judge": ["http://127.0.0.1:10/v1"], "reviser": ["http://127.0.0.1:11/v1"]},
    )
    assert made.later["revision-distance"].role_base_url == {"reviser": ["http://127.0.0.1:11/v1"]}
    assert made.entries["longweave"].role_base_url == {
        role: ["http://127.0.0.1:10/v1"] for role in made.roles["longweave"]
    }


def test_a_missing_endpoint_names_the_option_that_sets_it(tmp_path, monkeypatch):
    monkeypatch.delenv("PROSEVAL_BASE_URL", raising=False)
    with pytest.raises(UsageError, match="--role-base-url judge=URL"):
        plan(tmp_path, ["openai/gpt-4o"], JUDGE, [], {})
    with pytest.raises(UsageError, match="--base-url URL"):
        model_entries([CANDIDATE], [], {})
