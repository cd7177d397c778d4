"""--judge-structured: the judge is asked for schema-checked JSON; replies are still checked."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from proseval.cli import app
from proseval.judging.structured import json_schema_format, named_scores_schema, score_schema
from proseval.testing.fake_openai import FakeOpenAIServer
from support.core import sample_requests

cli = CliRunner()


def _queries(tmp_path):
    checklist = [
        {"name": f"C{i}", "criteria_description": "d", "1-2": "a", "3-4": "b", "5-6": "c", "7-8": "d", "9-10": "e"}
        for i in range(1, 6)
    ]
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"id": "q1", "query": "Write a note.", "checklist": checklist}) + "\n")
    return path


@pytest.mark.parametrize(
    ("mode", "reply", "schema"),
    [
        ("per-criterion", '{"score": 11, "reason": "x"}', score_schema()),
        ("batched", '{"scores": []}', named_scores_schema()),
    ],
)
def test_the_judge_gets_the_schema_and_out_of_range_replies_stay_unscored(tmp_path, mode, reply, schema):
    server = FakeOpenAIServer(responder=lambda body: reply).start_in_thread()
    try:
        result = cli.invoke(
            app,
            [
                "run",
                "writingbench",
                "--queries",
                str(_queries(tmp_path)),
                "--judge-structured",
                "--judge-mode",
                mode,
                "--judge-attempts",
                "1",
                "-m",
                "scripted/echo",
                "-r",
                "judge=openai-compatible/j",
                "--role-base-url",
                f"judge={server.base_url}",
                "--out",
                str(tmp_path / "runs"),
                "--display",
                "none",
                "--no-cache",
            ],
        )
    finally:
        server.stop_thread()
    assert result.exit_code == 0, result.output
    asked = sample_requests(server)
    assert asked and all(b["response_format"]["json_schema"]["schema"] == schema for b in asked)
    assert all(b["response_format"]["type"] == "json_schema" for b in asked)
    results = json.loads(next((tmp_path / "runs").iterdir()).joinpath("results.json").read_text())
    assert results["extra"]["criteria_scored"] == 0 and results["extra"]["criteria_unscored"] == 5


def test_schemas_are_strict_objects():
    strict = json_schema_format("x", score_schema())
    assert strict["json_schema"]["strict"] is True
    assert score_schema()["required"] == ["score", "reason"] and not score_schema()["additionalProperties"]
    assert named_scores_schema()["properties"]["scores"]["items"]["required"] == ["name", "score", "reason"]
