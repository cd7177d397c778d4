"""Data files are parsed once per content in a process (`benchmarks/_shared/parsed.py`): an unchanged
file is not parsed again, a changed one is, a failed parse is not kept, and the kept bytes stay bounded;
a file whose status has not changed since it was read is not read again, unless it changed just now."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from proseval.benchmarks._shared import parsed


@pytest.fixture(autouse=True)
def nothing_kept() -> Iterator[None]:
    parsed.forget()
    yield
    parsed.forget()


class Counting:
    """A parse that counts its calls and returns a fresh object each time."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> tuple[int]:
        self.calls += 1
        return (self.calls,)


def test_the_same_bytes_under_the_same_key_are_parsed_once() -> None:
    parse = Counting()
    first = parsed.parse_once(("bench", "a.jsonl"), parse, b"one")
    again = parsed.parse_once(("bench", "a.jsonl"), parse, b"one")
    assert parse.calls == 1
    assert again is first


def test_a_changed_file_is_parsed_again(tmp_path: Path) -> None:
    file = tmp_path / "items.jsonl"
    parse = Counting()
    file.write_bytes(b'{"id": 1}\n')
    before = parsed.parse_once(("bench", file.name), parse, file.read_bytes())
    file.write_bytes(b'{"id": 2}\n')
    after = parsed.parse_once(("bench", file.name), parse, file.read_bytes())
    assert parse.calls == 2
    assert after != before


def test_the_key_keeps_apart_parses_of_the_same_bytes() -> None:
    """The file's name (in messages) and its language are part of what a parse depends on."""
    parse = Counting()
    parsed.parse_once(("bench", "a.jsonl", "en"), parse, b"same")
    parsed.parse_once(("bench", "a.jsonl", "zh"), parse, b"same")
    parsed.parse_once(("other", "a.jsonl", "en"), parse, b"same")
    assert parse.calls == 3


def test_every_content_a_parse_reads_is_part_of_its_key() -> None:
    parse = Counting()
    parsed.parse_once(("bench",), parse, b"items", b"references v1")
    parsed.parse_once(("bench",), parse, b"items", b"references v2")
    parsed.parse_once(("bench",), parse, b"items", b"references v1")
    assert parse.calls == 2


def test_a_failed_parse_is_not_kept_and_fails_again() -> None:
    calls = 0

    def broken() -> None:
        nonlocal calls
        calls += 1
        raise ValueError(f"line 3: not JSON (attempt {calls})")

    with pytest.raises(ValueError, match="attempt 1"):
        parsed.parse_once(("bench", "bad.jsonl"), broken, b"{oops")
    with pytest.raises(ValueError, match="attempt 2"):
        parsed.parse_once(("bench", "bad.jsonl"), broken, b"{oops")


def test_past_the_byte_limit_the_least_recently_used_parse_goes_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parsed, "MAX_KEPT_BYTES", 10)
    parse = Counting()
    parsed.parse_once(("a",), parse, b"12345")
    parsed.parse_once(("b",), parse, b"12345")
    parsed.parse_once(("a",), parse, b"12345")  # a used last: b is the older one now
    parsed.parse_once(("c",), parse, b"12345")  # 15 bytes: b goes
    assert parse.calls == 3
    parsed.parse_once(("a",), parse, b"12345")
    assert parse.calls == 3
    parsed.parse_once(("b",), parse, b"12345")
    assert parse.calls == 4


def test_forget_drops_every_kept_parse() -> None:
    parse = Counting()
    parsed.parse_once(("bench",), parse, b"x")
    parsed.forget()
    parsed.parse_once(("bench",), parse, b"x")
    assert parse.calls == 2


# `unchanged_files_once`: no reading at all while a file's status stands for its bytes ---------------------
@pytest.fixture
def change_times_in_the_past(monkeypatch: pytest.MonkeyPatch) -> None:
    """A clock a minute ahead: files written now count as settled (their change time cannot be set back)."""
    ahead = time.time_ns() + 60 * 10**9
    monkeypatch.setattr(parsed.time, "time_ns", lambda: ahead)


def test_an_unchanged_settled_file_is_not_read_again(tmp_path: Path, change_times_in_the_past: None) -> None:
    file = tmp_path / "items.json"
    file.write_bytes(b"[1]")
    compute = Counting()
    first = parsed.unchanged_files_once(("bench",), [file], compute)
    again = parsed.unchanged_files_once(("bench",), [file], compute)
    assert compute.calls == 1 and again is first
    assert parsed.unchanged_files_once(("other",), [file], compute) != first  # the key keeps values apart


def test_a_file_changed_in_any_way_is_read_again(tmp_path: Path, change_times_in_the_past: None) -> None:
    file = tmp_path / "items.json"
    file.write_bytes(b"[1]")
    compute = Counting()
    parsed.unchanged_files_once(("bench",), [file], compute)
    file.write_bytes(b"[2]")  # same size
    parsed.unchanged_files_once(("bench",), [file], compute)
    stat = file.stat()
    file.write_bytes(b"[3]")
    os.utime(file, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size and modification time: the change time differs
    parsed.unchanged_files_once(("bench",), [file], compute)
    replacement = tmp_path / "new.json"
    replacement.write_bytes(b"[3]")
    os.utime(replacement, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    replacement.replace(file)  # another file moved in its place
    parsed.unchanged_files_once(("bench",), [file], compute)
    assert compute.calls == 4


def test_a_file_changed_just_now_is_read_every_time(tmp_path: Path) -> None:
    """Its status may not show a second write within the same tick of the file system's clock."""
    file = tmp_path / "items.json"
    file.write_bytes(b"[1]")
    compute = Counting()
    parsed.unchanged_files_once(("bench",), [file], compute)
    parsed.unchanged_files_once(("bench",), [file], compute)
    assert compute.calls == 2


def test_a_file_changed_while_it_was_read_is_not_kept(tmp_path: Path, change_times_in_the_past: None) -> None:
    file = tmp_path / "items.json"
    file.write_bytes(b"[1]")
    calls = 0

    def read_while_it_changes() -> bytes:
        nonlocal calls
        calls += 1
        content = file.read_bytes()
        file.write_bytes(b"[1, 2]")
        return content

    parsed.unchanged_files_once(("bench",), [file], read_while_it_changes)
    parsed.unchanged_files_once(("bench",), [file], read_while_it_changes)
    assert calls == 2


def test_parse_files_once_parses_an_unchanged_file_once_and_a_changed_one_again(
    tmp_path: Path, change_times_in_the_past: None
) -> None:
    file = tmp_path / "items.json"
    file.write_bytes(b"[1]")
    seen: list[list[bytes]] = []

    def parse(contents: list[bytes]) -> tuple[bytes, ...]:
        seen.append(contents)
        return tuple(contents)

    assert parsed.parse_files_once(("bench",), [file], parse) == (b"[1]",)
    assert parsed.parse_files_once(("bench",), [file], parse) == (b"[1]",)
    file.write_bytes(b"[2]")
    assert parsed.parse_files_once(("bench",), [file], parse) == (b"[2]",)
    assert seen == [[b"[1]"], [b"[2]"]]


def test_parse_files_once_keeps_no_parse_past_the_byte_limit(
    tmp_path: Path, change_times_in_the_past: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only digests are kept under a file's status: a parse the byte limit dropped is made again."""
    monkeypatch.setattr(parsed, "MAX_KEPT_BYTES", 4)
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_bytes(b"[1]")
    second.write_bytes(b"[22]")
    parse = Counting()
    parsed.parse_files_once(("bench",), [first], lambda contents: parse())
    parsed.parse_files_once(("bench",), [second], lambda contents: parse())  # 7 bytes: the first goes
    parsed.parse_files_once(("bench",), [first], lambda contents: parse())
    assert parse.calls == 3
