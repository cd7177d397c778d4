"""Loading, verifying, slicing and downloading the WritingBench query files."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import httpx
import pytest

from proseval.benchmarks.writingbench.data import (
    DATA_FILES,
    DOMAIN1_LABELS,
    OFFICIAL_COMMIT,
    PINNED_SHA256,
    DataIntegrityError,
    DownloadError,
    build_benchmark,
    download,
    group_by,
    interleave,
    load_benchmark,
    select,
)
from proseval.benchmarks.writingbench.jsonl import DataFormatError
from writingbench.wb_fixtures import jsonl, record, tiny_files, write_files

ALL = "benchmark_all.jsonl"

# --- official files -------------------------------------------------------------------------


def test_official_counts(official_bench):
    assert official_bench.version == "v2"
    assert official_bench.verified
    assert len(official_bench.queries) == 1000
    assert [q.index for q in official_bench.queries] == list(range(1, 1001))
    assert {dim: len(s.indices) for dim, s in official_bench.requirements.items()} == {
        "style": 442,
        "format": 498,
        "length": 222,
    }
    c_totals = {dim: sum(len(names) for names in s.criteria.values()) for dim, s in official_bench.requirements.items()}
    assert c_totals == {"style": 498, "format": 511, "length": 226}
    assert all(len(q.checklist) == 5 for q in official_bench.queries)


def test_official_languages_and_domains(official_bench):
    queries = official_bench.queries
    assert Counter(q.lang for q in queries) == {"en": 555, "zh": 445}
    assert Counter(q.domain1 for q in queries) == {
        "Academic & Engineering": 167,
        "Finance & Business": 210,
        "Politics & Law": 201,
        "Literature & Arts": 183,
        "Education": 111,
        "Advertising & Marketing": 128,
    }
    domain2 = group_by(queries, "domain2")
    assert len(domain2) == 100
    assert all(len({q.domain1 for q in group}) == 1 for group in domain2.values())
    assert len(domain2["Film/TV Review"]) == 12
    assert len(select(official_bench, domain1="Education", lang="en")) == 64
    assert len(select(official_bench, requirement="length", lang="zh")) == 95
    assert len(select(official_bench, requirement="style", domain1="Literature & Arts")) == 105


def test_official_crlf_and_hashes(official_dir, official_bench):
    raw = (official_dir / ALL).read_bytes()
    assert raw.count(b"\r\n") == 1000
    assert official_bench.sha256 == dict(PINNED_SHA256)
    for name in DATA_FILES:
        assert hashlib.sha256((official_dir / name).read_bytes()).hexdigest() == PINNED_SHA256[name]


def test_official_tampered_file_is_rejected(official_dir):
    files = {name: (official_dir / name).read_bytes() for name in DATA_FILES}
    name = "requirement/format/format_subset_C.jsonl"
    files[name] = files[name].replace(b'"index": 1,', b'"index": 1 ,', 1)
    with pytest.raises(DataIntegrityError, match="format_subset_C.jsonl: SHA-256"):
        build_benchmark(files)
    assert build_benchmark(files, verify=False).requirements["format"].indices[0] == 1


def test_official_first_length_criterion(official_bench):
    subset = official_bench.requirements["length"]
    assert subset.indices[0] == 16
    assert subset.criteria[16] == ("Word_Count_and_Format_Adherence",)
    assert "Word_Count_and_Format_Adherence" in official_bench.query(16).criterion_names


# --- tiny fixtures --------------------------------------------------------------------------


def test_tiny_loads_with_crlf(tiny_dir, tiny_bench):
    assert (tiny_dir / ALL).read_bytes().count(b"\r\n") == 4
    assert [q.index for q in tiny_bench.queries] == [1, 2, 3, 4]
    assert tiny_bench.query(3).domain2 == "Lesson Plan"
    assert tiny_bench.query(1).checklist[0].description == "How well the response handles q1_c1."
    assert tiny_bench.requirements["style"].criteria == {1: ("q1_c2",), 3: ("q3_c1", "q3_c4")}
    assert not tiny_bench.verified
    lf = {name: raw.replace(b"\r\n", b"\n") for name, raw in tiny_files().items()}
    assert build_benchmark(lf, verify=False).queries == tiny_bench.queries


def test_tiny_fails_verification_naming_the_file(tiny_dir):
    with pytest.raises(DataIntegrityError, match=r"benchmark_all\.jsonl: SHA-256"):
        load_benchmark(tiny_dir)


def test_parent_folder_is_accepted(tiny_dir):
    assert len(load_benchmark(tiny_dir.parent, verify=False).queries) == 4


def test_missing_file_is_named(tiny_dir):
    (tiny_dir / "requirement/length/length_subset_C.jsonl").unlink()
    with pytest.raises(FileNotFoundError, match="length_subset_C.jsonl"):
        load_benchmark(tiny_dir, verify=False)


def _lines_of(raw: bytes) -> list[bytes]:
    return raw.split(b"\r\n")


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda raw: raw.replace(b'"index": 3', b'"index": 3,,', 1), r"benchmark_all\.jsonl:3: invalid JSON"),
        (lambda raw: b"\xef\xbb\xbf" + raw, r"benchmark_all\.jsonl:1: .*byte-order mark"),
        (lambda raw: raw.replace(b"\r\n", b"\r\n\r\n", 1), r"benchmark_all\.jsonl:2: empty line"),
        (lambda raw: raw.replace(b"Write text number 2", b"Write \xff", 1), r"benchmark_all\.jsonl:2: not valid UTF-8"),
        (lambda raw: raw.replace(b'"index": 4', b'"index": 2', 1), r"benchmark_all\.jsonl:4: duplicate index 2"),
        (lambda raw: raw.replace(b'"9-10": "excellent"}', b'"9-10": ""}', 1), r"benchmark_all\.jsonl:1: checklist"),
        (lambda raw: raw.replace(b'"Education"', b'"Schooling"', 1), r"benchmark_all\.jsonl:3: domain1"),
        (lambda raw: raw.replace(b'"lang": "zh"', b'"lang": "fr"', 1), r"benchmark_all\.jsonl:2: lang"),
        (lambda raw: raw.replace(b'"index": 2', b'"index": "2"', 1), r"benchmark_all\.jsonl:2: index"),
        (lambda raw: raw.replace(b'"query"', b'"extra": 1, "query"', 1), r"all\.jsonl:1: unexpected keys \['extra'\]"),
        (lambda raw: raw.replace(b'"checklist"', b'"rubric"', 1), r"benchmark_all\.jsonl:1: expected exactly one of"),
        (lambda raw: b"[1, 2]\r\n" + raw, r"benchmark_all\.jsonl:1: expected a JSON object"),
    ],
)
def test_malformed_benchmark_lines_name_file_and_line(mutate, message):
    files = tiny_files()
    files[ALL] = mutate(files[ALL])
    with pytest.raises(DataFormatError, match=message):
        build_benchmark(files, verify=False)


def test_wrong_number_of_criteria_is_rejected():
    files = tiny_files()
    lines = [json.loads(line) for line in files[ALL].splitlines()]
    lines[1]["checklist"].pop()
    files[ALL] = jsonl(lines)
    with pytest.raises(DataFormatError, match=r"benchmark_all\.jsonl:2: expected 5 criteria, got 4"):
        build_benchmark(files, verify=False)


def test_duplicate_criterion_names_are_rejected():
    files = tiny_files()
    files[ALL] = files[ALL].replace(b"q1_c2", b"q1_c1")
    with pytest.raises(DataFormatError, match=r"benchmark_all\.jsonl:1: .*duplicate criterion names"):
        build_benchmark(files, verify=False)


def test_subset_consistency_checks():
    files = tiny_files()
    name = "requirement/style/style_subset_C.jsonl"
    files[name] = files[name].replace(b"q3_c4", b"q3_c9")
    with pytest.raises(DataFormatError, match=r"style_subset_C\.jsonl:2: criteria of index 3"):
        build_benchmark(files, verify=False)

    files = tiny_files()
    files["requirement/format/format_subset_C.jsonl"] = jsonl([record(1, criteria=["q1_c1"], with_lang=False)])
    with pytest.raises(DataFormatError, match=r"format_subset_C\.jsonl: index list differs"):
        build_benchmark(files, verify=False)

    files = tiny_files()
    files[ALL] = jsonl([record(i) for i in (1, 2, 3)])
    with pytest.raises(DataFormatError, match=r"length_subset\.jsonl:1: index 4 is not in benchmark_all"):
        build_benchmark(files, verify=False)


def test_v1_layout_is_recognised_but_not_verifiable():
    files = tiny_files(key="criteria")
    bench = build_benchmark(files, verify=False)
    assert bench.version == "v1"
    assert bench.query(2).criterion_names == tuple(f"q2_c{n}" for n in range(1, 6))
    with pytest.raises(DataIntegrityError, match="v1 data has no pinned SHA-256"):
        build_benchmark(files)


def test_v1_and_v2_files_are_never_mixed():
    files = tiny_files()
    files.update({name: raw for name, raw in tiny_files(key="criteria").items() if "style" in name})
    with pytest.raises(DataIntegrityError, match="two data versions"):
        build_benchmark(files, verify=False)

    files = tiny_files()
    lines = files[ALL].split(b"\r\n")
    lines[2] = lines[2].replace(b'"checklist"', b'"criteria"')
    files[ALL] = b"\r\n".join(lines)
    with pytest.raises(DataIntegrityError, match=r"benchmark_all\.jsonl:3: mixes v1"):
        build_benchmark(files, verify=False)


def test_select_and_group_by(tiny_bench):
    assert [q.index for q in select(tiny_bench, domain1="Academic & Engineering")] == [1, 2]
    assert [q.index for q in select(tiny_bench, lang="zh")] == [2, 4]
    assert [q.index for q in select(tiny_bench, requirement="style", lang="en")] == [1, 3]
    assert [q.index for q in select(tiny_bench, domain2="Poetry")] == [4]
    assert select(tiny_bench, domain1="Education", lang="zh") == []
    groups = group_by(tiny_bench.queries, "lang")
    assert {label: [q.index for q in group] for label, group in groups.items()} == {"en": [1, 3], "zh": [2, 4]}
    with pytest.raises(ValueError, match="unknown domain1 'Literature & Art'"):
        select(tiny_bench, domain1="Literature & Art")
    with pytest.raises(ValueError, match="unknown requirement"):
        select(tiny_bench, requirement="tone")
    assert len(DOMAIN1_LABELS) == 6


def test_interleave_alternates_groups_and_keeps_every_query(tiny_bench):
    assert [q.index for q in interleave(tiny_bench.queries, "lang")] == [1, 2, 3, 4]
    by_domain = interleave(tiny_bench.queries, "domain1")
    assert sorted(q.index for q in by_domain) == [1, 2, 3, 4]
    first_of_each = by_domain[: len(group_by(tiny_bench.queries, "domain1"))]
    assert len({q.domain1 for q in first_of_each}) == len(first_of_each)
    assert interleave([], "lang") == []


def test_interleaved_prefix_of_official_data_is_balanced(official_bench):
    prefix = interleave(official_bench.queries, "domain1")[:12]
    assert Counter(q.domain1 for q in prefix) == {label: 2 for label in DOMAIN1_LABELS}


def test_group_by_missing_lang_is_unknown():
    files = tiny_files()
    files[ALL] = jsonl([record(i, with_lang=False) for i in (1, 2, 3, 4)])
    no_lang = build_benchmark(files, verify=False)
    assert no_lang.query(1).lang is None
    assert list(group_by(no_lang.queries, "lang")) == ["unknown"]


# --- download -------------------------------------------------------------------------------


def _serving(files: dict[str, bytes], requests: list[str]) -> httpx.Client:
    prefix = f"https://raw.githubusercontent.com/X-PLUG/WritingBench/{OFFICIAL_COMMIT}/benchmark_query/"

    def handler(request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        requests.append(url)
        name = url.removeprefix(prefix)
        if url.startswith(prefix) and name in files:
            return httpx.Response(200, content=files[name])
        return httpx.Response(404)

    return httpx.Client(transport=httpx.MockTransport(handler))


def test_download_verifies_and_writes_official_files(official_dir, tmp_path):
    files = {name: (official_dir / name).read_bytes() for name in DATA_FILES}
    requests: list[str] = []
    dest = download(tmp_path / "wb", client=_serving(files, requests))
    assert len(requests) == 7
    assert all(OFFICIAL_COMMIT in url for url in requests)
    assert load_benchmark(dest).sha256 == dict(PINNED_SHA256)
    download(dest, client=_serving(files, requests))
    assert len(requests) == 7  # every file already present with the right hash


def test_download_rejects_a_wrong_hash_without_writing(tmp_path):
    requests: list[str] = []
    client = _serving(tiny_files(), requests)
    with pytest.raises(DataIntegrityError, match=r"benchmark_all\.jsonl: SHA-256 .* does not match"):
        download(tmp_path, client=client)
    assert not any(tmp_path.rglob("*.jsonl")) and not any(tmp_path.rglob("*.part"))


def test_download_http_and_network_errors_are_clear(tmp_path):
    with pytest.raises(DownloadError, match="could not download https://raw.githubusercontent.com/.*404"):
        download(tmp_path, client=_serving({}, []))

    def offline(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("name resolution failed", request=request)

    with pytest.raises(DownloadError, match="name resolution failed"):
        download(tmp_path, client=httpx.Client(transport=httpx.MockTransport(offline)))
    assert not any(tmp_path.iterdir())


def test_download_keeps_nothing_unverified_on_disk(tmp_path):
    write_files(tmp_path, {ALL: b"not the official file\n"})
    requests: list[str] = []
    with pytest.raises(DataIntegrityError):
        download(tmp_path, client=_serving({ALL: b"still wrong\n"}, requests))
    assert requests and (tmp_path / ALL).read_bytes() == b"not the official file\n"


def test_download_refetches_a_corrupt_local_file(official_dir, tmp_path: Path):
    files = {name: (official_dir / name).read_bytes() for name in DATA_FILES}
    write_files(tmp_path, files)
    (tmp_path / ALL).write_bytes(b"corrupt\n")
    requests: list[str] = []
    download(tmp_path, client=_serving(files, requests))
    assert [url.rsplit("/", 1)[-1] for url in requests] == [ALL]
    assert (tmp_path / ALL).read_bytes() == files[ALL]


def test_a_failed_download_command_exits_1_as_the_exit_code_table_says(tmp_path, monkeypatch):
    """A download that fails is the environment's to fix (docs/runtime.md: exit 1), not the command line's."""
    import functools

    from typer.testing import CliRunner

    from proseval.benchmarks.writingbench import data as wb_data
    from proseval.cli import app

    monkeypatch.setattr(wb_data, "download", functools.partial(download, client=_serving({}, [])))
    result = CliRunner().invoke(app, ["writingbench", "download", "--dest", str(tmp_path / "wb")])
    assert result.exit_code == 1 and "could not download" in result.output
