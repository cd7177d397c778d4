"""`proseval view` at scale: a synthetic run of N samples, pages timed in fresh processes.

The run is written directly as JSON Lines shaped like a judged benchmark's records: a prompt
of ~300 characters, the conversation, an answer of ~2,500 characters, five judged criteria
with their reasons, two slice keys (8 domains × 2 languages), ~3 % unscored and ~1 % failed
samples (~5.6 KB a line). Each repeat starts a new process, builds the app and asks it, in
process through the ASGI transport, for: the run page (cold: the samples file is indexed
then), a later page, one sample, a filter (the first scan, then again), and the run list.
The same is timed for the run while it is being written (no results.json: the counts come
from the records). Medians over the repeats are printed.

    python bench/viewer_scale.py                       # 20,000 samples, 5 repeats
    python bench/viewer_scale.py --samples 20000 --repeats 5 --keep /tmp/viewer-scale
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, machine

DOMAINS = ("academic", "business", "creative", "education", "law", "medicine", "news", "technical")
WORDS = (
    "river",
    "lantern",
    "quiet",
    "harbour",
    "measure",
    "letter",
    "garden",
    "winter",
    "signal",
    "paper",
    "bridge",
    "morning",
    "careful",
    "story",
    "engine",
    "window",
    "market",
    "silver",
    "promise",
    "reason",
)


def sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def text(rng: random.Random, chars: int) -> str:
    out = []
    while sum(len(s) + 1 for s in out) < chars:
        out.append(sentence(rng, rng.randint(6, 16)))
    return " ".join(out)


def make_record(n: int, rng: random.Random) -> dict:
    prompt = text(rng, 300)
    meta = {"domain": DOMAINS[n % len(DOMAINS)], "language": "en" if n % 2 else "zh"}
    if n % 100 == 7:
        return {
            "id": f"q{n:06d}",
            "epoch": 0,
            "status": "error",
            "input": prompt,
            "metadata": meta,
            "state": None,
            "scores": {},
            "usage": {},
            "error": "RetryableError: server error 503 after 6 attempts",
        }
    answer = text(rng, 2500)
    criteria = {}
    for c in range(5):
        unscored = n % 33 == 5 and c == 0
        criteria[f"c{c}"] = {
            "score": None if unscored else rng.randint(1, 10),
            "reason": text(rng, 160),
            "status": "unparsable" if unscored else "ok",
            "attempts": 3 if unscored else 1,
        }
    scored = [v["score"] for v in criteria.values() if v["score"] is not None]
    return {
        "id": f"q{n:06d}",
        "epoch": 0,
        "status": "ok",
        "model_failure": None,
        "input": prompt,
        "target": {"checklist": [f"criterion {c}" for c in range(5)]},
        "metadata": meta,
        "state": {
            "messages": [{"role": "user", "content": prompt}, {"role": "assistant", "content": answer}],
            "output": answer,
            "finish_reason": "stop",
            "turns": [],
            "metadata": {},
        },
        "scores": {
            "score": {
                "value": sum(scored) / len(scored),
                "explanation": f"{len(scored)} of 5 scored",
                "parse_status": "partial" if len(scored) < 5 else "ok",
                "metadata": {"criteria": criteria},
            },
            "length": {"value": rng.random(), "explanation": "", "parse_status": "ok", "metadata": {}},
        },
        "usage": {"candidate": {"prompt_tokens": 80, "completion_tokens": 600}},
        "cache_hits": 0,
        "duration_s": 1.0,
        "error": None,
    }


def make_run(folder: Path, samples: int) -> None:
    """Header, samples.jsonl and (through the runtime's own aggregation) results.json."""
    from proseval.runtime.aggregate import Accumulator
    from proseval.runtime.records import Counts, Results, RunHeader
    from proseval.runtime.runlog import RunFolder

    folder.mkdir(parents=True)
    rng = random.Random(1)
    header = RunHeader(
        run_id=folder.name,
        task="synthetic",
        task_version="1",
        roles={},
        config_hash="0" * 64,
        package_version="0",
        python="3",
        platform="linux",
        started_at="2026-01-01T00:00:00+00:00",
    )
    RunFolder(folder).write_header(header)
    with (folder / "samples.jsonl").open("w", encoding="utf-8") as handle:
        for n in range(samples):
            handle.write(json.dumps(make_record(n, rng), ensure_ascii=False) + "\n")
    aggregator = Accumulator(["domain", "language"])
    scored, _ = RunFolder(folder).unique_scored()
    for sample in scored:
        aggregator.add(sample)
    failed = sum(s.status == "error" for s in scored)
    unscored = sum(s.status == "ok" and any(v.value is None for v in s.scores.values()) for s in scored)
    counts = Counts(total=samples, finished=samples, ok=samples - failed, failed=failed, unscored=unscored)
    RunFolder(folder).write_results(
        Results(
            run_id=folder.name,
            task="synthetic",
            finished_at="2026-01-01T01:00:00",
            complete=True,
            counts=counts,
            metrics=aggregator.metrics(1),
            slices=aggregator.slice_tables(1),
        )
    )


def child(root: Path, name: str, samples: int) -> None:
    """One fresh app: every request timed; prints JSON."""
    started = time.perf_counter()
    from fastapi.testclient import TestClient

    from proseval.view import create_app

    web = TestClient(create_app(root), base_url="http://127.0.0.1")
    timings = {"import_and_app_s": time.perf_counter() - started}
    last = (samples + 49) // 50
    for label, url in (
        ("first_page_s", f"/runs/{name}"),
        ("later_page_s", f"/runs/{name}?page={last * 3 // 4}"),
        ("last_page_s", f"/runs/{name}?page={last}"),
        ("sample_s", f"/runs/{name}/samples/{samples - 7}"),
        ("filter_first_s", f"/runs/{name}?status=unscored&s.domain=law"),
        ("filter_again_s", f"/runs/{name}?status=unscored&s.domain=news"),
        ("run_list_s", "/"),
    ):
        begin = time.perf_counter()
        response = web.get(url)
        timings[label] = time.perf_counter() - begin
        assert response.status_code == 200, (url, response.status_code)
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent, which wrote the whole run
    peak = next(line for line in Path("/proc/self/status").read_text().splitlines() if line.startswith("VmHWM"))
    timings["peak_rss_mib"] = int(peak.split()[1]) / 1024
    print(json.dumps(timings))


def measure(root: Path, name: str, samples: int, repeats: int) -> dict[str, float]:
    runs = []
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(root), name, str(samples)],
            check=True,
            capture_output=True,
            text=True,
            cwd=ROOT / "bench",
        )
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {key: statistics.median(r[key] for r in runs) for key in runs[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="write the runs here and keep them")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(Path(args.child[0]), args.child[1], int(args.child[2]))
        return
    root = args.keep or Path(tempfile.mkdtemp(prefix="viewer-scale-"))
    complete, running = root / "complete", root / "running"
    begin = time.perf_counter()
    make_run(complete / "big", args.samples)
    shutil.copytree(complete / "big", running / "big")
    (running / "big" / "results.json").unlink()
    size = (complete / "big" / "samples.jsonl").stat().st_size
    print(
        f"{machine()}\n{args.samples} samples, samples.jsonl {size / 2**20:.1f} MiB, "
        f"written in {time.perf_counter() - begin:.1f} s; medians of {args.repeats} fresh processes"
    )
    for label, folder in (("finished run (results.json)", complete), ("run being written (no results.json)", running)):
        medians = measure(folder, "big", args.samples, args.repeats)
        print(f"\n{label}")
        for key, value in medians.items():
            print(f"  {key:<18} {value:8.3f}")
    if args.keep is None:
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
