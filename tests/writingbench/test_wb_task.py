"""The writingbench task end to end with scripted candidate and judge models."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from proseval.models.base import FatalError
from proseval.models.scripted import register_script, unregister_script
from proseval.registry import get_task
from proseval.runtime.options import RunOptions
from proseval.runtime.records import RoleBinding
from proseval.runtime.rescore import rescore_run
from proseval.runtime.runner import start_run

NAME = re.compile(r"'name': 'q(\d)_c(\d)'")
calls: list[str] = []


def candidate(messages):
    text = messages[-1]["content"]
    if "number 4" in text:
        raise FatalError("the provider rejected this request")
    return f"<think>secret plan for {text}</think>Answer to: {text}"


def judge(messages):
    """q1: score = criterion number; q2: malformed first, fenced+trailing-comma later;
    q3: criterion 5 out of range forever; q4 never reaches the judge (candidate fails)."""
    prompt = messages[-1]["content"]
    calls.append(prompt)
    query, crit = map(int, NAME.search(prompt).groups())
    attempt = sum(1 for c in calls if NAME.search(c).groups() == (str(query), str(crit)))
    if query == 1:
        return json.dumps({"score": crit, "reason": "counted"})
    if query == 2:
        if attempt == 1:
            return "I'd rate this highly, probably an 8 {score: "
        return '```json\n{"score": 6, "reason": "fine",}\n```'
    if query == 3 and crit == 5:
        return '{"score": 11, "reason": "off the scale"}'
    return f'<think>hmm</think>Here is my verdict: {{"score": {crit + 4}, "reason": "ok"}}'


def batched_judge(messages):
    prompt = messages[-1]["content"]
    found = sorted(set(NAME.findall(prompt)))
    query = int(found[0][0])
    if query == 2:
        return "I refuse to grade this."
    entries = [{"name": f"q{q}_c{c}", "score": int(c) + 1, "reason": "x"} for q, c in found if c != "3"]
    return json.dumps({"scores": entries})


@pytest.fixture
def scripts():
    register_script("wb-candidate", candidate)
    register_script("wb-judge", judge)
    register_script("wb-batched", batched_judge)
    calls.clear()
    yield
    for name in ("wb-candidate", "wb-judge", "wb-batched"):
        unregister_script(name)


def bindings(judge_script: str) -> dict[str, RoleBinding]:
    return {
        "candidate": RoleBinding(spec="scripted/wb-candidate", concurrency=2),
        "judge": RoleBinding(spec=f"scripted/{judge_script}", concurrency=4),
    }


def slice_value(results, kind, label):
    return next(s for s in results.extra["writingbench"]["slices"] if s["kind"] == kind and s["label"] == label)


async def test_per_criterion_run(tiny_dir: Path, tmp_path: Path, scripts):
    task = get_task("writingbench", {"data_dir": str(tiny_dir), "verify": False})
    folder, results = await start_run(task, bindings("wb-judge"), RunOptions(out_dir=tmp_path, display="none"))
    records = {r.id: r for r in folder.iter_records()}

    # the candidate failure is a failed sample, not a score
    assert records["writingbench/4"].status == "error" and "rejected" in records["writingbench/4"].error
    assert results.counts.failed == 1 and results.counts.ok == 3

    # reasoning never reaches the judge
    assert calls and not any("secret plan" in c for c in calls)

    q1 = records["writingbench/1"].scores["writingbench"]
    assert q1.value == pytest.approx(3.0) and q1.parse_status == "ok"
    q2 = records["writingbench/2"].scores["writingbench"].metadata["criteria"]
    assert all(entry["score"] == 6 and entry["attempts"] == 2 for entry in q2.values())
    q3 = records["writingbench/3"].scores["writingbench"]
    assert q3.parse_status == "partial"
    assert q3.metadata["criteria"]["q3_c5"] == {
        **q3.metadata["criteria"]["q3_c5"],
        "score": None,
        "status": "invalid",
        "attempts": 3,
    }
    assert q3.value == pytest.approx((5 + 6 + 7 + 8) / 4)

    # hand-computed official definitions over the three judged queries
    overall = slice_value(results, "overall", "all")
    assert overall["value"] == pytest.approx((15 + 30 + 26) / 14)
    assert (overall["criteria_scored"], overall["criteria_unscored"]) == (14, 1)
    assert slice_value(results, "domain1", "Academic & Engineering")["value"] == pytest.approx((3 + 6) / 2)
    assert slice_value(results, "domain1", "Literature & Arts")["value"] is None  # only query 4, which failed
    assert slice_value(results, "lang", "en")["value"] == pytest.approx((3 + 6.5) / 2)
    # style: queries 1 (C: c2) and 3 (C: c1, c4)
    assert slice_value(results, "requirement_R", "style")["value"] == pytest.approx((3 + 6.5) / 2)
    assert slice_value(results, "requirement_C", "style")["value"] == pytest.approx((2 + 5 + 8) / 3)
    # format: query 2, C criterion c5
    assert slice_value(results, "requirement_C", "format")["value"] == pytest.approx(6)
    assert {p.name for p in folder.path.iterdir()} >= {"writingbench.csv", "writingbench.md"}
    assert "1 sample(s) failed before judging" in (folder.path / "writingbench.md").read_text(encoding="utf-8")


async def test_batched_mode(tiny_dir: Path, tmp_path: Path, scripts):
    task = get_task(
        "writingbench", {"data_dir": str(tiny_dir), "verify": False, "judge_mode": "batched", "judge_attempts": 2}
    )
    folder, results = await start_run(task, bindings("wb-batched"), RunOptions(out_dir=tmp_path, display="none"))
    records = {r.id: r for r in folder.iter_records()}
    q1 = records["writingbench/1"].scores["writingbench"]
    assert q1.metadata["criteria"]["q1_c3"]["score"] is None  # left out of the reply
    assert q1.value == pytest.approx((2 + 3 + 5 + 6) / 4)
    refused = records["writingbench/2"].scores["writingbench"]
    assert refused.value is None and refused.parse_status == "unparsable"
    assert results.roles["judge"]["requests"] == 3 * 2  # every query re-asked once: none fully scored


async def test_long_responses_are_cut_for_the_judge(tiny_dir: Path, tmp_path: Path, scripts):
    register_script("wb-long", ["word " * 5000])
    try:
        task = get_task("writingbench", {"data_dir": str(tiny_dir), "verify": False, "judge_max_input_tokens": 2000})
        folder, _ = await start_run(
            task,
            {"candidate": RoleBinding(spec="scripted/wb-long"), "judge": RoleBinding(spec="scripted/wb-judge")},
            RunOptions(out_dir=tmp_path, display="none", limit=1),
        )
    finally:
        unregister_script("wb-long")
    entry = next(folder.iter_records()).scores["writingbench"].metadata["criteria"]["q1_c1"]
    assert entry["truncated"] is True and entry["score"] == 1
    assert all("response truncated" in c for c in calls)


async def test_rescoring_keeps_answers_and_changes_scores(tiny_dir: Path, tmp_path: Path, scripts):
    task = get_task("writingbench", {"data_dir": str(tiny_dir), "verify": False, "lang": "en"})
    source, _ = await start_run(task, bindings("wb-judge"), RunOptions(out_dir=tmp_path, display="none"))
    register_script("wb-flat", ['{"score": 9, "reason": "flat"}'])
    try:
        _, after = await rescore_run(
            source, task, {"judge": RoleBinding(spec="scripted/wb-flat")}, RunOptions(out_dir=tmp_path, display="none")
        )
    finally:
        unregister_script("wb-flat")
    assert slice_value(after, "overall", "all")["value"] == 9
    assert after.counts.finished == 2


def test_options_are_validated(tiny_dir: Path):
    with pytest.raises(ValueError, match="--judge-mode"):
        get_task("writingbench", {"data_dir": str(tiny_dir), "judge_mode": "sometimes"})
    with pytest.raises(ValueError, match="--data-dir PATH"):
        get_task("writingbench", {"data_dir": str(tiny_dir / "nowhere")})
    with pytest.raises(ValueError, match="unknown domain1|unknown domain2"):
        get_task("writingbench", {"data_dir": str(tiny_dir), "verify": False, "domain": "Cooking"})
    task = get_task("writingbench", {"data_dir": str(tiny_dir), "verify": False, "domain": "Education"})
    assert [s.metadata["index"] for s in task.dataset()] == [3]


async def test_export_and_official_table_round_trip(tiny_dir: Path, tmp_path: Path, scripts):
    from typer.testing import CliRunner

    from proseval.cli import app

    task = get_task("writingbench", {"data_dir": str(tiny_dir), "verify": False})
    folder, results = await start_run(task, bindings("wb-judge"), RunOptions(out_dir=tmp_path, display="none"))
    runner = CliRunner()
    scores_dir = tmp_path / "scores"
    scores_dir.mkdir()
    out = runner.invoke(
        app,
        [
            "writingbench",
            "export",
            str(folder.path),
            "--scores",
            str(scores_dir / "m.jsonl"),
            "--responses",
            str(tmp_path / "responses.jsonl"),
        ],
        catch_exceptions=False,
    )
    assert out.exit_code == 0 and "1 unscored criteria left out" in " ".join(out.output.split())
    assert len((tmp_path / "responses.jsonl").read_text().splitlines()) == 3
    table = runner.invoke(
        app,
        [
            "writingbench",
            "official-table",
            "--score-dir",
            str(scores_dir),
            "--data-dir",
            str(tiny_dir),
            "-o",
            str(tmp_path / "t.csv"),
        ],
        catch_exceptions=False,
    )
    # the tiny data set has no pinned hashes: the official table refuses it unless told not to verify
    assert table.exit_code == 2 and "sha-256" in table.output.lower()
    table = runner.invoke(
        app,
        [
            "writingbench",
            "official-table",
            "--score-dir",
            str(scores_dir),
            "--no-verify",
            "--data-dir",
            str(tiny_dir),
            "-o",
            str(tmp_path / "t.csv"),
        ],
        catch_exceptions=False,
    )
    assert table.exit_code == 0, table.output
    env_table = runner.invoke(
        app,
        [
            "writingbench",
            "official-table",
            "--score-dir",
            str(scores_dir),
            "--no-verify",
            "-o",
            str(tmp_path / "t2.csv"),
        ],
        env={"PROSEVAL_WRITINGBENCH_DIR": str(tiny_dir)},
    )
    assert env_table.exit_code == 0, env_table.output  # the data folder from the environment, as run reads it
    assert (tmp_path / "t2.csv").read_text() == (tmp_path / "t.csv").read_text()
    import csv

    (row,) = csv.DictReader((tmp_path / "t.csv").open())
    ours = next(s for s in results.extra["writingbench"]["slices"] if s["kind"] == "overall")
    assert float(row["Overall"]) == pytest.approx(ours["value"]) == pytest.approx((15 + 30 + 26) / 14)
    assert row["Count"] == "3"
