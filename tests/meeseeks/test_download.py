"""Downloading the official Meeseeks data at the pinned commit and verifying its combined SHA-256.

The archive is served from memory by httpx.MockTransport; it holds the five fixture files of
tests/meeseeks/fixtures/data, so the pinned hash and file count are patched to theirs.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import shutil
import tarfile
from pathlib import Path

import httpx
import pytest

from proseval.benchmarks.meeseeks import download as dl
from proseval.benchmarks.meeseeks import task as meeseeks_task
from proseval.benchmarks.meeseeks.download import (
    DATA_FILE_COUNT,
    DATA_SHA256,
    NAMES_SHA256,
    OFFICIAL_COMMIT,
    DataIntegrityError,
    DownloadError,
    archive_url,
    check_data,
    combined_sha256,
    data_member,
    data_paths,
    download,
    verify_data,
)
from proseval.benchmarks.meeseeks.params import MeeseeksParams
from proseval.benchmarks.meeseeks.task import make_task

FIXTURE = Path(__file__).parent / "fixtures" / "data"
TOP = f"Meeseeks-{OFFICIAL_COMMIT}"
URL = f"https://codeload.github.com/meituan-longcat/Meeseeks/tar.gz/{OFFICIAL_COMMIT}"


def fixture_files() -> dict[str, bytes]:
    """Repository-relative path -> bytes of the fixture data files."""
    return {
        f"input_data/{p.relative_to(FIXTURE / 'input_data').as_posix()}": p.read_bytes()
        for p in sorted((FIXTURE / "input_data").glob("*/raw_input/*.json"))
    }


def expected_hash(files: dict[str, bytes]) -> str:
    """The combined SHA-256 written out independently of the code under test."""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.encode("utf-8") + files[path])
    return digest.hexdigest()


@pytest.fixture
def pinned_to_fixture(monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    files = fixture_files()
    monkeypatch.setattr(dl, "DATA_SHA256", expected_hash(files))
    monkeypatch.setattr(dl, "DATA_FILE_COUNT", len(files))
    monkeypatch.setattr(dl, "NAMES_SHA256", hashlib.sha256("\n".join(sorted(files)).encode()).hexdigest())
    return files


def make_archive(files: dict[str, bytes], extra: list[tarfile.TarInfo | tuple[tarfile.TarInfo, bytes]] = ()) -> bytes:
    """A tar.gz like GitHub's: one top folder, the data files and some other repository files."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, content in {
            "README.md": b"# Meeseeks\n",
            "src_code/utils.py": b"x = 1\n",
            "input_data/notes.json": b"{}",
            **files,
        }.items():
            info = tarfile.TarInfo(f"{TOP}/{name}")
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
        for entry in extra:
            info, content = entry if isinstance(entry, tuple) else (entry, b"")
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content) if content else None)
    return buffer.getvalue()


def serving(archive: bytes | None, requests: list[str], status: int = 200) -> httpx.Client:
    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(str(request.url))
        if str(request.url) != URL or archive is None:
            return httpx.Response(404 if archive is None else status)
        return httpx.Response(status, content=archive)

    return httpx.Client(transport=httpx.MockTransport(handler))


def written(root: Path) -> dict[str, bytes]:
    return {
        f"input_data/{p.relative_to(root / 'input_data').as_posix()}": p.read_bytes()
        for p in (root / "input_data").rglob("*")
        if p.is_file()
    }


# --- the official copy and the hash definition ------------------------------------------------


def test_shared_official_copy_has_the_pinned_hash(shared_dir: Path):
    official = shared_dir / "data" / "meeseeks"
    if not (official / "input_data").is_dir():
        pytest.skip(f"no official Meeseeks data copy at {official / 'input_data'}")
    paths = [relative for relative, _ in data_paths(official)]
    assert len(paths) == DATA_FILE_COUNT == 686
    assert sum(p.startswith("input_data/asia_data/") for p in paths) == 211
    assert "input_data/asia_data/raw_input/DATA-SPECIAL10中文版.json" in paths
    assert DATA_SHA256 == "5a887416627fe5837bd4c55c8a86d7d532c2167fc59446e6a7f8e1936f78a561"
    assert combined_sha256(official) == DATA_SHA256
    assert combined_sha256(official / "input_data") == DATA_SHA256  # the input_data folder itself works too
    assert hashlib.sha256("\n".join(paths).encode("utf-8")).hexdigest() == NAMES_SHA256
    assert verify_data(official) == DATA_SHA256
    check = check_data(official)
    assert check.verified and check.official_file_set and check.as_source()["commit"] == OFFICIAL_COMMIT


def test_combined_hash_follows_the_definition(tmp_path: Path):
    files = {
        "input_data/english_data/raw_input/B英语版.json": b"[2]",
        "input_data/asia_data/raw_input/Z中文版.json": b"[3]",
        "input_data/asia_data/raw_input/A中文版.json": b"[1]",
    }
    for name, content in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(content)
    (tmp_path / "input_data/asia_data/raw_input/readme.txt").write_text("not data")
    manual = hashlib.sha256(
        b"".join(
            path.encode("utf-8") + files[path]
            for path in (
                "input_data/asia_data/raw_input/A中文版.json",
                "input_data/asia_data/raw_input/Z中文版.json",
                "input_data/english_data/raw_input/B英语版.json",
            )
        )
    ).hexdigest()
    assert combined_sha256(tmp_path) == manual
    with pytest.raises(DataIntegrityError, match=rf"3 Meeseeks data files is {manual}.*official 686 files"):
        verify_data(tmp_path)


# --- download ----------------------------------------------------------------------------------


def test_download_extracts_verifies_and_keeps_a_present_copy(tmp_path: Path, pinned_to_fixture):
    requests: list[str] = []
    seen: list[tuple[int, int | None]] = []
    archive = make_archive(pinned_to_fixture)
    dest = download(
        tmp_path / "meeseeks",
        client=serving(archive, requests),
        progress=lambda done, total: seen.append((done, total)),
    )
    assert requests == [URL] == [archive_url()]
    assert dest == tmp_path / "meeseeks"
    assert written(dest) == pinned_to_fixture  # data files only: not notes.json, README or code
    assert sorted(p.name for p in tmp_path.iterdir()) == ["meeseeks"]  # no stage folder left beside it
    assert seen and seen[-1] == (len(archive), len(archive))
    download(dest, client=serving(archive, requests))
    assert len(requests) == 1  # a verified copy is kept without downloading


def test_download_into_an_existing_empty_folder(tmp_path: Path, pinned_to_fixture):
    (tmp_path / "m").mkdir()
    download(tmp_path / "m", client=serving(make_archive(pinned_to_fixture), []))
    assert written(tmp_path / "m") == pinned_to_fixture


def test_hash_mismatch_leaves_nothing(tmp_path: Path, pinned_to_fixture, monkeypatch):
    monkeypatch.setattr(dl, "DATA_SHA256", "0" * 64)
    with pytest.raises(DataIntegrityError) as info:
        download(tmp_path / "m", client=serving(make_archive(pinned_to_fixture), []))
    message = str(info.value)
    assert URL in message and "0" * 64 in message and expected_hash(pinned_to_fixture) in message
    assert "5 Meeseeks data files" in message and "official 5 files" in message
    assert list(tmp_path.iterdir()) == []


def test_file_count_mismatch_leaves_nothing(tmp_path: Path, pinned_to_fixture, monkeypatch):
    monkeypatch.setattr(dl, "DATA_FILE_COUNT", 6)
    with pytest.raises(DataIntegrityError, match="official 6 files"):
        download(tmp_path / "m", client=serving(make_archive(pinned_to_fixture), []))
    assert list(tmp_path.iterdir()) == []


def test_unsafe_members_are_never_written_outside(tmp_path: Path, pinned_to_fixture):
    outside = tmp_path / "outside"
    outside.mkdir()
    dest = tmp_path / "a" / "b" / "meeseeks"
    data = b'[{"question": "evil"}]'
    unsafe = [
        f"{TOP}/input_data/english_data/raw_input/../../../../../evil1.json",
        "../input_data/english_data/raw_input/evil2.json",
        "/input_data/english_data/raw_input/evil3.json",
        f"{outside}/input_data/english_data/raw_input/evil4.json",
        f"{TOP}/input_data/english_data/raw_input/..",
        f"{TOP}/input_data/../input_data/english_data/raw_input/evil5.json",
    ]
    link = tarfile.TarInfo(f"{TOP}/input_data/asia_data")  # a link over a data folder, then a file through it
    link.type, link.linkname = tarfile.SYMTYPE, str(outside)
    other_link = tarfile.TarInfo(f"{TOP}/leaderboard.svg")
    other_link.type, other_link.linkname = tarfile.SYMTYPE, "/etc/passwd"
    extra = [(tarfile.TarInfo(name), data) for name in unsafe] + [link, other_link]
    download(dest, client=serving(make_archive(pinned_to_fixture, extra), []))
    assert written(dest) == pinned_to_fixture
    assert not any(p.name.startswith("evil") for p in tmp_path.rglob("*"))
    assert list(outside.iterdir()) == []
    assert not any(p.is_symlink() for p in tmp_path.rglob("*"))
    assert not Path("/input_data").exists() and not Path(f"{outside}/input_data").exists()


@pytest.mark.parametrize("kind", [tarfile.SYMTYPE, tarfile.LNKTYPE])
def test_a_link_at_a_data_path_is_rejected(tmp_path: Path, pinned_to_fixture, kind):
    link = tarfile.TarInfo(f"{TOP}/input_data/english_data/raw_input/DATA-link英语版.json")
    link.type, link.linkname = kind, "/etc/passwd"
    with pytest.raises(DataIntegrityError, match="DATA-link英语版.json' is not a regular file"):
        download(tmp_path / "m", client=serving(make_archive(pinned_to_fixture, [link]), []))
    assert list(tmp_path.iterdir()) == []


def test_data_member_paths():
    assert data_member(f"{TOP}/input_data/asia_data/raw_input/DATA[20.1]日文版.json") == (
        "asia_data",
        "DATA[20.1]日文版.json",
    )
    for name in (
        f"{TOP}/input_data/asia_data/raw_input/sub/x.json",
        f"{TOP}/input_data/asia_data/raw_input/x.txt",
        f"{TOP}/input_data/chinese_data/raw_input/x.json",
        "input_data/asia_data/raw_input/x.json",
        "/input_data/asia_data/raw_input/x.json",
        "../input_data/asia_data/raw_input/x.json",
        f"{TOP}/input_data/asia_data/raw_input/a\\..\\x.json",
    ):
        assert data_member(name) is None, name


def test_http_error_is_clear(tmp_path: Path):
    with pytest.raises(DownloadError, match=rf"could not download the Meeseeks data from {URL}: HTTP 404 Not Found"):
        download(tmp_path / "m", client=serving(None, []))
    with pytest.raises(DownloadError, match="HTTP 503"):
        download(tmp_path / "m", client=serving(b"busy", [], status=503))

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    with pytest.raises(DownloadError, match="ConnectError: connection refused"):
        download(tmp_path / "m", client=httpx.Client(transport=httpx.MockTransport(refuse)))
    assert list(tmp_path.iterdir()) == []


def test_not_an_archive(tmp_path: Path, pinned_to_fixture):
    with pytest.raises(DataIntegrityError, match="not a readable tar.gz archive"):
        download(tmp_path / "m", client=serving(b"<html>rate limited</html>", []))
    with pytest.raises(DataIntegrityError, match="none of the Meeseeks data files"):
        download(tmp_path / "m", client=serving(make_archive({}), []))
    assert list(tmp_path.iterdir()) == []


def test_other_data_at_the_destination_is_never_overwritten(tmp_path: Path, pinned_to_fixture):
    shutil.copytree(FIXTURE / "input_data", tmp_path / "m" / "input_data")
    own = tmp_path / "m" / "input_data" / "english_data" / "raw_input" / "DATA-T2德语版.json"
    own.write_bytes(b"[]")
    requests: list[str] = []
    with pytest.raises(DataIntegrityError, match="Not overwriting these files"):
        download(tmp_path / "m", client=serving(make_archive(pinned_to_fixture), requests))
    assert requests == [] and own.read_bytes() == b"[]"


# --- verification rule for a data folder -------------------------------------------------------


def test_check_data_rule(tmp_path: Path, pinned_to_fixture):
    copy = tmp_path / "copy"
    shutil.copytree(FIXTURE, copy)
    assert check_data(copy).verified
    own = copy / "input_data" / "english_data" / "raw_input" / "DATA-T2德语版.json"
    own.write_bytes(own.read_bytes().replace(b"}", b"} ", 1))
    with pytest.raises(DataIntegrityError, match="--verify false"):
        check_data(copy)
    relaxed = check_data(copy, verify=False)
    assert (relaxed.official_file_set, relaxed.verified) == (True, False)
    assert relaxed.as_source()["sha256"] == combined_sha256(copy) != dl.DATA_SHA256
    own.unlink()  # a subset: the user's own files, loaded and recorded as unverified
    subset = check_data(copy)
    assert (subset.official_file_set, subset.verified, subset.file_count) == (False, False, 4)
    assert "not the official file set" in subset.note and "commit" not in subset.as_source()


# --- the task options --------------------------------------------------------------------------


@pytest.fixture
def task_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pinned_to_fixture) -> list[str]:
    """No $PROSEVAL_MEESEEKS_DIR, a private default folder, and downloads served by the mock."""
    monkeypatch.delenv("PROSEVAL_MEESEEKS_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    requests: list[str] = []
    client = serving(make_archive(pinned_to_fixture), requests)
    monkeypatch.setattr(meeseeks_task, "download", functools.partial(download, client=client))
    return requests


def test_task_download_option(tmp_path: Path, task_env: list[str]):
    folder = tmp_path / "data"
    task = make_task(MeeseeksParams(data_dir=str(folder), download=True, language="en"))
    assert task_env == [URL]
    source = task.dataset_source
    assert source["verified"] is True and source["commit"] == OFFICIAL_COMMIT
    assert source["sha256"] == dl.DATA_SHA256 and source["n_files"] == 5
    assert source["source"] == "meituan-longcat/Meeseeks input_data" and source["n_items"] == 2
    make_task(MeeseeksParams(data_dir=str(folder), download=True))
    assert len(task_env) == 1  # the data are there now


def test_task_default_folder(tmp_path: Path, task_env: list[str]):
    with pytest.raises(ValueError, match=r"proseval meeseeks download.*--download"):
        make_task(MeeseeksParams())
    assert task_env == []
    make_task(MeeseeksParams(download=True))
    assert (tmp_path / "xdg" / "proseval" / "meeseeks" / "input_data" / "asia_data").is_dir()
    assert make_task(MeeseeksParams()).dataset_source["verified"] is True
    assert len(task_env) == 1


def test_task_verify_option(tmp_path: Path, task_env: list[str]):
    copy = tmp_path / "copy"
    shutil.copytree(FIXTURE, copy)
    path = copy / "input_data" / "asia_data" / "raw_input" / "DATA-T1中文版.json"
    items = json.loads(path.read_text(encoding="utf-8"))
    items[0]["question"] += " (edited)"
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(ValueError, match="--verify false"):
        make_task(MeeseeksParams(data_dir=str(copy)))
    source = make_task(MeeseeksParams(data_dir=str(copy), verify=False)).dataset_source
    assert source["verified"] is False and source["sha256"] == combined_sha256(copy)
    path.unlink()
    source = make_task(MeeseeksParams(data_dir=str(copy))).dataset_source
    assert source["verified"] is False and source["verification"].startswith("not the official file set")
    assert source["source"] == "user-supplied Meeseeks item files"
    assert task_env == []


def test_task_download_error_is_a_clear_message(tmp_path: Path, task_env: list[str], monkeypatch):
    monkeypatch.setattr(meeseeks_task, "download", functools.partial(download, client=serving(None, [])))
    with pytest.raises(ValueError, match="HTTP 404"):
        make_task(MeeseeksParams(data_dir=str(tmp_path / "d"), download=True))


# --- CLI ---------------------------------------------------------------------------------------


def test_cli_download(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pinned_to_fixture):
    from typer.testing import CliRunner

    from proseval.benchmarks.meeseeks import cli

    client = serving(make_archive(pinned_to_fixture), [])
    monkeypatch.setattr(cli, "download_data", functools.partial(download, client=client))
    runner = CliRunner()
    out = runner.invoke(cli.app, ["download", "--dest", str(tmp_path / "m")], env={"COLUMNS": "300"})
    assert out.exit_code == 0, out.output
    assert f"downloaded: {tmp_path / 'm' / 'input_data'}" in out.output
    assert dl.DATA_SHA256 in out.output
    out = runner.invoke(cli.app, ["download", "--dest", str(tmp_path / "m")], env={"COLUMNS": "300"})
    assert "already present" in out.output
    monkeypatch.setattr(cli, "download_data", functools.partial(download, client=serving(None, [])))
    out = runner.invoke(cli.app, ["download", "--dest", str(tmp_path / "n")])
    assert out.exit_code == 1 and "HTTP 404" in out.output  # the network: the environment must change
