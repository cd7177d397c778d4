"""Generation parameters of every LongWeave task at every length: the single source of truth.

Each knob records its per-length values, where the value comes from and what it controls.
``source`` is one of:

- ``official``: fixed by the official code or configuration (spec section 3/4);
- ``paper``: stated in the LongWeave paper;
- ``proseval``: unknown in the official release, chosen and calibrated by proseval.

``proseval docs longweave`` shows these tables as rendered by :func:`parameter_tables_markdown`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

GENERATOR_VERSION = "1"

TARGET_WORDS: dict[str, int] = {"1k": 1024, "2k": 2048, "4k": 4096, "8k": 8192}
LENGTHS: tuple[str, ...] = tuple(TARGET_WORDS)


@dataclass(frozen=True)
class Knob:
    """One generation parameter: a value per length, its origin and its meaning."""

    values: tuple[Any, Any, Any, Any]  # in LENGTHS order
    source: str
    meaning: str


def _same(value: Any, source: str, meaning: str) -> Knob:
    return Knob((value, value, value, value), source, meaning)


KNOBS: dict[str, dict[str, Knob]] = {
    "cf": {
        "violation_probability": _same(0.85, "paper", "probability that each violation site is polluted"),
        "num_functions": Knob(
            ((7, 9), (16, 19), (34, 38), (70, 76)),
            "proseval",
            "helper functions before `main` (inclusive range); the anchor counts them plus `main`",
        ),
        "unused_import_sites": Knob((2, 3, 4, 6), "proseval", "sites where an unused import (F401) may be added"),
        "syntax_slip_rate": _same(
            0.04,
            "proseval",
            "probability that a function's `def` line loses its colon (deliberate syntax error)",
        ),
    },
    "biog": {
        "num_facts": Knob(
            ((80, 90), (160, 180), (320, 360), (640, 720)),
            "proseval",
            "facts (triples = target sentences) per person, about one per 12 target words",
        ),
        "reference_year": _same(2025, "proseval", "fixed 'now' that anchors every date"),
    },
    "sr": {
        "num_records": Knob((60, 120, 240, 480), "proseval", "transactions (CSV rows)"),
        "num_reps": Knob((8, 12, 16, 20), "proseval", "sales representatives"),
        "num_customers": Knob((40, 70, 130, 250), "proseval", "customer pool"),
        "num_questions": Knob((10, 20, 40, 60), "proseval", "questions the report must answer"),
        "num_products": _same(20, "official", "products in the catalogue"),
        "top_weight": _same(3.5, "official", "draw weight of the top rep and top product"),
        "bottom_weight": _same(0.2, "official", "draw weight of the bottom rep"),
    },
    "nw": {
        "num_categories": Knob((2, 5, 8, 10), "official", "AP rule categories (all ten, in list order, at 8k)"),
        "statements_per_category": Knob((4, 4, 5, 7), "proseval", "rule-breaking statements per selected category"),
    },
    "kvg": {
        "num_entries": Knob((20, 40, 80, 160), "official", "entries of the dictionary"),
        "key_length": _same(32, "paper", "characters per key"),
        "value_length": _same(32, "paper", "characters per value"),
        "index_percentiles": _same("5, 10, ..., 95", "official", "target index = round(p/100 * (N-1))"),
    },
    "sms": {
        "input_length": Knob((55, 110, 220, 440), "official", "input symbols = table rows"),
        "num_states": _same(3, "paper", "states S0..S2; start state S0"),
        "input_size": _same(3, "paper", "input symbols 0..2"),
        "output_size": _same(3, "paper", "output symbols 0..2"),
        "example_length": _same(3, "official", "symbols in the worked example (drawn independently of the input)"),
    },
    "pr": {
        "num_segments": Knob(
            ((5, 8), (8, 12), (12, 18), (18, 28)),
            "proseval",
            "paragraphs per document (inclusive range)",
        ),
        "doc_words": Knob(
            (1024, 2048, 4096, 8192),
            "proseval",
            "approximate words per document (the answer repeats the whole document)",
        ),
    },
}

TASKS: tuple[str, ...] = tuple(KNOBS)
TITLES: dict[str, str] = {
    "cf": "CF — code fixing with flake8 compliance",
    "biog": "BioG — KG-to-text biography",
    "sr": "SR — CSV sales report",
    "nw": "NW — AP-style news writing",
    "kvg": "KVG — KV dictionary generation",
    "sms": "SMS — state-machine simulation",
    "pr": "PR — paragraph reordering",
}


def params(task: str, length: str) -> dict[str, Any]:
    """The knob values of ``task`` at ``length``."""
    column = LENGTHS.index(length)
    return {name: knob.values[column] for name, knob in KNOBS[task].items()}


def _cell(value: Any) -> str:
    if isinstance(value, tuple):
        return f"{value[0]}–{value[1]}"
    return str(value)


def parameter_tables_markdown() -> str:
    """One Markdown table per task: knob, value per length, source, meaning."""
    blocks = []
    for task, knobs in KNOBS.items():
        rows = [
            f"### {TITLES[task]}",
            "",
            "| knob | " + " | ".join(LENGTHS) + " | source | meaning |",
            "|---|" + "---|" * len(LENGTHS) + "---|---|",
        ]
        for name, knob in knobs.items():
            cells = " | ".join(_cell(v) for v in knob.values)
            rows.append(f"| `{name}` | {cells} | {knob.source} | {knob.meaning} |")
        blocks.append("\n".join(rows))
    return "\n\n".join(blocks) + "\n"
