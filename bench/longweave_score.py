"""Throughput of LongWeave's rule-based CF scoring against plain flake8 on the same files.

Scores the CF answers of the differential vectors (repeated `--repeat` times) with
`score_cf_batch` in N processes, and runs the ``flake8`` command line with the same plugins,
selection and N jobs over exactly the files the scorer sends to flake8. The two are run
alternately `--runs` times; medians of wall time and of CPU time (which other jobs on the
machine disturb less) are compared. The scorer's time includes everything: code extraction,
compile checks, writing the files, flake8 and the formulas.

    PYTHONPATH=src python bench/longweave_score.py [--processes 2] [--runs 5] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from _common import ROOT  # noqa: F401  (puts src/ on the path when proseval is not installed)
from proseval.benchmarks.longweave.scorers.cf import (
    CFCase,
    CFConfig,
    compile_error,
    extract_code,
    score_cf_batch,
)
from proseval.benchmarks.longweave.scorers.code_checks import installed_versions

DEFAULT_VECTORS = Path(__file__).resolve().parents[2] / "shared" / "vectors" / "longweave" / "cf.jsonl"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load_cases(path: Path, repeat: int) -> list[CFCase]:
    cases = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            cases.append(CFCase(record["answer"], record["instance"]["original_code"]))
    return cases * repeat


def flake8_command(config: CFConfig, processes: int, folder: str) -> list[str]:
    settings = config.flake8_settings()
    command = [
        sys.executable,
        "-m",
        "flake8",
        *settings.argv(),
        "--exit-zero",
        "--count",
        "-qq",
    ]
    command = [arg for arg in command if not arg.startswith("--jobs")]
    return [*command, f"--jobs={processes}", folder]


@dataclass(frozen=True)
class Timing:
    wall: float  # seconds
    cpu: float  # seconds of CPU, this process and every finished child process
    violations: int


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def time_scorer(cases: list[CFCase], config: CFConfig, processes: int) -> Timing:
    wall, cpu = time.perf_counter(), cpu_seconds()
    scores = score_cf_batch(cases, processes=processes, config=config)
    violations = sum(score.trace.get("violations", 0) for score in scores)
    return Timing(time.perf_counter() - wall, cpu_seconds() - cpu, violations)


def time_flake8(command: list[str]) -> Timing:
    wall, cpu = time.perf_counter(), cpu_seconds()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    violations = int(done.stdout.strip().splitlines()[-1])
    return Timing(time.perf_counter() - wall, cpu_seconds() - cpu, violations)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vectors", type=Path, default=DEFAULT_VECTORS)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=1, help="repeat the answers n times")
    args = parser.parse_args()

    config = CFConfig()
    cases = load_cases(args.vectors, args.repeat)
    codes = [extract_code(case.answer)[0] for case in cases]
    checked = [code for code in codes if code and compile_error(code) is None]

    print(f"machine: {os.cpu_count()} CPUs ({cpu_model()}), Python {platform.python_version()}")
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print(f"flake8 stack: {installed_versions()}")
    print(f"answers: {len(cases)}; files flake8 checks: {len(checked)}; N = {args.processes}")
    with tempfile.TemporaryDirectory(prefix="proseval_bench_") as folder:
        for index, code in enumerate(checked):
            Path(folder, f"answer_{index}.py").write_text(code, encoding="utf-8", newline="")
        command = flake8_command(config, args.processes, folder)
        ours, plain = [], []
        for run in range(1, args.runs + 1):
            ours.append(time_scorer(cases, config, args.processes))
            plain.append(time_flake8(command))
            if ours[-1].violations != plain[-1].violations:
                raise SystemExit(f"violation totals differ: {ours[-1]} vs {plain[-1]}")
            print(
                f"run {run}: scorer {ours[-1].wall:6.2f} s wall {ours[-1].cpu:6.2f} s CPU"
                f"   plain flake8 {plain[-1].wall:6.2f} s wall {plain[-1].cpu:6.2f} s CPU"
            )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print(f"{'median':14}{'scorer':>12}{'plain flake8':>16}{'throughput':>14}")
    for label, field in (("wall (s)", "wall"), ("CPU (s)", "cpu")):
        ours_median = statistics.median(getattr(t, field) for t in ours)
        plain_median = statistics.median(getattr(t, field) for t in plain)
        ratio = 100 * plain_median / ours_median
        print(f"{label:14}{ours_median:12.2f}{plain_median:16.2f}{ratio:13.1f}%")
    wall_median = statistics.median(t.wall for t in ours)
    print(f"scorer: {len(cases) / wall_median:.1f} answers/s; target: throughput >= 90 %")


if __name__ == "__main__":
    main()
