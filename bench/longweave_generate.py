"""Time the LongWeave generators: all tasks x lengths x N samples, median of repeats.

Usage: python bench/longweave_generate.py [--samples 200] [--repeats 3]
Prints one row per task (median seconds over the repeats) and the total.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

try:
    import proseval  # noqa: F401
except ImportError:  # running from a checkout without installing the package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from proseval.benchmarks.longweave.generators import LENGTHS, TASKS, generate_many


def time_task(task: str, samples: int) -> tuple[float, int, int]:
    """Seconds to generate every length of ``task``; total prompt chars and words."""
    start = time.perf_counter()
    chars = words = 0
    for length in LENGTHS:
        for sample in generate_many(task, length, samples):
            chars += len(sample.input)
            words += len(sample.input.split())
    return time.perf_counter() - start, chars, words


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200, help="samples per task and length")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    runs: dict[str, list[float]] = {task: [] for task in TASKS}
    sizes: dict[str, tuple[int, int]] = {}
    totals = []
    for _ in range(args.repeats):
        total = 0.0
        for task in TASKS:
            seconds, chars, words = time_task(task, args.samples)
            runs[task].append(seconds)
            sizes[task] = (chars, words)
            total += seconds
        totals.append(total)
    n = args.samples * len(LENGTHS)
    print(
        f"samples per task: {n} ({args.samples} x {len(LENGTHS)} lengths); "
        f"repeats: {args.repeats}; Python {sys.version.split()[0]}"
    )
    print("| task | median s | ms/sample | mean prompt chars | mean prompt words |")
    print("|---|---:|---:|---:|---:|")
    for task in TASKS:
        median = statistics.median(runs[task])
        chars, words = sizes[task]
        print(f"| {task} | {median:.2f} | {1000 * median / n:.2f} | {chars // n:,} | {words // n:,} |")
    print(
        f"| total ({n * len(TASKS):,} samples) | {statistics.median(totals):.2f} | "
        f"{1000 * statistics.median(totals) / (n * len(TASKS)):.2f} | | |"
    )


if __name__ == "__main__":
    main()
