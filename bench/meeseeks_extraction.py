"""Meeseeks code-guided extraction throughput: sandboxed programs per second.

Runs the extraction programs recorded in the official sample run (`extraction_code` of
`official_sample_run_zh/round_*.json`, with the response each was written for) through the
sandbox exactly as `proseval run meeseeks` does (`run_function_async`, default limits),
`--concurrency` at a time, and prints programs/s per run with the median, and how many
programs gave the recorded extraction.

    python bench/meeseeks_extraction.py --shared ../shared --repeats 10 --runs 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path

from _common import machine
from proseval.benchmarks.meeseeks.extract import code_from_answer
from proseval.sandbox import run_function_async


def programs(shared: Path) -> list[tuple[str, str, list[str] | None]]:
    """(code, response, recorded extraction) for every recorded extraction program."""
    found = []
    for path in sorted((shared / "data/meeseeks/official_sample_run_zh").glob("round_*.json")):
        for item in json.loads(path.read_text(encoding="utf-8")):
            for key, answer in (item.get("extraction_code") or {}).items():
                code = code_from_answer(answer)
                if code is not None:
                    found.append((code, item["model_response"], (item.get("extraction_results") or {}).get(key)))
    return found


async def one_run(jobs: list[tuple[str, str, list[str] | None]], concurrency: int) -> tuple[float, int, int]:
    gate = asyncio.Semaphore(concurrency)
    agree = ok = 0

    async def run(code: str, response: str, recorded: list[str] | None) -> None:
        nonlocal agree, ok
        async with gate:
            result = await run_function_async(code, response)
        ok += result.ok
        agree += result.ok and result.value == recorded

    start = time.perf_counter()
    await asyncio.gather(*(run(*job) for job in jobs))
    return time.perf_counter() - start, ok, agree


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    parser.add_argument("--repeats", type=int, default=10, help="times each program is run in one measurement")
    parser.add_argument("--runs", type=int, default=5, help="measurements; the median is reported")
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    recorded = programs(args.shared)
    jobs = recorded * args.repeats
    print(machine())
    print(
        f"{len(recorded)} recorded programs x {args.repeats} = {len(jobs)} sandbox runs per measurement, "
        f"concurrency {args.concurrency}"
    )
    rates = []
    for i in range(args.runs):
        seconds, ok, agree = asyncio.run(one_run(jobs, args.concurrency))
        rates.append(len(jobs) / seconds)
        print(f"run {i + 1}: {seconds:.2f} s, {rates[-1]:.1f} programs/s, {ok} ok, {agree} equal to the recorded list")
    print(f"median: {statistics.median(rates):.1f} programs/s")


if __name__ == "__main__":
    main()
