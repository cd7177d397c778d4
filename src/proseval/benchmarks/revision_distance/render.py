"""Revision Distance tables for the terminal (`proseval run` / `proseval show`) and charts."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from proseval.benchmarks.revision_distance.aggregate import KEY
from proseval.report.plots import chart


def _f(value: Any, digits: int = 2) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _pct(value: Any) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def _unscored(data: dict[str, Any]) -> str:
    counts = data.get("unscored") or {}
    return ", ".join(f"{n} {status}" for status, n in counts.items()) or "0"


def _pairs_table(title: str, rows: list[tuple[str, str]]) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("measure")
    table.add_column("value", justify="right")
    for label, value in rows:
        table.add_row(label, value)
    return table


def drafts_tables(data: dict[str, Any]) -> list[Table]:
    norm = data.get("normalisation", {})
    summary = _pairs_table(f"Revision Distance ({data['setting']}; lower is better)", [
        ("drafts scored", str(data["scored"])),
        ("unscored (reviser reply unusable)", _unscored(data)),
        ("mean distance (edits)", _f(data["distance"]["mean"])),
        ("median / min / max", f"{_f(data['distance']['median'], 1)} / {_f(data['distance']['min'], 0)} / "
                               f"{_f(data['distance']['max'], 0)}"),
        *([(f"edits per {data.get('per_words', 100)} words", _f(data.get("normalised_mean")))]
          if data.get("per_words", 100) else []),
        *([(f"weighted distance ({data['weighting']})", _f(data.get("weighted_mean")))]
          if data.get("weighting") not in (None, "none") else []),
        ("grounded share (snippet found in draft)", _pct(data.get("grounded_share"))),
        ("grounded / ungrounded / insertions", f"{_f(data['grounded'], 0)} / {_f(data['ungrounded'], 0)} / "
                                               f"{_f(data['insertions'], 0)}"),
        ("edits listed / +split / −no-ops / −duplicates",
         f"{norm.get('raw_count', 0)} / {norm.get('split_added', 0)} / {norm.get('noops', 0)} / "
         f"{norm.get('duplicates', 0)}"),
    ])
    tables = [summary]
    for title, key in (("Edits by category", "categories"), ("Edits by level", "levels")):
        table = Table(title=title, title_justify="left")
        for column in ("category" if key == "categories" else "level", "mean per draft", "share of edits"):
            table.add_column(column, justify="left" if column in ("category", "level") else "right")
        for name, cell in data[key].items():
            table.add_row(name, _f(cell["mean"]), _pct(cell["share"]))
        tables.append(table)
    baselines = data.get("baselines", {})
    if any(cell["n"] for cell in baselines.values()):
        table = Table(title="Baselines beside the distance", title_justify="left")
        for column in ("metric", "mean F1", "drafts", "Spearman ρ with −distance", "drafts with a distance"):
            table.add_column(column, justify="left" if column == "metric" else "right")
        for name, cell in baselines.items():
            table.add_row(name, _f(cell["mean"], 3), str(cell["n"]), _f(cell["spearman_vs_neg_distance"], 3),
                          str(cell.get("n_paired", cell["n"])))
        tables.append(table)
    if data.get("disagreements"):
        table = Table(title="Where ROUGE-L and the distance disagree most (rank gap: + distance ranks it better)",
                      title_justify="left")
        for column in ("draft", "distance", "ROUGE-L", "rank gap"):
            table.add_column(column, justify="left" if column == "draft" else "right")
        for row in data["disagreements"]:
            table.add_row(row["id"], _f(row["distance"], 0), _f(row["rougeL"], 3), f"{row['rank_gap']:+.2f}")
        tables.append(table)
    return tables


def pairs_tables(data: dict[str, Any]) -> list[Table]:
    return [_pairs_table("Pairwise agreement (does the preferred text need fewer edits?)", [
        ("pairs scored", str(data["scored"])),
        ("unscored pairs", _unscored(data)),
        ("agreement (chosen needs fewer edits)", _pct(data.get("agreement"))),
        ("ties", _pct(data.get("tie_rate"))),
        ("disagreement (rejected needs fewer)", _pct(data.get("disagreement"))),
        ("agreement without ties", _pct(data.get("agreement_without_ties"))),
        ("mean distance chosen / rejected", f"{_f(data.get('mean_distance_chosen'))} / "
                                            f"{_f(data.get('mean_distance_rejected'))}"),
        ("Spearman ρ (human score vs −distance)", _f(data.get("spearman_human_vs_neg_distance"), 3)),
        ("texts with a human score", str(data.get("human_scored_texts", 0))),
    ])]


def stability_tables(data: dict[str, Any]) -> list[Table]:
    return [_pairs_table(f"Stability under word substitutions (seed {data['seed']}, rate {data['rate']})", [
        ("drafts scored", str(data["scored"])),
        ("unscored drafts", _unscored(data)),
        ("drafts left out (no word to substitute)", str(len(data.get("skipped_unperturbable", [])))),
        ("mean substitutions per draft", _f(data.get("mean_substitutions"))),
        ("mean distance original / perturbed", f"{_f(data.get('mean_distance_original'))} / "
                                               f"{_f(data.get('mean_distance_perturbed'))}"),
        ("mean |change| (edits)", _f(data.get("mean_abs_change"))),
        ("mean |change| / original distance", _f(data.get("mean_relative_change"))),
        ("largest |change|", _f(data.get("max_abs_change"), 0)),
        ("share unchanged", _pct(data.get("share_unchanged"))),
    ])]


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
            axes.scatter([p[2] for p in points if p[2] is not None], [p[1] for p in points if p[2] is not None],
                         color="#4c72b0")
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
