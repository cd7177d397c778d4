"""Throughput of the Meeseeks rule checkers on the official data.

Every rule sub-question of the official item files is checked against recorded extraction
lists from the differential vectors: the vector cases of the same (dispatcher, label), or,
for labels withheld from the vectors, those of the same rule family. SCHEMA checks read the
recorded raw responses. Reports checks per second (median of several runs).

    python bench/meeseeks_rules.py [--shared ../shared] [--runs 5] [--max-cases-per-label 3]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from proseval.benchmarks.meeseeks.data import load_items
from proseval.benchmarks.meeseeks.rules.base import RuleContext
from proseval.benchmarks.meeseeks.rules.registry import evaluate_rule, label_family

REPO = Path(__file__).resolve().parents[1]


def build_workload(shared: Path, per_label: int) -> list[tuple[str, object, RuleContext, str]]:
    """(label, extracted items, context, dispatcher) for every rule sub-question × recorded inputs."""
    by_label: dict[tuple[str, str], list[dict]] = defaultdict(list)
    by_family: dict[tuple[str, str], list[dict]] = defaultdict(list)
    with (shared / "vectors" / "meeseeks" / "rule_vectors.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            case = json.loads(line)
            by_label[(case["checker_family"], case["rule"])].append(case)
            by_family[(case["checker_family"], label_family(case["rule"], case["checker_family"]))].append(case)
    workload = []
    for item in load_items(shared / "data" / "meeseeks"):
        for sub in item.sub_questions:
            if sub.rule is None:
                continue
            cases = by_label.get((item.dispatcher, sub.rule)) or by_family.get(
                (item.dispatcher, label_family(sub.rule, item.dispatcher)), []
            )
            for case in cases[:per_label]:
                ctx = RuleContext(language=item.language, json_schema=item.json_schema)
                workload.append((sub.rule, case["items"], ctx, item.dispatcher))
    return workload


def run_once(workload) -> tuple[float, Counter]:
    statuses: Counter = Counter()
    start = time.perf_counter()
    for label, items, ctx, dispatcher in workload:
        statuses[evaluate_rule(label, items, ctx, dispatcher).status] += 1
    return time.perf_counter() - start, statuses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--max-cases-per-label", type=int, default=3)
    args = parser.parse_args(argv)

    workload = build_workload(args.shared, args.max_cases_per_label)
    run_once(workload)  # warm-up: loads lemma dictionaries and character tables once
    timings, statuses = [], Counter()
    for _ in range(args.runs):
        seconds, statuses = run_once(workload)
        timings.append(seconds)
    median = statistics.median(timings)
    statuses_total = sum(statuses.values())
    result = {
        "checks": statuses_total,
        "runs": args.runs,
        "median_seconds": round(median, 3),
        "checks_per_second": round(statuses_total / median),
        "statuses": dict(statuses),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
