"""The demo judge's answer is held to a JSON schema: a score of 1-10 and a reason."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proseval.cli import app
from proseval.judging.parse import extract_json
from proseval.models import local_probe
from proseval.testing.fake_openai import FakeOpenAIServer
from support.core import sample_requests

pytestmark = pytest.mark.slow

cli = CliRunner()
CHILD = Path(__file__).with_name("judge_child.py")
SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["score", "reason"],
    "properties": {"score": {"type": "integer", "enum": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}, "reason": {"type": "string"}},
}


def test_an_openai_compatible_judge_is_sent_the_schema_and_the_prompt_still_asks_for_json(tmp_path):
    server = FakeOpenAIServer(responder=lambda body: '{"score": 7, "reason": "clear"}').start_in_thread()
    try:
        result = cli.invoke(
            app,
            [
                "run",
                "demo",
                "-n",
                "2",
                "-m",
                "scripted/echo",
                "-r",
                "judge=openai-compatible/j",
                "--role-base-url",
                f"judge={server.base_url}",
                "--out",
                str(tmp_path),
                "--display",
                "none",
                "--no-cache",
            ],
        )
    finally:
        server.stop_thread()
    assert result.exit_code == 0, result.output
    assert len(sample_requests(server)) == 2
    for body in sample_requests(server):
        assert body["response_format"] == {
            "type": "json_schema",
            "json_schema": {"name": "quality_score", "schema": SCHEMA, "strict": True},
        }
        assert 'Reply with JSON only, in this form: {"score"' in body["messages"][-1]["content"]
    results = json.loads(next(tmp_path.iterdir()).joinpath("results.json").read_text())
    assert results["metrics"]["quality"]["mean"] == 7.0


@pytest.mark.local_model
def test_the_embedded_judge_answers_a_whole_score_of_1_to_10_in_json():
    """llama.cpp's grammar, built from the schema, holds even the 135M model to the shape. The
    score comes first, so a reply whose reason runs into `max_tokens` still gives its score."""
    pytest.importorskip("llama_cpp", reason="the embedded model needs: pip install 'proseval[local]'")
    result = local_probe.run_child([str(CHILD)], timeout=600)
    assert result.ok, result.error
    for sample_id, text in result.report["replies"].items():
        assert re.match(r'\{\s*"score":\s*([1-9]|10)\s*,\s*"reason":\s*"', text), (sample_id, text)
        parsed = extract_json(text)
        assert parsed.status in ("ok", "repaired") and set(parsed.value) == {"score", "reason"}, (sample_id, text)
        assert type(parsed.value["score"]) is int and 1 <= parsed.value["score"] <= 10, (sample_id, text)
