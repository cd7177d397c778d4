"""Throughput of LongWeave's rule-based CF scoring against plain flake8 on the same files.

Scores the CF answers of the differential vectors (repeated `--repeat` times) with
`score_cf_batch` in N processes, and runs the ``flake8`` command line with the same plugins,
selection and N jobs over exactly the files the scorer sends to flake8. The two are run
alternately `--runs` times; medians are compared. The scorer's time includes everything:
code extraction, compile checks, writing the files, flake8 and the formulas.

    PYTHONPATH=src python bench/longweave_score.py [--processes 2] [--runs 5] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from proseval.benchmarks.longweave.scorers.cf import (
    CFCase,
    CFConfig,
    compile_error,
    extract_code,
    score_cf_batch,
)
from proseval.benchmarks.longweave.scorers.code_checks import installed_versions

DEFAULT_VECTORS = (
    Path(__file__).resolve().parents[2]
    / "shared"
    / "vectors"
    / "longweave"
    / "cf.jsonl"
)


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


def time_scorer(
    cases: list[CFCase], config: CFConfig, processes: int
) -> tuple[float, int]:
    start = time.perf_counter()
    scores = score_cf_batch(cases, processes=processes, config=config)
    elapsed = time.perf_counter() - start
    return elapsed, sum(score.trace.get("violations", 0) for score in scores)


def time_flake8(command: list[str]) -> tuple[float, int]:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    elapsed = time.perf_counter() - start
    return elapsed, int(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vectors", type=Path, default=DEFAULT_VECTORS)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--repeat", type=int, default=1, help="repeat the answers this many times"
    )
    args = parser.parse_args()

    config = CFConfig()
    cases = load_cases(args.vectors, args.repeat)
    codes = [extract_code(case.answer)[0] for case in cases]
    checked = [code for code in codes if code and compile_error(code) is None]

    print(
        f"machine: {os.cpu_count()} CPUs ({cpu_model()}), Python {platform.python_version()}"
    )
    print(f"flake8 stack: {installed_versions()}")
    print(
        f"answers: {len(cases)}; files sent to flake8: {len(checked)}; processes: {args.processes}"
    )
    with tempfile.TemporaryDirectory(prefix="proseval_bench_") as folder:
        for index, code in enumerate(checked):
            Path(folder, f"answer_{index}.py").write_text(
                code, encoding="utf-8", newline=""
            )
        command = flake8_command(config, args.processes, folder)
        ours, plain = [], []
        for run in range(1, args.runs + 1):
            ours_time, ours_count = time_scorer(cases, config, args.processes)
            plain_time, plain_count = time_flake8(command)
            if ours_count != plain_count:
                raise SystemExit(
                    f"violation totals differ: scorer {ours_count}, flake8 {plain_count}"
                )
            ours.append(ours_time)
            plain.append(plain_time)
            print(
                f"run {run}: scorer {ours_time:7.2f} s   plain flake8 {plain_time:7.2f} s"
            )
    ours_median, plain_median = statistics.median(ours), statistics.median(plain)
    print(f"{'':14}{'scorer':>12}{'plain flake8':>16}")
    print(f"{'median (s)':14}{ours_median:12.2f}{plain_median:16.2f}")
    print(
        f"{'answers / s':14}{len(cases) / ours_median:12.1f}{len(cases) / plain_median:16.1f}"
    )
    print(
        f"scorer throughput = {100 * plain_median / ours_median:.1f} % of plain flake8 (target >= 90 %)"
    )


if __name__ == "__main__":
    main()
