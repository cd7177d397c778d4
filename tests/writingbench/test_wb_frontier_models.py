"""WritingBench with today's frontier models as a user writes them: an OpenAI reasoning model as the
candidate and Claude as the judge, against fakes that enforce the providers' documented request
rules. Every sample is scored with no -g added, the header records what was sent and left out, and
the same run against permissive fakes gives the same scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proseval.cli import app
from proseval.runtime import probe
from proseval.testing.fake_anthropic import FakeAnthropicServer
from proseval.testing.fake_openai import FakeOpenAIServer

KEYS = {"OPENAI_API_KEY": "sk-openai-test", "ANTHROPIC_API_KEY": "sk-ant-test"}


def queries(path: Path) -> Path:
    checklist = [
        {"name": f"C{i}", "criteria_description": "d", "1-2": "a", "3-4": "b", "5-6": "c", "7-8": "d", "9-10": "e"}
        for i in range(1, 6)
    ]
    path.write_text(
        "".join(
            json.dumps({"id": f"q{n}", "query": f"Write note {n}.", "checklist": checklist}) + "\n" for n in range(1, 4)
        ),
        encoding="utf-8",
    )
    return path


def verdict(body: dict) -> str:
    """The judge's reply: a score that depends on the criterion asked about, so scores can be compared."""
    text = json.dumps(body["messages"])
    score = next((n + 4 for n in range(1, 6) if f"C{n}" in text), 5)
    return json.dumps({"score": score, "reason": "clear"})


def run(tmp_path: Path, name: str, strict: bool) -> tuple[dict, dict, dict]:
    probe.forget()
    candidate = FakeOpenAIServer(
        strict=strict,
        api_key=KEYS["OPENAI_API_KEY"] if strict else None,
        responder=lambda body: "A short, clear note.",
        reasoning_cost=64,
    ).start_in_thread()
    judge = FakeAnthropicServer(
        strict=strict, api_key=KEYS["ANTHROPIC_API_KEY"] if strict else None, responder=verdict
    ).start_in_thread()
    env = {
        **KEYS,
        "OPENAI_BASE_URL": candidate.base_url,
        "ANTHROPIC_BASE_URL": judge.base_url,
        "COLUMNS": "200",
        "PROSEVAL_CACHE_DIR": str(tmp_path / f"cache-{name}"),
    }
    try:
        result = CliRunner().invoke(
            app,
            [
                "run",
                "writingbench",
                "--queries",
                str(queries(tmp_path / "q.jsonl")),
                "--preset",
                "official",
                "-m",
                "openai/gpt-5-mini",
                "-r",
                "judge=anthropic/claude-sonnet-4-5",
                "--limit",
                "3",
                "--run-dir",
                str(tmp_path / name),
                "--display",
                "none",
            ],
            env=env,
        )
    finally:
        candidate.stop_thread()
        judge.stop_thread()
    assert result.exit_code == 0, result.output
    header = json.loads((tmp_path / name / "header.json").read_text())
    results = json.loads((tmp_path / name / "results.json").read_text())
    return header, results, {"output": result.output, "candidate": candidate.requests, "judge": judge.requests}


def test_gpt_5_judged_by_claude_is_scored_with_no_setting_added(tmp_path: Path):
    header, results, seen = run(tmp_path, "strict", strict=True)
    assert results["outcome"] == "complete" and results["counts"]["ok"] == 3
    assert results["counts"]["unscored"] == 0 and results["counts"]["failed"] == 0
    candidate, judge = header["roles"]["candidate"], header["roles"]["judge"]
    assert [(i["setting"], i["value"]) for i in candidate["not_sent"]] == [
        ("temperature", 0.7),
        ("top_p", 0.8),
        ("top_k", 20),
    ]
    assert [(i["setting"], i["value"]) for i in judge["not_sent"]] == [("temperature", 1.0), ("top_p", 0.95)]
    assert candidate["rules"] == ["openai", "openai-reasoning"] and "anthropic-2026-10-21" in judge["rules"]
    assert header["preset"]["not_sent"] == [
        "candidate.temperature",
        "candidate.top_p",
        "candidate.top_k",
        "judge.temperature",
        "judge.top_p",
    ]
    assert "deviates from the preset 'official'" in " ".join(seen["output"].split())
    sample_bodies = [b for b in seen["candidate"] if b["messages"] != probe.PROBE_MESSAGES]
    assert all(b["max_completion_tokens"] == 16000 and "temperature" not in b for b in sample_bodies)
    assert all("temperature" not in b and "top_p" not in b for b in seen["judge"])


def test_the_same_run_against_permissive_fakes_gives_the_same_scores(tmp_path: Path):
    _, strict, _ = run(tmp_path, "strict", strict=True)
    _, permissive, _ = run(tmp_path, "permissive", strict=False)
    assert strict["metrics"] == permissive["metrics"]
    assert strict["metrics"]["writingbench"]["mean"] == pytest.approx(7.0)  # criteria 1..5 scored 5..9
