"""Reading and writing the official response and score files."""

from __future__ import annotations

import pytest

from proseval.benchmarks.writingbench.jsonl import DataFormatError
from proseval.benchmarks.writingbench.scorefile import (
    ResponseRecord,
    ScoreLine,
    load_score_dir,
    parse_response_file,
    parse_score_file,
    to_json_lines,
)


def test_response_file_round_trip():
    records = [ResponseRecord(index=2, response='第一段\n"quoted"'), ResponseRecord(index=1, response="")]
    text = to_json_lines(records)
    assert text == '{"index": 2, "response": "第一段\\n\\"quoted\\""}\n{"index": 1, "response": ""}\n'
    assert parse_response_file(text.encode("utf-8"), "r.jsonl") == records


def test_response_file_errors():
    with pytest.raises(DataFormatError, match=r"r\.jsonl:2: duplicate index 1"):
        parse_response_file(b'{"index": 1, "response": "a"}\n{"index": 1, "response": "b"}\n', "r.jsonl")
    with pytest.raises(DataFormatError, match=r"r\.jsonl:1: response"):
        parse_response_file(b'{"index": 1, "response": null}\n', "r.jsonl")


def test_score_file_round_trip_keeps_duplicates_and_judge_objects():
    raw = (
        '{"index": 3, "scores": {"语气": [{"score": 8, "reason": "好", "extra": 1}]}}\n'
        '{"index": 3, "scores": {"语气": [{"score": 7.0, "reason": "ok"}]}}\n'
    ).encode("utf-8")
    lines = parse_score_file(raw, "s.jsonl")
    assert [line.index for line in lines] == [3, 3]
    assert lines[0].scores["语气"][0] == {"score": 8, "reason": "好", "extra": 1}
    assert to_json_lines(lines).encode("utf-8") == raw


def test_score_dir_is_read_in_name_order(tmp_path):
    for name in ("b", "a"):
        (tmp_path / f"{name}.jsonl").write_text(to_json_lines([ScoreLine(index=1, scores={"c": [{"score": 5}]})]))
    (tmp_path / "notes.txt").write_text("ignored")
    assert [model for model, _ in load_score_dir(tmp_path)] == ["a", "b"]
