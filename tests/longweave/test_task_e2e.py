"""The longweave task end to end with scripted candidate and judge models."""

from __future__ import annotations

import json
import re

import pytest

from proseval.benchmarks.longweave.generators import generate
from proseval.benchmarks.longweave.judging.calls import biog_judge_calls
from proseval.models.scripted import register_script, unregister_script
from proseval.registry import get_task
from proseval.runtime.options import RunOptions
from proseval.runtime.records import RoleBinding
from proseval.runtime.runner import start_run

ITEM = re.compile(r"^\[(\d+)\]", re.MULTILINE)
FIELDS = re.compile(r'the fields ((?:"\w+"(?:, )?)+)')


def perfect_answer(prompt: str) -> str:
    """The right answer for every rule-scored task, found by regenerating the sample."""
    for task in ("kvg", "sms", "pr", "cf"):
        for length in ("1k",):
            for index in range(3):
                sample = generate(task, length, index)
                if sample.input != prompt:
                    continue
                target = sample.target
                if task == "kvg":
                    return json.dumps(dict(target["reference_dictionary"]))
                if task == "sms":
                    nexts = target["expected_states"]
                    currents = [target["initial_state"], *nexts[:-1]]
                    rows = [
                        f"{cur} | {c} | {nxt} | {o}"
                        for cur, c, nxt, o in zip(currents, target["input_string"], nexts, target["expected_outputs"])
                    ]
                    return "Current State | Input | Next State | Output Signal\n" + "\n".join(rows)
                if task == "pr":
                    return "\n\n".join(f"[[Segment {i}]]\n{seg}" for i, seg in enumerate(target["segments"]))
                return "```python\n" + target["original_code"] + "\n```"
    return "A long and careful text. " * 300


def candidate(messages):
    return perfect_answer(messages[-1]["content"])


def judge(messages):
    prompt = messages[-1]["content"]
    if "relevant_and_complete" in prompt:
        return '{"relevant_and_complete": true}'
    ids = [int(i) for i in ITEM.findall(prompt)]
    fields = re.findall(r'"(\w+)"', FIELDS.search(prompt).group(1))
    if "[1] Question" in prompt:  # SR: malformed on the first try of each call, then all yes
        judge.sr_calls += 1
        if judge.sr_calls % 2 == 1:
            return "Here are my verdicts: [{id: 1, answered: tru"
    return json.dumps([{"id": i, **{f: (True if f != "evidence" else "x") for f in fields}} for i in ids])


judge.sr_calls = 0


@pytest.fixture
def scripts():
    register_script("lw-candidate", candidate)
    register_script("lw-judge", judge)
    register_script("lw-empty", [""])
    register_script("lw-garbage", ["no json here at all"])
    judge.sr_calls = 0
    yield
    for name in ("lw-candidate", "lw-judge", "lw-empty", "lw-garbage"):
        unregister_script(name)


def bindings(candidate_script: str, judge_script: str) -> dict[str, RoleBinding]:
    return {
        "candidate": RoleBinding(spec=f"scripted/{candidate_script}", concurrency=4),
        "judge": RoleBinding(spec=f"scripted/{judge_script}", concurrency=4),
    }


def cell(results, task, length="1k"):
    return next(c for c in results.extra["longweave"]["cells"] if c["task"] == task and c["length"] == length)


async def test_every_task_scores_a_perfect_answer_fully(tmp_path, scripts):
    task = get_task("longweave", {"length": "1k", "per_cell": 2})
    folder, results = await start_run(
        task, bindings("lw-candidate", "lw-judge"), RunOptions(out_dir=tmp_path, display="none")
    )
    assert results.counts.finished == 14 and results.counts.failed == 0
    for name in ("kvg", "sms", "pr", "biog", "sr", "nw"):
        assert cell(results, name)["mean"] == pytest.approx(1.0), name
    assert 0 < cell(results, "cf")["mean"] < 1  # the polluted program keeps its violations
    records = [r for r in folder.iter_records() if r.metadata["task"] == "sr"]
    assert all(r.scores["longweave"].metadata["trace"]["unscored_targets"] == 0 for r in records)
    assert results.extra["longweave"]["overall"]["n_cells"] == 7
    assert (folder.path / "longweave.md").read_text().startswith("| task | 1k | Avg |")


async def test_empty_answers_score_zero_and_are_counted(tmp_path, scripts):
    task = get_task("longweave", {"task": "kvg,biog", "length": "1k", "per_cell": 2})
    _, results = await start_run(task, bindings("lw-empty", "lw-judge"), RunOptions(out_dir=tmp_path, display="none"))
    for name in ("kvg", "biog"):
        c = cell(results, name)
        assert (c["mean"], c["n_empty"], c["n_used"]) == (0.0, 2, 2)
    dropped = results.extra["longweave_official_drop"]
    assert all(c["mean"] is None for c in dropped["cells"])  # the official averaging drops them
    assert results.roles["judge"]["requests"] == 0  # empty answers are never sent to the judge


async def test_unparsable_judge_leaves_samples_unscored(tmp_path, scripts):
    task = get_task("longweave", {"task": "biog,cf", "length": "1k", "per_cell": 1, "judge_attempts": 2})
    folder, results = await start_run(
        task, bindings("lw-candidate", "lw-garbage"), RunOptions(out_dir=tmp_path, display="none")
    )
    for name in ("biog", "cf"):
        c = cell(results, name)
        assert (c["mean"], c["n_unscored"], c["n_used"]) == (None, 1, 0)
    statuses = {r.metadata["task"]: r.scores["longweave"].parse_status for r in folder.iter_records()}
    assert statuses == {"biog": "unparsable", "cf": "unparsable"}
    biog = generate("biog", "1k", 0)
    batches = len(biog_judge_calls(perfect_answer(biog.input), biog.target, biog.metadata["target_words"]))
    assert batches > 1 and results.roles["judge"]["requests"] == batches * 2 + 2  # 2 attempts per batch; cf 2


async def test_official_mode_counts_an_unreadable_gate_as_relevant(tmp_path, scripts):
    task = get_task("longweave", {"task": "cf", "length": "1k", "per_cell": 1, "official": True})
    _, results = await start_run(
        task, bindings("lw-candidate", "lw-garbage"), RunOptions(out_dir=tmp_path, display="none")
    )
    assert cell(results, "cf")["n_used"] == 1 and cell(results, "cf")["mean"] > 0


def test_rule_only_tasks_need_no_judge():
    assert get_task("longweave", {"task": "kvg,sms,pr"}).roles_required == ("candidate",)
    assert get_task("longweave", {"task": "kvg,nw"}).roles_required == ("candidate", "judge")


def test_limit_takes_a_balanced_share_of_cells():
    task = get_task("longweave", {"task": "cf,kvg", "length": "1k,2k", "per_cell": 10})
    first = [s.metadata for _, s in zip(range(8), task.dataset())]
    assert sorted((m["task"], m["length"]) for m in first) == sorted(
        [(t, size) for t in ("cf", "kvg") for size in ("1k", "2k")] * 2
    )


async def test_a_failed_candidate_call_is_left_out_and_counted_never_zero(tmp_path, scripts):
    """One good sample and one that failed with HTTP 503 after retries: the headline is the good one's."""
    from proseval.testing.fake_openai import FakeOpenAIServer, Reply

    good = perfect_answer(generate("kvg", "1k", 0).input)
    async with FakeOpenAIServer(behaviour=lambda i, body: Reply(text=good) if i == 0 else Reply("status", 503)) as srv:
        task = get_task("longweave", {"task": "kvg", "length": "1k", "per_cell": 2})
        candidate = RoleBinding(spec="openai-compatible/fake", base_urls=[srv.base_url], concurrency=1)
        _, results = await start_run(
            task,
            {"candidate": candidate},
            RunOptions(out_dir=tmp_path, display="none", max_attempts=2, backoff_initial=0.01),
        )
    c = cell(results, "kvg")
    assert (c["mean"], c["n_used"], c["n_failed"]) == (1.0, 1, 1)
    assert results.extra["longweave"]["overall"]["mean"] == 1.0
    assert results.counts.failed == 1


async def test_unscored_judge_targets_are_counted_in_the_results(tmp_path, scripts):
    def half_judge(messages):
        prompt = messages[-1]["content"]
        ids = [int(i) for i in ITEM.findall(prompt)]
        fields = re.findall(r'"(\w+)"', FIELDS.search(prompt).group(1))
        return json.dumps([{"id": i, **{f: True for f in fields}} for i in ids[: len(ids) - 1]])

    register_script("lw-half", half_judge)
    try:
        task = get_task("longweave", {"task": "biog", "length": "1k", "per_cell": 1, "judge_attempts": 1})
        folder, results = await start_run(
            task, bindings("lw-candidate", "lw-half"), RunOptions(out_dir=tmp_path, display="none")
        )
    finally:
        unregister_script("lw-half")
    trace = next(folder.iter_records()).scores["longweave"].metadata["trace"]
    counts = results.extra["longweave_targets"]
    assert trace["unscored_targets"] > 0
    assert counts["unscored"] == trace["unscored_targets"] and counts["judged"] == trace["judged_targets"]
    assert counts["samples_scored_with_unscored_targets"] == 1


async def test_a_prompt_too_long_for_the_candidate_scores_zero_like_an_empty_answer(tmp_path, scripts):
    from proseval.models.base import ContextOverflowError

    register_script("lw-overflow", [ContextOverflowError("maximum context length exceeded")])
    try:
        task = get_task("longweave", {"task": "kvg", "length": "1k", "per_cell": 2})
        _, results = await start_run(
            task, {"candidate": RoleBinding(spec="scripted/lw-overflow")}, RunOptions(out_dir=tmp_path, display="none")
        )
    finally:
        unregister_script("lw-overflow")
    c = cell(results, "kvg")
    assert (c["mean"], c["n_empty"], c["n_failed"]) == (0.0, 2, 0)
    assert results.counts.model_failures == {"context_overflow": 2}
