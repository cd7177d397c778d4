"""`proseval report` at scale: R runs × N samples written by the real runner, then the report timed.

The runs are made in this process with scripted models (no network): a synthetic single-turn
task with two slice keys (8 domains × 2 languages), a judged 1–10 score with ~3 % unscored
answers, a length score, ~1 % failed samples and answers of ~1,500 characters. Each report is
built by the CLI in a fresh process (what a user waits for: start-up, imports, reading, the
paired comparisons, charts, writing); the median of the repeats is printed with the file size.

    python bench/report_scale.py                       # 5 runs × 1,000 samples, 3 repeats
    python bench/report_scale.py --runs 5 --samples 1000 --repeats 5 --keep /tmp/report-scale
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, machine

DOMAINS = ("academic", "business", "creative", "education", "law", "medicine", "news", "technical")


def make_runs(root: Path, runs: int, samples: int) -> list[Path]:
    from proseval.core import Sample, Score, Task
    from proseval.core.protocols import single_turn
    from proseval.core.scorer import scorer
    from proseval.models.base import FatalError
    from proseval.models.scripted import register_script
    from proseval.runtime.loop import run_async
    from proseval.runtime.options import RunOptions
    from proseval.runtime.records import RoleBinding
    from proseval.runtime.runner import start_run

    def unit(*parts: object) -> float:
        """A deterministic number in [0, 1) from its arguments."""
        return int(hashlib.sha256(repr(parts).encode()).hexdigest()[:8], 16) / 2**32

    def dataset():
        return [
            Sample(
                id=f"item-{i:05d}",
                input=f"Write a short piece number {i} about {DOMAINS[i % 8]}.",
                metadata={"domain": DOMAINS[i % 8], "lang": "en" if i % 3 else "zh"},
            )
            for i in range(samples)
        ]

    @scorer("quality")
    async def quality(sample, state, ctx):
        reply = (
            await ctx.generate("judge", [{"role": "user", "content": f"Rate 1-10: {state.output}"}], turn="judge")
        ).text
        if not reply.startswith("{"):
            return {"quality": Score.unscored("unparsable", "the judge's reply holds no JSON")}
        return {"quality": Score(value=float(json.loads(reply)["score"]), explanation="judged")}

    @scorer("length")
    async def length(sample, state, ctx):
        return {"length": Score(value=min(1.0, len(state.output) / 1500))}

    task = Task(
        name="synthetic",
        version="1",
        dataset=dataset,
        protocol=single_turn,
        scorers=[quality, length],
        roles_required=("candidate", "judge"),
        slice_keys=("domain", "lang"),
    )
    paths = []
    for r in range(runs):

        def candidate(messages, r=r):
            prompt = messages[-1]["content"]
            if unit("fail", r, prompt) < 0.01:
                raise FatalError("the provider rejected this request")
            words = " ".join(f"word{int(unit(r, prompt, k) * 1000)}" for k in range(int(150 + 100 * unit(r, prompt))))
            return f"Model {r} writes: {words}"

        def judge(messages, r=r):
            prompt = messages[-1]["content"]
            if unit("unscored", r, prompt) < 0.03:
                return "I cannot decide."
            return json.dumps({"score": max(1, min(10, round(4 + r * 0.4 + 4 * unit("score", r, prompt))))})

        register_script(f"scale-cand-{r}", candidate)
        register_script(f"scale-judge-{r}", judge)
        bindings = {
            "candidate": RoleBinding(spec=f"scripted/scale-cand-{r}", concurrency=64),
            "judge": RoleBinding(spec=f"scripted/scale-judge-{r}", concurrency=64),
        }
        options = RunOptions(out_dir=root, display="none", use_cache=False, max_attempts=1)
        folder, _ = run_async(start_run(task, bindings, options, run_dir=root / f"model-{r}"))
        paths.append(folder.path)
    return paths


def time_report(paths: list[Path], out: Path, repeats: int, extra: list[str]) -> tuple[list[float], int]:
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "proseval", "report", *map(str, paths), "-o", str(out), *extra],
            check=True,
            cwd=ROOT,
            capture_output=True,
        )
        timings.append(time.perf_counter() - start)
    return timings, out.stat().st_size


def stages(paths: list[Path]) -> dict[str, float]:
    """Where the time of one in-process build goes (imports already done, except matplotlib's)."""
    from proseval.report.figures import slice_figures
    from proseval.report.html import build
    from proseval.report.runs import open_runs
    from proseval.report.sections import comparison_part

    timings = {}
    start = time.perf_counter()
    runs = open_runs(paths)
    timings["read the run folders"] = time.perf_counter() - start
    start = time.perf_counter()
    for other in runs[1:]:
        comparison_part(runs[0], other, 10)
    timings[f"{len(runs) - 1} paired comparisons (with slices)"] = time.perf_counter() - start
    start = time.perf_counter()
    slice_figures(runs)
    timings["slice charts (matplotlib import included)"] = time.perf_counter() - start
    start = time.perf_counter()
    build(runs)
    timings["whole page, in process"] = time.perf_counter() - start
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="Write the runs and reports here (kept) instead of a temp folder.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        paths = make_runs(root / "runs", args.runs, args.samples)
        print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f}")
        print(
            f"made {args.runs} runs × {args.samples} samples in {time.perf_counter() - start:.1f} s "
            f"({sum((p / 'samples.jsonl').stat().st_size for p in paths) / 2**20:.1f} MiB of samples.jsonl)"
        )
        for label, extra in (("default (200 samples listed per run)", []), ("--all-samples", ["--all-samples"])):
            timings, size = time_report(paths, root / "report.html", args.repeats, extra)
            print(
                f"report, {label}: median {statistics.median(timings):.2f} s over {args.repeats} "
                f"(min {min(timings):.2f}, max {max(timings):.2f}); {size / 2**20:.2f} MiB"
            )
        print("one build in this process:")
        for stage, seconds in stages(paths).items():
            print(f"  {stage}: {seconds:.2f} s")
        print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
