"""C3EBench tables: task x language with bootstrap CIs, genres, reference sources; chart and markdown."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from proseval.kit.charts import ci_errors
from proseval.kit.measures import bootstrap_ci
from proseval.kit.runs import ScoredSample

METRIC = "c3e"
TASK_ORDER = ("cloze", "expand", "edit", "end2end")
TASK_LABELS = {"cloze": "Cloze", "expand": "Expand", "edit": "Edit", "end2end": "End2End"}


def _row(labels: dict[str, str], samples: list[ScoredSample]) -> dict[str, Any]:
    """Mean and CI over the scored samples; unscored, failed and empty answers counted beside them."""
    values, official, unscored, failed, empty = [], [], 0, 0, 0
    for sample in samples:
        if sample.status != "ok":
            failed += 1
            continue
        empty += sample.model_failure == "empty"
        score = sample.scores.get(METRIC)
        if score is None or score.value is None:
            unscored += 1
        else:
            values.append(float(score.value))
        kept = score.metadata.get("official") if score is not None else None
        if kept is not None:
            official.append(float(kept))
    # one score has no spread to resample: no interval (the cell shows a dash and n = 1)
    low, high = bootstrap_ci(values)
    return {
        **labels,
        "mean": sum(values) / len(values) if values else None,
        "ci_low": low,
        "ci_high": high,
        "n_scored": len(values),
        "n_unscored": unscored,
        "n_failed": failed,
        "n_empty": empty,
        "official_mean": sum(official) / len(official) if official else None,
        "official_n": len(official),
    }


def _grouped(
    samples: Iterable[ScoredSample], key: Callable[[ScoredSample], tuple[str, ...]], names: tuple[str, ...]
) -> list[dict[str, Any]]:
    groups: dict[tuple[str, ...], list[ScoredSample]] = {}
    for sample in samples:
        groups.setdefault(key(sample), []).append(sample)
    return [_row(dict(zip(names, labels)), members) for labels, members in groups.items()]


def _cost(labels: dict[str, str], samples: list[ScoredSample]) -> dict[str, Any]:
    """Judge calls and each role's tokens, per item (means over every finished item, failed ones included)."""
    n = len(samples)
    calls = sum(
        int((s.scores.get(METRIC).metadata if s.scores.get(METRIC) else {}).get("judge_calls", 0)) for s in samples
    )
    roles = sorted({role for s in samples for role in s.usage})
    tokens = {
        role: {
            "prompt": sum(s.usage[role].prompt_tokens for s in samples if role in s.usage) / n,
            "completion": sum(s.usage[role].completion_tokens for s in samples if role in s.usage) / n,
        }
        for role in roles
    }
    return {**labels, "n": n, "judge_calls": calls / n, "tokens": tokens}


def _task_rank(task: str) -> int:
    return TASK_ORDER.index(task) if task in TASK_ORDER else len(TASK_ORDER)


def summarize(samples: list[ScoredSample]) -> dict[str, Any]:
    """The figures of `results.json` → extra → c3ebench."""

    def meta(s: ScoredSample, k: str) -> str:
        return str(s.metadata.get(k, "(none)"))

    cells = _grouped(samples, lambda s: (meta(s, "task"), meta(s, "language")), ("task", "language"))
    cells.sort(key=lambda r: (_task_rank(r["task"]), r["language"]))
    languages = _grouped(samples, lambda s: (meta(s, "language"),), ("language",))
    languages.sort(key=lambda r: r["language"])
    genres = _grouped(samples, lambda s: (meta(s, "language"), meta(s, "genre")), ("language", "genre"))
    genres.sort(key=lambda r: (r["language"], -(r["n_scored"] + r["n_unscored"] + r["n_failed"]), r["genre"]))
    known = [s for s in samples if s.metadata.get("reference_source") in ("human", "hybrid")]
    sources = _grouped(
        known,
        lambda s: (meta(s, "language"), meta(s, "task"), meta(s, "reference_source")),
        ("language", "task", "reference_source"),
    )
    sources += _grouped(
        known,
        lambda s: (meta(s, "language"), "all", meta(s, "reference_source")),
        ("language", "task", "reference_source"),
    )
    sources.sort(key=lambda r: (r["language"], _task_rank(r["task"]), r["reference_source"]))
    statuses: dict[str, int] = {}
    for sample in samples:
        score = sample.scores.get(METRIC)
        if sample.status == "ok" and score is not None and score.value is None:
            statuses[score.parse_status] = statuses.get(score.parse_status, 0) + 1
    by_cell: dict[tuple[str, str], list[ScoredSample]] = {}
    for sample in samples:
        by_cell.setdefault((meta(sample, "task"), meta(sample, "language")), []).append(sample)
    cost = [_cost({"task": task, "language": language}, members) for (task, language), members in by_cell.items()]
    cost.sort(key=lambda r: (_task_rank(r["task"]), r["language"]))
    if samples:
        cost.append(_cost({"task": "all", "language": "all"}, samples))
    return {
        "cells": cells,
        "languages": languages,
        "genres": genres,
        "reference_sources": sources,
        "unscored_by_status": dict(sorted(statuses.items())),
        "cost_per_item": cost,
    }


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _ci(row: dict[str, Any]) -> str:
    if row["ci_low"] is None:
        return f"— (n = {row['n_scored']})" if row["n_scored"] == 1 else "—"
    return f"{row['ci_low']:.2f}–{row['ci_high']:.2f}"


def _tokens(pair: dict[str, float] | None) -> str:
    return "—" if pair is None else f"{pair['prompt']:,.0f} / {pair['completion']:,.0f}"


LABEL_COLUMNS = ("task", "lang", "genre", "reference")
COLUMNS = ("score 1-10", "95% CI", "scored", "unscored", "failed", "empty", "official mean")


def _cells(row: dict[str, Any]) -> list[str]:
    return [
        _fmt(row["mean"]),
        _ci(row),
        str(row["n_scored"]),
        str(row["n_unscored"]),
        str(row["n_failed"]),
        str(row["n_empty"]),
        _fmt(row["official_mean"]),
    ]


def tables(summary: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of each table."""
    out = [
        (
            "By task and language (reference = 6)",
            ["task", "lang", *COLUMNS],
            [[TASK_LABELS.get(r["task"], r["task"]), r["language"], *_cells(r)] for r in summary["cells"]],
        ),
        ("By language", ["lang", *COLUMNS], [[r["language"], *_cells(r)] for r in summary["languages"]]),
        ("By genre", ["lang", "genre", *COLUMNS], [[r["language"], r["genre"], *_cells(r)] for r in summary["genres"]]),
    ]
    cost = summary.get("cost_per_item") or []
    roles = sorted({role for row in cost for role in row["tokens"]})
    if cost:
        out.append(
            (
                "Calls and tokens per item",
                ["task", "lang", "items", "judge calls", *[f"{role} tokens in / out" for role in roles]],
                [
                    [
                        TASK_LABELS.get(r["task"], r["task"]),
                        r["language"],
                        str(r["n"]),
                        f"{r['judge_calls']:.2f}",
                        *[_tokens(r["tokens"].get(role)) for role in roles],
                    ]
                    for r in cost
                ],
            )
        )
    if summary["reference_sources"]:
        out.append(
            (
                "By reference source (human-written vs model-replaced)",
                ["lang", "task", "reference", *COLUMNS],
                [
                    [r["language"], TASK_LABELS.get(r["task"], r["task"]), r["reference_source"], *_cells(r)]
                    for r in summary["reference_sources"]
                ],
            )
        )
    return out


def markdown(summary: dict[str, Any]) -> str:
    parts = []
    for title, header, rows in tables(summary):
        lines = [f"## {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        parts.append("\n".join(lines))
    note = (
        "\n\nscored: judged 1-10 (an empty answer scores 1 without a judge call); unscored: the judge's answer "
        "was unusable after every re-ask; failed: the candidate request failed; official mean: the mean the "
        "official aggregation would report (unreadable answers and scores that are not JSON numbers, such as "
        '"7" or [7], silently dropped).\n'
    )
    return "# C3EBench results\n\n" + "\n\n".join(parts) + note


def chart_drawer(summary: dict[str, Any]) -> Callable[[Any], None] | None:
    """A function drawing the task x language means with their CIs, or None with nothing scored."""
    cells = [r for r in summary["cells"] if r["mean"] is not None]
    if not cells:
        return None

    def draw(axes: Any) -> None:
        languages = sorted({r["language"] for r in cells})
        tasks = [t for t in TASK_ORDER if any(r["task"] == t for r in cells)]
        width = 0.8 / len(languages)
        for offset, language in enumerate(languages):
            rows = {r["task"]: r for r in cells if r["language"] == language}
            xs = [i + offset * width for i, t in enumerate(tasks) if t in rows]
            points = [(rows[t]["mean"], rows[t]["ci_low"], rows[t]["ci_high"]) for t in tasks if t in rows]
            axes.bar(xs, [p[0] for p in points], width=width, yerr=ci_errors(points), capsize=3, label=language.upper())
        axes.axhline(6, color="grey", linestyle="--", linewidth=1, label="reference (6)")
        axes.set_xticks([i + width * (len(languages) - 1) / 2 for i in range(len(tasks))])
        axes.set_xticklabels([TASK_LABELS[t] for t in tasks])
        axes.set_ylim(0, 10)
        axes.set_ylabel("mean judge score (1-10), 95% CI")
        axes.set_title("C3EBench by task and language")

    return draw
