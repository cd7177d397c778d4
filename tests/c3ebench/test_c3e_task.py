"""End to end with scripted models: scores, unscored judgments, empty answers and failed requests, counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import proseval
from proseval.cli import app
from proseval.models.base import FatalError, RetryableError
from proseval.models.scripted import register_script, unregister_script
from proseval.registry import get_task
from proseval.runtime.options import RunOptions
from proseval.runtime.records import RoleBinding
from proseval.runtime.runner import start_run
from support.core import sample_requests

CANDIDATE = {  # a phrase of the item's prompt -> the answer (or the failure)
    "The river rose overnight": "Farmers fled.",
    "Floods are bad.": "",  # an empty answer: a model failure
    "thanking volunteers": FatalError("request rejected"),
    "river management": "An essay.",
    "清晨的西湖": "午后游人如织。",
    "读书的意义": RetryableError("server down", status=503),
    "桥很老了。": "木桥老去。",
    "防汛工作": "各单位：通知。",
}
judge_seen: list[str] = []
judge_replies = {"午后游人如织。": 0}


def candidate(messages):
    prompt = messages[-1]["content"]
    return next((answer for phrase, answer in CANDIDATE.items() if phrase in prompt), "a guess")


def judge(messages):
    user = messages[-1]["content"]
    judge_seen.append(messages[0]["content"] + "\n" + user)
    answer = user.rsplit("[Candidate]\n", 1)[1]
    if answer == "Farmers fled.":
        return '{"analysis": "fits", "score": 7, "verdict": "good"}'
    if answer == "An essay.":
        return "A solid essay, I would say seven."  # never JSON: unscored after every re-ask
    if answer == "午后游人如织。":
        judge_replies[answer] += 1
        return "嗯" if judge_replies[answer] == 1 else '{"score": [5]}'
    if answer == "木桥老去。":
        return '{"score": "4"}'  # a numeric string: proseval reads 4, the official aggregate drops it
    return FatalError("judge endpoint refused")


@pytest.fixture(autouse=True)
def scripts():
    register_script("c3e-candidate", candidate)
    register_script("c3e-judge", judge)
    judge_seen.clear()
    judge_replies["午后游人如织。"] = 0
    yield
    unregister_script("c3e-candidate")
    unregister_script("c3e-judge")


BINDINGS = {"candidate": RoleBinding(spec="scripted/c3e-candidate"), "judge": RoleBinding(spec="scripted/c3e-judge")}


async def test_a_run_scores_counts_and_tabulates(tiny_dir: Path, tmp_path: Path):
    task = get_task("c3ebench", {"data_dir": str(tiny_dir)})
    folder, _ = await start_run(
        task, BINDINGS, RunOptions(out_dir=tmp_path, display="none", max_attempts=2, backoff_initial=0.0)
    )
    records = {r.id: r for r in folder.iter_records()}
    saved = json.loads((folder.path / "results.json").read_text())
    assert saved["counts"] == {
        **saved["counts"],
        "total": 8,
        "finished": 8,
        "ok": 6,
        "failed": 2,
        "unscored": 2,
        "model_failures": {"empty": 1},
    }
    assert {k for k, r in records.items() if r.status == "error"} == {"condition_en_1", "condition_cn_400"}
    scores = {k: r.scores["c3e"] for k, r in records.items() if r.status == "ok"}
    assert scores["cloze_en_1"].value == 7.0
    assert scores["edit_en_1"].value == 1.0 and scores["edit_en_1"].parse_status == "empty"  # no judge call
    assert scores["end2end_en_1"].value is None and scores["end2end_en_1"].parse_status == "unparsable"
    assert scores["end2end_en_1"].metadata["judge_calls"] == 3
    assert scores["cloze_cn_7"].value == 5.0 and scores["cloze_cn_7"].metadata["judge_calls"] == 2
    assert scores["cloze_cn_7"].metadata["official"] is None  # the official parser dropped the first answer
    assert scores["edit_cn_900"].value == 4.0 and scores["edit_cn_900"].parse_status == "coerced"
    assert scores["edit_cn_900"].metadata["official"] is None
    assert scores["end2end_cn_1200"].value is None and scores["end2end_cn_1200"].parse_status == "error"
    assert saved["metrics"]["c3e"]["mean"] == pytest.approx((7 + 1 + 5 + 4) / 4)
    assert saved["metrics"]["c3e"]["n_unscored"] == 2 and saved["metrics"]["c3e"]["n_failed"] == 2
    assert not any("Floods are bad." in seen and "[Candidate]\n\n" in seen for seen in judge_seen)
    assert len(judge_seen) == 1 + 3 + 2 + 1 + 1

    cells = {(c["task"], c["language"]): c for c in saved["extra"]["c3ebench"]["cells"]}
    assert len(cells) == 8
    assert cells[("expand", "en")]["n_failed"] == 1 and cells[("expand", "en")]["mean"] is None
    assert cells[("edit", "en")]["n_empty"] == 1 and cells[("edit", "en")]["mean"] == 1.0
    assert cells[("end2end", "en")]["n_unscored"] == 1 and cells[("cloze", "zh")]["mean"] == 5.0
    assert cells[("cloze", "zh")]["official_n"] == 0
    assert cells[("edit", "zh")]["mean"] == 4.0 and cells[("edit", "zh")]["official_n"] == 0
    assert cells[("edit", "zh")]["official_mean"] is None
    assert cells[("cloze", "en")]["official_mean"] == 7.0 and cells[("cloze", "en")]["official_n"] == 1
    assert saved["extra"]["c3ebench"]["unscored_by_status"] == {"error": 1, "unparsable": 1}
    sources = {(r["task"], r["reference_source"]): r for r in saved["extra"]["c3ebench"]["reference_sources"]}
    assert sources[("all", "human")]["n_scored"] == 2 and sources[("end2end", "hybrid")]["n_unscored"] == 1
    genres = {(g["language"], g["genre"]): g for g in saved["extra"]["c3ebench"]["genres"]}
    assert genres[("en", "essay")]["n_scored"] == 2 and genres[("en", "essay")]["mean"] == pytest.approx(4.0)
    assert (folder.path / "c3ebench_task_language.png").read_bytes()[:4] == b"\x89PNG"
    assert "| Cloze | en | 7.00 |" in (folder.path / "c3ebench.md").read_text()
    header = json.loads((folder.path / "header.json").read_text())
    assert header["dataset"]["posing"].startswith("fixed") and header["dataset"]["verified"] is False
    assert header["dataset"]["counts"] == {
        "en": {"cloze": 1, "expand": 1, "edit": 1, "end2end": 1},
        "zh": {"cloze": 1, "expand": 1, "edit": 1, "end2end": 1},
    }
    assert saved["roles"]["judge"]["requests"] == 8
    cost = {(c["task"], c["language"]): c for c in saved["extra"]["c3ebench"]["cost_per_item"]}
    assert cost[("all", "all")]["n"] == 8 and cost[("all", "all")]["judge_calls"] == 1.0  # 8 judge calls, 8 items
    assert cost[("end2end", "en")]["judge_calls"] == 3.0 and cost[("edit", "en")]["judge_calls"] == 0.0
    assert set(cost[("all", "all")]["tokens"]) == {"candidate", "judge"}
    assert "| End2End | en | 1 | 3.00 |" in (folder.path / "c3ebench.md").read_text()


def test_cli_run_prints_the_task_language_table(tiny_dir: Path, tmp_path: Path):
    result = CliRunner().invoke(
        app,
        [
            "run",
            "c3ebench",
            "--data-dir",
            str(tiny_dir),
            "--language",
            "en",
            "--task",
            "cloze,edit",
            "-m",
            "scripted/c3e-candidate",
            "-r",
            "judge=scripted/c3e-judge",
            "--out",
            str(tmp_path / "runs"),
            "--display",
            "none",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "By task and language" in result.output and "By genre" in result.output
    run_dir = next((tmp_path / "runs").iterdir())
    saved = json.loads((run_dir / "results.json").read_text())
    assert saved["counts"]["total"] == 2 and saved["metrics"]["c3e"]["mean"] == pytest.approx(4.0)


def test_official_preset_poses_officially_and_sets_the_official_settings(tiny_dir: Path, tmp_path: Path):
    run = proseval.run(
        "c3ebench",
        model="scripted/c3e-candidate",
        roles={"judge": "scripted/c3e-judge"},
        params={"data_dir": str(tiny_dir), "language": "zh", "task": "cloze"},
        preset="official",
        out=tmp_path,
    )
    assert run.header.preset["name"] == "official"
    assert run.header.task_params["compat"] == "official" and run.header.task_params["judge_attempts"] == 1
    assert run.header.dataset["posing"].startswith("official")
    assert run.header.roles["judge"].config.temperature == 0.0 and run.header.roles["judge"].config.max_tokens == 1000
    assert run.header.roles["candidate"].config.temperature == 0.7
    record = next(run.records())
    assert "清晨的西湖" not in record.state.messages[0]["content"]  # the official posing omits the article
    assert record.state.metadata["prompt"] == "official_cloze_zh" and record.state.output == "a guess"


def test_a_candidate_prompt_file_replaces_the_builtin(tiny_dir: Path, tmp_path: Path):
    mine = tmp_path / "cloze_zh.txt"
    mine.write_text("MY POSING\n{instruction}\n{content}", encoding="utf-8")
    run = proseval.run(
        "c3ebench",
        model="scripted/c3e-candidate",
        roles={"judge": "scripted/c3e-judge"},
        params={"data_dir": str(tiny_dir), "language": "zh", "task": "cloze"},
        prompts={"candidate_cloze_zh": mine},
        out=tmp_path / "runs",
    )
    record = next(run.records())
    sent = record.state.messages[0]["content"]
    assert sent.startswith("MY POSING\n") and "清晨的西湖" in sent
    assert run.header.prompts["candidate_cloze_zh"].source == str(mine)


def test_ablation_options_reach_the_judge(tiny_dir: Path, tmp_path: Path):
    proseval.run(
        "c3ebench",
        model="scripted/c3e-candidate",
        roles={"judge": "scripted/c3e-judge"},
        params={
            "data_dir": str(tiny_dir),
            "language": "en",
            "task": "cloze",
            "judge_no_reference": True,
            "judge_no_traits": True,
        },
        out=tmp_path,
    )
    assert judge_seen and "[Reference]" not in judge_seen[0] and "Farmers moved their animals" not in judge_seen[0]
    assert "Judge the candidate as a whole." in judge_seen[0]


def test_official_budget_is_one_and_a_half_reference_characters():
    from proseval.benchmarks._shared.c3e.data import Item
    from proseval.benchmarks.c3ebench.task import official_budget

    item = Item("x", "cloze", "en", "essay", "i", {"prefix": "", "suffix": ""}, "a" * 101)
    assert official_budget(item) == 151


def test_no_matching_item_is_a_clear_error(tiny_dir: Path):
    with pytest.raises(ValueError, match="no C3EBench item matches"):
        get_task("c3ebench", {"data_dir": str(tiny_dir), "genre": "sonnet"})


def test_a_rubric_file_without_slots_replaces_the_judge_system_message(tiny_dir: Path, tmp_path: Path):
    rubric = tmp_path / "rubric.txt"
    rubric.write_text('OFFICIAL-STYLE RUBRIC. Answer {"score": 1-10}.', encoding="utf-8")
    run = proseval.run(
        "c3ebench",
        model="scripted/c3e-candidate",
        roles={"judge": "scripted/c3e-judge"},
        params={"data_dir": str(tiny_dir), "language": "en", "task": "cloze"},
        prompts={"judge_cloze_en": rubric},
        out=tmp_path / "runs",
    )
    assert judge_seen[0].startswith('OFFICIAL-STYLE RUBRIC. Answer {"score": 1-10}.\n[Context]')
    assert run.results.metrics["c3e"].mean == 7.0


async def test_a_rescore_with_another_judge_replays_the_stored_answers(tiny_dir: Path, tmp_path: Path):
    from proseval.runtime.rescore import rescore_run

    task = get_task("c3ebench", {"data_dir": str(tiny_dir), "language": "en", "task": "cloze,edit"})
    source, before = await start_run(task, BINDINGS, RunOptions(out_dir=tmp_path, display="none"))
    register_script("c3e-judge-9", lambda messages: '{"score": 9}')
    try:
        _, after = await rescore_run(
            source,
            task,
            {"judge": RoleBinding(spec="scripted/c3e-judge-9")},
            RunOptions(out_dir=tmp_path, display="none"),
        )
    finally:
        unregister_script("c3e-judge-9")
    assert before.metrics["c3e"].mean == pytest.approx(4.0)  # 7 judged, 1 for the empty answer
    assert after.metrics["c3e"].mean == pytest.approx(5.0)  # 9 judged anew; the empty answer still scores 1


def test_an_answer_that_is_all_reasoning_counts_as_empty(tiny_dir: Path, tmp_path: Path):
    register_script("c3e-thinker", lambda messages: "<think>I cannot decide.</think>")
    try:
        run = proseval.run(
            "c3ebench",
            model="scripted/c3e-thinker",
            roles={"judge": "scripted/c3e-judge"},
            params={"data_dir": str(tiny_dir), "language": "en", "task": "cloze"},
            out=tmp_path,
        )
    finally:
        unregister_script("c3e-thinker")
    record = next(run.records())
    assert record.model_failure == "empty" and record.scores["c3e"].value == 1.0 and not judge_seen
    assert record.state.messages[-1]["content"] == "<think>I cannot decide.</think>"  # the raw reply is kept
    assert run.results.counts.model_failures == {"empty": 1}


@pytest.mark.parametrize("structured", [False, True])
def test_judge_structured_asks_for_the_rubric_schema(tiny_dir: Path, tmp_path: Path, structured: bool):
    from proseval.benchmarks._shared.c3e.judge import judge_schema
    from proseval.testing.fake_openai import FakeOpenAIServer

    reply = '{"score": 8, "analysis": {"x": "cut here'  # score first, cut at the token limit
    server = FakeOpenAIServer(responder=lambda body: reply).start_in_thread()
    try:
        result = CliRunner().invoke(
            app,
            [
                "run",
                "c3ebench",
                "--data-dir",
                str(tiny_dir),
                "--language",
                "en",
                *(["--judge-structured"] if structured else []),
                "-m",
                "scripted/c3e-candidate",
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
    assert result.exit_code == 4, result.output  # the expand item's candidate fails: a run with a failed sample
    asked = {
        body["messages"][1]["content"].split("]", 1)[0]: body.get("response_format") for body in sample_requests(server)
    }
    assert len(sample_requests(server)) == 2  # cloze and end2end (edit: empty answer; expand: failed candidate)
    for label, task in (("[Context", "cloze"), ("[Instruction", "end2end")):
        assert (asked[label]["json_schema"]["schema"] == judge_schema(task)) if structured else asked[label] is None
    saved = json.loads(next((tmp_path / "runs").iterdir()).joinpath("results.json").read_text())
    assert saved["metrics"]["c3e"]["mean"] == pytest.approx((8 + 8 + 1) / 3)


def test_a_reasoning_allowance_adds_to_the_reference_budget(tiny_dir: Path, tmp_path: Path, monkeypatch):
    from proseval.benchmarks.c3ebench.params import C3EParams
    from proseval.benchmarks.c3ebench.task import load, official_budget, select_items
    from proseval.models.scripted import ScriptedModel

    sent: list[int | None] = []
    original = ScriptedModel.generate

    async def recording(self, messages, config):
        if self.name == "c3e-candidate":
            sent.append(config.max_tokens)
        return await original(self, messages, config)

    monkeypatch.setattr(ScriptedModel, "generate", recording)
    params = {
        "data_dir": str(tiny_dir),
        "language": "en",
        "task": "cloze",
        "budget": "reference",
        "reasoning_allowance": 100,
    }
    run = proseval.run(
        "c3ebench",
        model="scripted/c3e-candidate",
        roles={"judge": "scripted/c3e-judge"},
        params=params,
        out=tmp_path,
        cache=False,
    )
    chosen = C3EParams(**params)
    items = select_items(load(chosen), chosen)
    assert sorted(sent) == sorted(official_budget(item) + 100 for item in items) and sent
    assert run.header.dataset["reasoning_allowance"] == 100
    with pytest.raises(ValueError, match="use it with --budget reference"):
        get_task("c3ebench", {"data_dir": str(tiny_dir), "reasoning_allowance": 100})
