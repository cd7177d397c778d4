"""Aggregation on hand-made score files; every expected value is computed by hand in comments."""

from __future__ import annotations

import pytest

from proseval.benchmarks.writingbench.aggregate import QueryScores, aggregate, scores_from_lines
from proseval.benchmarks.writingbench.aggregate_official import official_columns, official_row, official_table
from proseval.benchmarks.writingbench.jsonl import DataFormatError
from proseval.benchmarks.writingbench.scorefile import ScoreLine, parse_score_file
from writingbench.wb_fixtures import names


def line(index: int, values: list[int | float | list[int | float]], criteria: list[str] | None = None) -> ScoreLine:
    """A score-file line; a list entry holds several evaluations of one criterion."""
    criteria = criteria or names(index)
    scores = {
        name: [{"score": v, "reason": "r"} for v in (value if isinstance(value, list) else [value])]
        for name, value in zip(criteria, values)
    }
    return ScoreLine(index=index, scores=scores)


# --- official compatibility -----------------------------------------------------------------

# Tiny benchmark: 1 Abstract/en, 2 Patent/zh (both Academic & Engineering), 3 Lesson Plan/en
# (Education), 4 Poetry/zh (Literature & Arts). style R = [1, 3] with C = {1: c2, 3: c1, c4};
# format R = [2] with C = {2: c5}; length R = [4] with C = {4: c3}.
RESUMED = [
    line(1, [2, 4, 6, 8, 10]),  # S(1) = 30/5 = 6
    line(3, [1, 1, 1, 1, 1]),  # replaced by the later line of index 3
    line(2, [5, 5, 5, 5, 5]),  # S(2) = 5
    line(3, [3, 3, 3, 3, 3]),  # S(3) = 3 (last line wins, first position kept)
    line(999, [9, 9, 9, 9, 9], [f"x{n}" for n in range(5)]),  # not in the benchmark
]


def test_official_row_by_hand(tiny_bench):
    row = official_row("m", RESUMED, tiny_bench)
    assert row == {
        "Model": "m",
        "Overall": 120 / 25,  # (30 + 5 + 25 + 15 + 45) / 25 scores, duplicates and index 999 included
        "Count": 5,
        "Domain1_Academic & Engineering": 5.5,  # (6 + 5) / 2
        "Domain1_Finance & Business": None,
        "Domain1_Politics & Law": None,
        "Domain1_Literature & Arts": None,
        "Domain1_Education": 3.0,
        "Domain1_Advertising & Marketing": None,
        "Domain2_Abstract": 6.0,
        "Domain2_Lesson Plan": 3.0,
        "Domain2_Patent": 5.0,
        "style_R": 4.5,  # (6 + 3) / 2
        "style_C": 10 / 3,  # (q1 c2 = 4, q3 c1 = 3, q3 c4 = 3) / 3 pairs
        "format_R": 5.0,
        "format_C": 5.0,
        "length_R": 0,  # no length query scored: integer 0, not empty
        "length_C": 0,
    }
    assert type(row["length_R"]) is int and type(row["style_R"]) is float


def test_official_multi_evaluation(tiny_bench):
    row = official_row("m", [line(1, [[2, 4], 6, 6, 6, 6.0])], tiny_bench)
    assert row["Overall"] == 5.0  # 30 / 6 individual scores
    assert row["Domain2_Abstract"] == 5.0
    lines = [line(3, [[2, 4], 6, 6, [1, 2, 6], 6])]
    row = official_row("m", lines, tiny_bench)
    assert row["style_R"] == 33 / 8  # S(3) = (2+4+6+6+1+2+6+6) / 8
    assert row["style_C"] == (3 + 3) / 2  # s(3, c1) = 3, s(3, c4) = 3


def test_official_columns_order_by_hand(tiny_bench):
    a = official_row("a", RESUMED, tiny_bench)
    b = official_row("b", [line(1, [2] * 5), line(2, [9] * 5)], tiny_bench)
    columns = official_columns([a, b], tiny_bench)
    # Academic & Engineering: Patent mean (5 + 9) / 2 = 7 before Abstract (6 + 2) / 2 = 4.
    assert columns[9:12] == ["Domain2_Patent", "Domain2_Abstract", "Domain2_Lesson Plan"]
    assert columns[:3] == ["Model", "Overall", "Count"] and len(columns) == 18
    tie = official_row("t", [line(2, [5] * 5), line(1, [5] * 5)], tiny_bench)
    assert official_columns([tie], tiny_bench)[9:11] == ["Domain2_Patent", "Domain2_Abstract"]  # first seen
    header, rows = official_table([("b", [line(2, [9] * 5)]), ("a", RESUMED)], tiny_bench)
    assert rows[0]["Domain2_Abstract"] is None and rows[1]["Domain2_Abstract"] == 6.0
    assert header[9:11] == ["Domain2_Patent", "Domain2_Abstract"]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([], "empty score file"),
        ([ScoreLine(index=1, scores={})], "index 1 has an empty score map"),
        ([ScoreLine(index=1, scores={"q1_c1": []})], "index 1 has an empty score map or list"),
        ([line(3, [5] * 5, ["q3_c1", "q3_c2", "q3_c3", "x", "y"])], "index 3 lacks the style criterion 'q3_c4'"),
    ],
)
def test_official_crash_cases_raise(tiny_bench, lines, message):
    with pytest.raises(ValueError, match=message):
        official_row("m", lines, tiny_bench)


# --- proseval aggregation -------------------------------------------------------------------

N = None
RESULTS = [
    # S(1) = 20/4 (c2 unscored)
    QueryScores(index=1, scores={"q1_c1": (8,), "q1_c2": (N,), "q1_c3": (6,), "q1_c4": (4,), "q1_c5": (2,)}),
    QueryScores(index=2, scores={name: (N,) for name in names(2)}),  # S unscored
    QueryScores(index=3, scores={"q3_c1": (10,), "q3_c2": (9,), "q3_c3": (8,), "q3_c4": (N,)}),  # c5 missing; S = 27/3
]


def counts(item) -> tuple[int, int, int, int]:
    return item.queries_scored, item.queries_unscored, item.criteria_scored, item.criteria_unscored


def test_proseval_aggregate_by_hand(tiny_bench):
    report = aggregate(RESULTS, tiny_bench, n_bootstrap=0)
    assert report.per_query == {1: 5.0, 2: None, 3: 9.0}
    overall = report.get("overall")
    assert overall.value == 47 / 7  # every scored evaluation: (20 + 27) / 7
    assert counts(overall) == (2, 1, 7, 8)
    expected = {
        ("domain1", "Academic & Engineering"): (5.0, (1, 1, 4, 6)),
        ("domain1", "Education"): (9.0, (1, 0, 3, 2)),
        ("domain1", "Literature & Arts"): (None, (0, 0, 0, 0)),
        ("domain2", "Abstract"): (5.0, (1, 0, 4, 1)),
        ("domain2", "Patent"): (None, (0, 1, 0, 5)),
        ("domain2", "Lesson Plan"): (9.0, (1, 0, 3, 2)),
        ("lang", "en"): (7.0, (2, 0, 7, 3)),  # (5 + 9) / 2
        ("lang", "zh"): (None, (0, 1, 0, 5)),
        ("requirement_R", "style"): (7.0, (2, 0, 7, 3)),
        ("requirement_C", "style"): (10.0, (1, 1, 1, 2)),  # q1 c2 unscored, q3 c1 = 10, q3 c4 unscored
        ("requirement_R", "format"): (None, (0, 1, 0, 5)),
        ("requirement_C", "format"): (None, (0, 1, 0, 1)),
        ("requirement_R", "length"): (None, (0, 0, 0, 0)),  # empty: None, not 0
        ("requirement_C", "length"): (None, (0, 0, 0, 0)),
    }
    for (kind, label), (value, numbers) in expected.items():
        item = report.get(kind, label)
        assert (item.value, counts(item)) == (value, numbers), (kind, label)
    assert [item.label for item in report.of_kind("domain1")][0] == "Academic & Engineering"
    assert [item.label for item in report.of_kind("domain2")] == ["Abstract", "Patent", "Lesson Plan"]
    assert [item.label for item in report.of_kind("lang")] == ["en", "zh"]


def test_proseval_repeated_evaluations(tiny_bench):
    scores = {"q3_c1": (4, N, 6), "q3_c2": (9,), "q3_c3": (8,), "q3_c4": (2, 3), "q3_c5": (7,)}
    result = QueryScores(index=3, scores=scores)
    report = aggregate([result], tiny_bench, n_bootstrap=0)
    assert report.per_query[3] == 39 / 7  # (4+6+9+8+2+3+7) / 7 scored evaluations
    assert report.get("requirement_C", "style").value == (5 + 2.5) / 2  # s(c1) = 5, s(c4) = 2.5


def test_bootstrap_intervals(tiny_bench):
    report = aggregate(RESULTS, tiny_bench, n_bootstrap=1000, seed=3)
    overall = report.get("overall")
    # Resampling two queries: 25 % of draws are q1 twice (5.0), 25 % q3 twice (9.0).
    assert (overall.ci_low, overall.ci_high) == (5.0, 9.0)
    education = report.get("domain1", "Education")
    assert (education.value, education.ci_low, education.ci_high) == (9.0, None, None)  # one query: no interval
    empty = report.get("requirement_R", "length")
    assert (empty.ci_low, empty.ci_high) == (None, None)
    assert aggregate(RESULTS, tiny_bench, n_bootstrap=0).get("overall").ci_low is None


def test_bootstrap_is_seeded(official_bench, aggregation_cases):
    case = aggregation_cases[0]
    records, _ = scores_from_lines([ScoreLine.model_validate(obj) for obj in case["scores"]])
    first = aggregate(records, official_bench, n_bootstrap=200, seed=1)
    again = aggregate(records, official_bench, n_bootstrap=200, seed=1)
    other = aggregate(records, official_bench, n_bootstrap=200, seed=2)
    assert first == again
    assert first.get("overall").ci_low != other.get("overall").ci_low
    for item in first.slices:
        if item.queries_scored > 1:
            assert item.ci_low <= item.value <= item.ci_high, (item.kind, item.label)


@pytest.mark.parametrize(
    ("results", "message"),
    [
        ([RESULTS[0], RESULTS[0]], "index 1 appears twice"),
        ([QueryScores(index=77, scores={})], "index 77 is not in the benchmark"),
        ([QueryScores(index=1, scores={"Tone": (5,)})], r"index 1: criteria \['Tone'\] are not in this query"),
    ],
)
def test_proseval_aggregate_rejects_bad_input(tiny_bench, results, message):
    with pytest.raises(ValueError, match=message):
        aggregate(results, tiny_bench)


def test_scores_from_lines_deduplicates_and_validates():
    raw = (
        b'{"index": 1, "scores": {"a": [{"score": 8, "reason": ""}], "b": [{"score": 0}]}}\n'
        b'{"index": 2, "scores": {"a": [{"score": 7.0}, {"score": 7.5}]}}\n'
        b'{"index": 1, "scores": {"a": [{"score": 3}], "b": [{"score": 11}]}}\n'
    )
    records, repeated = scores_from_lines(parse_score_file(raw, "m.jsonl"))
    assert repeated == [1]
    assert records == [
        QueryScores(index=1, scores={"a": (3,), "b": (None,)}),
        QueryScores(index=2, scores={"a": (7, None)}),
    ]


def test_score_file_errors_name_file_and_line():
    with pytest.raises(DataFormatError, match=r"m\.jsonl:2: criterion 'a': score '8' is not a number"):
        parse_score_file(b'{"index": 1, "scores": {}}\n{"index": 2, "scores": {"a": [{"score": "8"}]}}\n', "m.jsonl")
    with pytest.raises(DataFormatError, match=r"m\.jsonl:1: scores"):
        parse_score_file(b'{"index": 1, "scores": []}\n', "m.jsonl")
