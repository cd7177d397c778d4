"""Every `proseval` command of README.md and docs/*.md runs as written, or says what it needs.

The commands are those of the pages' shell blocks (`docs.documented_commands`). Each one either

- **runs**, in process, in a workspace laid out like the reader's checkout, and must exit 0; or
- carries a marker comment on its line — `# needs: network`, `# needs: keys` or
  `# needs: your data` — for what no test can have (a download, a paid account, files only the
  reader has), and must then still resolve through the command tree: the command, its options and,
  for `proseval run TASK`, the task's options and preset (`docs.test_reproducing_papers.check`).

What a run meets in place of the reader's world (nothing is downloaded, nothing leaves the machine):

- **Models.** `openai/…`, `openai-compatible/…` and any `--base-url`/`--role-base-url` address
  reach a fake OpenAI server (with the batch API), `anthropic/…` a fake Anthropic server, with
  dummy keys in the environment; the embedded model (`local/…`, and every role of a run given no
  `--model`) is a scripted stand-in. Every request is answered like `--dry-run`'s stand-in
  answers a judge (an instance of the request's JSON schema, else a score of 5), so judges parse.
  A model placeholder — `MODEL`, `JUDGE`, or `...`/`…` as a model — is an OpenAI model.
- **Files.** The workspace holds what the pages name: `../shared` (the official data; Meeseeks'
  cut to the first file of each language, as loading all of it takes seconds per command), `PATH`
  and `path/to/…` (the benchmark's data), `~/data/…`, the input files (`drafts.jsonl`,
  `pairs.jsonl`, `items.jsonl`, `human.csv`, `ratings.csv`, `round_1.json`, `scores/`, …), and
  every file a page shows in a YAML block that starts with a comment naming it (`# prices.yaml`,
  `# sets/frontier.yaml`). The commands of one block run in turn in one copy of the workspace
  (a command run alone first runs those before it in its block).
- **Runs.** `runs/` holds finished runs of every task, made once by the test (`FIXTURE_RUNS`).
  A run placeholder (`RUN`, `RUN_DIR`, `RUN_A`, `runs/TASK-…`, `runs/TASK-A`, `runs/a`, a dated run
  id that is not there) is one of them, the next not yet named by the command; a re-score
  placeholder (`runs/TASK-RUN-rescore-…`) is a re-score of that run, made when the block made none.
  A labels file of a labelling session (`runs/labels/S.jsonl`) that the raters would have written
  is written by playing them: each gives every item of the session's plan the lowest score, or A.
- **Shell.** Globs expand, `~` is the workspace's home, `> FILE` writes the output to FILE,
  `[…]` (optional options) are given, a standalone `...`/`…` stands for options the reader adds
  (dropped; the roles a run then lacks are bound), and `...same options...` for the options of the
  block's first command before its `--protocol`. `proseval profile` gets `--yes`, the answer the
  reader gives when it asks at a terminal before a large profile.
- **Size.** `proseval run` gets `--limit 1` appended; a set file's tasks and every size of a
  profile's suite (the bundled one or a file) get `limit: 1`. The viewer is built but not served.
- **Speed.** What every command would redo is done once per module: the official WritingBench and
  C3EBench files are read once (they are read-only here), charts are not drawn (a blank PNG in
  their place: the charts are tested where they are made), and the trust store is one certificate
  (the fakes speak plain HTTP). Tokens are counted as words (the estimates and the fakes' usage
  count a great many; the counting is tested where it is made). Batches go out once every
  sample in flight has waited 0.05 s instead of 1 s (the waiting is tested where batches are
  made). The first `proseval profile` of a block profiles; the block's later ones get
  `--dry-run` (their options, bindings, suite and estimate checked; nothing sent).

Relative links to `page.md#anchor` must name a heading of that page (GitHub's anchors).
"""

from __future__ import annotations

import dataclasses
import glob
import json
import re
import shutil
import struct
import sys
import zlib
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from docs.documented_commands import (
    FENCE,
    NEEDS,
    ROOT,
    Documented,
    all_commands,
    anchored_links,
    anchors,
    pages,
    shell_words,
)
from docs.test_reproducing_papers import PLACEHOLDERS, check
from proseval.cli import app
from proseval.models.base import GenerateConfig
from proseval.runtime.batch import BatchCoordinator, BatchSettings
from proseval.runtime.dryrun import synthetic_reply
from support.batching import FAST

pytestmark = pytest.mark.slow

COMMANDS = all_commands()
CANDIDATE, JUDGE = "openai/gpt-4o-mini", "openai/gpt-4o"
MODEL_WORDS = {"MODEL": CANDIDATE, "JUDGE": JUDGE}
ELLIPSES = {"...", "…"}
MODEL_OPTIONS = {"-m", "--model", "-j", "--judge"}
# The roles a run of each task cannot go without (bound when a `...` leaves them out).
ROLES = {
    "demo": ("judge",),
    "writingbench": ("judge",),
    "c3ebench": ("judge",),
    "ravel": ("judge",),
    "longweave": ("judge",),
    "meeseeks": ("judge", "extractor"),
    "revision-distance": ("reviser",),
}
# Finished runs in every workspace's runs/: task -> the options of each (RUN_DIR of ravel.md shows end2end_en_3).
FIXTURE_RUNS = {
    "demo": [(), (), ()],
    "writingbench": [(), ()],
    "c3ebench": [(), ()],
    "ravel": [(), ("--language", "en", "--limit", "4")],
    "longweave": [()],
    "meeseeks": [()],
}
FIXTURE_DAY = "20260101"  # fixture runs are dated before any run a command starts
RUN_WORD = re.compile(
    r"^(?:runs/(?:(?P<task>[a-z0-9]+(?:-[a-z0-9]+)*?)-)?(?P<name>…|\.\.\.|RUN|[A-Z][A-Z0-9]*|[a-c]"
    r"|\d{8}-\d{6}-[0-9a-f]{4})|(?P<bare>RUN(?:_[A-Z]+)?))(?P<rescore>-rescore-(?:…|\.\.\.|[A-Z]))?(?P<glob>\*)?$"
)
URL = re.compile(r"^(?P<role>[\w.]+=)?https?://\S+$")
LABELS_CSV = "sample_id,epoch,run,criterion,rater,score\ndemo/poem-autumn,0,demo-20261125-101500-ab12,quality,ana,7\n"
runner = CliRunner()


def reply(body: dict[str, Any]) -> str:
    """What the fake servers answer: what `--dry-run`'s stand-in answers a judge (short)."""
    fmt = body.get("response_format")
    return synthetic_reply("judge", GenerateConfig(response_format=fmt if isinstance(fmt, dict) else None), 4)


def invoke(words: list[str]) -> Any:
    return runner.invoke(app, words, catch_exceptions=False)


def expect_ok(words: list[str]) -> str:
    result = invoke(words)
    assert result.exit_code == 0, f"proseval {' '.join(words)} exited {result.exit_code}:\n{result.output[-3000:]}"
    return result.output


# --- the reader's world ----------------------------------------------------------------------------


@dataclass
class World:
    """The fakes and the workspace every command runs against."""

    root: Path
    base: Path
    openai_url: str
    blocks: dict[tuple[str, int], Path] = field(default_factory=dict)
    done: set[str] = field(default_factory=set)  # the commands run so far
    profiled: set[tuple[str, int]] = field(default_factory=set)  # the blocks that ran a profile


class EmbeddedStandIn:
    """The embedded model's stand-in: answers as the fake servers do, without loading a model."""

    provider = "local"

    def __init__(self, name: str, *args: Any, **kwargs: Any):
        from proseval.models.scripted import ScriptedModel

        self._model = ScriptedModel(name, lambda messages: reply({}))
        self.name = name

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self._model, attribute)

    async def generate(self, messages: Any, config: Any) -> Any:
        return await self._model.generate(messages, config)


def shared_mirror(shared: Path, into: Path) -> Path:
    """`../shared` as the pages name it: the official data, Meeseeks' cut to one file per language."""
    data = into / "data"
    data.mkdir(parents=True)
    for name in ("c3ebench", "writingbench", "papers"):
        (data / name).symlink_to(shared / "data" / name)
    meeseeks = shared / "data" / "meeseeks"
    for entry in meeseeks.iterdir():
        if entry.name != "input_data":
            (data / "meeseeks").mkdir(exist_ok=True)
            (data / "meeseeks" / entry.name).symlink_to(entry)
    from proseval.benchmarks.meeseeks.data import language_of

    for folder in sorted((meeseeks / "input_data").glob("*/raw_input")):
        kept: set[str] = set()
        target = data / "meeseeks" / "input_data" / folder.parent.name / "raw_input"
        target.mkdir(parents=True)
        for path in sorted(folder.glob("*.json")):
            if language_of(path.name) not in kept:
                kept.add(language_of(path.name))
                (target / path.name).symlink_to(path)
    return into


def lines_of(path: Path, count: int) -> str:
    return "".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[:count])


def with_references(lines: str) -> str:
    """Pairs with a reference each (the chosen text), as the settings that compare with one need."""
    pairs = [json.loads(line) for line in lines.splitlines()]
    return "".join(json.dumps({**pair, "reference": pair["chosen"]}) + "\n" for pair in pairs)


def write_inputs(base: Path, shared: Path) -> None:
    """The files the pages' commands read, under the names the pages give them."""
    data = ROOT / "tests" / "revision_distance" / "data"
    drafts, refs = lines_of(data / "drafts20.jsonl", 2), lines_of(data / "refs20.jsonl", 2)
    files = {
        "drafts.jsonl": drafts,
        "refs.jsonl": refs,
        "sections.jsonl": drafts,
        "published.jsonl": refs,
        "pairs.jsonl": with_references(lines_of(data / "pairs10.jsonl", 2)),
        "items.jsonl": lines_of(shared / "data" / "c3ebench" / "english_dataset.jsonl", 2),
        "human.csv": LABELS_CSV,
        "ratings.csv": LABELS_CSV,
        "prices.yaml": (ROOT / "docs" / "examples" / "prices.yaml").read_text(encoding="utf-8"),
    }
    for name, text in files.items():
        (base / name).write_text(text, encoding="utf-8")
    run = shared / "data" / "meeseeks" / "official_sample_run_zh"
    for name in ("round_1.json", "round_2.json"):
        shutil.copy(run / name, base / name)
    case = json.loads(lines_of(shared / "vectors" / "writingbench" / "aggregation_cases.jsonl", 1))
    (base / "scores").mkdir()
    (base / "scores" / "model.jsonl").write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in case["scores"]), encoding="utf-8"
    )
    places = {
        "PATH": "../shared/data/c3ebench",
        "path/to/benchmark_query": "../shared/data/writingbench/benchmark_query",
        "path/to/input_data": "../shared/data/meeseeks/input_data",
        "path/to/Meeseeks/input_data": "../shared/data/meeseeks/input_data",
        "home/data/c3ebench": "../shared/data/c3ebench",
        "home/data/Meeseeks": "../shared/data/meeseeks",
        "home/data/WritingBench": "../shared/data/writingbench",
    }
    for name, target in places.items():
        link = base / name
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to((base / target).resolve())


def make_runs(base: Path) -> None:
    """The finished runs of `FIXTURE_RUNS` in `base/runs`."""
    for task, runs in FIXTURE_RUNS.items():
        roles = [f"--role={role}={JUDGE}" for role in ROLES[task]]
        for n, options in enumerate(runs):  # named as the runner names them
            folder = base / "runs" / f"{task}-{FIXTURE_DAY}-00000{n}-{n:04x}"
            expect_ok(
                [
                    "run",
                    task,
                    "--model",
                    CANDIDATE,
                    *roles,
                    "--limit",
                    "1",
                    *options,
                    "--run-dir",
                    str(folder),
                    "--display",
                    "none",
                ]
            )


def page_files(page: str) -> dict[str, str]:
    """The files a page shows: its YAML blocks that start with a comment naming a file."""
    text = (ROOT / page).read_text(encoding="utf-8")
    files = {}
    for fence in FENCE.finditer(text):
        first = fence.group(2).split("\n", 1)[0]
        named = re.match(r"#\s*([\w./-]+\.ya?ml)\b", first)
        if fence.group(1).strip() == "yaml" and named:
            files[named.group(1)] = fence.group(2)
    return files


def at_test_size(name: str, text: str, url: str) -> str:
    """A file of a page as the test writes it: addresses at the fake server; a set's tasks at limit 1."""
    text = re.sub(r"https?://[\w.-]+(?::\d+)?(?:/[\w./-]*)?", url, text)
    if not name.startswith("sets/"):
        return text
    data = yaml.safe_load(text)
    for entry in data.get("tasks") or []:
        if isinstance(entry, dict):
            entry["limit"] = 1
    data["limit"] = 1
    return yaml.safe_dump(data, sort_keys=False)


def suite_at_test_size(text: str) -> str:
    """A profile's suite with every size of every benchmark at limit 1."""
    data = yaml.safe_load(text)
    for benchmark in data.get("benchmarks") or []:
        for size in (benchmark.get("sizes") or {}).values():
            size["limit"] = 1
    return yaml.safe_dump(data, sort_keys=False)


def capped_suite_loader(folder: Path) -> Any:
    """`profile.suite.load_suite`, reading the suite (the bundled one, or a file) at test size."""
    from proseval.profile import suite as suites

    load = suites.load_suite

    def load_suite(path: Path | None = None) -> Any:
        text = Path(path).read_text(encoding="utf-8") if path is not None else suites.bundled_text()
        capped = folder / f"suite-{abs(hash(text))}.yaml"
        capped.write_text(suite_at_test_size(text), encoding="utf-8")
        return load(capped)

    return load_suite


PACKAGE_FILE = re.compile(r"`((?:\w+/)*\w+\.(?:py|toml))`[^`\n]*$")


def page_package(page: str, into: Path) -> Path | None:
    """The package a page writes file by file (a block under a line naming its file), written to `into`."""
    text = (ROOT / page).read_text(encoding="utf-8")
    written = None
    for fence in FENCE.finditer(text):
        before = text[: fence.start()].rstrip().splitlines()[-1:]
        named = PACKAGE_FILE.search(before[0]) if before else None
        if named:
            path = into / named.group(1)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(fence.group(2), encoding="utf-8")
            written = into
    return written


def read_once(load: Callable[..., Any], key: Callable[..., Hashable]) -> Callable[..., Any]:
    """`load` remembering what it read, by `key` of its arguments (a failure is not remembered)."""
    found: dict[Hashable, Any] = {}

    def cached(*args: Any, **kwargs: Any) -> Any:
        name = key(*args, **kwargs)
        if name not in found:
            found[name] = load(*args, **kwargs)
        return found[name]

    return cached


def blank_png() -> bytes:
    """A 1x1 white PNG."""

    def part(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + part(b"IHDR", header)
        + part(b"IDAT", zlib.compress(b"\x00\xff\xff\xff"))
        + part(b"IEND", b"")
    )


def not_drawn(draw: Callable[[Any], None], size: tuple[float, float]) -> tuple[bytes, list[Any]]:
    """`plots._drawn` without drawing: a blank PNG stands for the chart."""
    return blank_png(), []


class WordCount:
    """A stand-in for the tokenizer: a token per word."""

    @staticmethod
    def encode(text: str, **options: Any) -> list[str]:
        return text.split()


def settling_at_once(coordinator: type[BatchCoordinator]) -> Callable[..., BatchCoordinator]:
    """Batch coordinators that send their batches once every sample in flight has waited as long as
    in the batch-mode tests (`FAST`: 0.05 s), not 1 s."""

    def make(settings: BatchSettings, *args: Any, **kwargs: Any) -> BatchCoordinator:
        return coordinator(dataclasses.replace(settings, settle=FAST.settle), *args, **kwargs)

    return make


def one_certificate(into: Path) -> Path:
    """A trust store of one certificate (the system's first), quick to load for each client."""
    import ssl

    system = Path(ssl.get_default_verify_paths().openssl_cafile or "")
    text = system.read_text(encoding="utf-8") if system.is_file() else ""
    end = "-----END CERTIFICATE-----"
    into.write_text(text[: text.index(end) + len(end)] + "\n" if end in text else "", encoding="utf-8")
    return into


def read_data_once(patch: pytest.MonkeyPatch) -> None:
    """The official WritingBench and C3EBench files read once per module (see the module's text)."""
    from proseval.benchmarks._shared.c3e import data as c3e_data
    from proseval.benchmarks.writingbench import data as wb_data

    patch.setattr(
        wb_data,
        "load_benchmark",
        read_once(wb_data.load_benchmark, lambda folder, verify=True: (Path(folder).resolve(), verify)),
    )
    patch.setattr(
        c3e_data,
        "load_folder",
        read_once(c3e_data.load_folder, lambda folder, languages: (Path(folder).resolve(), tuple(languages))),
    )


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, shared_dir: Path) -> Iterator[World]:
    from proseval.testing.fake_anthropic import FakeAnthropicServer
    from proseval.testing.fake_batch import FakeBatchServer

    openai = FakeBatchServer(responder=reply, polls_to_complete=0).start_in_thread()
    anthropic = FakeAnthropicServer(responder=reply, polls_to_complete=0).start_in_thread()
    root = tmp_path_factory.mktemp("documented")
    with pytest.MonkeyPatch.context() as patch:
        environment = {
            "OPENAI_API_KEY": "sk-test",
            "ANTHROPIC_API_KEY": "sk-ant-test",
            "OPENAI_BASE_URL": openai.base_url,
            "PROSEVAL_BASE_URL": openai.base_url,
            "ANTHROPIC_BASE_URL": anthropic.base_url,
            "PROSEVAL_CACHE_DIR": str(root / "cache"),
            "PROSEVAL_C3EBENCH_DIR": str(root / "shared" / "data" / "c3ebench"),
            "PROSEVAL_WRITINGBENCH_DIR": str(root / "shared" / "data" / "writingbench"),
            "PROSEVAL_MEESEEKS_DIR": str(root / "shared" / "data" / "meeseeks" / "input_data"),
            "COLUMNS": "200",
        }
        for name, value in environment.items():
            patch.setenv(name, value)
        patch.setattr("proseval.models.local.LocalModel", EmbeddedStandIn)
        patch.setattr("uvicorn.Server.run", lambda self, sockets=None: None)
        patch.setattr("proseval.view.server.listen", lambda host, port: [])
        patch.setattr("webbrowser.open", lambda *args, **kwargs: True)
        patch.setattr("proseval.plots._drawn", not_drawn)
        patch.setattr("proseval.tokens._encoding", WordCount)
        patch.setattr("proseval.runtime.runner.BatchCoordinator", settling_at_once(BatchCoordinator))
        patch.setenv("SSL_CERT_FILE", str(one_certificate(root / "certificate.pem")))
        read_data_once(patch)
        (root / "suites").mkdir()
        patch.setattr("proseval.profile.suite.load_suite", capped_suite_loader(root / "suites"))
        shared_mirror(shared_dir, root / "shared")
        base = root / "base"
        base.mkdir()
        for name in ("docs", "tests"):
            (base / name).symlink_to(ROOT / name)
        write_inputs(base, shared_dir)
        patch.chdir(base)
        try:
            make_runs(base)
            yield World(root, base, openai.base_url)
        finally:
            openai.stop_thread()
            anthropic.stop_thread()


def workspace(world: World, command: Documented) -> Path:
    """The copy of the workspace the commands of the command's block share."""
    key = (command.page, command.block)
    if key not in world.blocks:
        files = {name: at_test_size(name, text, world.openai_url) for name, text in page_files(command.page).items()}
        place = world.root / f"{Path(command.page).stem}-{command.block}"
        shutil.copytree(world.base, place, symlinks=True)
        for name, text in files.items():
            (place / name).parent.mkdir(parents=True, exist_ok=True)
            (place / name).write_text(text, encoding="utf-8")
        world.blocks[key] = place
    return world.blocks[key]


# --- a command as the reader's shell would run it ----------------------------------------------------


def page_task(command: Documented) -> str:
    """The task a bare run placeholder of the command stands for."""
    from proseval.registry import tasks

    group = command.words[0] if command.words else ""
    if group in tasks():
        return group
    stem = Path(command.page).stem.replace("_", "-")
    return stem if stem in tasks() else "demo"


def run_folders(place: Path, pattern: str) -> list[Path]:
    """Run folders matching `pattern` under `place/runs`, newest first (names start with the time)."""
    return sorted(
        (p for p in (place / "runs").glob(pattern) if (p / "header.json").is_file()), key=lambda p: p.name, reverse=True
    )


def resolve_runs(words: list[str], command: Documented, place: Path) -> list[str]:
    """Each run placeholder replaced by a finished run (see the module's text)."""
    chosen: dict[str, Path] = {}
    used: set[Path] = set()
    out = []
    for word in words:
        match = RUN_WORD.match(word)
        if not match or (place / word).exists():
            out.append(word)
            continue
        key = word.removesuffix("*")
        task = match.group("task") or page_task(command)
        base_key = key[: match.start("rescore")] if match.group("rescore") else key
        if base_key not in chosen:
            free = [
                p for p in run_folders(place, f"{task}-{FIXTURE_DAY}-*") if "-rescore-" not in p.name and p not in used
            ]
            assert free, f"{command.name}: no run of {task} for {word}"
            chosen[base_key] = free[0]
            used.add(free[0])
        if match.group("rescore") and key not in chosen:
            run = chosen[base_key]
            free = [p for p in run_folders(place, f"{run.name}-rescore-*") if p not in used]
            if not free:
                expect_ok(["score", str(run.relative_to(place)), "--role", f"judge={JUDGE}", "--display", "none"])
                free = [p for p in run_folders(place, f"{run.name}-rescore-*") if p not in used]
            chosen[key] = free[0]
            used.add(free[0])
        path = str(chosen[key].relative_to(place))
        out.extend(sorted(glob.glob(path + "*")) if match.group("glob") else [path])
    return out


def play_raters(place: Path, words: list[str]) -> None:
    """The raters' work a labelling session's pages collect: when `--labels RUNS/labels/S.jsonl` is
    not there, session S (as `proseval view RUNS --label S` plans it, unless it did) is labelled:
    each of its raters gives every item the lowest score, or picks A."""
    from proseval.view.labelplan import LabelOptions
    from proseval.view.labelsession import Session

    labels = Path(words[words.index("--labels") + 1]) if "--labels" in words[:-1] else None
    if labels is None or labels.exists() or labels.parent.name != "labels" or labels.suffix != ".jsonl":
        return
    session = Session(labels.parent.parent, LabelOptions(labels.stem))
    raters_file = labels.with_suffix(".raters.json")
    raters = list(json.loads(raters_file.read_text())["raters"]) if raters_file.exists() else ["Ann"]
    for rater in raters:
        for position in range(1, len(session.plan.items) + 1):
            shown = session.show(position, rater)
            values = {q.index: str(int(q.criterion.low)) if q.kind == "score" else "A" for q in shown.questions}
            session.store.save(
                session.labels_of(shown, rater, values, None), {"session": session.name, "position": position}
            )


def shell_expand(word: str, place: Path) -> list[str]:
    """`~` and globs as bash expands them (a glob that matches nothing stays as written)."""
    home = str(place / "home")
    word = re.sub(r"^~(?=/|$)", home, word)
    word = re.sub(r"^([\w.-]+=)~(?=/|$)", lambda m: m.group(1) + home, word)
    if any(c in word for c in "*?") and not RUN_WORD.match(word):
        found = sorted(glob.glob(word))
        return found or [word]
    return [word]


def same_options(first: Documented) -> list[str]:
    """The options of the block's first command, before its `--protocol`."""
    words = list(first.words[2:])
    return words[: words.index("--protocol")] if "--protocol" in words else words


def prepare(command: Documented, place: Path, world: World) -> list[str]:
    """The command's words as the test runs them (see the module's text)."""
    words: list[str] = []
    filled = False
    original = list(command.words)
    for i, word in enumerate(original):
        if word == "...same" and original[i + 1 : i + 2] == ["options..."]:
            block = [c for c in COMMANDS if (c.page, c.block) == (command.page, command.block)]
            words.extend(same_options(block[0]))
            continue
        if word == "options..." and original[i - 1 : i] == ["...same"]:
            continue
        word = word.removeprefix("[").removesuffix("]") if word.startswith("[") or word.endswith("]") else word
        if word in ELLIPSES:
            if words and words[-1] in MODEL_OPTIONS:
                words.append(CANDIDATE)
            else:
                filled = True
            continue
        role, eq, value = word.partition("=")
        if eq and value in ELLIPSES:
            word = f"{role}={JUDGE}"
        elif word in MODEL_WORDS and (not words or words[-1] in MODEL_OPTIONS or words[0] == "profile"):
            word = MODEL_WORDS[word]
        elif url := URL.match(word):
            word = (url.group("role") or "") + world.openai_url
        words.extend(shell_expand(word, place))
    words = resolve_runs(words, command, place)
    if words[:1] == ["run"] and len(words) > 1:
        if filled and any(w in ("-m", "--model") for w in words):
            bound = {w.partition("=")[0] for w in words}
            words += [f"--role={role}={JUDGE}" for role in ROLES.get(words[1], ()) if role not in bound]
        words += ["--limit", "1"]
    if words[:1] == ["profile"] and "--show-suite" not in words:
        block = (command.page, command.block)
        if "--dry-run" not in words and block in world.profiled:
            words.append("--dry-run")  # one profile per block; the others' options, suite and estimate
        elif "--dry-run" not in words:
            world.profiled.add(block)
        words.append("--yes")  # at a terminal it asks before a large profile: the reader says yes
    return words


def run_in(command: Documented, place: Path, world: World) -> tuple[list[str], Any]:
    """Run the command in its block's workspace: the words run and the result."""
    words = prepare(command, place, world)
    if words[:1] == ["agreement"]:
        play_raters(place, words)
    result = invoke(words)
    if command.stdout:
        (place / command.stdout).write_text(result.stdout, encoding="utf-8")
    world.done.add(command.name)
    return words, result


@pytest.fixture
def page_package_installed(world: World) -> Iterator[None]:
    """`pip install -e ./mybench` of writing-a-benchmark.md: its files written, the package imported."""
    from proseval import registry

    project = page_package("docs/writing-a-benchmark.md", world.root / "packages" / "mybench")
    assert project is not None
    sys.path.insert(0, str(project))
    try:
        __import__("mybench")
        yield
    finally:
        sys.path.remove(str(project))
        for name in [m for m in sys.modules if m == "mybench" or m.startswith("mybench.")]:
            del sys.modules[name]
        registry._TASKS.pop("mybench", None)
        registry._REGISTRANTS.pop(("task", "mybench"), None)


# --- the tests --------------------------------------------------------------------------------------

RUN = [c for c in COMMANDS if not c.needs]
MARKED = [c for c in COMMANDS if c.needs]


@pytest.mark.parametrize("command", MARKED, ids=[c.name for c in MARKED])
def test_a_marked_command_names_what_it_needs_and_resolves(command):
    unknown = [need for need in command.needs if need not in NEEDS]
    assert not unknown, f"{command.name}: `# needs:` takes {', '.join(NEEDS)}, not {unknown}"
    check([w for w in command.words if w not in PLACEHOLDERS and not w.startswith(("[", "..."))])


@pytest.mark.parametrize("command", RUN, ids=[c.name for c in RUN])
def test_a_documented_command_runs_as_written(command, world, request, monkeypatch):
    place = workspace(world, command)
    monkeypatch.chdir(place)
    monkeypatch.setenv("HOME", str(place / "home"))
    if command.page == "docs/writing-a-benchmark.md":
        request.getfixturevalue("page_package_installed")
    for earlier in RUN[: RUN.index(command)]:  # what the block's earlier commands wrote, when not run yet
        if (earlier.page, earlier.block) == (command.page, command.block) and earlier.name not in world.done:
            run_in(earlier, place, world)
    words, result = run_in(command, place, world)
    assert result.exit_code == 0, (
        f"{command.name}: `proseval {' '.join(command.words)}` ran as "
        f"`proseval {' '.join(words)}` and exited {result.exit_code}:\n"
        f"{result.output[-3000:]}"
    )


@pytest.mark.parametrize("page", pages(), ids=[p.name for p in pages()])
def test_every_anchor_a_page_links_to_is_a_heading(page):
    dead = [
        link for link, target, anchor in anchored_links(page) if not target.is_file() or anchor not in anchors(target)
    ]
    assert not dead, f"{page.name}: links to no heading: {dead}"


@pytest.mark.parametrize(
    "text",
    [
        "proseval run meeseeks -m openai/gpt-4o-mini -r judge=openai/gpt-4o --batch candidate --batch judge",
        "proseval revision-distance stability --drafts drafts.jsonl --role reviser=openai/gpt-4",
        "proseval run ravel --preset official ... --model openai/TESTED --role reviser=openai/STRONG --max-step 3",
    ],
)
def test_a_command_the_cli_refuses_fails_the_check(text, world, monkeypatch):
    """The check catches what the CLI refuses: a role or a file left out, a misspelt option."""
    command = Documented("docs/many-models.md", 0, -1, text, tuple(shell_words(text)[1:]))
    place = workspace(world, command)
    monkeypatch.chdir(place)
    assert invoke(prepare(command, place, world)).exit_code == 2
