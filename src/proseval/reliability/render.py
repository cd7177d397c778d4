"""The analysis in the terminal: evaluator cards first, then judge pairs, human labels, disagreements."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .card import Analysis, EvaluatorCard, PairStats

DASH = "—"


def num(value: float | None, digits: int = 2, signed: bool = False) -> str:
    if value is None:
        return DASH
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def pct(value: float | None) -> str:
    return DASH if value is None else f"{100 * value:.1f} %"


def _humans(card: EvaluatorCard) -> str:
    h = card.humans
    if h is None:
        return DASH
    parts = []
    if h.vs_human_mean is not None:
        parts.append(f"ρ {num(h.vs_human_mean.spearman)} (n {h.vs_human_mean.n})")
    if h.preference_agreement is not None:
        parts.append(f"pref {pct(h.preference_agreement)} (n {h.n_preferences})")
    return ", ".join(parts) or DASH


def _others(card: EvaluatorCard) -> str:
    rhos = [s.spearman for s in card.other_judges.values() if s.spearman is not None]
    if not rhos:
        return DASH
    return f"ρ {num(sum(rhos) / len(rhos))}" + (f" (mean of {len(rhos)})" if len(rhos) > 1 else "")


def _repeats(card: EvaluatorCard) -> str:
    c = card.consistency
    if c is None:
        return DASH
    return f"{c.repeats}×: sd {num(c.mean_sd)}, changed {pct(c.changed_share)}, α {num(c.alpha)}"


def _length(card: EvaluatorCard) -> str:
    bias = card.length
    if bias is None or bias.slope_per_doubling is None:
        return DASH
    return f"{num(bias.slope_per_doubling, signed=True)}/2× length"


def _self(card: EvaluatorCard) -> str:
    sp = card.self_preference
    if sp is None or not sp.flagged:
        return DASH
    measured = f" {num(sp.difference, signed=True)}" if sp.difference is not None else " (unmeasured)"
    return f"own family{measured}"


def _cost(card: EvaluatorCard) -> str:
    c = card.cost
    if c is None or c.tokens_per_1000 is None:
        return DASH
    parts = [f"{c.tokens_per_1000 / 1000:,.0f}k tok"]
    if c.price_per_1000 is not None:
        parts.append(f"{c.price_per_1000:,.2f} {c.currency}")
    if c.seconds_per_1000 is not None:
        parts.append(f"{c.seconds_per_1000:,.0f} s")
    return ", ".join(parts)


CARD_COLUMNS = ("task / role", "judge", "ratings", "unscored", "mean", "vs humans", "vs other judges", "repeats",
                "length bias", "position flips", "self-preference", "per 1,000")


def card_cells(card: EvaluatorCard) -> list[str]:
    """One evaluator card as plain text cells (the terminal and the HTML report show the same)."""
    position = pct(card.position.flip_rate) if card.position else DASH
    return [f"{card.task} / {card.role}", card.judge, str(card.n_ratings), pct(card.unscored_rate), num(card.mean),
            _humans(card), _others(card), _repeats(card), _length(card), position, _self(card), _cost(card)]


def cards_table(analysis: Analysis) -> Table:
    table = Table(title="Evaluator cards (per 1,000 ratings: tokens, price, request time)", title_justify="left")
    for column in CARD_COLUMNS:
        table.add_column(column, justify="left" if column in ("task / role", "judge") else "right")
    for card in analysis.cards:
        cells = [escape(c) for c in card_cells(card)]
        if card.self_preference is not None and card.self_preference.flagged:
            cells[10] = f"[yellow]{cells[10]}[/]"
        table.add_row(*cells)
    return table


def stats_cells(stats: PairStats) -> list[str]:
    ci = DASH if stats.ci_low is None else f"[{stats.ci_low:+.2f}, {stats.ci_high:+.2f}]"
    return [str(stats.n), num(stats.spearman), num(stats.kendall_tau_b), num(stats.pearson), pct(stats.exact),
            pct(stats.within_one), num(stats.weighted_kappa), num(stats.alpha), num(stats.mean_difference, signed=True),
            ci]


STAT_COLUMNS = ("n", "Spearman", "Kendall τ-b", "Pearson", "exact", "within 1", "κ (quadratic)", "α",
                "mean A − B", "95% CI")


def pairs_table(analysis: Analysis) -> Table:
    table = Table(title="Agreement between judges (items both rated; system τ: the two judges' rankings of the "
                  "candidate models)", title_justify="left")
    for column in ("task / role", "A", "B", *STAT_COLUMNS, "system τ"):
        table.add_column(column, justify="left" if column in ("task / role", "A", "B") else "right")
    for pair in analysis.pairs:
        system = DASH if pair.system is None else f"{num(pair.system.kendall_tau_b)} ({pair.system.n_models} models)"
        table.add_row(escape(f"{pair.task} / {pair.role}"), escape(pair.a), escape(pair.b),
                      *stats_cells(pair.overall), system)
    return table


def print_analysis(analysis: Analysis, console: Console) -> None:
    if analysis.labels is not None:
        labels = analysis.labels
        line = (f"human labels {escape(labels.file)}: {labels.labels} label(s) from {len(labels.raters)} rater(s), "
                f"{labels.matched} matched")
        if labels.unknown:
            line += (f", [yellow]{labels.unknown} for samples not in these runs[/] (e.g. "
                     f"{escape(', '.join(labels.unknown_examples))})")
        if labels.ambiguous:
            line += f", [yellow]{labels.ambiguous} ambiguous[/] (give the run id in the label's run field)"
        if labels.replaced:
            line += f", {labels.replaced} superseded by a later label of the same rater"
        console.print(line, highlight=False)
    if analysis.tasks_without_ratings:
        console.print(f"[yellow]note:[/] {', '.join(analysis.tasks_without_ratings)} declare(s) no judged verdicts; "
                      "those runs are left out", highlight=False)
    if not analysis.cards:
        console.print("no judged verdicts in these runs")
        return
    console.print(cards_table(analysis))
    if analysis.pairs:
        console.print(pairs_table(analysis))
    for group in analysis.groups:
        console.print(f"{escape(group.task)} / {escape(group.role)}: Krippendorff's α over all {len(group.judges)} "
                      f"judges = {num(group.alpha)} on {group.n_items} items", highlight=False)
    for panel in analysis.panels:
        table = Table(title=f"Panel of {len(panel.judges)} judges: {panel.task} / {panel.role} (an item's panel score "
                      f"is the {panel.aggregate} of the verdicts that scored; {panel.n_partial} item(s) scored by "
                      f"part of the panel, {panel.n_unscored} by none)", title_justify="left")
        table.add_column("candidate")
        table.add_column("panel", justify="right")
        for judge in panel.judges:
            table.add_column(escape(judge), justify="right")
        for candidate, means in panel.candidates.items():
            table.add_row(escape(candidate), num(means.get("panel")), *(num(means.get(j)) for j in panel.judges))
        console.print(table)
    if analysis.human_ceiling is not None:
        ceiling = analysis.human_ceiling
        console.print(f"agreement among the {len(ceiling.raters)} human raters (the ceiling a judge can reach): "
                      f"α {num(ceiling.alpha)}, mean pairwise Spearman {num(ceiling.mean_pairwise_spearman)} "
                      f"on {ceiling.n_items} items", highlight=False)
    for card in analysis.cards:
        if card.length is not None and card.length.systems:
            table = Table(title=f"Length-controlled means: {card.task} / {card.judge} (slope "
                          f"{num(card.length.slope_per_doubling, signed=True)} points per doubling of length)",
                          title_justify="left")
            for column in ("candidate", "raw mean", "length-controlled"):
                table.add_column(column, justify="left" if column == "candidate" else "right")
            for system, means in card.length.systems.items():
                table.add_row(escape(system), num(means.get("raw")), num(means.get("length_controlled")))
            console.print(table)
    for pair in analysis.pairs:
        if pair.top_disagreements:
            table = Table(title=f"Largest disagreements: {pair.a} (A) vs {pair.b} (B)", title_justify="left")
            for column in ("answers", "sample", "criterion", "A", "B"):
                table.add_column(column, justify="left" if column in ("answers", "sample", "criterion") else "right")
            for d in pair.top_disagreements:
                table.add_row(escape(d.answers), escape(f"{d.sample_id}#{d.epoch}"), escape(d.criterion),
                              num(d.a, 1), num(d.b, 1))
            console.print(table)
