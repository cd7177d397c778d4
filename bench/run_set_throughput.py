"""Evaluation-set throughput: R runs sharing one endpoint limited to C requests, run as a set vs one after another.

R runs of N single-turn samples each (one task, R models, all served by one fake OpenAI-compatible
server with a fixed latency L) go through the whole runtime three ways, each in its own process
with a fresh server:

- `runs`: `start_run` R times, one after another (each at concurrency C) — plain runs, no set;
- `set-serial`: `proseval run-set` with `--max-runs 1` (the set's members one after another);
- `set`: `proseval run-set` with all R runs at once, sharing the endpoint limit C.

Prints each way's median wall time over --repeats (the ways alternate within a repeat), its share
of the ideal R·N·L/C, the ratio to `runs`, and the most requests the server ever had in flight
(counted at the server, between a request's arrival and its answer: it must never exceed C).

    python bench/run_set_throughput.py                                  # R=4 N=2000 L=0.2 C=64, 3 repeats
    python bench/run_set_throughput.py --samples 200 --latency 0.05 --repeats 1   # a quick check
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
import urllib.request
from pathlib import Path

from _common import ROOT, machine

MODES = ("runs", "set-serial", "set")


# --- the server: the fake OpenAI-compatible server, counting requests in flight ----------------


def serve(latency: float) -> None:
    import asyncio

    from proseval.testing.fake_openai import FakeOpenAIServer, Reply

    state = {"now": 0, "peak": 0, "requests": 0}

    def arrive(index: int, body: dict) -> Reply:  # called before the latency
        model = body.get("model")
        if model == "__stats__":
            return Reply(text=json.dumps(state), latency=0)
        if model == "__reset__":
            state.update(now=0, peak=0, requests=0)
            return Reply(text="{}", latency=0)
        state["now"] += 1
        state["requests"] += 1
        state["peak"] = max(state["peak"], state["now"])
        return Reply()

    def answer(body: dict) -> str:  # called after it
        state["now"] -= 1
        return "A short sentence written by the fake server."

    async def main() -> None:
        server = FakeOpenAIServer(latency=latency, behaviour=arrive, responder=answer)
        await server.start()
        print(f"listening on {server.base_url}", flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())


class Server:
    def __init__(self, latency: float):
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(latency)],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        )
        self.base_url = self.proc.stdout.readline().strip().rsplit(" ", 1)[-1]

    def ask(self, model: str) -> dict:
        request = urllib.request.Request(
            self.base_url + "/chat/completions",
            method="POST",
            data=json.dumps({"model": model, "messages": []}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as reply:
            return json.loads(json.loads(reply.read())["choices"][0]["message"]["content"])

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


# --- one measurement, in a child process ----------------------------------------------------------


def child(mode: str, url: str, n: int, concurrency: int, runs: int, workdir: Path) -> None:
    from pydantic import BaseModel, ConfigDict

    import proseval.models.openai_compat  # noqa: F401  (a one-time import, not part of throughput)
    import proseval.runtime.provenance as provenance
    from proseval import registry
    from proseval.core import Sample, Task
    from proseval.core.protocols import single_turn
    from proseval.models.base import GenerateConfig
    from proseval.runtime.loop import run_async
    from proseval.runtime.options import RunOptions
    from proseval.runtime.records import RoleBinding
    from proseval.runtime.runner import start_run

    provenance.git_commit = lambda: None  # not part of throughput

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        n: int = 100

    def make(params: Params) -> Task:
        def dataset():
            return (Sample(id=f"b{i:06d}", input=f"Write sentence number {i}.") for i in range(params.n))

        return Task(
            name="bench-echo",
            version="1",
            dataset=dataset,
            protocol=single_turn,
            scorers=[],
            role_configs={"candidate": GenerateConfig(max_tokens=32, timeout=30)},
        )

    registry.task("bench-echo", summary="N single-turn samples (bench)", params=Params)(make)
    models = [f"openai-compatible/m{i}" for i in range(1, runs + 1)]
    start = time.perf_counter()
    if mode == "runs":
        for model in models:
            task = registry.get_task("bench-echo", {"n": n})
            bindings = {
                "candidate": RoleBinding(
                    spec=model, base_urls=[url], concurrency=concurrency, config=task.role_configs["candidate"]
                )
            }
            options = RunOptions(out_dir=workdir, display="none", use_cache=False)
            _, results = run_async(start_run(task, bindings, options))
            assert results.counts.ok == n, results.counts
        peaks = None
    else:
        from proseval.commandline.sets import plan_set
        from proseval.runtime.sets import run_set_async

        path = workdir / "set.yaml"
        path.write_text(
            json.dumps(
                {  # JSON is YAML
                    "folder": "set",
                    "models": [{"spec": m, "base_url": url} for m in models],
                    "tasks": [{"task": "bench-echo", "params": {"n": n}}],
                    "concurrency": concurrency,
                    "endpoints": {url: concurrency},
                    "no_cache": True,
                    "report": False,
                    "max_runs": 1 if mode == "set-serial" else runs,
                }
            )
        )
        result = run_async(run_set_async(plan_set(path)))
        assert not result.failed and all(m.results.counts.ok == n for m in result.members), result.members
        peaks = result.endpoints[url]["peak_in_flight"]
    print(json.dumps({"wall_s": time.perf_counter() - start, "limiter_peak": peaks}))


def measure(server: Server, mode: str, n: int, concurrency: int, runs: int) -> dict:
    server.ask("__reset__")
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [sys.executable, __file__, "--child", mode, server.base_url, str(n), str(concurrency), str(runs), tmp],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PROSEVAL_CACHE_DIR": tmp},
        )
    if out.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{out.stderr[-3000:]}")
    measured = json.loads(out.stdout.strip().splitlines()[-1])
    stats = server.ask("__stats__")
    measured["server_peak"] = stats["peak"]
    measured["requests"] = stats["requests"]
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--samples", type=int, default=2000, help="samples per run")
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--serve", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--child", nargs=6, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        return serve(args.serve)
    if args.child:
        mode, url, n, c, runs, workdir = args.child
        return child(mode, url, int(n), int(c), int(runs), Path(workdir))

    n, c, runs, latency = args.samples, args.concurrency, args.runs, args.latency
    ideal = runs * n * latency / c
    print(f"machine: {machine()}")
    print(f"{runs} runs x {n} samples, one endpoint: latency L={latency}s, limit C={c}; ideal {ideal:.2f}s")
    server = Server(latency)
    walls: dict[str, list[float]] = {mode: [] for mode in MODES}
    peaks: dict[str, int] = {mode: 0 for mode in MODES}
    try:
        for repeat in range(args.repeats):
            for mode in MODES:
                measured = measure(server, mode, n, c, runs)
                assert measured["requests"] == runs * n, measured
                walls[mode].append(measured["wall_s"])
                peaks[mode] = max(peaks[mode], measured["server_peak"])
                print(
                    f"  repeat {repeat + 1} {mode:<10} {measured['wall_s']:7.2f}s, at most "
                    f"{measured['server_peak']} in flight at the server"
                    + (f" ({measured['limiter_peak']} at the limiter)" if measured["limiter_peak"] else ""),
                    flush=True,
                )
    finally:
        server.close()
    base = statistics.median(walls["runs"])
    print(f"\n{'way':<11} {'median s':>9} {'% of ideal':>10} {'vs runs':>8} {'max in flight':>14}")
    for mode in MODES:
        wall = statistics.median(walls[mode])
        print(f"{mode:<11} {wall:>9.2f} {100 * ideal / wall:>9.1f}% {wall / base:>7.2f}x {peaks[mode]:>14}")
    ratio = statistics.median(walls["set"]) / statistics.median(walls["set-serial"])
    verdict = "not slower" if ratio <= 1.05 else "SLOWER"
    print(
        f"\nset / set one after another: {ratio:.2f} ({verdict}); max in flight at the server {max(peaks.values())} "
        f"(limit {c}: {'never exceeded' if max(peaks.values()) <= c else 'EXCEEDED'})"
    )


if __name__ == "__main__":
    main()
