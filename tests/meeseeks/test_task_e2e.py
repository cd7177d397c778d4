"""The meeseeks task end to end with scripted candidate, extractor and judge models.

Fixture items (tests/meeseeks/fixtures/task): A slogans (code extraction, judge gate, two rules),
B poem (judge gate, general extraction, keyword rule), C never answered (candidate error),
D colours (extraction code the sandbox rejects, plus a rule without a checker).

Script, rounds=3, reask feedback:
  A: r1 one slogan (count fails), r2 two slogans, one too long (length fails), r3 all pass.
  B: r1 poem without the keyword, r2 no poem (judge No, keyword gated), r3 the judge gives
     no verdict (everything undecided, nothing fails: the item stops).
  C: the candidate raises FatalError: failed sample.
  D: r1 extraction code imports os (forbidden: unscored, so nothing failed and D is not re-asked).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from proseval.benchmarks.meeseeks.loop import parse_judge_verdict
from proseval.benchmarks.meeseeks.params import MeeseeksParams
from proseval.benchmarks.meeseeks.task import make_task
from proseval.models.base import ContextOverflowError, FatalError
from proseval.models.scripted import register_script, unregister_script
from proseval.runtime.options import RunOptions
from proseval.runtime.records import RoleBinding
from proseval.runtime.runner import start_run

DATA = Path(__file__).parent / "fixtures" / "task"

SLOGAN_ANSWERS = [
    "Here are my slogans:\n1. Tea time\nHope you like them!",
    "1. Tea time\n2. Calm leaves in every cup today friend",
    "1. Tea time\n2. Calm cup",
]
POEM_ANSWERS = ["Rain falls soft\non the quiet town", "I cannot write poems.", "Drizzle and an umbrella"]
GOOD_CODE = (
    "```python\ndef extract_info_list(model_response):\n"
    "    return re.findall(r'^\\d+\\. .*$', model_response, re.M)\n```"
)
FORBIDDEN_CODE = "```python\nimport os\n\ndef extract_info_list(model_response):\n    return os.listdir('.')\n```"

asked: Counter[str] = Counter()
prompts: dict[str, list[list[dict[str, str]]]] = {}


def candidate(messages):
    text = messages[-1]["content"]
    key = next(k for k in ("slogans", "poem", "NEVER", "colours") if k in text)
    asked[key] += 1
    prompts.setdefault(key, []).append(messages)
    if key == "NEVER" or (key == "colours" and asked[key] == 2):
        raise FatalError("the provider rejected this request")
    if key == "colours":
        return "1. red\n2. green\n3. blue"
    answers = SLOGAN_ANSWERS if key == "slogans" else POEM_ANSWERS
    return answers[asked[key] - 1]


def extractor(messages):
    prompt = messages[-1]["content"]
    if "extract_info_list" in prompt:
        return FORBIDDEN_CODE if "Extract each colour." in prompt else GOOD_CODE
    return "ALL"


def judge(messages):
    prompt = messages[-1]["content"]
    if "Did the answer give slogans" in prompt:
        return "分析：slogans are there\n判断：是"
    if "cannot write poems" in prompt:
        return "分析：no poem at all\n判断:否"  # ASCII colon: read in the fixed profile
    if "Drizzle" in prompt:
        return "Hard to say."
    return "分析：a poem\n判断：是"


@pytest.fixture
def scripts():
    asked.clear()
    prompts.clear()
    for name, script in (("ms-candidate", candidate), ("ms-extractor", extractor), ("ms-judge", judge)):
        register_script(name, script)
    yield
    for name in ("ms-candidate", "ms-extractor", "ms-judge"):
        unregister_script(name)


BINDINGS = {role: RoleBinding(spec=f"scripted/ms-{role}") for role in ("candidate", "extractor", "judge")}


async def run(tmp_path: Path, **params):
    task = make_task(MeeseeksParams(data_dir=str(DATA), **params))
    folder, results = await start_run(task, BINDINGS, RunOptions(out_dir=tmp_path, display="none"))
    return folder, results, {r.id.rsplit("#", 1)[1]: r for r in folder.iter_records()}


async def test_rounds_scores_and_metrics(tmp_path: Path, scripts):
    folder, results, records = await run(tmp_path, language="en", rounds=3)
    a, b, c, d = (records[str(i)] for i in range(4))

    # C never answered: a failed sample, counted, never scored 0
    assert c.status == "error" and "rejected" in c.error
    assert results.counts.failed == 1 and results.counts.ok == 3

    # A improves: per-round item scores 3/4, 2/4, 1 (tags: 未定义, 单元数量合规, 0~10字, 范围)
    score_a = a.scores["meeseeks"]
    assert [(r["round"], r["score"], r["utility"]) for r in score_a.metadata["per_round"]] == [
        (1, 0.75, 0),
        (2, 0.5, 0),
        (3, 1.0, 1),
    ]
    assert score_a.value == 1.0 and a.scores["utility"].value == 1
    assert a.state.output == SLOGAN_ANSWERS[2] and len(a.state.turns) == 3
    first = a.state.turns[0]
    assert first["parts"]["slogans"]["items"] == ["1. Tea time"]
    assert [s["result"] for s in first["sub_questions"]] == [1, 0, 1]
    # round 2 is one re-ask message with the failed requirement and the previous answer
    second_prompt = prompts["slogans"][1]
    assert [m["role"] for m in second_prompt] == ["system", "user"]
    assert "Are there exactly two slogans? -> not satisfied." in second_prompt[-1]["content"]
    assert SLOGAN_ANSWERS[0] in second_prompt[-1]["content"]

    # B regresses then becomes undecided: the gate failing fails its dependant; undecided is not 0
    turns_b = b.state.turns
    assert [s["result"] for s in turns_b[1]["sub_questions"]] == [0, 0]
    assert turns_b[1]["sub_questions"][1]["reason"] == "Dependencies failed"
    assert [s["status"] for s in turns_b[2]["sub_questions"]] == ["unscored", "dependency_undecided"]
    assert turns_b[2]["sub_questions"][0]["attempts"] == 3
    # round 3's judge failure does not count: B keeps round 2 (an infrastructure failure never
    # raises, or lowers, an item's score)
    assert b.scores["meeseeks"].value == 0.0 and b.scores["utility"].value == 0
    assert [r["score"] for r in b.scores["meeseeks"].metadata["per_round"]] == [0.5, 0.0]
    assert [r["not_counted"] for r in b.scores["meeseeks"].metadata["rounds"]] == [False, False, True]

    # D: the sandbox rejects the extraction code: the extractor failed, not the candidate, so the
    # check is unscored (never 0); the rule without a checker is unsupported
    first_d = d.state.turns[0]
    assert first_d["parts"]["colours"]["failure"] == "forbidden"
    assert first_d["parts"]["colours"]["sandbox"]["layers"][-1] == "seccomp"
    assert first_d["sub_questions"][0]["status"] == "extraction_undecided"
    assert first_d["sub_questions"][0]["result"] is None
    assert "extraction failed (forbidden)" in first_d["sub_questions"][0]["reason"]
    assert first_d["sub_questions"][1]["status"] == "unsupported" and first_d["sub_questions"][1]["result"] is None
    assert len(d.state.turns) == 1  # nothing failed, so D is not re-asked
    assert d.scores["meeseeks"].value is None and d.scores["meeseeks"].metadata["undecided"] == 2

    # per-round full-set metrics, hand-computed (carry-forward; C not evaluated; D unscored)
    rounds = results.extra["meeseeks"]["rounds"]
    assert [r["processed_this_round"] for r in rounds] == [4, 2, 2]
    assert [r["candidate_errors"] for r in rounds] == [1, 0, 0]
    assert [r["meeseeks_score"] for r in rounds] == pytest.approx([(0.75 + 0.5) / 2, (0.5 + 0) / 2, (1 + 0) / 2])
    assert [r["utility_score"] for r in rounds] == pytest.approx([0, 0, 1 / 2])
    assert [r["capability_mean_level1"] for r in rounds] == pytest.approx(
        [(3 / 4 + 0 / 1) / 2, (0 / 2 + 1 / 1) / 2, (2 / 4 + 1 / 1) / 2]
    )
    assert [r["not_evaluated_items"] for r in rounds] == [1, 1, 1]
    assert [r["partial_items"] for r in rounds] == [0, 0, 0]
    assert [r["undecided_checks"] for r in rounds] == [2, 2, 2]
    assert [r["unsupported_checks"] for r in rounds] == [1, 1, 1]
    assert [r["not_counted_items"] for r in rounds] == [0, 0, 1]
    # beside ours, the figures as the official code counts: D's sandbox failure is a failed check
    assert rounds[0]["official_counting"] == pytest.approx(
        {"meeseeks_score": (0.75 + 0.5 + 0) / 3, "utility_score": 0.0}
    )
    assert [r["model_failed_items"] for r in rounds] == [0, 0, 0]
    level1 = {n["name"]: (n["correct"], n["wrong"], n["unscored"]) for n in rounds[2]["capabilities"]}
    assert level1 == {"Granular Content Validation": (2, 2, 0), "Output Structure Validation": (1, 0, 1)}

    # official stats schema per round, also written as files
    stats = results.extra["meeseeks"]["round_stats"]
    assert sorted(stats) == ["round_1_stats", "round_2_stats", "round_3_stats"]
    on_disk = json.loads((folder.path / "round_1_stats.json").read_text(encoding="utf-8"))
    assert on_disk == stats["round_1_stats"] and on_disk["total_items"] == 3
    word_count = on_disk["capability_stats"]["Granular Content Validation"]["children"]["Word count requirement"]
    assert (word_count["correct"], word_count["wrong"], word_count["total"]) == (2, 0, 2)
    assert list(word_count["children"]) == ["Generate in rough/range word number", "Generate in 0~10 words"]
    pytest.importorskip("matplotlib")
    assert (folder.path / "meeseeks_rounds.png").read_bytes()[:4] == b"\x89PNG"


async def test_round_limit_and_chat_feedback(tmp_path: Path, scripts):
    _, results, records = await run(tmp_path, language=["en"], rounds=2, feedback="chat")
    a = records["0"]
    assert len(a.state.turns) == 2 and a.scores["meeseeks"].value == 0.5  # stopped by the round limit
    chat = prompts["slogans"][1]
    assert [m["role"] for m in chat] == ["system", "user", "assistant", "user"]
    assert chat[2]["content"] == SLOGAN_ANSWERS[0]
    assert chat[3]["content"].splitlines()[1].startswith("1. Are there exactly two slogans? -> not satisfied.")
    assert [r["processed_this_round"] for r in results.extra["meeseeks"]["rounds"]] == [4, 2]


async def test_general_extraction_and_head_profile(tmp_path: Path, scripts):
    # general: the #CODE# parts go to the list extractor ("ALL" = the whole answer): no sandbox
    _, _, records = await run(tmp_path / "general", rounds=1, extraction="general")
    assert records["3"].state.turns[0]["parts"]["colours"]["items"] == ["1. red\n2. green\n3. blue"]
    assert records["3"].state.turns[0]["sub_questions"][0]["status"] == "failed"  # one item, not three
    asked.clear()
    prompts.clear()
    # head: a bare ALL reads as an empty extraction, so the keyword check passes vacuously and the
    # poem item is not re-asked (the reference's behaviour)
    _, _, records = await run(tmp_path / "head", rounds=2, compat="head")
    poem = records["1"].state.turns
    assert len(poem) == 1 and poem[0]["parts"]["poem"]["items"] == []
    assert [s["result"] for s in poem[0]["sub_questions"]] == [1, 1]


def test_judge_verdicts():
    assert parse_judge_verdict("分析：判断：否 would be wrong\n判断 : 是") == 1
    assert parse_judge_verdict("分析：x\n判断:否") == 0
    assert parse_judge_verdict("Yes, clearly.") is None
    # head: first full-width verdict only; none counts as 0
    assert parse_judge_verdict("判断：否\n判断：是", compat="head") == 0
    assert parse_judge_verdict("判断:是", compat="head") == 0


def test_bad_options_and_data(tmp_path: Path, monkeypatch):
    with pytest.raises(ValueError, match="unknown language"):
        MeeseeksParams(language="xx")
    with pytest.raises(ValueError, match="extra"):
        MeeseeksParams(rounds=2, colour="red")
    monkeypatch.delenv("PROSEVAL_MEESEEKS_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))  # an empty default download folder
    with pytest.raises(ValueError, match="--data-dir"):
        make_task(MeeseeksParams())
    broken = tmp_path / "input_data" / "english_data" / "raw_input"
    broken.mkdir(parents=True)
    raw = json.loads((DATA / "input_data/english_data/raw_input/DATA-task英语版.json").read_text(encoding="utf-8"))
    raw[1]["sub_questions"][1]["dep"] = [7]
    (broken / "DATA-x英语版.json").write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(ValueError, match=r"DATA-x英语版.json: item 1, sub-question 1: depends on unknown"):
        make_task(MeeseeksParams(data_dir=str(tmp_path)))


def test_cli_rules_and_generate(tmp_path: Path):
    from typer.testing import CliRunner

    from proseval.benchmarks.meeseeks.cli import app

    runner = CliRunner()
    out = runner.invoke(app, ["rules", "--data-dir", str(DATA)], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    assert "4 of 5 rule sub-questions have a checker (80.0 %)" in " ".join(out.output.split())
    assert "rare_colour_check" in out.output
    template = tmp_path / "t.json"
    template.write_text(
        json.dumps(
            {
                "name": "tea",
                "language": "en",
                "parameters": {"n": [2, 3]},
                "item": {
                    "category": "general_multi",
                    "question": "Write {n} slogans.",
                    "corresponding_parts": {"s": "#CODE#Extract the slogans."},
                    "sub_questions": [
                        {
                            "point_id": 0,
                            "question": "{n} slogans?",
                            "corresponding_part": "s",
                            "rule": "item_count:[{n},{n}]",
                            "dep": [],
                            "能力项": "单元数量合规",
                        }
                    ],
                },
            }
        )
    )
    out = runner.invoke(app, ["generate", "--template", str(template), "-o", str(tmp_path / "items.json")])
    assert out.exit_code == 0, out.output
    items = json.loads((tmp_path / "items.json").read_text(encoding="utf-8"))
    assert [i["sub_questions"][0]["rule"] for i in items] == ["item_count:[2,2]", "item_count:[3,3]"]
    assert "DATA-tea英语版.json" in out.output
    from proseval.cli import app as main_app

    out = runner.invoke(main_app, ["generate", "meeseeks", "--template", str(template), "-o", str(tmp_path / "b.json")])
    assert out.exit_code == 0, out.output
    assert json.loads((tmp_path / "b.json").read_text(encoding="utf-8")) == items


async def test_rescore_redoes_the_judge_on_the_stored_answers(tmp_path, scripts):
    from proseval.runtime.rescore import rescore_run

    task = make_task(MeeseeksParams(data_dir=str(DATA), language="en", rounds=3))
    source, before = await start_run(task, BINDINGS, RunOptions(out_dir=tmp_path, display="none"))
    asked_before = sum(asked.values())
    judge_calls: list[str] = []

    def strict_judge(messages):
        judge_calls.append(messages[-1]["content"])
        return "分析：no\n判断：否"

    register_script("ms-strict", strict_judge)
    try:
        rescored, after = await rescore_run(
            source,
            task,
            {"judge": RoleBinding(spec="scripted/ms-strict")},
            RunOptions(out_dir=tmp_path, display="none"),
        )
    finally:
        unregister_script("ms-strict")
    assert sum(asked.values()) == asked_before, "the candidate was not called again"
    assert judge_calls, "the new judge was called"
    first = {r.id: r for r in source.iter_records()}
    for record in rescored.iter_records():
        if record.state is None:
            continue
        old_turns = first[record.id].state.turns
        assert [t.get("answer") for t in record.state.turns] == [t.get("answer") for t in old_turns]
    a = next(r for r in rescored.iter_records() if r.id.endswith("#0"))
    # the slogan item's judge gate now fails, so its dependants fail too: a lower score than before
    assert (
        a.scores["meeseeks"].value
        < next(r for r in source.iter_records() if r.id.endswith("#0")).scores["meeseeks"].value
    )
    header = rescored.read_header()
    assert header.roles["judge"].spec == "scripted/ms-strict" and "candidate" not in header.roles
    assert set(header.roles) == {"extractor", "judge"}


def test_rescore_cannot_rebind_the_candidate(tmp_path):
    from proseval.runtime.rescore import check_rescore_roles

    task = make_task(MeeseeksParams(data_dir=str(DATA), language="en"))
    with pytest.raises(ValueError, match="cannot rebind candidate"):
        check_rescore_roles(task, {"candidate": RoleBinding(spec="scripted/echo")})


async def test_an_item_whose_prompt_overflows_the_context_counts_as_failed(tmp_path: Path, scripts):
    def overflowing(messages):
        if "NEVER" in messages[-1]["content"]:
            raise ContextOverflowError("HTTP 400: maximum context length is 4096 tokens")
        return candidate(messages)

    register_script("ms-candidate", overflowing)
    folder, results, records = await run(tmp_path, language="en", rounds=1)
    assert records["2"].status == "error" and records["2"].model_failure == "context_overflow"
    assert results.counts.model_failures == {"context_overflow": 1}
    first = results.extra["meeseeks"]["rounds"][0]
    # A 0.75 (utility 0), B 0.5 (utility 0), C overflowed: failed (0), D undecided: left out
    assert first["meeseeks_score"] == pytest.approx((0.75 + 0.5 + 0) / 3)
    assert first["meeseeks_score_answered"] == pytest.approx((0.75 + 0.5) / 2)
    assert first["utility_score"] == first["utility_score_answered"] == 0
    assert first["model_failed_items"] == 1 and first["candidate_errors"] == 0 and first["not_evaluated_items"] == 0
