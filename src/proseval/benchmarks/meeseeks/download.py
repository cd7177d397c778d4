"""The official Meeseeks item files: download at a pinned commit and SHA-256 verification.

The data are the 686 JSON files under ``input_data/{asia_data,english_data}/raw_input/`` of the
official repository. Their combined SHA-256 (:func:`combined_sha256`) is one SHA-256 over, for
each file in sorted order of its repository-relative path (``input_data/asia_data/raw_input/
DATA-SPECIAL10中文版.json``), the UTF-8 bytes of that path followed by the file's bytes.

Verification applies to the official file set only: a folder whose relative paths are exactly
the official ones (:data:`NAMES_SHA256`) must match :data:`DATA_SHA256`; any other set of files
(a subset, items generated from a template, extra files) is loaded as the user's own data and
recorded as not verified (:func:`check_data`).

:func:`download` fetches one archive of the pinned commit, extracts only the data files
(regular files whose archive path has exactly the expected shape, the destination path rebuilt
from validated components; links, ``..`` and absolute paths are never written), verifies them
in a temporary folder beside the destination and only then moves them into place.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import tarfile
import tempfile
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from proseval.benchmarks._shared.parsed import unchanged_files_once
from proseval.kit import DataError

from .data import SUBFOLDERS, MeeseeksDataError, input_root
from .params import default_data_dir

OFFICIAL_REPOSITORY = "meituan-longcat/Meeseeks"
OFFICIAL_COMMIT = "17cb49e2aba22556f8571cf7c8b67c1e4abd4bcb"
ARCHIVE_URL = "https://codeload.github.com/{repository}/tar.gz/{commit}"
DATA_SHA256 = "5a887416627fe5837bd4c55c8a86d7d532c2167fc59446e6a7f8e1936f78a561"
DATA_FILE_COUNT = 686
# SHA-256 of the official relative paths, sorted and joined with "\n" (UTF-8): tells the official
# file set, which must verify, from the user's own files, which are recorded as unverified.
NAMES_SHA256 = "4f67285dad0e5a832e0a2dbebe5eab534af2444dfce8968252da7cbad4594925"

ProgressCallback = Callable[[int, int | None], None]


class DataIntegrityError(MeeseeksDataError):
    """The data files differ from the official files at the pinned commit."""


class DownloadError(DataError, OSError):
    """The archive could not be fetched."""


def archive_url() -> str:
    return ARCHIVE_URL.format(repository=OFFICIAL_REPOSITORY, commit=OFFICIAL_COMMIT)


# --- hashing (pure: reads files, writes nothing) ------------------------------------------


def data_paths(root: str | os.PathLike[str]) -> list[tuple[str, Path]]:
    """(repository-relative path, file) of every JSON file under ``*/raw_input/``, sorted by path.

    ``root`` is the ``input_data`` folder itself or the folder containing it.
    """
    base = input_root(Path(root))
    files = [
        (f"input_data/{sub}/raw_input/{path.name}", path)
        for sub in SUBFOLDERS
        if (base / sub / "raw_input").is_dir()
        for path in (base / sub / "raw_input").iterdir()
        if path.suffix == ".json" and path.is_file()
    ]
    return sorted(files, key=lambda entry: entry[0])


def _combined(files: Sequence[tuple[str, Path]]) -> str:
    digest = hashlib.sha256()
    for relative, path in files:
        digest.update(relative.encode("utf-8"))
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _names(files: Sequence[tuple[str, Path]]) -> str:
    return hashlib.sha256("\n".join(relative for relative, _ in files).encode("utf-8")).hexdigest()


def combined_sha256(root: str | os.PathLike[str]) -> str:
    """The combined SHA-256 of the data files under ``root`` (see the module docstring)."""
    return _combined(data_paths(root))


def _mismatch(where: object, actual: str, count: int) -> str:
    return (
        f"{where}: the combined SHA-256 of its {count} Meeseeks data files is {actual}; the official "
        f"{DATA_FILE_COUNT} files of {OFFICIAL_REPOSITORY} at commit {OFFICIAL_COMMIT[:7]} have {DATA_SHA256}"
    )


def verify_data(root: str | os.PathLike[str]) -> str:
    """Check that ``root`` holds exactly the official files; returns the combined SHA-256."""
    files = data_paths(root)
    actual = _combined(files)
    if actual != DATA_SHA256 or len(files) != DATA_FILE_COUNT:
        raise DataIntegrityError(_mismatch(root, actual, len(files)))
    return actual


@dataclass(frozen=True)
class DataCheck:
    """What is known about a data folder: its combined hash and whether it is the official data."""

    sha256: str
    file_count: int
    official_file_set: bool
    verified: bool
    note: str | None = None

    def as_source(self) -> dict[str, Any]:
        """The fields recorded in a run's ``dataset_source``."""
        source: dict[str, Any] = (
            {"repository": OFFICIAL_REPOSITORY, "commit": OFFICIAL_COMMIT} if self.official_file_set else {}
        )
        source.update(sha256=self.sha256, n_files=self.file_count, verified=self.verified)
        if self.note:
            source["verification"] = self.note
        return source


def check_data(root: str | os.PathLike[str], *, verify: bool = True) -> DataCheck:
    """Hash the data under ``root`` and decide whether it verifies.

    The official file set (exactly the official relative paths) must match :data:`DATA_SHA256`;
    a mismatch raises :class:`DataIntegrityError` unless ``verify`` is False (then it is recorded
    as unverified). Any other set of files is the user's own data: recorded as unverified.
    """
    files = data_paths(root)
    # Hashed again only when a file changed: a profile or a run set builds the task several times.
    actual = unchanged_files_once(
        ("meeseeks-sha256", _names(files)), [path for _, path in files], lambda: _combined(files)
    )
    if _names(files) != NAMES_SHA256:
        return DataCheck(
            actual,
            len(files),
            official_file_set=False,
            verified=False,
            note=f"not the official file set ({len(files)} data files; the official data "
            f"are {DATA_FILE_COUNT} files with fixed names)",
        )
    if actual == DATA_SHA256:
        return DataCheck(actual, len(files), official_file_set=True, verified=True)
    if verify:
        raise DataIntegrityError(
            f"{_mismatch(root, actual, len(files))}. The files were changed or come from another "
            f"commit: fetch them again with `proseval meeseeks download`, or add --verify false to run on "
            f"them anyway (the run records them as unverified)"
        )
    return DataCheck(
        actual,
        len(files),
        official_file_set=True,
        verified=False,
        note="the official file names, but the SHA-256 differs (--verify false)",
    )


def has_data(root: str | os.PathLike[str]) -> bool:
    """Whether ``root`` (or its ``input_data``) has an ``asia_data``/``english_data`` ``raw_input`` folder."""
    try:
        input_root(Path(root))
    except MeeseeksDataError:
        return False
    return True


# --- download (I/O) -----------------------------------------------------------------------


def _safe_component(part: str) -> bool:
    return part not in ("", ".", "..") and not any(char in part for char in ("/", "\\", "\x00"))


def data_member(name: str) -> tuple[str, str] | None:
    """(subfolder, file name) if an archive member path is ``<top>/input_data/<sub>/raw_input/<name>.json``.

    Any other path, including one with ``..``, an empty (absolute) or backslash component, is None.
    """
    parts = name.split("/")
    if len(parts) != 5:
        return None
    top, input_data, sub, raw_input, file_name = parts
    if input_data != "input_data" or sub not in SUBFOLDERS or raw_input != "raw_input":
        return None
    if not (file_name.endswith(".json") and _safe_component(top) and _safe_component(file_name)):
        return None
    return sub, file_name


def _fetch(http: httpx.Client, url: str, target: Path, progress: ProgressCallback | None) -> None:
    try:
        with http.stream("GET", url) as response:
            response.raise_for_status()
            length = response.headers.get("content-length", "")
            total = int(length) if length.isdigit() else None
            received = 0
            with target.open("wb") as out:
                for chunk in response.iter_bytes():
                    out.write(chunk)
                    received += len(chunk)
                    if progress is not None:
                        progress(received, total)
    except httpx.HTTPStatusError as exc:
        status = exc.response
        raise DownloadError(
            f"could not download the Meeseeks data from {url}: HTTP {status.status_code} "
            f"{status.reason_phrase}".rstrip()
        ) from exc
    except httpx.HTTPError as exc:
        raise DownloadError(f"could not download the Meeseeks data from {url}: {type(exc).__name__}: {exc}") from exc


def _extract(archive: Path, stage: Path, url: str) -> int:
    """Write the data members of ``archive`` under ``stage/input_data``; returns how many."""
    count = 0
    try:
        with tarfile.open(archive, mode="r:gz") as tar:
            for member in tar:
                where = data_member(member.name)
                if where is None:
                    continue
                if not member.isreg():
                    raise DataIntegrityError(f"{url}: archive member {member.name!r} is not a regular file")
                sub, file_name = where
                folder = stage / "input_data" / sub / "raw_input"
                folder.mkdir(parents=True, exist_ok=True)
                source = tar.extractfile(member)
                if source is None:  # pragma: no cover - isreg() members always have data
                    raise DataIntegrityError(f"{url}: archive member {member.name!r} has no data")
                try:
                    out = (folder / file_name).open("xb")  # never follows or replaces an existing entry
                except FileExistsError as exc:
                    raise DataIntegrityError(f"{url}: archive holds {sub}/raw_input/{file_name} twice") from exc
                with source, out:
                    shutil.copyfileobj(source, out)
                count += 1
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise DataIntegrityError(f"{url}: not a readable tar.gz archive ({exc})") from exc
    return count


def _install(stage: Path, root: Path) -> None:
    """Move the verified ``stage/input_data`` into ``root`` with one rename (the stage has the user's umask
    below its own folder, which mkdtemp makes private)."""
    try:
        root.mkdir(exist_ok=True)
        (stage / "input_data").rename(root / "input_data")
    except OSError as exc:
        raise DownloadError(f"cannot move the verified data into {root}: {exc}") from exc


def download(
    dest: str | os.PathLike[str] | None = None,
    *,
    client: httpx.Client | None = None,
    timeout: float = 60.0,
    progress: ProgressCallback | None = None,
) -> Path:
    """Fetch the official data files at the pinned commit into ``dest/input_data/`` and verify them.

    A ``dest`` that already holds the verified official files is kept without downloading; one
    that holds other Meeseeks data is never overwritten (error). Nothing is written to ``dest``
    unless the combined SHA-256 and the file count match. Returns ``dest``.
    """
    root = Path(dest).expanduser() if dest is not None else default_data_dir()
    if has_data(root):
        try:
            verify_data(root)
        except DataIntegrityError as exc:
            raise DataIntegrityError(
                f"{exc}. Not overwriting these files: remove {input_root(root)} or choose another folder"
            ) from exc
        return root
    root.parent.mkdir(parents=True, exist_ok=True)
    url = archive_url()
    stage = Path(tempfile.mkdtemp(prefix=f".{root.name}.download-", dir=root.parent))
    own_client = client is None
    http = client or httpx.Client(timeout=timeout, follow_redirects=True)
    try:
        archive = stage / "archive.tar.gz"
        _fetch(http, url, archive, progress)
        count = _extract(archive, stage, url)
        archive.unlink()
        if count == 0:
            raise DataIntegrityError(f"{url}: the archive holds none of the Meeseeks data files")
        files = data_paths(stage)
        actual = _combined(files)
        if actual != DATA_SHA256 or len(files) != DATA_FILE_COUNT:
            raise DataIntegrityError(f"{_mismatch(url, actual, len(files))}; nothing was written to {root}")
        _install(stage, root)
    finally:
        if own_client:
            http.close()
        shutil.rmtree(stage, ignore_errors=True)
    return root
