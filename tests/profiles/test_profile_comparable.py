"""A run is comparable with a paper's figures only when what it ran is the paper's setting: the
paper's items (count and official files), the preset's settings as sent, the paper's judge by its
exact identifier, the paper's unit and granularity. Checked on a real C3EBench run over the
official data (scripted models), then on copies of its header and results changed one fact at a time."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import proseval
from proseval.core.results import Results
from proseval.models.scripted import register_script, unregister_script
from proseval.profile.comparable import benchmark_comparability, is_paper_judge, paper_settings, run_comparability
from proseval.profile.figures import paper_figures
from proseval.profile.references import paper_unit, read_references
from proseval.runtime.records import RunHeader
from proseval.runtime.runlog import RunFolder

JUDGE = "scripted/gpt-5.2-2025-12-11"  # the official code's identifier of the paper's GPT-5.2-1120
UNIT = "1-10 judge score"
LIMIT = 8


def verdict_script(messages) -> str:
    """Scores that differ between items (from the length of what the judge reads)."""
    return json.dumps({"analysis": "planted", "score": 3 + sum(len(m["content"]) for m in messages) % 6})


@pytest.fixture(scope="module")
def c3e_run(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    data = shared_dir / "data" / "c3ebench"
    if not (data / "english_dataset.jsonl").exists():
        pytest.skip(f"official data not found: {data}")
    register_script("gpt-5.2-2025-12-11", verdict_script)
    register_script("cmp-cand", lambda messages: "An answer of a few words.")
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("PROSEVAL_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
            yield proseval.run(
                "c3ebench",
                model="scripted/cmp-cand",
                roles={"judge": JUDGE},
                preset="official",
                params={"data_dir": str(data), "order": "interleaved"},
                limit=LIMIT,
                run_dir=tmp_path_factory.mktemp("c3e") / "run",
            ).path
    finally:
        unregister_script("gpt-5.2-2025-12-11")
        unregister_script("cmp-cand")


@pytest.fixture
def ran(c3e_run: Path) -> tuple[RunHeader, Results]:
    folder = RunFolder(c3e_run)
    return folder.read_header(), folder.read_results()


def as_full(header: RunHeader, results: Results) -> tuple[RunHeader, Results]:
    """The same run as if it had run every one of the paper's items (what only counts and the limit say)."""
    counts = results.counts.model_copy(update={"total": 1258, "finished": 1258, "ok": 1258})
    return header.model_copy(update={"limit": None}), results.model_copy(update={"counts": counts})


def verdict(header: RunHeader, results: Results, judge: str = JUDGE, benchmark: str = "c3ebench"):
    refs = [r for r in read_references() if r.benchmark == benchmark]
    return run_comparability(benchmark, refs, header, results, {"judge": judge}, paper_unit(UNIT, refs), UNIT)


@pytest.mark.parametrize(
    "spec, printed, expected",
    [
        ("openai/gpt-5.2-2025-12-11", "GPT-5.2-1120", True),
        ("openai/GPT-5.2-1120", "GPT-5.2-1120", True),
        ("openai/gpt-5.2-mini", "GPT-5.2-1120", False),
        ("openai/gpt-5.2-pro", "GPT-5.2-1120", False),
        ("openai/gpt-5.2", "GPT-5.2-1120", False),
        ("openai-compatible/Qwen/Qwen2.5-72B-Instruct", "Qwen2-5-72B-Instruct", True),
        ("openai-compatible/qwen2.5-72b-instruct", "Qwen2-5-72B-Instruct", True),
        ("openai-compatible/Qwen2.5-72B-Instruct-Turbo", "Qwen2-5-72B-Instruct", False),
        ("openai-compatible/j", "Qwen2-5-72B-Instruct", False),
    ],
)
def test_the_papers_judge_is_known_by_its_exact_identifiers_never_a_prefix(spec, printed, expected):
    assert is_paper_judge(spec, printed) is expected


def test_every_judge_the_references_name_has_an_alias_entry():
    printed = {r.judge for r in read_references() if r.judge}
    settings = paper_settings()
    assert printed <= set(settings.judges) | {"GPT-4"}  # Revision Distance's GPT-4: never comparable anyway
    assert all(settings.benchmarks[b].never for b in ("longweave", "ravel", "revision-distance"))


def test_a_few_items_at_the_paper_preset_are_not_comparable(ran):
    found = verdict(*ran)
    assert not found.comparable
    assert found.reasons == [f"it ran {LIMIT} items of the paper's 1,258"]


def test_the_papers_items_settings_judge_and_measure_are_comparable_with_every_reason(ran):
    found = verdict(*as_full(*ran))
    assert found.comparable, found.why
    assert [r.split(" ")[0:3] for r in found.reasons] == [
        ["judged", "by", "the"],
        ["it", "ran", "the"],
        ["its", "settings", "are"],
        ["its", "headline", "converts"],
    ]
    assert "1,258 items" in found.why and "official preset's, every one sent" in found.why
    assert found.caveats and "language" in found.caveats[0]


def test_each_departure_from_the_paper_is_named(ran):
    header, results = as_full(*ran)
    judge = header.roles["judge"]
    cases = {
        "other judge": (
            header,
            "openai/gpt-5.2-pro",
            "judged by judge=openai/gpt-5.2-pro, not the paper's GPT-5.2-1120",
        ),
        "other data": (
            header.model_copy(update={"dataset": {**header.dataset, "verified": False}}),
            JUDGE,
            "its data files are not the official ones",
        ),
        "a task setting": (
            header.model_copy(update={"task_params": {**header.task_params, "judge_order": "swapped"}}),
            JUDGE,
            "judge_order='swapped' (the preset's: 'as_given')",
        ),
        "a sampling setting": (
            header.model_copy(
                update={
                    "roles": {
                        **header.roles,
                        "judge": judge.model_copy(
                            update={"config": judge.config.model_copy(update={"temperature": 1.0})}
                        ),
                    }
                }
            ),
            JUDGE,
            "judge.temperature=1.0 sent (the preset's: 0.0)",
        ),
        "a setting left out": (
            header.model_copy(
                update={
                    "roles": {
                        **header.roles,
                        "judge": judge.model_copy(
                            update={
                                "config": judge.config.model_copy(update={"temperature": None}),
                                "not_sent": [
                                    {
                                        "setting": "temperature",
                                        "value": 0.0,
                                        "reason": "only 1",
                                        "rule": "openai-reasoning",
                                    }
                                ],
                            }
                        ),
                    }
                }
            ),
            JUDGE,
            "judge.temperature=0.0 not sent to scripted/gpt-5.2-2025-12-11",
        ),
        "another preset": (
            header.model_copy(update={"preset": {**(header.preset or {}), "name": "paper"}}),
            JUDGE,
            "it ran with preset paper, not official",
        ),
        "no preset": (header.model_copy(update={"preset": None}), JUDGE, "it ran without the official preset"),
        "epochs": (header.model_copy(update={"epochs": 3}), JUDGE, "each item 3 times"),
    }
    for name, (changed, judge_spec, expected) in cases.items():
        found = verdict(changed, results, judge_spec)
        assert not found.comparable, name
        assert expected in found.why, (name, found.why)
    assert not verdict(header, results.model_copy(update={"slices": {}})).comparable


@pytest.mark.parametrize("benchmark", ["longweave", "ravel", "revision-distance"])
def test_benchmarks_whose_papers_setting_cannot_be_run_are_never_comparable(ran, benchmark):
    found = verdict(*as_full(*ran), benchmark=benchmark)
    assert not found.comparable and found.why == paper_settings().benchmarks[benchmark].never


@pytest.mark.parametrize("benchmark", ["meeseeks", "writingbench"])
def test_a_paper_that_names_no_judge_is_not_comparable(ran, benchmark):
    found = verdict(*as_full(*ran), benchmark=benchmark)
    assert not found.comparable and found.reasons == [found.why] and "does not name the judge of Table 3" in found.why


def test_a_benchmark_is_comparable_only_when_every_models_run_is(ran):
    full = verdict(*as_full(*ran))
    few = verdict(*ran)
    refs = [r for r in read_references() if r.benchmark == "c3ebench"]
    both = benchmark_comparability("c3ebench", refs, {"model-a": full, "model-b": few})
    assert not both.comparable and both.reasons == [f"model-b: it ran {LIMIT} items of the paper's 1,258"]
    assert benchmark_comparability("c3ebench", refs, {"model-a": full, "model-c": full}).comparable


def test_figures_are_per_task_as_table_2_and_per_language_beside(c3e_run: Path, ran):
    header, results = ran
    refs = [r for r in read_references() if r.benchmark == "c3ebench"]
    setting = paper_settings().benchmarks["c3ebench"]
    figures = paper_figures("m", c3e_run, results, setting, paper_unit(UNIT, refs), UNIT)
    per_task = [f for f in figures if len(f.by) == 1]
    assert [f.slice for f in per_task] == ["Cloze", "Expand", "Edit", "E2E"]
    own = results.slices["task"]
    assert [f.mean for f in per_task] == [own[t]["c3e"].mean for t in ("cloze", "expand", "edit", "end2end")]
    crossed = [f for f in figures if len(f.by) == 2]
    assert {f.by["language"] for f in crossed} == {"en", "zh"}
    for task_figure in per_task:  # each task's figure is its languages' figures weighted by their items
        parts = [f for f in crossed if f.slice == task_figure.slice]
        assert sum(f.n for f in parts) == task_figure.n
        assert sum(f.mean * f.n for f in parts) / task_figure.n == pytest.approx(task_figure.mean)
    assert sum(f.n for f in per_task) == LIMIT
    assert len({f.mean for f in crossed}) > 1  # the planted scores differ: the check above can fail
