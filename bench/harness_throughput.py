"""Harness throughput: N requests at concurrency C against a fake server with latency L.

Every request goes through the whole runtime (runner, executor, retries, cache, run log),
one single-turn sample each. Prints achieved vs ideal time (N·L/C), the time of a second,
fully cached run, and peak RSS for each N (each measurement in its own process).

    python bench/harness_throughput.py                       # L=0.2 C=64 N=2000 and 20000
    python bench/harness_throughput.py --sizes 2000 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, FakeServerProcess, machine


def child(url: str, n: int, concurrency: int, workdir: Path) -> None:
    """One cold run and one fully cached run in this process; prints JSON."""
    import proseval.models.openai_compat  # noqa: F401  (a one-time import, not part of throughput)
    from proseval.core import Sample, Task
    from proseval.core.protocols import single_turn
    from proseval.models.base import GenerateConfig
    from proseval.runtime.loop import run_async
    from proseval.runtime.records import RoleBinding
    from proseval.runtime.options import RunOptions
    from proseval.runtime.runner import start_run

    def dataset():
        return (Sample(id=f"b{i:06d}", input=f"Write sentence number {i}.") for i in range(n))

    task = Task(name="bench", version="1", dataset=dataset, protocol=single_turn, scorers=[])
    bindings = {"candidate": RoleBinding(spec="openai-compatible/fake", base_urls=[url], concurrency=concurrency,
                                         config=GenerateConfig(max_tokens=32, timeout=30))}
    options = RunOptions(out_dir=workdir, display="none", cache_path=workdir / "cache.sqlite")
    timings = []
    for _ in range(2):
        start = time.perf_counter()
        _, results = run_async(start_run(task, bindings, options))
        timings.append(time.perf_counter() - start)
        assert results.counts.ok == n, results.counts
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"cold_s": timings[0], "cached_s": timings[1], "peak_rss_mib": peak_kib / 1024,
                      "cache_hits_second": results.roles["candidate"]["cache_hits"]}))


def measure(url: str, n: int, concurrency: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [sys.executable, __file__, "--child", url, str(n), str(concurrency), tmp],
            capture_output=True, text=True, check=True, cwd=ROOT,
        )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--repeats", type=int, default=3, help="runs per size (the largest size runs once)")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        url, n, c, workdir = args.child
        return child(url, int(n), int(c), Path(workdir))

    print(f"machine: {machine()}")
    print(f"latency L={args.latency}s, concurrency C={args.concurrency}")
    server = FakeServerProcess(args.latency)
    try:
        print(f"{'N':>7} {'ideal s':>8} {'median s':>9} {'% of ideal':>10} {'cached s':>9} {'cached %':>9} {'peak RSS MiB':>13}")
        for n in args.sizes:
            repeats = 1 if n == max(args.sizes) and len(args.sizes) > 1 else args.repeats
            runs = [measure(server.base_url, n, args.concurrency) for _ in range(repeats)]
            ideal = n * args.latency / args.concurrency
            cold = statistics.median(r["cold_s"] for r in runs)
            cached = statistics.median(r["cached_s"] for r in runs)
            rss = max(r["peak_rss_mib"] for r in runs)
            print(f"{n:>7} {ideal:>8.2f} {cold:>9.2f} {100 * ideal / cold:>9.1f}% {cached:>9.2f} "
                  f"{100 * cached / cold:>8.1f}% {rss:>13.1f}", flush=True)
    finally:
        server.close()


if __name__ == "__main__":
    main()
