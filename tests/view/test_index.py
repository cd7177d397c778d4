"""The offset index of a growing samples file, and the word diff and highlighting helpers."""

from __future__ import annotations

import json
import os
from pathlib import Path

import proseval.view.index as index_module
from proseval.core.textdiff import highlight, word_diff
from proseval.view.index import IndexCache, LineIndex, summarize
from view.view_fixtures import record


def line(n: int) -> bytes:
    return (json.dumps(record(n)) + "\n").encode()


def test_complete_lines_are_indexed_and_the_file_is_scanned_once(tmp_path: Path):
    path = tmp_path / "samples.jsonl"
    path.write_bytes(line(0) + b"\n  \n" + line(1))  # a blank line and a whitespace line are no samples
    index = LineIndex(path)
    assert index.refresh() == 2 and index.scanned == path.stat().st_size
    assert [r["id"] for _, r in index.read(0, 10)] == ["s00000", "s00001"]
    with path.open("ab") as handle:
        handle.write(line(2) + line(3)[:20])  # one more line, and half of the next
    scanned = index.scanned
    assert index.refresh() == 3
    assert index.scanned == scanned + len(line(2))  # only the complete line was added; the half waits
    with path.open("ab") as handle:
        handle.write(line(3)[20:])
    assert index.refresh() == 4
    assert [n for n, _ in index.read(1, 2)] == [1, 2] and index.read_one(3)["id"] == "s00003"
    assert index.read(4, 10) == []


def test_lines_longer_than_a_read_block_are_found(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(index_module, "BLOCK", 7)
    path = tmp_path / "samples.jsonl"
    data = line(0) + b"\n" + line(1) + line(2)[:30]
    path.write_bytes(data)
    index = LineIndex(path)
    assert index.refresh() == 2
    assert [r["id"] for _, r in index.read(0, 2)] == ["s00000", "s00001"]
    assert index.scanned == len(line(0)) + 1 + len(line(1))


def test_summaries_are_extended_not_rebuilt(tmp_path: Path):
    path = tmp_path / "samples.jsonl"
    path.write_bytes(line(0) + line(1))
    index = LineIndex(path)
    first = index.summary_list()
    kept = first[0]
    with path.open("ab") as handle:
        handle.write(line(2))
    summaries = index.summary_list()
    assert [s.id for s in summaries] == ["s00000", "s00001", "s00002"] and summaries[0] is kept


def test_a_replaced_or_shorter_file_is_indexed_afresh(tmp_path: Path):
    path = tmp_path / "samples.jsonl"
    path.write_bytes(line(0) + line(1) + line(2))
    index = LineIndex(path)
    assert index.refresh() == 3 and len(index.summary_list()) == 3
    other = tmp_path / "new.jsonl"
    other.write_bytes(line(5))
    os.replace(other, path)
    assert index.refresh() == 1 and index.read_one(0)["id"] == "s00005"
    assert [s.id for s in index.summary_list()] == ["s00005"]
    path.unlink()
    assert index.refresh() == 0


def test_a_file_rewritten_in_place_is_indexed_afresh(tmp_path: Path):
    path = tmp_path / "samples.jsonl"
    path.write_bytes(line(0) + line(1))
    index = LineIndex(path)
    assert index.refresh() == 2 and len(index.summary_list()) == 2
    stat = path.stat()
    path.write_bytes(line(0).replace(b"s00000", b"s00009") + line(1))  # same size, same file
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert index.refresh() == 2 and index.read_one(0)["id"] == "s00009"
    assert [s.id for s in index.summary_list()] == ["s00009", "s00001"]
    path.write_bytes(line(0)[:-5] + b"\n" + line(1) + line(2))  # longer, and the first line end moved
    assert index.refresh() == 3 and index.read_one(0) is None and index.read_one(2)["id"] == "s00002"


def test_the_cache_keeps_one_index_per_file(tmp_path: Path):
    path = tmp_path / "samples.jsonl"
    path.write_bytes(line(0))
    cache = IndexCache()
    assert cache.get(path) is cache.get(tmp_path / "." / "samples.jsonl")


def test_a_summary_has_status_slices_and_flattened_scores():
    failed = summarize(record(1, status="error", scores={}))
    assert failed.status == "failed"
    mixed = summarize(
        record(
            2,
            scores={"a": {"value": None}, "b": {"value": {"x": 1, "y": None}}},
            state={"metadata": {"rounds_run": 2, "settings": {"a": 1}}},
        )
    )
    assert mixed.status == "unscored" and mixed.scores == {"a": None, "b.x": 1.0, "b.y": None}
    assert mixed.slices == {"language": "fr", "domain": "d2", "state.rounds_run": 2}
    assert summarize(record(3)).status == "scored"


def test_word_diff_keeps_every_character_of_both_texts():
    old, new = "The quick brown fox, it jumps.", "The slow brown fox jumps high."
    parts = word_diff(old, new)
    assert "".join(t for k, t in parts if k != "insert") == old
    assert "".join(t for k, t in parts if k != "delete") == new
    assert ("delete", "quick") in parts and ("insert", "slow") in parts


def test_highlight_marks_each_snippet_once_without_overlaps():
    text = "big dog, big cat"
    segments, missing = highlight(text, ["big", "big", "BIG DOG", "cow", ""])
    assert segments == [("mark", "big"), ("plain", " dog, "), ("mark", "big"), ("plain", " cat")]
    assert missing == [2, 3, 4]  # overlapping the first mark, absent, empty
    assert highlight("Big Dog", ["big dog"])[0] == [("mark", "Big Dog")]  # found ignoring case
