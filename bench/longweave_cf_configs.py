"""CF scores of the same answers under the official and the fixed configurations: one after the other
(two `score_cf_batch` calls) against both at once (`score_cf_configs`: each distinct code string
checked once, flake8's checkers run once for both settings).

Scores the CF answers of the differential vectors in N processes. Each measurement runs in a fresh
process (so flake8's plugins load in each, as in a new `proseval` process), rounds alternating
between the ways and the sources (`--compare-src`: a source without `score_cf_configs` is measured
one configuration after the other only). Medians of wall and CPU time (this process and its flake8
workers); the scores of every way are compared with those of the first.

    .venv/bin/python bench/longweave_cf_configs.py [--processes 2] [--runs 3] [--compare-src DIR] [--ways together]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import ROOT, add_sources, machine, sources_of

DEFAULT_VECTORS = ROOT.parent / "shared" / "vectors" / "longweave" / "cf.jsonl"


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def child(way: str, vectors: Path, processes: int) -> None:
    """Score the vectors one way; print wall, CPU and a digest of the scores as one JSON line."""
    from proseval.benchmarks.longweave.scorers import cf

    cases = [
        cf.CFCase(r["answer"], r["instance"]["original_code"])
        for r in map(json.loads, vectors.read_text(encoding="utf-8").splitlines())
    ]
    configs = [cf.CFConfig.official(), cf.CFConfig()]
    wall, cpu = time.perf_counter(), cpu_seconds()
    if way == "together":
        scores = cf.score_cf_configs(cases, configs, processes=processes)
    else:
        scores = [cf.score_cf_batch(cases, processes=processes, config=config) for config in configs]
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    digest = hashlib.sha256(pickle.dumps([[(s.value, s.metrics, s.trace) for s in each] for each in scores]))
    print(json.dumps({"wall": wall, "cpu": cpu, "scores": digest.hexdigest()}))


def measure(src: Path, way: str, vectors: Path, processes: int) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "--child", way, "--vectors", str(vectors), "--processes", str(processes)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(src)},
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def has_configs(src: Path) -> bool:
    return "def score_cf_configs" in (src / "proseval/benchmarks/longweave/scorers/cf.py").read_text()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vectors", type=Path, default=DEFAULT_VECTORS)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--ways", choices=["both", "apart", "together"], default="both", help="the ways measured (default: both)"
    )
    parser.add_argument("--child", choices=["apart", "together"], help=argparse.SUPPRESS)
    add_sources(parser)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.vectors, args.processes)
        return

    print(f"machine: {machine()}; load average before: {os.getloadavg()[0]:.2f}; N = {args.processes}")
    ways = [
        (name, src, way)
        for name, src in sources_of(args).items()
        for way in (("apart", "together") if has_configs(src) else ("apart",))
        if args.ways in ("both", way)
    ]
    results: dict[tuple[str, str], list[dict]] = {(name, way): [] for name, _, way in ways}
    for run in range(1, args.runs + 1):
        for name, src, way in ways:
            result = measure(src, way, args.vectors, args.processes)
            results[(name, way)].append(result)
            print(f"run {run}: {name:>10} {way:>8}: {result['wall']:6.1f} s wall {result['cpu']:6.1f} s CPU")
    first = next(iter(results.values()))[0]["scores"]
    for (name, way), measured in results.items():
        same = all(result["scores"] == first for result in measured)
        print(
            f"{name:>10} {way:>8}: median {statistics.median(r['wall'] for r in measured):6.1f} s wall, "
            f"{statistics.median(r['cpu'] for r in measured):6.1f} s CPU; scores {'identical' if same else 'DIFFER'}"
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
