"""Criteria for your own queries, evaluating on them, and curation, through the command line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proseval.benchmarks.writingbench.jsonl import DataFormatError
from proseval.benchmarks.writingbench.userdata import histogram, read_lines, select_top
from proseval.cli import app
from proseval.models.scripted import register_script, unregister_script

runner = CliRunner()


def criteria_reply(messages):
    request = messages[-1]["content"]
    if "unusable" in request:
        return "Sorry, I can't."
    topic = "rain" if "rain" in request else "note"
    return json.dumps(
        [
            {
                "name": f"{topic} {n}",
                "criteria_description": "d",
                "1-2": "a",
                "3-4": "b",
                "5-6": "c",
                "7-8": "d",
                "9-10": "e",
            }
            for n in range(1, 6)
        ]
    )


def judge_reply(messages):
    prompt = messages[-1]["content"]
    number = int(re.search(r"'name': '\w+ (\d)'", prompt).group(1))
    # scores depend on the response: the long answer scores high
    return json.dumps({"score": number + (4 if "wonderful year, full of" in prompt else 0), "reason": "r"})


@pytest.fixture
def scripts():
    register_script("crit", criteria_reply)
    register_script("wbjudge", judge_reply)
    yield
    unregister_script("crit")
    unregister_script("wbjudge")


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_criteria_then_evaluate_on_own_queries(tmp_path, scripts):
    queries = write(
        tmp_path / "q.jsonl",
        [{"id": "rain", "query": "Write a haiku about rain."}, {"id": "x", "prompt": "This request is unusable."}],
    )
    out = tmp_path / "with_criteria.jsonl"
    result = runner.invoke(
        app,
        [
            "writingbench",
            "criteria",
            "--in",
            str(queries),
            "-o",
            str(out),
            "-r",
            "criteria=scripted/crit",
            "--runs",
            str(tmp_path / "runs"),
            "--display",
            "none",
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert "1 queries with criteria, 1 without" in " ".join(result.output.split())
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["id"] for line in lines] == ["rain", "x"]
    assert len(lines[0]["checklist"]) == 5 and "criteria_error" in lines[1]

    good = write(tmp_path / "good.jsonl", [lines[0]])
    run = runner.invoke(
        app,
        [
            "run",
            "writingbench",
            "--queries",
            str(good),
            "-m",
            "scripted/echo",
            "-r",
            "judge=scripted/wbjudge",
            "--out",
            str(tmp_path / "runs2"),
            "--display",
            "none",
        ],
        catch_exceptions=False,
    )
    assert run.exit_code == 0, run.output
    (run_dir,) = (tmp_path / "runs2").iterdir()
    results = json.loads((run_dir / "results.json").read_text())
    assert results["extra"]["overall"] == pytest.approx(3.0)  # criteria 1..5 scored 1..5


def test_curate_keeps_the_best_fraction(tmp_path, scripts):
    pairs = [
        {"id": i, "instruction": "Write a thank-you note.", "response": text}
        for i, text in enumerate(
            ["Thanks.", "Dear Ms. Lee, what a wonderful year, full of stories.", "Thank you!", "ok"]
        )
    ]
    pairs.append({"id": 9, "instruction": "This is unusable.", "response": "whatever"})
    source = write(tmp_path / "sft.jsonl", pairs)
    kept_file = tmp_path / "kept.jsonl"
    result = runner.invoke(
        app,
        [
            "writingbench",
            "curate",
            "--in",
            str(source),
            "--keep",
            "0.25",
            "-o",
            str(kept_file),
            "-r",
            "criteria=scripted/crit",
            "-r",
            "judge=scripted/wbjudge",
            "--runs",
            str(tmp_path / "runs"),
            "--display",
            "none",
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    kept = [json.loads(line) for line in kept_file.read_text().splitlines()]
    assert [k["id"] for k in kept] == [1]
    assert kept[0]["writingbench_score"] == pytest.approx(7.0)
    assert "1 unscored pairs left out" in " ".join(result.output.split())
    assert "Score distribution" in result.output


def test_input_errors_name_file_and_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "ok"}\n{"text": "no request"}\n')
    with pytest.raises(DataFormatError, match=r"bad.jsonl:2: no request text"):
        read_lines(bad)
    bad.write_text('{"query": "ok"}\n{"query": "a", "response": 3}\n')
    with pytest.raises(DataFormatError, match=r"bad.jsonl:1: no answer text"):
        read_lines(bad, need_response=True)
    bad.write_text('{"query": "ok", "checklist": [{"name": "x"}]}\n')
    with pytest.raises(DataFormatError, match=r"bad.jsonl:1: checklist"):
        read_lines(bad, need_checklist=True)


def test_select_top_and_histogram():
    rows = [({"i": i}, s) for i, s in enumerate([5.0, None, 9.0, 7.0, 9.0])]
    kept, unscored = select_top(rows, 0.5)
    assert [r["i"] for r, _ in kept] == [2, 4] and unscored == 1
    assert select_top(rows, 0.0)[0] == []
    assert dict(histogram([1.0, 1.5, 9.0, 10.0, 5.2])) == {
        "1–2": 2,
        "2–3": 0,
        "3–4": 0,
        "4–5": 0,
        "5–6": 1,
        "6–7": 0,
        "7–8": 0,
        "8–9": 0,
        "9–10 (incl. 10)": 2,
    }
