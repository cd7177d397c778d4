"""Prompt templates and --prompt NAME=FILE: placeholders checked up front, text recorded, resumed."""

from __future__ import annotations

import hashlib
import json

import pytest
from typer.testing import CliRunner

import proseval
from proseval.cli import app
from proseval.core.prompt import PromptError, PromptTemplate, override_prompts
from proseval.models.scripted import register_script, unregister_script

cli = CliRunner()


def test_render_replaces_only_declared_placeholders_in_one_pass():
    template = PromptTemplate("judge", 'Rate {response}. Reply {"score": 1} for {request}.', ("request", "response"))
    text = template.render(request="a {response} request", response="it {request}")
    assert text == 'Rate it {request}. Reply {"score": 1} for a {response} request.'


def test_render_needs_every_placeholder():
    template = PromptTemplate("judge", "{a} {b}", ("a", "b"))
    with pytest.raises(KeyError, match="missing"):
        template.render(a=1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Grade this: {response}", r"judge\.txt.*missing placeholder\(s\) \{request\}"),
        (
            "{request} {response} {reponse}",
            r"judge\.txt.*unknown placeholder\(s\) \{reponse\} \(this prompt takes \{request\}",
        ),
    ],
)
def test_a_replacement_with_wrong_placeholders_is_refused_with_the_file_name(tmp_path, text, message):
    path = tmp_path / "judge.txt"
    path.write_text(text, encoding="utf-8")
    builtin = {"judge": PromptTemplate("judge", "{request} {response}", ("request", "response"))}
    with pytest.raises(PromptError, match=message):
        override_prompts(builtin, {"judge": path}, "demo")


def test_an_unknown_prompt_name_lists_the_task_prompts(tmp_path):
    path = tmp_path / "x.txt"
    path.write_text("x", encoding="utf-8")
    result = cli.invoke(
        app,
        [
            "run",
            "demo",
            "-m",
            "scripted/echo",
            "-r",
            "judge=scripted/echo",
            "--prompt",
            f"grader={path}",
            "--out",
            str(tmp_path / "runs"),
            "--display",
            "none",
        ],
    )
    assert result.exit_code == 2
    assert "has no prompt of that name (its prompts: judge)" in result.output
    assert not (tmp_path / "runs").exists()


def test_a_bad_prompt_file_stops_the_run_before_any_request(tmp_path):
    path = tmp_path / "judge.txt"
    path.write_text("Grade {response}", encoding="utf-8")
    calls = []
    register_script("count-calls", lambda messages: calls.append(messages) or "x")
    try:
        result = cli.invoke(
            app,
            [
                "run",
                "demo",
                "-m",
                "scripted/count-calls",
                "-r",
                "judge=scripted/count-calls",
                "--prompt",
                f"judge={path}",
                "--out",
                str(tmp_path / "runs"),
                "--display",
                "none",
            ],
        )
    finally:
        unregister_script("count-calls")
    assert result.exit_code == 2 and "missing placeholder(s) {request}" in result.output
    assert calls == []


def test_a_prompt_file_reaches_the_judge_and_is_recorded_and_kept_for_resume(tmp_path):
    text = 'CUSTOM JUDGE. Request: {request}\nAnswer: {response}\nJSON like {"score": 7}'
    path = tmp_path / "judge.txt"
    path.write_text(text, encoding="utf-8")
    seen = []

    def judge(messages):
        seen.append(messages[-1]["content"])
        return '{"score": 7, "reason": "ok"}'

    register_script("prompt-judge", judge)
    try:
        run = proseval.run(
            "demo",
            model="scripted/echo",
            roles={"judge": "scripted/prompt-judge"},
            limit=2,
            out=tmp_path / "runs",
            prompts={"judge": path},
        )
    finally:
        unregister_script("prompt-judge")
    assert len(seen) == 2 and all(s.startswith("CUSTOM JUDGE. Request: ") and '{"score": 7}' in s for s in seen)
    header = json.loads((run.path / "header.json").read_text())
    assert header["prompts"]["judge"] == {"source": str(path), "sha256": hashlib.sha256(text.encode()).hexdigest()}
    assert (run.path / "prompts" / "judge.txt").read_text(encoding="utf-8") == text
    assert run.results.metrics["quality"].mean == 7.0


def test_builtin_prompts_are_recorded_with_their_hash(tmp_path):
    run = proseval.run("demo", model="scripted/echo", roles={"judge": "scripted/echo"}, limit=1, out=tmp_path)
    assert run.header.prompts["judge"].source == "builtin"
    assert not (run.path / "prompts").exists()


def test_resume_sends_the_run_own_prompt_file_and_refuses_an_edited_copy(tmp_path):
    path = tmp_path / "judge.txt"
    path.write_text("MINE {request} {response}", encoding="utf-8")
    seen = []
    register_script("resume-judge", lambda messages: seen.append(messages[-1]["content"]) or '{"score": 5}')
    try:
        run = proseval.run(
            "demo",
            model="scripted/echo",
            roles={"judge": "scripted/resume-judge"},
            limit=1,
            out=tmp_path / "runs",
            prompts={"judge": path},
        )
        path.write_text("CHANGED {request} {response}", encoding="utf-8")  # the user's file changes later
        resumed = proseval.resume(run.path, limit=2)
        assert resumed.results.counts.finished == 2
        assert len(seen) == 2 and all(s.startswith("MINE ") for s in seen)
        (run.path / "prompts" / "judge.txt").write_text("EDITED {request} {response}", encoding="utf-8")
        result = cli.invoke(app, ["resume", str(run.path), "--limit", "3", "--display", "none"])
    finally:
        unregister_script("resume-judge")
    assert result.exit_code == 2 and "changed since the run started" in result.output


def test_run_resume_with_another_prompt_file_is_a_configuration_change(tmp_path):
    run = proseval.run("demo", model="scripted/echo", roles={"judge": "scripted/echo"}, limit=1, out=tmp_path)
    other = tmp_path / "judge.txt"
    other.write_text("{request} {response}", encoding="utf-8")
    result = cli.invoke(app, ["run", "--resume", str(run.path), "--prompt", f"judge={other}", "--display", "none"])
    assert result.exit_code == 2 and "pass --force" in result.output


def test_describe_lists_prompts_and_prints_one():
    listed = cli.invoke(app, ["describe", "demo"])
    assert listed.exit_code == 0 and "Prompts" in listed.output and "{request}" in listed.output
    shown = cli.invoke(app, ["describe", "demo", "--show-prompt", "judge"])
    assert shown.exit_code == 0 and "{request}" in shown.output and "{response}" in shown.output
    missing = cli.invoke(app, ["describe", "demo", "--show-prompt", "nope"])
    assert missing.exit_code == 2 and "its prompts: judge" in missing.output
