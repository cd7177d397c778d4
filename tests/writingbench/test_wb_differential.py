"""Differential tests against the official aggregation (shared/vectors/writingbench)."""

from __future__ import annotations

import json
import math
import re

import pytest

from proseval.benchmarks.writingbench.aggregate import aggregate, scores_from_lines
from proseval.benchmarks.writingbench.aggregate_official import official_columns, official_row, official_table
from proseval.benchmarks.writingbench.scorefile import ScoreLine, parse_score_file


def score_lines(case) -> list[ScoreLine]:
    """Replay the case as the official score file (one json.dumps line per record)."""
    raw = "".join(json.dumps(obj, ensure_ascii=False) + "\n" for obj in case["scores"]).encode("utf-8")
    return parse_score_file(raw, f"{case['id']}.jsonl")


def test_official_compat_is_bit_exact(official_bench, aggregation_cases):
    assert len(aggregation_cases) == 12
    for case in aggregation_cases:
        lines = score_lines(case)
        assert len(lines) == case["n_lines"]
        row = official_row(case["id"], lines, official_bench)
        assert official_columns([row], official_bench) == case["official_columns"], case["id"]
        for column, expected in case["official"].items():
            # Exact equality, and the same type: 0 (int) vs 0.0, None for empty domains.
            assert (row[column], type(row[column])) == (expected, type(expected)), (case["id"], column)


def test_official_compat_matches_python312_within_tolerance(official_bench, aggregation_cases):
    for case in aggregation_cases:
        row = official_row(case["id"], score_lines(case), official_bench)
        for column, expected in case["official_python312"].items():
            if isinstance(expected, float):
                assert math.isclose(row[column], expected, rel_tol=1e-12), (case["id"], column)
            else:
                assert row[column] == expected, (case["id"], column)


def test_joint_run_column_order(shared_dir, official_bench, aggregation_cases):
    readme = (shared_dir / "vectors" / "writingbench" / "README.md").read_text(encoding="utf-8")
    joint = json.loads(re.search(r"```json\n(\{\"processing_order\".*?)\n```", readme, re.S).group(1))
    by_id = {case["id"]: case for case in aggregation_cases}
    runs = [(name, score_lines(by_id[name])) for name in joint["processing_order"]]
    columns, rows = official_table(runs, official_bench)
    expected_domain2 = [f"Domain2_{label}" for labels in joint["domain2_order"].values() for label in labels]
    assert [c for c in columns if c.startswith("Domain2_")] == expected_domain2
    assert len(columns) == 115
    for name, row in zip(joint["processing_order"], rows):
        official = by_id[name]["official"]
        assert all(row[column] == value for column, value in official.items()), name
        assert all(row[column] is None for column in columns if column not in official), name


def _proseval_columns(report) -> dict[str, float | None]:
    columns = {"Overall": report.get("overall").value}
    columns.update({f"Domain1_{s.label}": s.value for s in report.of_kind("domain1")})
    columns.update({f"Domain2_{s.label}": s.value for s in report.of_kind("domain2")})
    columns.update({f"{s.label}_R": s.value for s in report.of_kind("requirement_R")})
    columns.update({f"{s.label}_C": s.value for s in report.of_kind("requirement_C")})
    return columns


# Disagreements of proseval's own aggregation with the official numbers, all deliberate
# (documented as deviations): duplicated lines are deduplicated before `Overall` (cases 5, 6),
# and an empty requirement dimension is unscored (None) instead of 0 (case 11).
EXPECTED_DISAGREEMENTS = {
    ("wb_agg_05_resume_duplicate", "Overall"),
    ("wb_agg_06_many_duplicates", "Overall"),
    *(("wb_agg_11_no_requirement_queries", f"{dim}_{kind}") for dim in ("style", "format", "length") for kind in "RC"),
}


def test_proseval_aggregation_agrees_except_listed_deviations(official_bench, aggregation_cases):
    disagreements = set()
    compared = 0
    for case in aggregation_cases:
        records, repeated = scores_from_lines(score_lines(case))
        assert len(records) == len({obj["index"] for obj in case["scores"]})
        assert bool(repeated) == (case["n_lines"] > len(records))
        ours = _proseval_columns(aggregate(records, official_bench, n_bootstrap=0))
        for column, expected in case["official"].items():
            if column in ("Model", "Count"):
                continue
            compared += 1
            mine = ours.get(column)
            if expected is None or mine is None:
                same = mine is expected
            else:
                same = math.isclose(mine, expected, rel_tol=1e-12)
            if not same:
                disagreements.add((case["id"], column))
    assert compared == 1305  # every official value except Model and Count
    assert disagreements == EXPECTED_DISAGREEMENTS


def test_overall_deviation_is_the_deduplicated_mean(official_bench, aggregation_cases):
    case = next(c for c in aggregation_cases if c["id"] == "wb_agg_05_resume_duplicate")
    records, repeated = scores_from_lines(score_lines(case))
    assert repeated == [613] and len(records) == 1000
    total = sum(v for r in records for values in r.scores.values() for v in values)
    report = aggregate(records, official_bench, n_bootstrap=0)
    assert report.get("overall").value == pytest.approx(total / 5000, rel=1e-15)
    assert case["official"]["Count"] == 1001
