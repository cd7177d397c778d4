"""Building the same data-backed tasks again in one process, as `proseval profile` and run sets do (each
benchmark's task is built to plan, to estimate and to run: seven times per benchmark in a quick
profile), and reading the first samples of each dataset, as a run with a limit does.

For Meeseeks, WritingBench and C3EBench on the official data: the CPU time of the first build, the
median of the later ones, and of reading the first `--limit` samples of a built task's dataset.
Each round runs in a fresh process per source (`--compare-src`: the same in other sources), rounds
alternating; medians over rounds.

    .venv/bin/python bench/repeated_task_builds.py [--builds 7] [--rounds 3] [--compare-src DIR]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import time

from _common import ROOT, add_sources, machine, sources_of

DATA = ROOT.parent / "shared" / "data"
TASKS = {
    "meeseeks": {"data_dir": str(DATA / "meeseeks")},
    "writingbench": {"data_dir": str(DATA / "writingbench")},
    "c3ebench": {"data_dir": str(DATA / "c3ebench")},
}


def child(builds: int, limit: int) -> None:
    """Build each task `builds` times; print the CPU seconds of each build and of the samples read."""
    from proseval.registry import get_task

    times: dict[str, dict[str, list[float]]] = {}
    for name, params in TASKS.items():
        built, read = [], []
        for _ in range(builds):
            start = time.process_time()
            task = get_task(name, params)
            built.append(time.process_time() - start)
            start = time.process_time()
            ids = [sample.id for sample in itertools.islice(task.dataset(), limit)]
            read.append(time.process_time() - start)
            assert len(ids) == limit
        times[name] = {"build": built, "read": read}
    print(json.dumps(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--builds", type=int, default=7)
    parser.add_argument("--limit", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    add_sources(parser)
    args = parser.parse_args()
    if args.builds < 2:
        parser.error("--builds: at least 2 (the first build, then the later ones)")
    if args.child:
        child(args.builds, args.limit)
        return

    print(f"machine: {machine()}; load average before: {os.getloadavg()[0]:.2f}")
    sources = sources_of(args)
    rounds: dict[str, list[dict]] = {name: [] for name in sources}
    for number in range(1, args.rounds + 1):
        for name, src in sources.items():
            done = subprocess.run(
                [sys.executable, __file__, "--child", "--builds", str(args.builds), "--limit", str(args.limit)],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, "PYTHONPATH": str(src)},
            )
            rounds[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(f"round {number}: {name} done")
    print(
        f"CPU seconds, medians over {args.rounds} rounds: first build | later builds (each) | first "
        f"{args.limit} samples read"
    )
    for name, measured in rounds.items():
        for task in TASKS:
            first = statistics.median(r[task]["build"][0] for r in measured)
            later = statistics.median(statistics.median(r[task]["build"][1:]) for r in measured)
            read = statistics.median(statistics.median(r[task]["read"]) for r in measured)
            print(f"{name:>10} {task:>12}: {first:6.2f} | {later:6.2f} | {read:6.3f}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
