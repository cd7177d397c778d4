"""Presets: named setups under the user's own choices, recorded in the header, listed by describe."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from proseval.cli import app
from proseval.core.preset import Preset, preset_generation, preset_params, preset_record
from proseval.registry import tasks
from proseval.runtime.probe import PROBE_MESSAGES
from proseval.testing.fake_openai import FakeOpenAIServer

cli = CliRunner()
PAPER = Preset(
    "paper",
    "test",
    params={"rounds": 20, "feedback": "chat"},
    gen={"candidate": {"temperature": 0.7, "top_k": 20}, "critic": {"temperature": 0.1}},
)


def test_the_user_choices_win_over_the_preset_and_are_recorded_as_overridden():
    assert preset_params(PAPER, {"rounds": 3}) == {"rounds": 3, "feedback": "chat"}
    gen = preset_generation(PAPER, {"candidate": {"top_k": 40}, "judge": {"temperature": 0}}, ("candidate", "judge"))
    assert gen == {"candidate": {"temperature": 0.7, "top_k": 40}, "judge": {"temperature": 0}}  # no critic role
    record = preset_record(PAPER, {"rounds": 3}, {"candidate": {"top_k": 40}})
    assert record["name"] == "paper" and record["overridden"] == ["--rounds", "candidate.top_k"]
    assert record["params"] == {"rounds": 20, "feedback": "chat"}


def test_every_registered_preset_names_real_options_and_settings():
    from proseval.models.base import GenerateConfig

    checked = set()
    for name, entry in tasks().items():
        for preset in (entry.presets() if entry.presets else {}).values():
            entry.params.model_validate({k: v for k, v in preset.params.items()})  # raises on a bad option
            for values in preset.gen.values():
                GenerateConfig.model_validate(values)
            checked.add((name, preset.name))
    # the papers' and official setups the docs name, each among them
    assert {
        ("writingbench", "paper"),
        ("writingbench", "official"),
        ("meeseeks", "paper"),
        ("meeseeks", "official"),
        ("longweave", "paper"),
        ("longweave", "official"),
        ("c3ebench", "official"),
        ("ravel", "official"),
        ("ravel", "january"),
    } <= checked


def _checklist() -> list[dict[str, str]]:
    return [
        {"name": f"C{i}", "criteria_description": "d", "1-2": "a", "3-4": "b", "5-6": "c", "7-8": "d", "9-10": "e"}
        for i in range(1, 6)
    ]


def test_a_preset_sets_the_judge_sampling_and_the_header_records_it(tmp_path):
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"id": "q1", "query": "Write a note.", "checklist": _checklist()}) + "\n")
    server = FakeOpenAIServer(responder=lambda body: '{"score": 6, "reason": "fine"}').start_in_thread()
    try:
        result = cli.invoke(
            app,
            [
                "run",
                "writingbench",
                "--queries",
                str(queries),
                "--preset",
                "official",
                "-m",
                "scripted/echo",
                "-r",
                "judge=openai-compatible/j",
                "--role-base-url",
                f"judge={server.base_url}",
                "-g",
                "judge.temperature=null",
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
    bodies = [
        {k: v for k, v in b.items() if k not in ("model", "messages")}
        for b in server.requests
        if b["messages"] != PROBE_MESSAGES
    ]  # the samples' requests
    assert len(bodies) == 5 and all(b == {"top_p": 0.95, "max_tokens": 2048} for b in bodies)
    header = json.loads(next((tmp_path / "runs").iterdir()).joinpath("header.json").read_text())
    assert header["preset"]["name"] == "official" and header["preset"]["overridden"] == ["judge.temperature"]
    assert header["roles"]["candidate"]["config"]["top_k"] == 20
    assert header["task_params"]["reasoning"] == "official"


def test_an_unknown_preset_is_refused_before_any_request(tmp_path):
    result = cli.invoke(
        app,
        [
            "run",
            "writingbench",
            "--queries",
            str(tmp_path / "none.jsonl"),
            "--preset",
            "leaderboard",
            "-m",
            "scripted/echo",
            "-r",
            "judge=scripted/echo",
            "--out",
            str(tmp_path / "runs"),
        ],
    )
    assert result.exit_code == 2 and "no preset 'leaderboard' (its presets: paper, official)" in result.output


def test_describe_lists_the_presets_and_what_they_set():
    result = cli.invoke(app, ["describe", "meeseeks"])
    assert result.exit_code == 0 and "Presets" in result.output
    assert "--compat head" in result.output and "-g judge.temperature=0.0" in result.output
