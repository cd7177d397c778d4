"""Harness throughput: N requests at concurrency C against a fake server with latency L.

Every request goes through the whole runtime (runner, executor, retries, cache, run log),
one single-turn sample each. For each point C:N prints achieved vs ideal time (N·L/C), the time
of a second, fully cached run, and peak RSS (each measurement in its own process). The row "bare"
posts the same requests with aiohttp alone (no proseval), in the same rounds: what the HTTP client
and the fake server sharing the machine reach, the floor of the harness's cost (--no-bare: left
out). With
--compare-src the other sources are measured in the same rounds, alternating; with --profile a
cold and a cached run of each point are profiled once more (cProfile, CPU time) and where their
CPU time goes is printed, by component. "CPU µs/req" is the CPU time of the cold run alone per
request (start-up and the cached run left out). --provider anthropic binds `anthropic/fake` against
the fake Anthropic API instead (the bare row posts the same Messages bodies).

    python bench/harness_throughput.py                                   # C:N = 64:2000 256:8000 1024:20000
    python bench/harness_throughput.py --points 64:2000 --repeats 3 --compare-src /tmp/base/src
    python bench/harness_throughput.py --points 1024:20000 --repeats 1 --profile
    python bench/harness_throughput.py --provider anthropic --points 64:2000 256:8000 --compare-src /tmp/base/src
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from _common import ROOT, FakeServerProcess, add_sources, machine, sources_of

BENCH_KEY = "bench-key-for-the-fake-server"  # the child's ANTHROPIC_API_KEY: the fake takes any key


@dataclass(frozen=True)
class Provider:
    """What a run binds and the bare client posts, for one provider."""

    spec: str  # the role's model
    fake: str  # the fake server's module in proseval.testing
    path: str  # where the bare client posts
    headers: dict[str, str] = field(default_factory=dict)  # what the bare client sends besides the body


PROVIDERS = {
    "openai-compatible": Provider("openai-compatible/fake", "fake_openai", "/chat/completions"),
    "anthropic": Provider(
        "anthropic/fake", "fake_anthropic", "/v1/messages", {"x-api-key": BENCH_KEY, "anthropic-version": "2026-10-21"}
    ),
}

# Where a function's own time is counted, by the file it is defined in (first match wins).
COMPONENTS = [
    ("asyncio event loop", ("asyncio/",)),
    ("HTTP client (aiohttp, yarl, multidict)", ("aiohttp/", "yarl/", "multidict/", "aiohappyeyeballs/")),
    ("providers' SDKs and httpx", ("anthropic/", "openai/", "httpx/", "httpx2/", "httpcore", "anyio/")),
    ("sockets and selectors", ("selectors.py", "socket.py", "ssl.py")),
    ("JSON", ("json/",)),
    ("pydantic", ("pydantic/", "pydantic_core/")),
    ("response cache (SQLite)", ("runtime/cache.py", "sqlite3")),
    ("run log and records", ("runtime/runlog.py", "runtime/records.py", "runtime/usage.py", "runtime/outcome.py")),
    ("retries (tenacity) and the executor", ("tenacity/", "runtime/executor.py")),
    ("progress display", ("runtime/progress.py", "rich/", "tqdm/")),
    ("other proseval", ("proseval/",)),
]


def child(provider: Provider, url: str, n: int, concurrency: int, workdir: Path, profile: Path | None) -> None:
    """One cold run and one fully cached run in this process; prints JSON. The provider's model is
    built once before them: what it imports is a one-time cost, not part of throughput (and only
    what the measured source imports)."""
    from proseval.core import Sample, Task
    from proseval.core.protocols import single_turn
    from proseval.models.base import GenerateConfig
    from proseval.models.spec import build_model, parse_model_spec
    from proseval.runtime.loop import run_async
    from proseval.runtime.options import RunOptions
    from proseval.runtime.records import RoleBinding
    from proseval.runtime.runner import start_run

    run_async(build_model(parse_model_spec(provider.spec, [url])).aclose())

    def dataset():
        return (Sample(id=f"b{i:06d}", input=f"Write sentence number {i}.") for i in range(n))

    task = Task(name="bench", version="1", dataset=dataset, protocol=single_turn, scorers=[])
    bindings = {
        "candidate": RoleBinding(
            spec=provider.spec,
            base_urls=[url],
            concurrency=concurrency,
            config=GenerateConfig(max_tokens=32, timeout=30),
        )
    }
    options = RunOptions(out_dir=workdir, display="none", cache_path=workdir / "cache.sqlite")
    timings, cpu_times = [], []
    for attempt, name in enumerate(("cold", "cached")):
        profiler = None
        if profile is not None:
            import cProfile

            profiler = cProfile.Profile(time.process_time)  # CPU time: waiting for the server is not overhead
            profiler.enable()
        start, cpu_start = time.perf_counter(), time.process_time()
        _, results = run_async(start_run(task, bindings, options))
        timings.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu_start)
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(profile / f"{name}.prof")
        assert results.counts.ok == n, results.counts
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    print(
        json.dumps(
            {
                "cold_s": timings[0],
                "cached_s": timings[1],
                "peak_rss_mib": peak_kib / 1024,
                "cpu_s": cpu.ru_utime + cpu.ru_stime,
                "cold_cpu_s": cpu_times[0],
                "cache_hits_second": results.roles["candidate"]["cache_hits"],
            }
        )
    )


def bare_child(provider: Provider, url: str, n: int, concurrency: int) -> None:
    """The same requests posted with aiohttp alone (no proseval): the floor of what the harness costs."""
    import asyncio

    import aiohttp

    from proseval.runtime.loop import run_async

    async def post_all() -> float:
        target = url.rstrip("/") + provider.path
        headers = {"Content-Type": "application/json", **provider.headers}
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
            slots = asyncio.Semaphore(concurrency)

            async def one(i: int) -> None:
                async with slots:
                    body = json.dumps(
                        {
                            "model": "fake",
                            "max_tokens": 32,
                            "messages": [{"role": "user", "content": f"Write sentence number {i}."}],
                        }
                    )
                    async with session.post(
                        target, data=body.encode(), headers=headers, timeout=aiohttp.ClientTimeout(total=30)
                    ) as reply:
                        json.loads(await reply.read())

            start = time.perf_counter()
            await asyncio.gather(*(one(i) for i in range(n)))
            return time.perf_counter() - start

    cpu_start = time.process_time()
    cold = run_async(post_all())
    cold_cpu = time.process_time() - cpu_start
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    print(
        json.dumps(
            {
                "cold_s": cold,
                "cpu_s": cpu.ru_utime + cpu.ru_stime,
                "cold_cpu_s": cold_cpu,
                "peak_rss_mib": cpu.ru_maxrss / 1024,
            }
        )
    )


def measure(provider: str, src: Path, url: str, n: int, concurrency: int, profile: Path | None = None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        child_args = (
            ["--child", url, str(n), str(concurrency), tmp, str(profile or "")]
            if src != BARE
            else ["--bare-child", url, str(n), str(concurrency)]
        )
        out = subprocess.run(
            [sys.executable, __file__, "--provider", provider, *child_args],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT / "src" if src == BARE else src), "ANTHROPIC_API_KEY": BENCH_KEY},
        )
    return json.loads(out.stdout.strip().splitlines()[-1])


BARE = Path("aiohttp-alone")  # in place of a source: the bare client (`bare_child`)


def component_of(filename: str) -> str:
    for name, markers in COMPONENTS:
        if any(marker in filename for marker in markers):
            return name
    return "other (interpreter, standard library)"


def print_profile(path: Path, top: int = 12) -> None:
    """The profiled run's own CPU time by component, then its most expensive functions."""
    stats = pstats.Stats(str(path))
    total = stats.total_tt  # type: ignore[attr-defined]
    by_component: dict[str, float] = {}
    rows = []
    for (filename, line, function), (_, calls, own, cumulative, _) in stats.stats.items():  # type: ignore[attr-defined]
        by_component[component_of(filename)] = by_component.get(component_of(filename), 0.0) + own
        rows.append((own, calls, cumulative, f"{Path(filename).name}:{line} {function}"))
    print(f"    profile: {total:.2f} s of CPU in the profiled process (cProfile's own cost included)")
    for name, own in sorted(by_component.items(), key=lambda item: -item[1]):
        print(f"      {100 * own / total:5.1f} %  {name}")
    print(f"    top {top} functions by own time (own s, calls, cumulative s):")
    for own, calls, cumulative, where in sorted(rows, reverse=True)[:top]:
        print(f"      {own:7.3f} {calls:>9} {cumulative:8.3f}  {where}")


def parse_point(text: str) -> tuple[int, int]:
    concurrency, _, n = text.partition(":")
    return int(concurrency), int(n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument(
        "--points",
        type=parse_point,
        nargs="+",
        default=[(64, 2000), (256, 8000), (1024, 20000)],
        metavar="C:N",
        help="concurrency and number of samples of each measurement",
    )
    parser.add_argument("--repeats", type=int, default=3, help="rounds per point; medians are reported")
    parser.add_argument(
        "--profile", action="store_true", help="profile one more cold and cached run of each point (cProfile, CPU time)"
    )
    add_sources(parser)
    parser.add_argument("--no-bare", action="store_true", help="leave out the bare aiohttp client's row")
    parser.add_argument(
        "--provider",
        choices=sorted(PROVIDERS),
        default="openai-compatible",
        help="the provider the runs bind, against its fake server",
    )
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    parser.add_argument("--bare-child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    provider = PROVIDERS[args.provider]
    if args.child:
        url, n, c, workdir, profile = args.child
        return child(provider, url, int(n), int(c), Path(workdir), Path(profile) if profile else None)
    if args.bare_child:
        url, n, c = args.bare_child
        return bare_child(provider, url, int(n), int(c))

    sources = sources_of(args)
    if not args.no_bare:
        sources["bare"] = BARE
    print(f"machine: {machine()}")
    print(
        f"provider {args.provider}; latency L={args.latency}s; medians of {args.repeats} rounds; sources: "
        + ", ".join(f"{name}={src}" for name, src in sources.items())
    )
    server = FakeServerProcess(args.latency, module=provider.fake)
    try:
        print(
            f"{'source':>9} {'C':>5} {'N':>6} {'ideal s':>8} {'median s':>9} {'% of ideal':>10} {'cached s':>9} "
            f"{'cached %':>9} {'CPU s':>7} {'CPU µs/req':>10} {'peak RSS MiB':>13}"
        )
        for concurrency, n in args.points:
            runs: dict[str, list[dict]] = {name: [] for name in sources}
            for round_ in range(args.repeats):
                order = list(sources.items())[:: 1 if round_ % 2 == 0 else -1]  # neither source always goes first
                for name, src in order:
                    runs[name].append(measure(args.provider, src, server.base_url, n, concurrency))
            ideal = n * args.latency / concurrency
            for name, measured in runs.items():
                cold = statistics.median(r["cold_s"] for r in measured)
                cpu = statistics.median(r["cpu_s"] for r in measured)
                per_request = 1e6 * statistics.median(r["cold_cpu_s"] for r in measured) / n
                rss = max(r["peak_rss_mib"] for r in measured)
                if name == "bare":  # one pass, nothing cached
                    cached_cols = f"{'-':>9} {'-':>9}"
                else:
                    cached = statistics.median(r["cached_s"] for r in measured)
                    cached_cols = f"{cached:>9.2f} {100 * cached / cold:>8.1f}%"
                print(
                    f"{name:>9} {concurrency:>5} {n:>6} {ideal:>8.2f} {cold:>9.2f} {100 * ideal / cold:>9.1f}% "
                    f"{cached_cols} {cpu:>7.1f} {per_request:>10.0f} {rss:>13.1f}",
                    flush=True,
                )
            if args.profile:
                with tempfile.TemporaryDirectory() as tmp:
                    measure(args.provider, sources["this"], server.base_url, n, concurrency, Path(tmp))
                    for name in ("cold", "cached"):
                        print(f"  {name} run, C={concurrency}, N={n}:")
                        print_profile(Path(tmp) / f"{name}.prof")
    finally:
        server.close()


if __name__ == "__main__":
    main()
