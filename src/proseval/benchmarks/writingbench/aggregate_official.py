"""Official-compatibility aggregation: the numbers of the official ``calculate_scores.py``.

Use this only to reproduce official tables from official score files; proseval's own
results come from :mod:`proseval.benchmarks.writingbench.aggregate`. Reproduced exactly,
including the official quirks:

* ``Overall`` averages every individual score of every line and ``Count`` counts lines,
  duplicated lines (left by the official resume) included;
* per-query values come from the **last** line of an index, which keeps the position of its
  **first** line (this order drives the summation and the column tie order);
* ``Domain*`` of a domain without scored queries is None; ``*_R``/``*_C`` without queries
  is the integer 0;
* ``*_C`` averages over (query, C criterion) pairs; indices missing from the benchmark
  count in ``Overall``/``Count`` only;
* ``Domain2_*`` columns are sorted, within each domain1, by their mean across the models
  aggregated together, descending, ties in first-seen order.

Sums run left to right in plain double arithmetic, which is what the official script does
under Python 3.11 and earlier; Python 3.12's compensated ``sum`` changes the last bits of
some ``*_R``/``*_C`` values (about 1e-15 relative). Inputs on which the official script
crashes (empty file, empty ``scores``, empty score list, missing C criterion) raise
ValueError here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from proseval.benchmarks.writingbench.data import DOMAIN1_LABELS, REQUIREMENTS, WritingBench
from proseval.benchmarks.writingbench.scorefile import ScoreLine


def _plain_sum(values: Sequence[float]) -> float:
    total: float = 0
    for value in values:
        total += value
    return total


def _line_values(line: ScoreLine, model: str) -> list[float]:
    values = [evaluation["score"] for evaluations in line.scores.values() for evaluation in evaluations]
    empty = not line.scores or any(not evaluations for evaluations in line.scores.values())
    if empty:
        raise ValueError(
            f"{model}: index {line.index} has an empty score map or list (the official script divides by zero)"
        )
    return values


def official_row(model: str, lines: Sequence[ScoreLine], bench: WritingBench) -> dict[str, Any]:
    """One model's row: ``Model``, ``Overall``, ``Count``, 6 ``Domain1_*``, the scored
    ``Domain2_*`` (in first-appearance order) and ``{style,format,length}_{R,C}``."""
    if not lines:
        raise ValueError(f"{model}: empty score file (the official script divides by zero)")
    grand_total: float = 0
    grand_count = 0
    last: dict[int, ScoreLine] = {}
    for line in lines:
        values = _line_values(line, model)
        grand_total += _plain_sum(values)
        grand_count += len(values)
        last[line.index] = line  # dict keeps the first insertion position, the last value

    def mean_of(values: Sequence[float]) -> float:
        return _plain_sum(values) / len(values)

    per_query = {index: mean_of(_line_values(line, model)) for index, line in last.items()}
    row: dict[str, Any] = {"Model": model, "Overall": grand_total / grand_count, "Count": len(lines)}
    known = [index for index in per_query if index in bench]
    for label in DOMAIN1_LABELS:
        values = [per_query[i] for i in known if bench.query(i).domain1 == label]
        row[f"Domain1_{label}"] = mean_of(values) if values else None
    for domain2 in dict.fromkeys(bench.query(i).domain2 for i in known):
        row[f"Domain2_{domain2}"] = mean_of([per_query[i] for i in known if bench.query(i).domain2 == domain2])
    for dim in REQUIREMENTS:
        subset = bench.requirements[dim]
        present = [index for index in subset.indices if index in per_query]
        pairs = []
        for index in present:
            scores = last[index].scores
            for name in subset.criteria[index]:
                if name not in scores:
                    raise ValueError(
                        f"{model}: index {index} lacks the {dim} criterion {name!r} (the official script fails)"
                    )
                pairs.append(mean_of([evaluation["score"] for evaluation in scores[name]]))
        row[f"{dim}_R"] = mean_of([per_query[i] for i in present]) if present else 0
        row[f"{dim}_C"] = mean_of(pairs) if pairs else 0
    return row


def official_columns(rows: Sequence[dict[str, Any]], bench: WritingBench) -> list[str]:
    """The official column order for rows aggregated together (in the given row order)."""
    domain1_of = {query.domain2: query.domain1 for query in bench.queries}
    seen = list(dict.fromkeys(key for row in rows for key in row if key.startswith("Domain2_")))

    def mean_across_rows(column: str) -> float:
        values = [row[column] for row in rows if row.get(column) is not None]
        return _plain_sum(values) / len(values)

    domain2 = [
        column
        for label in DOMAIN1_LABELS
        for column in sorted(
            (c for c in seen if domain1_of[c.removeprefix("Domain2_")] == label),
            key=mean_across_rows,
            reverse=True,
        )
    ]
    requirement = [f"{dim}_{kind}" for dim in REQUIREMENTS for kind in ("R", "C")]
    return ["Model", "Overall", "Count", *(f"Domain1_{label}" for label in DOMAIN1_LABELS), *domain2, *requirement]


def official_table(
    runs: Sequence[tuple[str, Sequence[ScoreLine]]], bench: WritingBench
) -> tuple[list[str], list[dict[str, Any]]]:
    """Columns and rows for several models aggregated together (one row per model, in order).

    A column that a model lacks is None in its row.
    """
    rows = [official_row(model, lines, bench) for model, lines in runs]
    columns = official_columns(rows, bench)
    return columns, [{column: row.get(column) for column in columns} for row in rows]
