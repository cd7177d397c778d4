"""Reproduce, offline, every published figure the official files allow, and print ours beside it.

    python tools/reproduce_offline.py [--shared ../shared]

Figures: the WritingBench aggregation on the official aggregation cases (every column of every
case), the Meeseeks official English round statistics (capability tree, Utility Rate as a
whole-item fraction, and why the level-1 mean is not the Meeseeks Score) and the Meeseeks
official sample run (statistics recomputed from its per-item round files).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from proseval.benchmarks.meeseeks.metrics import ENGLISH_NAMES, Check, capability_tree, checks_from_sub_questions, level1_score
from proseval.benchmarks.meeseeks.report import official_round_stats, rounds_report
from proseval.benchmarks.writingbench.aggregate_official import official_row
from proseval.benchmarks.writingbench.data import load_benchmark
from proseval.benchmarks.writingbench.scorefile import parse_score_file


def writingbench(shared: Path) -> list[tuple[str, str, str]]:
    bench = load_benchmark(shared / "data" / "writingbench")
    cases = [json.loads(line) for line in (shared / "vectors" / "writingbench" / "aggregation_cases.jsonl").open()]
    cells = equal = 0
    for case in cases:
        raw = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in case["scores"]).encode()
        row = official_row(case["id"], parse_score_file(raw, case["id"]), bench)
        for column, value in case["official"].items():
            cells += 1
            equal += row[column] == value and type(row[column]) is type(value)
    first = cases[0]
    row = official_row(first["id"], parse_score_file(
        "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in first["scores"]).encode(), first["id"]), bench)
    return [("WritingBench aggregation, every column of the 12 official cases (bit-exact, same type)",
             f"{cells} cells", f"{equal} of {cells} equal"),
            (f"WritingBench `Overall` of case {first['id']}", repr(first["official"]["Overall"]), repr(row["Overall"]))]


def _leaf_checks(nodes: dict, names: dict[str, str]) -> list[Check]:
    checks = []
    for name, node in nodes.items():
        if node["children"]:
            checks += _leaf_checks(node["children"], names)
        else:
            checks += [Check(names[name], 1)] * node["correct"] + [Check(names[name], 0)] * node["wrong"]
    return checks


def meeseeks_english(shared: Path) -> list[tuple[str, str, str]]:
    names = {english: chinese for chinese, english in ENGLISH_NAMES.items()}
    rows = []
    for number in (1, 2):
        official = json.loads((shared / "data" / "meeseeks" / f"round_{number}_stats_english_official.json").read_text())
        checks = _leaf_checks(official["capability_stats"], names)
        ours = official_round_stats(number, [checks], english=True)
        total = official["total_items"]
        passed = round(official["utility_score"] * total)
        rows += [
            (f"Meeseeks English round {number}: capability tree rebuilt from its leaves",
             "published `capability_stats`", "identical" if ours["capability_stats"] == official["capability_stats"]
             else "DIFFERENT"),
            (f"Meeseeks English round {number}: Utility Rate", f"{official['utility_score']:.6f}",
             f"{passed}/{total} = {passed / total:.6f} (whole items)"),
            (f"Meeseeks English round {number}: Meeseeks Score vs mean of level-1 capabilities",
             f"{official['meeseeks_score']:.4f}", f"level-1 mean {level1_score(capability_tree([checks])):.4f} "
             "(a different figure: the Meeseeks Score is per item, App. D.2)"),
        ]
    return rows


def meeseeks_sample(shared: Path) -> list[tuple[str, str, str]]:
    folder = shared / "data" / "meeseeks" / "official_sample_run_zh"
    rounds, ids = [], []
    for name in ("round_1.json", "round_2.json"):
        items = json.loads((folder / name).read_text(encoding="utf-8"))
        rounds.append({item["og_question"]: checks_from_sub_questions(item["sub_questions"]) for item in items})
        ids += [key for key in rounds[-1] if key not in ids]
    report = rounds_report(rounds, ids, english=False)
    by_hand = {1: "50/70 = 0.714286 / 4/10", 2: "48/70 = 0.685714 / 4/10"}  # the recorded verdicts, counted by hand
    return [(f"Meeseeks official sample run (zh), round {e['official']['round']}: Meeseeks Score / Utility Rate",
             f"{by_hand[e['official']['round']]} (hand count)", f"{e['official']['meeseeks_score']:.6f} / "
             f"{e['official']['utility_score']:.6f}") for e in report]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[1].parent / "shared")
    shared = parser.parse_args().shared
    print("| figure | published / official | proseval |\n| --- | --- | --- |")
    for row in writingbench(shared) + meeseeks_english(shared) + meeseeks_sample(shared):
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
