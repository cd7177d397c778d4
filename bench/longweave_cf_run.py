"""CF scoring throughput through `proseval run longweave` against plain flake8, side by side.

The 1,007 CF answers of the differential vectors are given, one per sample, to a CF-only
`longweave` run (scripted candidate that returns the answer, scripted judge that passes the
relevance gate), so they are scored exactly as `proseval run longweave` scores them: the
runner, the relevance call, the scorer in its worker threads and the shared flake8 workers,
the records and the aggregation. Samples are generated before the clock starts. Plain
``flake8`` with the same plugins, selection and one job per CPU checks the files the scorer
sends to flake8. The two alternate `--runs` times; medians are compared.

    .venv/bin/python bench/longweave_cf_run.py [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from _common import ROOT, machine  # noqa: F401  (puts src/ on the path)
from longweave_score import DEFAULT_VECTORS, Timing, cpu_seconds, flake8_command, time_flake8
from proseval.benchmarks.longweave.generators import LENGTHS, generate
from proseval.benchmarks.longweave.scorers.cf import CFConfig, compile_error, extract_code
from proseval.benchmarks.longweave.scorers.code_checks import close_shared_pools
from proseval.core.sample import Sample
from proseval.models.scripted import register_script
from proseval.registry import get_task
from proseval.runtime.options import RunOptions
from proseval.runtime.records import RoleBinding
from proseval.runtime.runner import start_run


def load_answers(path: Path) -> list[str]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line)["answer"] for line in handle]


def cf_samples(count: int) -> list[Sample]:
    """`count` CF samples, spread over the four lengths."""
    cells = itertools.cycle(LENGTHS)
    return [generate("cf", next(cells), index // len(LENGTHS)) for index in range(count)]


def time_run(samples: list[Sample], answers: list[str], out: Path) -> tuple[Timing, int]:
    """Wall and CPU time (this process and its flake8 workers) of one CF-only run, and the
    number of samples it finished."""
    by_prompt = {sample.input: answer for sample, answer in zip(samples, answers)}
    register_script("bench-cf-candidate", lambda messages: by_prompt[messages[-1]["content"]])
    register_script("bench-cf-judge", ['{"relevant_and_complete": true}'])
    task = get_task("longweave", {"task": "cf", "per_cell": len(samples)})
    task.dataset = lambda: iter(samples)
    roles = {
        "candidate": RoleBinding(spec="scripted/bench-cf-candidate", concurrency=64),
        "judge": RoleBinding(spec="scripted/bench-cf-judge", concurrency=64),
    }
    start, cpu = time.perf_counter(), cpu_seconds()
    _, results = asyncio.run(start_run(task, roles, RunOptions(out_dir=out, display="none")))
    close_shared_pools()  # every run starts its flake8 workers, as a new `proseval run` does
    return Timing(time.perf_counter() - start, cpu_seconds() - cpu, 0), results.counts.ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vectors", type=Path, default=DEFAULT_VECTORS)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    answers = load_answers(args.vectors)
    samples = cf_samples(len(answers))
    codes = [extract_code(answer)[0] for answer in answers]
    checked = [code for code in codes if code and compile_error(code) is None]
    jobs = os.cpu_count() or 1
    print(f"machine: {machine()}")
    print(f"answers: {len(answers)}; files flake8 checks: {len(checked)}; flake8 jobs = workers = {jobs}")
    runs, plain = [], []
    with tempfile.TemporaryDirectory(prefix="proseval_bench_") as folder:
        for index, code in enumerate(checked):
            Path(folder, f"answer_{index}.py").write_text(code, encoding="utf-8", newline="")
        command = flake8_command(CFConfig(), jobs, folder)
        print("plain flake8:", " ".join(command))
        for run in range(1, args.runs + 1):
            with tempfile.TemporaryDirectory(prefix="proseval_bench_run_") as out:
                timing, scored = time_run(samples, answers, Path(out))
            if scored != len(samples):
                raise SystemExit(f"only {scored} of {len(samples)} samples finished")
            runs.append(timing)
            plain.append(time_flake8(command))
            print(
                f"run {run}: proseval run {runs[-1].wall:6.2f} s wall {runs[-1].cpu:6.2f} s CPU   "
                f"plain flake8 {plain[-1].wall:6.2f} s wall {plain[-1].cpu:6.2f} s CPU   "
                f"throughput {100 * plain[-1].wall / runs[-1].wall:5.1f} % wall "
                f"(load {os.getloadavg()[0]:.1f})",
                flush=True,
            )
    print(f"{'median':10}{'proseval run':>14}{'plain flake8':>14}{'throughput':>12}")
    for field in ("wall", "cpu"):
        ours = statistics.median(getattr(t, field) for t in runs)
        theirs = statistics.median(getattr(t, field) for t in plain)
        print(f"{field + ' (s)':10}{ours:14.2f}{theirs:14.2f}{100 * theirs / ours:11.1f}%")
    paired = statistics.median(p.wall / r.wall for r, p in zip(runs, plain))
    print(f"median of the per-run wall ratios: {100 * paired:.1f}%")
    print("target: throughput >= 90 % of plain flake8")


if __name__ == "__main__":
    main()
