"""Data files are parsed once per content in a process (`benchmarks/_shared/parsed.py`): an unchanged
file is not parsed again, a changed one is, a failed parse is not kept, and the kept bytes stay bounded."""

from __future__ import annotations

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
