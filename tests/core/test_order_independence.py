"""The same per-sample scores print the same figures whatever order the samples finished in.

Each case makes a small run of a benchmark with scripted models, then copies its folder with the
records of `samples.jsonl` reversed and shuffled. Every folder is aggregated again as a resume
of a finished run does (nothing is left to run: `proseval resume` only recomputes its results),
and what `proseval show` prints, `results.json` and the task's text files must be the same.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

import proseval
from c3ebench.c3e_fixtures import write_tiny
from proseval.benchmarks.longweave.generators import generate
from proseval.cli import app
from proseval.core import Score
from proseval.report.compare import compare_runs
from proseval.runtime.records import ScoredSample
from ravel.ravel_fixtures import efficient, model, write_data
from revision_distance.measure_scripted import rules
from writingbench.wb_fixtures import tiny_files, write_files

pytestmark = pytest.mark.slow

runner = CliRunner()
Register = Callable[[str, Callable[[list[dict[str, str]]], str]], str]
RD_DATA = Path(__file__).resolve().parents[1] / "revision_distance" / "data"
MEESEEKS_DATA = Path(__file__).resolve().parents[1] / "meeseeks" / "fixtures" / "task"
CRITERION = re.compile(r"'name': 'q(\d)_c(\d)'")  # the tiny WritingBench data's criterion names


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def varied(text: str, low: int = 1, high: int = 10) -> int:
    """A score in [low, high] that differs from text to text (a stable stand-in for a judge's view)."""
    return low + sum(map(ord, text)) % (high - low + 1)


def demo_run(tmp_path: Path, scripts: Register, epochs: int = 1) -> Path:
    candidate = scripts("oi-demo", lambda m: " ".join(["word"] * (20 + varied(m[-1]["content"], 0, 180))))
    judge = scripts("oi-demo-judge", lambda m: json.dumps({"score": varied(m[-1]["content"]), "reason": "r"}))
    return proseval.run("demo", model=candidate, roles={"judge": judge}, epochs=epochs, out=tmp_path).path


def writingbench_run(tmp_path: Path, scripts: Register) -> Path:
    """Query means far apart (2 to 9), so that a resampling in record order shows in the printed intervals."""

    def judge(messages: list[dict[str, str]]) -> str:
        query, criterion = map(int, CRITERION.search(messages[-1]["content"]).groups())
        return json.dumps({"score": (2, 9, 4, 7)[query - 1] + criterion % 2, "reason": "r"})

    data = write_files(tmp_path / "benchmark_query", tiny_files())
    return proseval.run(
        "writingbench",
        model=scripts("oi-wb", lambda m: "An answer."),
        roles={"judge": scripts("oi-wb-judge", judge)},
        params={"data_dir": str(data), "verify": False, "judge_attempts": 1},
        out=tmp_path,
    ).path


def c3ebench_run(tmp_path: Path, scripts: Register) -> Path:
    def judge(messages: list[dict[str, str]]) -> str:
        return json.dumps({"analysis": "a", "score": varied(messages[-1]["content"]), "verdict": "v"})

    candidate = scripts("oi-c3e", lambda m: f"Answer {varied(m[-1]['content'])}.")
    return proseval.run(
        "c3ebench",
        model=candidate,
        roles={"judge": scripts("oi-c3e-judge", judge)},
        params={"data_dir": str(write_tiny(tmp_path / "c3e"))},
        out=tmp_path,
    ).path


def longweave_run(tmp_path: Path, scripts: Register) -> Path:
    """State-machine tables, the i-th of six right for its first (i+1)/6 of the rows: varied scores."""
    per_cell = 6

    def candidate(messages: list[dict[str, str]]) -> str:
        index = next(i for i in range(per_cell) if generate("sms", "1k", i).input == messages[-1]["content"])
        target = generate("sms", "1k", index).target
        nexts = target["expected_states"]
        rows = [
            f"{cur} | {c} | {nxt} | {o}"
            for cur, c, nxt, o in zip(
                [target["initial_state"], *nexts[:-1]], target["input_string"], nexts, target["expected_outputs"]
            )
        ]
        kept = rows[: len(rows) * (index + 1) // per_cell]
        return "Current State | Input | Next State | Output Signal\n" + "\n".join(kept)

    return proseval.run(
        "longweave",
        model=scripts("oi-lw", candidate),
        params={"task": "sms", "length": "1k", "per_cell": per_cell},
        out=tmp_path,
    ).path


def meeseeks_run(tmp_path: Path, scripts: Register) -> Path:
    answers = {
        "slogans": "1. Tea time\n2. Calm cup",
        "poem": "Rain and an umbrella",
        "NEVER": "The sea is wide.",
        "colours": "1. red\n2. green",
    }
    candidate = scripts("oi-ms", lambda m: next(a for k, a in answers.items() if k in m[-1]["content"]))
    verdict = scripts("oi-ms-judge", lambda m: "分析：ok\n判断：" + ("是" if varied(m[-1]["content"]) > 3 else "否"))
    roles = {"extractor": scripts("oi-ms-extractor", lambda m: "ALL"), "judge": verdict}
    return proseval.run(
        "meeseeks",
        model=candidate,
        roles=roles,
        out=tmp_path,
        params={"data_dir": str(MEESEEKS_DATA), "language": "en", "rounds": 2, "extraction": "general"},
    ).path


def ravel_run(tmp_path: Path, scripts: Register) -> Path:
    judge = scripts("oi-ravel-judge", lambda m: json.dumps({"score": varied(m[-1]["content"]), "verdict": "v"}))
    return proseval.run(
        "ravel",
        model=scripts("oi-ravel", model(lambda turn, state: efficient(state))),
        roles={"judge": judge},
        params={"data_dir": str(write_data(tmp_path / "c3e"))},
        out=tmp_path,
    ).path


def revision_distance_run(tmp_path: Path, scripts: Register) -> Path:
    return proseval.run(
        "revision-distance",
        roles={"reviser": scripts("oi-rd", rules)},
        limit=12,
        out=tmp_path,
        params={"drafts": str(RD_DATA / "drafts20.jsonl"), "refs": str(RD_DATA / "refs20.jsonl"), "weighting": "level"},
    ).path


RUNS = {
    "demo": demo_run,
    "demo-epochs": lambda tmp, scripts: demo_run(tmp, scripts, epochs=2),
    "writingbench": writingbench_run,
    "c3ebench": c3ebench_run,
    "longweave": longweave_run,
    "meeseeks": meeseeks_run,
    "ravel": ravel_run,
    "revision_distance": revision_distance_run,
}
TEXT_FILE = re.compile(r".+\.(md|csv)|round_\d+_stats\.json")  # the tasks' own text files


def reordered(run_dir: Path, to: Path, order: Callable[[list[str]], list[str]]) -> Path:
    """A copy of the run folder with the records of samples.jsonl in another order."""
    shutil.copytree(run_dir, to)
    lines = (to / "samples.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    moved = order(lines)
    assert moved != lines and sorted(moved) == sorted(lines)
    (to / "samples.jsonl").write_text("".join(moved), encoding="utf-8")
    return to


def figures(run_dir: Path) -> dict[str, str]:
    """What a user sees of a run once it is aggregated again: the tables, results.json, the task's files."""
    invoke("resume", str(run_dir), "--display", "none")
    results = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    del results["finished_at"]
    files = {p.name: p.read_text(encoding="utf-8") for p in sorted(run_dir.iterdir()) if TEXT_FILE.fullmatch(p.name)}
    return {"show": invoke("show", str(run_dir)), "results.json": json.dumps(results, indent=1), **files}


@pytest.mark.parametrize("benchmark", sorted(RUNS))
def test_figures_do_not_depend_on_the_order_records_were_written(benchmark, tmp_path, scripts, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # no cell of the tables cut short
    run_dir = RUNS[benchmark](tmp_path / "runs", scripts)
    reversed_dir = reordered(run_dir, tmp_path / "reversed", lambda lines: lines[::-1])
    shuffled_dir = reordered(run_dir, tmp_path / "shuffled", lambda lines: random.Random(3).sample(lines, len(lines)))
    written = figures(run_dir)
    for other in (reversed_dir, shuffled_dir):
        again = figures(other)
        assert again.keys() == written.keys()
        for name, text in written.items():
            assert again[name] == text, f"{other.name}: {name} differs"


def test_compare_pairs_the_same_epoch_means_whatever_the_record_order():
    # 0.1 + 0.2 + 0.3 is not 0.3 + 0.2 + 0.1 in floating point: a mean over epochs in record order would differ
    def run(values: list[list[float]]) -> list[ScoredSample]:
        return [
            ScoredSample(
                id=f"s{i}", epoch=epoch, status="ok", metadata={"group": "g"}, scores={"q": Score(value=value)}
            )
            for i, epochs in enumerate(values)
            for epoch, value in enumerate(epochs)
        ]

    a = run([[0.1, 0.2, 0.3], [0.7, 0.1, 0.2], [0.3, 0.6, 0.9]])
    b = run([[0.5, 0.5, 0.5], [0.2, 0.2, 0.2], [0.9, 0.8, 0.7]])
    expected = compare_runs(a, b, slice_keys=["group"])
    assert compare_runs(a[::-1], b[::-1], slice_keys=["group"]) == expected
    assert compare_runs(random.Random(3).sample(a, len(a)), b, slice_keys=["group"]) == expected
