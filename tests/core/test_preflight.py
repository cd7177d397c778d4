"""Nothing is spent that a check could have saved: seeds, panel judges, generation settings, empty
model specs and run sizes are refused before any request is sent or any folder is written, with one
`error:` line and no traceback (the request counts come from a fake OpenAI-compatible server)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import proseval
from proseval.cli import app
from proseval.errors import UsageError
from proseval.planning import plan
from proseval.runtime.options import RunOptions
from proseval.runtime.probe import PROBE_MESSAGES
from proseval.runtime.roles import RoleRequest
from proseval.runtime.runlog import RunFolder
from proseval.runtime.runner import start_run
from proseval.testing.fake_openai import FakeOpenAIServer
from support.core import refusal_line

runner = CliRunner()
SEED_RULE = "must be a whole number from 0 to 9223372036854775807"
HUGE = str(10**30)


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder of its own, without keys or endpoints from the environment."""
    monkeypatch.chdir(tmp_path)
    for name in (
        "OPENAI_API_KEY",
        "PROSEVAL_API_KEY",
        "PROSEVAL_BASE_URL",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
    ):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def serve() -> Iterator[FakeOpenAIServer]:
    server = FakeOpenAIServer().start_in_thread()
    try:
        yield server
    finally:
        server.stop_thread()


server = pytest.fixture(serve)
second_server = pytest.fixture(serve)


def remote(server: FakeOpenAIServer, *extra: str) -> list[str]:
    """`run demo` with its candidate and judge on the fake server, into `out/`."""
    return [
        "run",
        "demo",
        "-m",
        "openai-compatible/cand",
        "-r",
        "judge=openai-compatible/judge",
        "--base-url",
        server.base_url,
        "--display",
        "none",
        "--out",
        "out",
        *extra,
    ]


def files(folder: Path) -> set[Path]:
    return set(folder.rglob("*"))


def refused(args: list[str], work: Path, code: int, server: FakeOpenAIServer | None = None) -> str:
    """Invoke the command line; check that it refused cleanly, sent nothing and wrote nothing; its error line."""
    before = files(work)
    line = refusal_line(runner.invoke(app, args), code)
    assert files(work) == before
    if server is not None:
        assert server.requests == []
    return line


def write(work: Path, name: str, content: str) -> Path:
    path = work / name
    path.write_text(content, encoding="utf-8")
    return path


# --- 1. seeds ------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", ["-1", str(2**63)])
def test_a_seed_no_provider_or_bootstrap_takes_is_refused_everywhere(work, server, seed):
    line = refused(remote(server, "--seed", seed), work, 2, server)
    assert line == f"error: --seed {SEED_RULE} (got {seed})"
    config = write(work, "eval.yaml", f"task: demo\nseed: {seed}\n")
    line = refused(remote(server, "--config", str(config)), work, 2, server)
    assert f"eval.yaml:2: seed: {SEED_RULE}" in line
    models = f"models: [{{spec: openai-compatible/cand, base_url: {server.base_url}}}]\n"
    judge = f"role: {{judge: openai-compatible/judge}}\nrole_base_url: {{judge: {server.base_url}}}\n"
    for tasks in (f"seed: {seed}\ntasks: [{{task: demo}}]\n", f"tasks: [{{task: demo, seed: {seed}}}]\n"):
        path = write(work, "set.yaml", models + judge + tasks)
        assert SEED_RULE in refused(["run-set", str(path), "--display", "none"], work, 2, server)
    with pytest.raises(UsageError, match=f"seed {SEED_RULE}"):
        proseval.run(
            "demo",
            model="openai-compatible/cand",
            roles={"judge": "openai-compatible/judge"},
            base_url=server.base_url,
            seed=int(seed),
            out=work / "out",
        )
    assert server.requests == [] and not (work / "out").exists()


def test_a_run_folder_with_a_negative_seed_from_before_the_check_still_aggregates(work):
    """Runs written before seeds were checked may hold any seed: their bootstrap maps it into range."""
    planned = plan("demo", RoleRequest(model="scripted/echo", roles={"judge": "scripted/echo"}))
    folder, results = asyncio.run(
        start_run(planned.task, planned.bindings, RunOptions(seed=-1, display="none"), run_dir=work / "old")
    )
    assert folder.read_header().seed == -1 and results.metrics["length"].ci_low is not None
    samples = folder.samples_path.read_text().splitlines()
    folder.samples_path.write_text("\n".join(samples[:-2]) + "\n")
    result = runner.invoke(app, ["resume", str(folder.path), "--display", "none"])
    assert result.exit_code == 0, result.output
    assert RunFolder(folder.path).read_results().counts.finished == len(samples)


# --- 2. and 3. panel judges ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("judge", "code", "message"),
    [
        ("judge=openai/gpt-4o", 1, "error: --panel judge=openai/gpt-4o: OPENAI_API_KEY is not set"),
        (
            "grader=scripted/echo",
            2,
            "error: --panel grader=scripted/echo: a panel judges demo's answers again in the role(s) judge, not grader",
        ),
        ("judge=scripted/nosuch", 1, "error: --panel judge=scripted/nosuch: no script named 'nosuch'"),
        ("judge=local/missing.gguf", 1, "error: --panel judge=local/missing.gguf: local model file not found"),
        (
            "judge=scripted/echo@http://localhost:1/v1",
            2,
            "error: --panel judge=scripted/echo: a scripted model has no endpoint",
        ),
    ],
)
def test_a_panel_judge_that_cannot_judge_is_refused_before_the_run(work, server, judge, code, message):
    line = refused(remote(server, "--panel", judge), work, code, server)
    assert line.startswith(message), line


def panel_header(work: Path, model: str) -> dict:
    """The header of the panel re-score whose judge is `model`."""
    headers = [json.loads(p.read_text()) for p in (work / "out").glob("*-rescore-*/header.json")]
    return next(h for h in headers if h["roles"]["judge"]["spec"] == f"openai-compatible/{model}")


def sent_to(server: FakeOpenAIServer, model: str) -> list[dict]:
    """The sample requests `server` received for `model` (not the probe's, which has its own token limit)."""
    return [body for body in server.requests if body["model"] == model and body["messages"] != PROBE_MESSAGES]


def test_a_panel_judge_has_the_run_judges_endpoints_settings_and_seed_unless_given_its_own(work, server, second_server):
    args = [
        "run",
        "demo",
        "-m",
        "openai-compatible/cand",
        "-r",
        "judge=scripted/echo",
        "--base-url",
        server.base_url,
        "-g",
        "judge.temperature=0.3",
        "-g",
        "judge.max_tokens=300",
        "--seed",
        "7",
        "--limit",
        "2",
        "--display",
        "none",
        "--out",
        "out",
        "--panel",
        "judge=openai-compatible/inherits",
        "--panel",
        f"judge=openai-compatible/own@{second_server.base_url}",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    for model, endpoint, other in (("inherits", server, second_server), ("own", second_server, server)):
        sent = sent_to(endpoint, model)
        assert sent and not sent_to(other, model)
        assert {(b["temperature"], b["max_tokens"], b["seed"]) for b in sent} == {(0.3, 300, 7)}
        bound = panel_header(work, model)["roles"]["judge"]
        assert bound["base_urls"] == [endpoint.base_url]
        settings = bound["config"]
        assert (settings["temperature"], settings["max_tokens"], settings["seed"]) == (0.3, 300, 7)


def test_a_judge_bound_by_a_re_score_gets_the_runs_seed(work, server):
    first = runner.invoke(
        app,
        [
            "run",
            "demo",
            "-m",
            "scripted/echo",
            "-r",
            "judge=scripted/echo",
            "--seed",
            "7",
            "--limit",
            "2",
            "--display",
            "none",
            "--out",
            "out",
        ],
    )
    assert first.exit_code == 0, first.output
    run_dir = next((work / "out").iterdir())
    again = runner.invoke(
        app,
        [
            "score",
            str(run_dir),
            "-r",
            "judge=openai-compatible/rescorer",
            "--role-base-url",
            f"judge={server.base_url}",
            "--display",
            "none",
        ],
    )
    assert again.exit_code == 0, again.output
    sent = sent_to(server, "rescorer")
    assert len(sent) == 2 and {body["seed"] for body in sent} == {7}


def test_a_panel_judge_of_the_judges_provider_shares_its_endpoint_from_the_environment(work, server, monkeypatch):
    monkeypatch.setenv("PROSEVAL_BASE_URL", server.base_url)
    args = [
        "run",
        "demo",
        "-m",
        "openai-compatible/cand",
        "-r",
        "judge=openai-compatible/judge",
        "-g",
        "judge.temperature=0.3",
        "--seed",
        "7",
        "--limit",
        "1",
        "--display",
        "none",
        "--out",
        "out",
        "--panel",
        "judge=openai-compatible/second",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert {(b["temperature"], b["seed"]) for b in sent_to(server, "second")} == {(0.3, 7)}


# --- 4. generation settings ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("temperature=-5", "temperature must be at least 0 (got -5)"),
        ("top_p=7", "top_p must be above 0 and at most 1 (got 7)"),
        ("top_p=0", "top_p must be above 0 and at most 1 (got 0)"),
        ("min_p=1.5", "min_p must be from 0 to 1 (got 1.5)"),
        ("repetition_penalty=0", "repetition_penalty must be above 0 (got 0)"),
        ("presence_penalty=-3", "presence_penalty must be from -2 to 2 (got -3)"),
        ("frequency_penalty=2.5", "frequency_penalty must be from -2 to 2 (got 2.5)"),
        ("seed=-1", f"seed {SEED_RULE} (got -1)"),
        ("max_tokens=0", "max_tokens: must be at least 1 (got 0)"),
        ("top_k=0", "top_k: must be at least 1 (got 0)"),
    ],
)
def test_a_generation_setting_out_of_range_is_refused(work, server, setting, message):
    line = refused(remote(server, "-g", f"judge.{setting}"), work, 2, server)
    assert line == f"error: generation settings for judge (-g judge.PARAM=VALUE): {message}"
    name, _, value = setting.partition("=")
    config = write(work, "eval.yaml", f"task: demo\ngen:\n  judge:\n    {name}: {value}\n")
    line = refused(remote(server, "--config", str(config)), work, 2, server)
    assert "eval.yaml:" in line and "gen.judge" in line and name in line, line
    path = write(
        work,
        "set.yaml",
        f"models: [{{spec: openai-compatible/cand, base_url: {server.base_url}}}]\n"
        "tasks: [{task: demo}]\nrole: {judge: scripted/echo}\n"
        f"gen: {{judge: {{{name}: {value}}}}}\n",
    )
    line = refused(["run-set", str(path), "--display", "none"], work, 2, server)
    assert "set.yaml:4: gen.judge" in line and name in line, line


@pytest.mark.parametrize(
    ("judge", "key", "message"),
    [
        (
            "openai/gpt-4o",
            "OPENAI_API_KEY",
            "error: --role judge: openai/gpt-4o: temperature must be at most 2 for this provider (got 2.5)",
        ),
        (
            "anthropic/claude-x",
            "ANTHROPIC_API_KEY",
            "error: --role judge: anthropic/claude-x: temperature must be at most 1 for this provider (got 2.5)",
        ),
    ],
)
def test_a_providers_narrower_range_is_refused_for_the_run_and_its_panel(
    work, server, monkeypatch, judge, key, message
):
    monkeypatch.setenv(key, "sk-test")
    if judge.startswith("anthropic/"):  # the API version that still takes a temperature (docs/models.md)
        (work / "rules.yaml").write_text(
            "families:\n  - {name: old, provider: anthropic, models: ['*'], api_version: '2023-06-01'}\n",
            encoding="utf-8",
        )
        monkeypatch.setenv("PROSEVAL_MODEL_RULES", str(work / "rules.yaml"))
    args = [
        "run",
        "demo",
        "-m",
        "openai-compatible/cand",
        "--base-url",
        server.base_url,
        "--display",
        "none",
        "--out",
        "out",
        "-g",
        "judge.temperature=2.5",
    ]
    assert refused([*args, "-r", f"judge={judge}"], work, 2, server) == message
    panel = [*args, "-r", "judge=openai-compatible/judge", "--panel", f"judge={judge}"]
    assert refused(panel, work, 2, server) == message.replace("--role judge", f"--panel judge={judge}")


# --- 5. empty model specs ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-m", "", "-r", "judge=openai-compatible/judge"], "error: --model is empty; give PROVIDER/MODEL"),
        (["-m", "openai-compatible/cand", "-r", "judge="], "error: --role 'judge=' must look like NAME=VALUE"),
    ],
)
def test_an_empty_model_spec_is_refused_not_replaced_by_the_embedded_model(work, server, args, message):
    line = refused(
        ["run", "demo", *args, "--base-url", server.base_url, "--display", "none", "--out", "out"], work, 2, server
    )
    assert line.startswith(message), line


# --- 6. run size ---------------------------------------------------------------------------


@pytest.mark.parametrize("extra", [["--epochs", HUGE], ["--epochs", HUGE, "--dry-run"], ["--epochs", "125001"]])
def test_a_run_beyond_the_maximum_of_sample_epochs_is_refused(work, server, extra):
    line = refused(remote(server, *extra), work, 2, server)
    epochs = int(extra[1])
    assert line == (
        f"error: 8 samples x {epochs:,} epochs = {8 * epochs:,} sample-epochs, more than the 1,000,000 "
        "a run may have; lower --epochs or --limit"
    )


def test_the_maximum_counts_the_samples_the_run_selects(work, server):
    line = refused(remote(server, "--epochs", "500000", "--limit", "3"), work, 2, server)
    assert line.startswith("error: 3 samples x 500,000 epochs = 1,500,000 sample-epochs, more than the 1,000,000")
    config = write(work, "eval.yaml", f"task: demo\nepochs: {HUGE}\n")
    assert "more than the 1,000,000" in refused(remote(server, "--config", str(config)), work, 2, server)
    with pytest.raises(UsageError, match="more than the 1,000,000"):
        proseval.run(
            "demo",
            model="openai-compatible/cand",
            roles={"judge": "openai-compatible/judge"},
            base_url=server.base_url,
            epochs=10**30,
            out=work / "out",
        )
    assert server.requests == [] and not (work / "out").exists()
