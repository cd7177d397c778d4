"""Candidate output budgets (``max_tokens``) per task and length, and the reference answers
they were measured from.

A budget must let a correct answer finish: the paragraph-reordering answer at 8k alone runs
to about 10,000 cl100k tokens, over the official 8,192. ``bench/longweave_output_budgets.py``
builds a correct answer for every sample where one can be built (KVG, SMS, PR, and for CF a
clean program of the same size) and measures it; ``OUTPUT_BUDGETS`` holds the results of
that measurement with the margin below. The prose tasks (BioG, SR, NW) have no single correct
answer: their budget is the requested word count at the measured tokens per word of the
tasks' reference sentences, with the same margin.

Rule: budget = max(8,192, MARGIN x basis, rounded up to a multiple of 512), basis = the
largest measured answer (prose: the median). 8,192 is the official ``max_tokens``; cells whose
correct answers fit in it keep it.
"""

from __future__ import annotations

import math

from proseval.kit import Sample

from .generators._cf_program import write_program
from .generators._rng import main_rng, seed_key
from .generators.params import params

#: The official candidate ``max_tokens``; the floor of every budget.
OFFICIAL_MAX_TOKENS = 8192
#: Head room over the largest measured correct answer (tokenizers other than cl100k, and
#: formatting a model adds around the answer: fences, blank lines, a header).
MARGIN = 1.3
#: Budgets are rounded up to a multiple of this.
STEP = 512

#: The measured basis per cell (``bench/longweave_output_budgets.py``, samples 0..199, seed 0):
#: cl100k tokens of the largest correct answer; prose tasks: the requested words at the median
#: tokens per word of the reference sentences.
MEASURED_MAX_TOKENS: dict[str, dict[str, int]] = {
    "cf": {"1k": 788, "2k": 1_436, "4k": 2_660, "8k": 5_234},
    "biog": {"1k": 1_588, "2k": 3_164, "4k": 6_334, "8k": 12_584},
    "sr": {"1k": 1_602, "2k": 3_194, "4k": 6_304, "8k": 12_630},
    "nw": {"1k": 1_284, "2k": 2_598, "4k": 5_167, "8k": 10_354},
    "kvg": {"1k": 897, "2k": 1_777, "4k": 3_554, "8k": 7_082},
    "sms": {"1k": 672, "2k": 1_332, "4k": 2_652, "8k": 5_292},
    "pr": {"1k": 1_446, "2k": 2_846, "4k": 5_476, "8k": 10_901},
}


def budget_from_measure(max_tokens: int) -> int:
    """The budget rule applied to one measured maximum."""
    scaled = math.ceil(max_tokens * MARGIN / STEP) * STEP
    return max(OFFICIAL_MAX_TOKENS, scaled)


OUTPUT_BUDGETS: dict[str, dict[str, int]] = {
    task: {length: budget_from_measure(tokens) for length, tokens in cells.items()}
    for task, cells in MEASURED_MAX_TOKENS.items()
}


def output_budget(task: str, length: str) -> int:
    """The default candidate ``max_tokens`` for a sample of `task` at `length`."""
    return OUTPUT_BUDGETS[task][length]


def reference_answer(sample: Sample) -> str | None:
    """A correct answer to `sample`, or None for the prose tasks (no single correct answer).

    KVG: the reference dictionary; SMS: the full trace table; PR: the segments in the original
    order; CF: a clean program with the same number of functions, drawn by the same generator
    with pollution and syntax slips off (the polluted program's own clean form is not kept).
    """
    task, target = sample.metadata["task"], sample.target
    if task == "kvg":
        return "{" + ", ".join(f"'{k}': '{v}'" for k, v in target["reference_dictionary"]) + "}"
    if task == "sms":
        return sms_table(target)
    if task == "pr":
        return "\n\n".join(f"[[Segment {i}]]\n{text}" for i, text in enumerate(target["segments"]))
    if task == "cf":
        return "```python\n" + clean_program(sample) + "\n```"
    return None


def sms_table(target: dict) -> str:
    """The header, the dash line and one row per input symbol of the true trace."""
    header = "Current State | Input | Next State | Output Signal"
    nexts = target["expected_states"]
    currents = [target["initial_state"], *nexts[:-1]]
    rows = [
        f"{cur} | {symbol} | {nxt} | {out}"
        for cur, symbol, nxt, out in zip(currents, target["input_string"], nexts, target["expected_outputs"])
    ]
    return "\n".join([header, "-" * len(header), *rows])


def clean_program(sample: Sample) -> str:
    """An unpolluted program with the sample's function count (same first draw)."""
    meta = sample.metadata
    p = params("cf", meta["length"])
    rng = main_rng(seed_key("cf", meta["length"], meta["index"], meta["seed"]))
    return write_program(rng, rng.randint(*p["num_functions"]), 0.0, p["unused_import_sites"], 0.0).code
