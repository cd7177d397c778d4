"""Revision Distance tables for the terminal (`proseval run` / `proseval show`) and charts."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from proseval.benchmarks.revision_distance.aggregate import KEY
from proseval.kit.charts import chart


def _f(value: Any, digits: int = 2) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _pct(value: Any) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def _ci(value: Any, interval: Any, digits: int = 2) -> str:
    """A mean with its 95% interval: ``1.40 [0.62, 2.18]``."""
    if value is None or not interval:
        return _f(value, digits)
    return f"{_f(value, digits)} [{interval[0]:.{digits}f}, {interval[1]:.{digits}f}]"


def _pct_ci(value: Any, interval: Any) -> str:
    """A rate with its 95% interval: ``30.0% [10.8, 60.3]``."""
    if value is None or not interval:
        return _pct(value)
    return f"{_pct(value)} [{100 * interval[0]:.1f}, {100 * interval[1]:.1f}]"


def _unscored(data: dict[str, Any]) -> str:
    counts = data.get("unscored") or {}
    return ", ".join(f"{n} {status}" for status, n in counts.items()) or "0"


def _pairs_table(title: str, rows: list[tuple[str, str]]) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("measure")
    table.add_column("value [95% CI]", justify="right")
    for label, value in rows:
        table.add_row(label, value)
    return table


def _grid(title: str, columns: tuple[str, ...], rows: list[tuple[str, ...]]) -> Table:
    table = Table(title=title, title_justify="left")
    for index, column in enumerate(columns):
        table.add_column(column, justify="left" if index == 0 else "right")
    for row in rows:
        table.add_row(*row)
    return table


def drafts_tables(data: dict[str, Any]) -> list[Table]:
    norm = data.get("normalisation", {})
    distance = data["distance"]
    summary = _pairs_table(
        f"Revision Distance ({data['setting']}; lower is better)",
        [
            ("drafts scored", str(data["scored"])),
            ("unscored (reviser reply unusable)", _unscored(data)),
            ("mean distance (edits)", _ci(distance["mean"], distance.get("mean_ci"))),
            (
                "median / min / max",
                f"{_f(distance['median'], 1)} / {_f(distance['min'], 0)} / {_f(distance['max'], 0)}",
            ),
            *(
                [
                    (
                        f"edits per {data.get('per_words', 100)} words",
                        _ci(data.get("normalised_mean"), data.get("normalised_mean_ci")),
                    )
                ]
                if data.get("per_words", 100)
                else []
            ),
            *(
                [
                    (
                        f"weighted distance ({data['weighting']})",
                        _ci(data.get("weighted_mean"), data.get("weighted_mean_ci")),
                    )
                ]
                if data.get("weighting") not in (None, "none")
                else []
            ),
            (
                "grounded share (snippet found in draft)",
                _pct_ci(data.get("grounded_share"), data.get("grounded_share_ci")),
            ),
            (
                "grounded / ungrounded / insertions",
                f"{_f(data['grounded'], 0)} / {_f(data['ungrounded'], 0)} / {_f(data['insertions'], 0)}",
            ),
            (
                "edits listed / +split / −no-ops / −duplicates",
                f"{norm.get('raw_count', 0)} / {norm.get('split_added', 0)} / {norm.get('noops', 0)} / "
                f"{norm.get('duplicates', 0)}",
            ),
        ],
    )
    tables = [summary]
    for title, key, first in (("Edits by category", "categories", "category"), ("Edits by level", "levels", "level")):
        tables.append(
            _grid(
                title,
                (first, "mean per draft [95% CI]", "share of edits [95% CI]"),
                [
                    (name, _ci(cell["mean"], cell.get("mean_ci")), _pct_ci(cell["share"], cell.get("share_ci")))
                    for name, cell in data[key].items()
                ],
            )
        )
    baselines = data.get("baselines", {})
    if any(cell["n"] for cell in baselines.values()):
        tables.append(
            _grid(
                "Baselines beside the distance",
                (
                    "metric",
                    "mean F1 [95% CI]",
                    "drafts",
                    "Spearman ρ with −distance [95% CI]",
                    "drafts with a distance",
                ),
                [
                    (
                        name,
                        _ci(cell["mean"], cell.get("mean_ci"), 3),
                        str(cell["n"]),
                        _ci(cell["spearman_vs_neg_distance"], cell.get("spearman_ci"), 3),
                        str(cell.get("n_paired", cell["n"])),
                    )
                    for name, cell in baselines.items()
                ],
            )
        )
    if data.get("disagreements"):
        tables.append(
            _grid(
                "Where ROUGE-L and the distance disagree most (rank gap: + distance ranks it better)",
                ("draft", "distance", "ROUGE-L", "rank gap"),
                [
                    (row["id"], _f(row["distance"], 0), _f(row["rougeL"], 3), f"{row['rank_gap']:+.2f}")
                    for row in data["disagreements"]
                ],
            )
        )
    return tables


def _agreement_rows(data: dict[str, Any], what: str) -> list[tuple[str, str]]:
    return [
        (f"agreement (chosen needs fewer {what})", _pct_ci(data.get("agreement"), data.get("agreement_ci"))),
        ("ties", _pct_ci(data.get("tie_rate"), data.get("tie_rate_ci"))),
        (f"disagreement (rejected needs fewer {what})", _pct_ci(data.get("disagreement"), data.get("disagreement_ci"))),
        ("agreement without ties", _pct_ci(data.get("agreement_without_ties"), data.get("agreement_without_ties_ci"))),
    ]


def pairs_tables(data: dict[str, Any]) -> list[Table]:
    tables = [
        _pairs_table(
            "Pairwise agreement (does the preferred text need fewer edits?)",
            [
                ("pairs scored", str(data["scored"])),
                ("unscored pairs", _unscored(data)),
                *_agreement_rows(data, "edits"),
                ("mean distance chosen", _ci(data.get("mean_distance_chosen"), data.get("mean_distance_chosen_ci"))),
                (
                    "mean distance rejected",
                    _ci(data.get("mean_distance_rejected"), data.get("mean_distance_rejected_ci")),
                ),
                (
                    "Spearman ρ (human score vs −distance)",
                    _ci(data.get("spearman_human_vs_neg_distance"), data.get("spearman_human_vs_neg_distance_ci"), 3),
                ),
                (
                    "Spearman ρ (distance vs human score; the paper's R, printed −0.38)",
                    _ci(data.get("spearman_distance_vs_human"), data.get("spearman_distance_vs_human_ci"), 3),
                ),
                ("texts with a human score", str(data.get("human_scored_texts", 0))),
            ],
        )
    ]
    if weighted := data.get("weighted"):
        tables.append(
            _pairs_table(
                f"Pairwise agreement, weighted distance ({data['weighting']})",
                [
                    *_agreement_rows(weighted, "weighted edits"),
                    ("mean weighted distance chosen", _ci(weighted.get("mean_chosen"), weighted.get("mean_chosen_ci"))),
                    (
                        "mean weighted distance rejected",
                        _ci(weighted.get("mean_rejected"), weighted.get("mean_rejected_ci")),
                    ),
                ],
            )
        )
    if rouge := data.get("rouge"):
        tables.append(
            _grid(
                "ROUGE beside the distance: does the chosen text score higher?",
                (
                    "metric",
                    "agreement, pairs scored by the distance [95% CI]",
                    "ties",
                    "agreement, all pairs [95% CI]",
                    "Spearman ρ with human scores [95% CI]",
                ),
                [
                    (
                        name,
                        _pct_ci(cell["scored_pairs"]["agreement"], cell["scored_pairs"]["agreement_ci"]),
                        _pct(cell["scored_pairs"]["tie_rate"]),
                        _pct_ci(cell["all_pairs"]["agreement"], cell["all_pairs"]["agreement_ci"]),
                        _ci(cell["spearman_human"], cell.get("spearman_human_ci"), 3),
                    )
                    for name, cell in rouge.items()
                ],
            )
        )
    return tables


def stability_tables(data: dict[str, Any]) -> list[Table]:
    return [
        _pairs_table(
            f"Stability under word substitutions (seed {data['seed']}, rate {data['rate']})",
            [
                ("texts scored", str(data.get("drafts_scored", data["scored"]))),
                ("perturbed copies scored", str(data["scored"])),
                ("mean perturbed copies per text", _f(data.get("mean_perturbations"), 2)),
                (
                    "spread of D over a text's copies (App. H): mean",
                    _ci(data.get("mean_spread"), data.get("mean_spread_ci")),
                ),
                ("largest spread", _f(data.get("max_spread"), 0)),
                ("unscored drafts", _unscored(data)),
                ("drafts left out (no word safe to substitute)", str(len(data.get("skipped_unperturbable", [])))),
                (
                    "mean substitutions per draft",
                    _ci(data.get("mean_substitutions"), data.get("mean_substitutions_ci")),
                ),
                (
                    "mean distance original",
                    _ci(data.get("mean_distance_original"), data.get("mean_distance_original_ci")),
                ),
                (
                    "mean distance perturbed",
                    _ci(data.get("mean_distance_perturbed"), data.get("mean_distance_perturbed_ci")),
                ),
                ("mean |change| (edits)", _ci(data.get("mean_abs_change"), data.get("mean_abs_change_ci"))),
                (
                    "mean |change| / original distance",
                    _ci(data.get("mean_relative_change"), data.get("mean_relative_change_ci")),
                ),
                ("largest |change|", _f(data.get("max_abs_change"), 0)),
                ("share unchanged", _pct_ci(data.get("share_unchanged"), data.get("share_unchanged_ci"))),
            ],
        )
    ]


def render(results: Any) -> list[Table]:
    data = results.extra.get(KEY)
    if not data:
        return []
    return {"drafts": drafts_tables, "pairs": pairs_tables, "stability": stability_tables}[data["mode"]](data)


def plot(data: dict[str, Any]) -> bytes | None:
    """The mode's chart: distance vs ROUGE-L (or a histogram), chosen vs rejected, original vs perturbed."""
    points = data.get("points") or []
    if not points:
        return None
    mode = data["mode"]

    def draw(axes: Any) -> None:
        if mode == "drafts" and any(p[2] is not None for p in points):
            axes.scatter(
                [p[2] for p in points if p[2] is not None], [p[1] for p in points if p[2] is not None], color="#4c72b0"
            )
            axes.set_xlabel("ROUGE-L F1 against the reference")
            axes.set_ylabel("revision distance (edits)")
        elif mode == "drafts":
            values = [p[1] for p in points]
            axes.hist(values, bins=range(0, int(max(values)) + 2), color="#4c72b0", align="left")
            axes.set_xlabel("revision distance (edits)")
            axes.set_ylabel("drafts")
        else:
            x, y = [p[1] for p in points], [p[2] for p in points]
            top = max([*x, *y, 1])
            axes.scatter(x, y, color="#4c72b0", alpha=0.7)
            axes.plot([0, top], [0, top], color="#999999", linewidth=1, label="equal distance")
            first, second = ("chosen", "rejected") if mode == "pairs" else ("original", "perturbed")
            axes.set_xlabel(f"edits, {first}")
            axes.set_ylabel(f"edits, {second}")

    return chart(draw, size=(5, 4))
