"""The embedded model on a shared CPU: two `proseval run demo --limit 3 --no-cache` processes at once
against one alone (the embedded model as candidate and judge).

A fair share of the CPU would make each of two runs take twice as long as one alone; threads that
spin while they wait make it worse. Rounds alternate the measurements (and the sources, with
--compare-src) so that a change in the machine's load falls on all of them alike; prints the
median wall time of a run alone and of each run of a pair, and their ratio, and checks that every
run of a source got the same answers and scores (and says whether the sources agree).

    python bench/embedded_concurrency.py                                 # median of 5 rounds
    python bench/embedded_concurrency.py --compare-src /tmp/base/src --repeats 3
    OMP_WAIT_POLICY=active python bench/embedded_concurrency.py          # llama.cpp's threads spinning
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, add_sources, machine, sources_of


def start(src: Path, limit: int, out: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "proseval",
            "run",
            "demo",
            "--limit",
            str(limit),
            "--no-cache",
            "--display",
            "none",
            "--out",
            str(out),
        ],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def answers(out: Path) -> list[tuple[str, list[str], dict[str, float]]]:
    """Each sample's model replies (candidate and judge) and scores, from the run folder in `out`."""
    lines = next(out.glob("*/samples.jsonl")).read_text(encoding="utf-8").splitlines()
    records = sorted((json.loads(line) for line in lines), key=lambda record: record["id"])
    return [
        (r["id"], [call["text"] for call in r["calls"]], {k: v["value"] for k, v in r["scores"].items()})
        for r in records
    ]


def wall_times(src: Path, limit: int, at_once: int, seen: list) -> list[float]:
    """The wall time of each of `at_once` runs started together; their answers are added to `seen`."""
    with tempfile.TemporaryDirectory() as tmp:
        began = time.perf_counter()
        runs = [start(src, limit, Path(tmp) / str(n)) for n in range(at_once)]
        times = []
        for n, run in enumerate(runs):
            _, err = run.communicate()
            times.append(time.perf_counter() - began)
            if run.returncode != 0:
                raise SystemExit(f"proseval run demo failed (exit {run.returncode}) with {src}:\n{err[-2000:]}")
            seen.append(answers(Path(tmp) / str(n)))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="rounds; medians are reported")
    parser.add_argument("--limit", type=int, default=3, help="samples of each demo run")
    add_sources(parser)
    args = parser.parse_args()
    sources = sources_of(args)
    seen: dict[str, list] = {name: [] for name in sources}
    alone: dict[str, list[float]] = {name: [] for name in sources}
    paired: dict[str, list[float]] = {name: [] for name in sources}
    for round_ in range(args.repeats):
        order = list(sources.items())[:: 1 if round_ % 2 == 0 else -1]  # neither source always goes first
        for name, src in order:
            alone[name] += wall_times(src, args.limit, 1, seen[name])
            paired[name] += wall_times(src, args.limit, 2, seen[name])
            print(
                f"round {round_ + 1}, {name}: alone {alone[name][-1]:.1f} s, two at once "
                f"{', '.join(f'{t:.1f}' for t in paired[name][-2:])} s (load {os.getloadavg()[0]:.1f})",
                flush=True,
            )
    print(
        f"machine: {machine()}; load average {os.getloadavg()[0]:.2f} at the end; "
        f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', '(unset)')}; "
        f"PROSEVAL_LOCAL_THREADS={os.environ.get('PROSEVAL_LOCAL_THREADS', '(unset)')}"
    )
    print(f"proseval run demo --limit {args.limit} --no-cache; median of {args.repeats} rounds")
    for name, src in sources.items():
        one, two = statistics.median(alone[name]), statistics.median(paired[name])
        print(f"{name} ({src}): alone {one:.1f} s, two at once {two:.1f} s each: {two / one:.2f}x")
    for name, runs in seen.items():
        same = all(run == runs[0] for run in runs)
        print(f"{name}: answers and scores identical in all {len(runs)} runs: {'yes' if same else 'NO'}")
    if len(seen) > 1:
        first = [runs[0] for runs in seen.values()]
        print(
            f"the sources give the same answers: {'yes' if all(r == first[0] for r in first) else 'no'}"
            " (llama.cpp's arithmetic may differ with the number of threads generating)"
        )


if __name__ == "__main__":
    main()
