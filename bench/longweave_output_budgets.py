"""Output sizes of correct LongWeave answers in cl100k tokens, per task x length.

For every sample 0..N-1 (seed 0) a correct answer is built where one can be (KVG: the
reference dictionary; SMS: the full trace table; PR: the segments in the original order; CF:
a clean program with the same function count) and measured: min / median / max cl100k tokens
and tokens per target word. The prose tasks (BioG, SR, NW) have no single correct answer;
their reference sentences (BioG target sentences, SR answers, NW corrected statements) give the
tokens per word of the prose, and the budget is the requested word count at that rate.
`basis` is the largest answer (prose: the median), and the last columns show the budget rule of `proseval.benchmarks.longweave.budgets` applied to
the maximum, next to the budget the task currently uses.

    .venv/bin/python bench/longweave_output_budgets.py [--samples 200] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from _common import ROOT, machine  # noqa: F401  (puts src/ on the path)
from proseval.benchmarks.longweave.budgets import (
    budget_from_measure,
    output_budget,
    reference_answer,
)
from proseval.benchmarks.longweave.generators import LENGTHS, TASKS, generate
from proseval.benchmarks.longweave.scorers.length import count_words
from proseval.core.sample import Sample
from proseval.tokens import count_tokens

PROSE = ("biog", "sr", "nw")


def reference_prose(sample: Sample) -> str:
    """The reference sentences of a prose sample, one paragraph."""
    target, task = sample.target, sample.metadata["task"]
    if task == "biog":
        return " ".join(target["target_sentences"])
    if task == "sr":
        return " ".join(pair["answer"] for pair in target["qa_pairs"])
    return " ".join(statement["correct"] for statement in target["statements"])


def measure_cell(task: str, length: str, samples: int) -> dict[str, float | int]:
    sizes, rates = [], []
    for index in range(samples):
        sample = generate(task, length, index)
        target_words = int(sample.metadata["target_words"])
        if task in PROSE:
            text = reference_prose(sample)
            rates.append(count_tokens(text) / count_words(text))
            continue
        answer = reference_answer(sample)
        assert answer is not None
        tokens = count_tokens(answer)
        sizes.append(tokens)
        rates.append(tokens / target_words)
    rate = statistics.median(rates)
    if task in PROSE:  # a text of exactly the requested length at each sample's rate
        sizes = [round(target_words * r) for r in rates]
    median = round(statistics.median(sizes))
    # The rule's basis: the largest correct answer; for prose, the typical rate (there is no
    # correct answer, and one reference text's dense rate is not a model's prose).
    return {
        "min": min(sizes),
        "median": median,
        "max": max(sizes),
        "tokens_per_target_word": round(rate, 3),
        "basis": median if task in PROSE else max(sizes),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200, help="samples per task x length")
    parser.add_argument("--json", type=Path, help="also write the table as JSON")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print(f"samples per cell: {args.samples} (seed 0); tokens: cl100k_base")
    start = time.perf_counter()
    table: dict[str, dict[str, dict]] = {}
    print(
        f"{'task':5} {'len':4} {'min':>7} {'median':>7} {'max':>7} {'tok/word':>9} "
        f"{'basis':>7} {'rule':>7} {'in use':>7}"
    )
    for task in TASKS:
        for length in LENGTHS:
            cell = measure_cell(task, length, args.samples)
            table.setdefault(task, {})[length] = cell
            print(
                f"{task:5} {length:4} {cell['min']:7} {cell['median']:7} {cell['max']:7} "
                f"{cell['tokens_per_target_word']:9.3f} {cell['basis']:7} {budget_from_measure(int(cell['basis'])):7} "
                f"{output_budget(task, length):7}"
            )
    print(f"done in {time.perf_counter() - start:.1f} s")
    if args.json:
        args.json.write_text(json.dumps(table, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
