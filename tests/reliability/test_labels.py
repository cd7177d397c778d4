"""The human labels file: reading JSON Lines and CSV/TSV, errors with file and line, duplicates,
locked appends from several processes, and matching labels to the answers of runs."""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from proseval.errors import DataError, MissingDataError
from proseval.reliability.labels import Label, MatchedLabel, append_label, match_labels, read_labels


def write_lines(path: Path, *records: dict | str) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")
    return path


def score(sample_id: str = "s1", value: float = 7, **extra) -> dict:
    return {"sample_id": sample_id, "criterion": "quality", "rater": "ann", "score": value, **extra}


def pref(sample_id: str = "s1", choice: str = "A", **extra) -> dict:
    return {
        "sample_id": sample_id,
        "criterion": "quality",
        "rater": "ann",
        "preference": choice,
        "a": "run-1",
        "b": "run-2",
        **extra,
    }


def error_of(path: Path) -> str:
    with pytest.raises(DataError) as caught:
        read_labels(path)
    return str(caught.value)


# good files -------------------------------------------------------------------------------------
def test_json_lines_read_with_every_field(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "labels.jsonl",
        score(
            sample_id=12, epoch=2, run="run-1", comment="clear", labelled_at="2025-03-01T14:03:00Z", session="morning"
        ),
        "",
        pref(choice="Tie", rater="  Bo Li  ", criterion="Coherence"),
        pref(sample_id="s2", choice="b"),
    )
    labels = read_labels(path)
    assert labels.path == path and labels.replaced == 0 and len(labels) == 3
    first, second, third = labels.labels
    assert first == Label(
        sample_id="12",
        epoch=2,
        run="run-1",
        criterion="quality",
        rater="ann",
        score=7.0,
        comment="clear",
        labelled_at="2025-03-01T14:03:00Z",
        session="morning",
    )
    assert (second.preference, second.rater, second.a, second.b, second.epoch) == ("tie", "Bo Li", "run-1", "run-2", 0)
    assert third.preference == "B" and third.score is None
    assert labels.raters() == ["Bo Li", "ann"]
    assert labels.criteria() == ["Coherence", "quality"]


def test_ndjson_extension_is_json_lines(tmp_path: Path) -> None:
    assert read_labels(write_lines(tmp_path / "labels.NDJSON", score())).labels[0].score == 7.0


def test_csv_from_a_spreadsheet_bom_crlf_and_header_case(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    rows = [
        "Sample_ID , Epoch,Criterion,RATER,Score,Preference,A,B,Run,Comment",
        '101,1,quality,ann,7.5,,,,run-1,"good, but ""long"""',
        ",,,,,,,,,",  # a row of empty cells, as spreadsheets export
        "102,,quality,ann,,a,run-1,run-2,,",
        "",
    ]
    path.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(rows).encode("utf-8"))
    first, second = read_labels(path).labels
    assert first == Label(
        sample_id="101", epoch=1, criterion="quality", rater="ann", score=7.5, run="run-1", comment='good, but "long"'
    )
    assert second == Label(sample_id="102", criterion="quality", rater="ann", preference="A", a="run-1", b="run-2")


def test_tsv_uses_tabs(tmp_path: Path) -> None:
    path = tmp_path / "labels.tsv"
    path.write_text("sample_id\tcriterion\trater\tscore\ns 1\tquality, style\tann\t3\n", encoding="utf-8")
    assert read_labels(path).labels == [Label(sample_id="s 1", criterion="quality, style", rater="ann", score=3)]


# errors with file and line ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"sample_id": "s1", "criterion": ', "labels.jsonl:2: invalid JSON"),
        (score(sample_id=None), "labels.jsonl:2: sample_id: Input should be a valid string"),
        ({k: v for k, v in score().items() if k != "sample_id"}, "labels.jsonl:2: sample_id: missing"),
        (score(preference="A", a="run-1", b="run-2"), "labels.jsonl:2: give either score or preference, not both"),
        ({"sample_id": "s1", "criterion": "quality", "rater": "ann"}, "labels.jsonl:2: give a score or a preference"),
        (pref(choice="C"), "labels.jsonl:2: preference: must be A, B or tie (got 'C')"),
        ({k: v for k, v in pref().items() if k != "b"}, "labels.jsonl:2: a preference needs a and b"),
        (score(a="run-1", b="run-2"), "labels.jsonl:2: a and b are for a preference, not with a score"),
        (pref(run="run-1"), "labels.jsonl:2: run is for a score"),
        (pref(b="run-1"), "labels.jsonl:2: a and b must be different runs"),
        (score(colour="red"), "labels.jsonl:2: colour: unknown field"),
        (score(epoch=-1), "labels.jsonl:2: epoch: Input should be greater than or equal to 0"),
        (score(epoch=True), "labels.jsonl:2: epoch: must be a whole number"),
        (score(rater="   "), "labels.jsonl:2: rater: must not be empty"),
        (score(rater="x" * 101), "labels.jsonl:2: rater: at most 100 characters (got 101)"),
        (score(rater="ann\tbo"), "labels.jsonl:2: rater: must be printable"),
        (score(value="seven"), "labels.jsonl:2: score: not a number ('seven')"),
        (score(value=True), "labels.jsonl:2: score: not a number (true/false)"),
        (
            score(value="７"),
            "labels.jsonl:2: score: not a number in ASCII digits ('７')",
        ),  # full-width: float() reads 7
        (score(value="٧"), "labels.jsonl:2: score: not a number in ASCII digits ('٧')"),  # Arabic-Indic seven
        (score(labelled_at="yesterday"), "labels.jsonl:2: labelled_at: not an ISO-8601 timestamp ('yesterday')"),
        ("[1, 2]", "labels.jsonl:2: expected a JSON object"),
    ],
)
def test_json_lines_errors_name_file_and_line(tmp_path: Path, line: dict | str, expected: str) -> None:
    path = write_lines(tmp_path / "labels.jsonl", score(), line, score(sample_id="s3"))
    message = error_of(path)
    assert expected in message
    assert ": 1 problem in" in message  # the good lines around it are no problem


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (",quality,ann,7,", "labels.csv:3: sample_id: missing"),
        ("s1,quality,ann,seven,", "labels.csv:3: score: not a number ('seven')"),
        ("s1,quality,ann,１０,", "labels.csv:3: score: not a number in ASCII digits ('１０')"),
        ("s1,quality,ann,,", "labels.csv:3: give a score or a preference"),
        ("s1,quality,ann,7,A", "labels.csv:3: give either score or preference, not both"),
        ("s1,quality,ann,,maybe", "labels.csv:3: preference: must be A, B or tie (got 'maybe')"),
        ("s1,quality,ann,,A", "labels.csv:3: a preference needs a and b"),
        ("s1,quality,ann,7,,extra", "labels.csv:3: 6 cells but 5 columns"),
    ],
)
def test_csv_errors_name_file_and_line(tmp_path: Path, row: str, expected: str) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(f"sample_id,criterion,rater,score,preference\ns0,quality,ann,5,\n{row}\n", encoding="utf-8")
    message = error_of(path)
    assert expected in message and ": 1 problem in" in message


def test_csv_line_numbers_count_quoted_line_breaks(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(
        'sample_id,criterion,rater,score,comment\ns0,quality,ann,5,"two\nlines"\n\ns1,quality,ann,x,\n',
        encoding="utf-8",
    )
    assert "labels.csv:5: score: not a number ('x')" in error_of(path)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("sample_id,criterion,rater,score,colour", "labels.csv:1: unknown column 'colour'"),
        ("sample_id,criterion,rater,score,Score", "labels.csv:1: column 'score' appears twice"),
        ("criterion,rater,score", "labels.csv:1: no 'sample_id' column"),
        ("sample_id,criterion,rater", "labels.csv:1: no 'score' or 'preference' column"),
    ],
)
def test_csv_header_errors(tmp_path: Path, header: str, expected: str) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(f"{header}\ns1,quality,ann,7,red\n", encoding="utf-8")
    assert expected in error_of(path)


def test_csv_columns_without_a_name_may_stay_empty(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text("sample_id,criterion,rater,score,,\ns1,quality,ann,7,,\ns2,quality,ann,7,,oops\n", encoding="utf-8")
    assert "labels.csv:3: a value in column 6, which has no name" in error_of(path)
    path.write_text("sample_id,criterion,rater,score,,\ns1,quality,ann,7,,\n", encoding="utf-8")
    assert len(read_labels(path)) == 1


def test_csv_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_bytes(b"sample_id,criterion,rater,score\ns1,qualit\xe9,ann,7\n")
    assert "labels.csv:2: not valid UTF-8" in error_of(path)


def test_errors_are_collected_and_truncated_after_20(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "labels.jsonl", *[score(epoch=-1) for _ in range(22)], "{not json", score())
    message = error_of(path)
    assert ": 23 problems in" in message
    assert all(f"labels.jsonl:{line}: epoch" in message for line in range(1, 21))
    assert "labels.jsonl:21:" not in message and "labels.jsonl:23:" not in message
    assert "and 3 more" in message


def test_bad_json_does_not_stop_the_reading(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "labels.jsonl", "{not json", score(), score(rater=""))
    message = error_of(path)
    assert "labels.jsonl:1: invalid JSON" in message and "labels.jsonl:3: rater: must not be empty" in message


def test_unknown_extension(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "labels.txt", score())
    message = error_of(path)
    assert "labels.txt" in message and all(ext in message for ext in (".jsonl", ".ndjson", ".csv", ".tsv"))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(MissingDataError, match="nothere.jsonl"):
        read_labels(tmp_path / "nothere.jsonl")


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("labels.jsonl", ""),
        ("labels.jsonl", "\n  \n"),
        ("labels.csv", ""),
        ("labels.csv", "sample_id,criterion,rater,score\n"),
    ],
)
def test_empty_file(tmp_path: Path, name: str, content: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    assert "no labels" in error_of(path)


# duplicates -------------------------------------------------------------------------------------
def test_the_last_of_duplicates_counts(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "labels.jsonl",
        score(value=3),
        score(value=4, run="run-1"),
        score(sample_id="s2"),
        score(value=5),
        pref(),
        pref(choice="B"),
        score(value=6),
        score(value=9, rater="bo"),
        score(value=2, criterion="style"),
        score(value=1, epoch=1),
    )
    labels = read_labels(path)
    assert labels.replaced == 3
    assert labels.lines == [2, 3, 6, 7, 8, 9, 10]  # each kept label's own line
    assert [(x.sample_id, x.rater, x.criterion, x.epoch, x.run, x.score, x.preference) for x in labels.labels] == [
        ("s1", "ann", "quality", 0, "run-1", 4, None),
        ("s2", "ann", "quality", 0, None, 7, None),
        ("s1", "ann", "quality", 0, None, None, "B"),
        ("s1", "ann", "quality", 0, None, 6, None),
        ("s1", "bo", "quality", 0, None, 9, None),
        ("s1", "ann", "style", 0, None, 2, None),
        ("s1", "ann", "quality", 1, None, 1, None),
    ]


# appending --------------------------------------------------------------------------------------
def test_append_creates_the_file_and_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "new" / "folder" / "labels.jsonl"
    first = Label(sample_id="s1", criterion="quality", rater="ann", score=7, labelled_at="2025-03-01T14:03:00+00:00")
    second = Label(sample_id="s1", criterion="quality", rater="ann", preference="tie", a="run-1", b="run-2")
    append_label(path, first)
    append_label(path, second)
    assert path.read_text(encoding="utf-8").count("\n") == 2
    assert read_labels(path).labels == [first, second]


def test_append_ends_a_last_line_left_without_newline(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(json.dumps(score()), encoding="utf-8")
    append_label(path, Label(sample_id="s2", criterion="quality", rater="ann", score=1))
    assert [label.sample_id for label in read_labels(path).labels] == ["s1", "s2"]


def test_append_refuses_a_table(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"\.jsonl"):
        append_label(tmp_path / "labels.csv", Label(sample_id="s1", criterion="q", rater="ann", score=1))
    assert not (tmp_path / "labels.csv").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="flock is POSIX")
def test_append_waits_for_the_lock(tmp_path: Path) -> None:
    import fcntl

    path = tmp_path / "labels.jsonl"
    path.touch()
    label = Label(sample_id="s1", criterion="quality", rater="ann", score=1)
    with path.open("rb") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        writer = threading.Thread(target=append_label, args=(path, label))
        writer.start()
        time.sleep(0.2)
        assert writer.is_alive() and path.read_bytes() == b""  # blocked while another holds the lock
        fcntl.flock(holder, fcntl.LOCK_UN)
        writer.join(timeout=10)
    assert not writer.is_alive()
    assert read_labels(path).labels == [label]


def _append_many(path: Path, rater: str, count: int, start: multiprocessing.synchronize.Event) -> None:
    os.fsync = lambda fd: None  # in this child only: back-to-back writes, so unlocked ones would interleave
    start.wait(10)
    for i in range(count):  # long lines: an unlocked or buffered write would be split and interleaved
        append_label(path, Label(sample_id=f"s{i}", criterion="quality", rater=rater, score=i, comment=rater * 10000))


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_two_processes_append_without_torn_lines(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    context = multiprocessing.get_context("fork")
    start = context.Event()
    workers = [context.Process(target=_append_many, args=(path, rater, 200, start)) for rater in ("ann", "bob")]
    for worker in workers:
        worker.start()
    start.set()
    for worker in workers:
        worker.join(timeout=60)
    assert [worker.exitcode for worker in workers] == [0, 0]
    lines = path.read_bytes().split(b"\n")
    assert lines.pop() == b"" and len(lines) == 400
    labels = read_labels(path)  # every line is a whole, valid label
    assert len(labels) == 400 and labels.replaced == 0
    for rater in ("ann", "bob"):
        mine = [label for label in labels.labels if label.rater == rater]
        assert [label.score for label in mine] == list(range(200))  # each writer's order kept
        assert all(label.comment == rater * 10000 for label in mine)


# matching ---------------------------------------------------------------------------------------
def label(**fields) -> Label:
    return Label.model_validate({"criterion": "quality", "rater": "ann", **fields})


def rated(*answers: tuple[str, str, int], criterion: str = "quality") -> set:
    return {(answer, criterion) for answer in answers}


def test_match_scores_with_and_without_run() -> None:
    items = rated(("run-1", "s1", 0), ("run-2", "s1", 0), ("run-1", "s2", 0), ("run-1", "s2", 1))
    with_run = label(sample_id="s1", run="run-2", score=1)
    only_one_run = label(sample_id="s2", epoch=1, score=2)
    two_runs = label(sample_id="s1", score=3)
    no_sample = label(sample_id="s9", score=4)
    no_epoch = label(sample_id="s1", epoch=3, run="run-1", score=5)
    no_run = label(sample_id="s2", run="run-3", score=6)
    result = match_labels([with_run, only_one_run, two_runs, no_sample, no_epoch, no_run], items)
    assert result.matched == [MatchedLabel(with_run, "run-2"), MatchedLabel(only_one_run, "run-1")]
    assert result.ambiguous == [two_runs]
    assert result.unmatched == [no_sample, no_epoch, no_run]


def test_a_label_matches_only_a_criterion_a_judge_rated() -> None:
    items = rated(("run-1", "s1", 0)) | rated(("run-2", "s1", 0), criterion="style")
    rated_one = label(sample_id="s1", score=1)  # only run-1's answer was rated on quality: not ambiguous
    typo = label(sample_id="s1", run="run-1", criterion="qualty", score=1)
    not_on_this_answer = label(sample_id="s1", run="run-1", criterion="style", score=1)
    result = match_labels([rated_one, typo, not_on_this_answer], items)
    assert result.matched == [MatchedLabel(rated_one, "run-1")]
    assert result.unmatched == [typo, not_on_this_answer] and result.ambiguous == []


def test_match_preferences_need_both_answers() -> None:
    items = rated(("run-1", "s1", 0), ("run-2", "s1", 0), ("run-1", "s2", 0), ("run-3", "s2", 0))
    both = label(sample_id="s1", preference="A", a="run-1", b="run-2")
    reversed_ = label(sample_id="s1", preference="B", a="run-2", b="run-1")
    one_missing = label(sample_id="s2", preference="tie", a="run-1", b="run-2")
    other_epoch = label(sample_id="s1", epoch=1, preference="A", a="run-1", b="run-2")
    other_criterion = label(sample_id="s1", criterion="style", preference="A", a="run-1", b="run-2")
    result = match_labels([both, reversed_, one_missing, other_epoch, other_criterion], items)
    assert result.matched == [MatchedLabel(both, None), MatchedLabel(reversed_, None)]
    assert result.unmatched == [one_missing, other_epoch, other_criterion] and result.ambiguous == []
