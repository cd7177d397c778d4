"""`proseval export`: CSV and Parquet tables equal to the records and results; an Inspect log Inspect reads."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from typer.testing import CliRunner

from proseval.cli import app
from proseval.runtime.aggregate import flatten_scores
from proseval.runtime.runlog import RunFolder

if TYPE_CHECKING:
    import pandas as pd

cli = CliRunner()


def export(run: Path, fmt: str, out: Path) -> None:
    result = cli.invoke(app, ["export", str(run), "--format", fmt, "-o", str(out)])
    assert result.exit_code == 0, result.output


def read(path: Path) -> pd.DataFrame:
    import pandas as pd  # here: a second of every worker's collection otherwise

    return pd.read_csv(path) if path.suffix == ".csv" else pd.read_parquet(path)


def expected_rows(run: Path) -> list[tuple]:
    rows = []
    for record in RunFolder(run).iter_records():
        if record.status != "ok":
            rows.append((record.id, record.epoch, "failed", None, None, record.error))
            continue
        for metric, value in flatten_scores(record).items():
            rows.append((record.id, record.epoch, "unscored" if value is None else "scored", metric, value, None))
    return sorted(rows, key=lambda r: (r[0], r[1], r[3] or ""))


def clean(value):
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("task", ["demo", "writingbench", "c3ebench"])
def test_tables_round_trip(runs, tmp_path, fmt, task):
    run = runs[task][0]
    export(run, fmt, tmp_path / "scores")
    scores = read(tmp_path / f"scores.{fmt}")
    got = sorted(
        ((r.id, int(r.epoch), r.status, clean(r.metric), clean(r.value), clean(r.error)) for r in scores.itertuples()),
        key=lambda r: (r[0], r[1], r[3] or ""),
    )
    want = expected_rows(run)
    assert len(got) == len(want) and {r[2] for r in got} >= {"scored", "failed"} | (
        {"unscored"} if task != "writingbench" else set()
    )  # WritingBench's fixture leaves none unscored
    for g, w in zip(got, want):
        assert g[:4] == w[:4] and g[5] == w[5]
        assert (g[4] is None and w[4] is None) or g[4] == pytest.approx(w[4], rel=1e-12)
    # the slice fields travel with each row
    records = {r.id: r for r in RunFolder(run).iter_records()}
    for row in scores.to_dict("records"):
        for key, value in records[row["id"]].metadata.items():
            if isinstance(value, str):
                assert row[f"meta.{key}"] == value

    metrics = read(tmp_path / f"scores.metrics.{fmt}")
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    want_metrics = {("overall", None, m): s for m, s in results["metrics"].items()}
    want_metrics |= {
        (key, label, m): s
        for key, groups in results["slices"].items()
        for label, group in groups.items()
        for m, s in group.items()
    }
    assert len(metrics) == len(want_metrics)
    for row in metrics.itertuples():
        summary = want_metrics[(row.scope, clean(row.slice), row.metric)]
        for field in ("mean", "ci_low", "ci_high", "n_scored", "n_unscored", "n_failed"):
            shown = clean(getattr(row, field))
            assert (shown is None and summary[field] is None) or shown == pytest.approx(summary[field], rel=1e-12)


@pytest.mark.parametrize("suffix", [".eval", ".json"])
@pytest.mark.parametrize("task", ["demo", "writingbench", "c3ebench"])
def test_the_inspect_log_reads_back_with_every_sample_and_score(runs, tmp_path, suffix, task):
    run = runs[task][1]
    export(run, "inspect", tmp_path / f"log{suffix}")
    from inspect_ai.log import read_eval_log  # here: a second of every worker's collection otherwise

    log = read_eval_log(str(tmp_path / f"log{suffix}"))
    records = {(r.id, r.epoch): r for r in RunFolder(run).iter_records()}
    header = RunFolder(run).read_header()
    assert log.status == "success" and log.eval.task == task and log.eval.model == header.roles["candidate"].spec
    assert len(log.samples) == len(records)
    for sample in log.samples:
        record = records[(sample.id, sample.epoch - 1)]
        assert (sample.error is not None) == (record.status != "ok")
        assert sample.output.completion == (record.state.output if record.state else "")
        assert [c["text"] for c in sample.metadata.get("proseval_calls", [])] == [c.text for c in record.calls]
        for name, score in record.scores.items():
            value = sample.scores[name].value
            if score.value is None:
                assert math.isnan(value) and sample.scores[name].metadata["parse_status"] == score.parse_status
            else:
                assert value == score.value
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    for eval_score in log.results.scores:
        summary = results["metrics"][eval_score.name]
        assert eval_score.metrics["mean"].value == summary["mean"]
        assert (eval_score.scored_samples, eval_score.unscored_samples) == (summary["n_scored"], summary["n_unscored"])


def test_an_unknown_format_is_refused(runs, tmp_path):
    result = cli.invoke(app, ["export", str(runs["demo"][0]), "--format", "xml", "-o", str(tmp_path / "x")])
    assert result.exit_code == 2 and "csv, parquet, inspect" in result.output
