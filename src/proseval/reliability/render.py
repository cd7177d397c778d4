"""The analysis in the terminal: evaluator cards first, then judge pairs, human labels, disagreements.
A figure that cannot be given is "—" with the reason beside it."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .card import Analysis, EvaluatorCard, Interval, LabelSummary, PairStats

DASH = "—"


def num(value: float | None, digits: int = 2, signed: bool = False) -> str:
    if value is None:
        return DASH
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def pct(value: float | None) -> str:
    return DASH if value is None else f"{100 * value:.1f} %"


def with_ci(value: float | None, interval: Interval | None, digits: int = 2, signed: bool = False) -> str:
    """A figure and its bootstrap interval, `0.71 [0.62, 0.79]`; the figure alone when there is none."""
    if value is None or interval is None or interval.low is None or interval.high is None:
        return num(value, digits, signed)
    return f"{num(value, digits, signed)} [{num(interval.low, digits, signed)}, {num(interval.high, digits, signed)}]"


def pct_ci(value: float | None, interval: Interval | None) -> str:
    """A share and its bootstrap interval in percent, `12.0 % [9.8, 14.1]`."""
    if value is None or interval is None or interval.low is None or interval.high is None:
        return pct(value)
    return f"{pct(value)} [{100 * interval.low:.1f}, {100 * interval.high:.1f}]"


def missing(reason: str) -> str:
    """A figure that cannot be given, and why."""
    return f"{DASH} ({reason})" if reason else DASH


def rho(stats: PairStats) -> str:
    """Spearman's ρ of two raters with its number of items, or why it is undefined."""
    if stats.spearman is None:
        return missing(f"n {stats.n}: " + ("fewer than 2 items" if stats.n < 2 else "a constant rater"))
    return f"{with_ci(stats.spearman, stats.intervals.get('spearman'))} (n {stats.n})"


def alpha(value: float | None, note: str) -> str:
    return missing(note) if value is None else num(value)


def items(n: int) -> str:
    return f"{n} item" if n == 1 else f"{n} items"


def _humans(card: EvaluatorCard) -> str:
    h = card.humans
    if h is None:
        return DASH
    parts = []
    if h.vs_human_mean is not None:
        parts.append(f"ρ {rho(h.vs_human_mean)} with the raters' mean")
    if h.preference_agreement is not None:
        parts.append(f"pref {pct(h.preference_agreement)} (n {h.n_preferences})")
    return ", ".join(parts)


def _others(card: EvaluatorCard) -> str:
    if not card.other_judges:
        return DASH
    rhos = [s.spearman for s in card.other_judges.values() if s.spearman is not None]
    if not rhos:
        return missing("ρ undefined: under 2 shared items or a constant judge")
    return f"ρ {num(sum(rhos) / len(rhos))}" + (f" (mean of {len(rhos)})" if len(rhos) > 1 else "")


def _repeats(card: EvaluatorCard) -> str:
    c = card.consistency
    if c is None:
        return DASH
    return f"{c.repeats}×: sd {num(c.mean_sd)}, changed {pct(c.changed_share)}, α {alpha(c.alpha, c.note)}"


def _length(card: EvaluatorCard) -> str:
    bias = card.length
    if bias is None:
        return DASH
    parts = []
    if bias.within_run_slope is not None:
        parts.append(f"{with_ci(bias.within_run_slope, bias.within_run_slope_ci, signed=True)}/2× within run")
    if bias.slope_per_doubling is not None:
        parts.append(f"β {with_ci(bias.slope_per_doubling, bias.slope_per_doubling_ci, signed=True)}/2×")
    return "; ".join(parts) or DASH


def _self(card: EvaluatorCard) -> str:
    sp = card.self_preference
    if sp is None or not sp.flagged:
        return DASH
    if sp.difference is None:
        return "own family (unmeasured: needs another judge, and candidates of its family and of others)"
    return f"own family {with_ci(sp.difference, sp.difference_ci, signed=True)}"


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
    """One evaluator card as plain text cells (the terminal and the HTML report show the same); a
    missing figure is "—" with the reason the card records (`EvaluatorCard.missing`)."""
    position = pct_ci(card.position.flip_rate, card.position.flip_rate_ci) if card.position else DASH
    cells = [f"{card.task} / {card.role}", card.judge, str(card.n_ratings), pct(card.unscored_rate), num(card.mean),
             _humans(card), _others(card), _repeats(card), _length(card), position, _self(card), _cost(card)]
    for index, column in enumerate(CARD_COLUMNS):
        reason = card.missing.get(column)
        if reason and cells[index] == DASH:
            cells[index] = missing(reason)
    return cells


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
    found = stats.intervals
    return [str(stats.n), with_ci(stats.spearman, found.get("spearman")),
            with_ci(stats.kendall_tau_b, found.get("kendall_tau_b")), with_ci(stats.pearson, found.get("pearson")),
            pct(stats.exact), pct(stats.within_one), with_ci(stats.weighted_kappa, found.get("weighted_kappa")),
            with_ci(stats.alpha, found.get("alpha")), num(stats.mean_difference, signed=True), ci]


STAT_COLUMNS = ("n", "Spearman [95% CI]", "Kendall τ-b [95% CI]", "Pearson [95% CI]", "exact", "within 1",
                "κ (quadratic) [95% CI]", "α [95% CI]", "mean A − B", "95% CI")


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


def label_warnings(labels: LabelSummary) -> list[str]:
    """What of a labels file is left out: labels that match nothing a judge rated, ambiguous ones."""
    found = []
    if labels.unmatched:
        unrated = (f"; no judge rated the criteria {', '.join(repr(c) for c in labels.unrated_criteria)}"
                   if labels.unrated_criteria else "")
        found.append(f"{labels.unmatched} human label(s) unmatched: no judge rated that answer on that criterion "
                     f"(e.g. {', '.join(labels.unmatched_examples)}){unrated}; they are left out")
    if labels.ambiguous:
        found.append(f"{labels.ambiguous} human label(s) ambiguous: answers of several runs fit; give the run id "
                     "in the label's run field")
    return found


def set_aside_warnings(analysis: Analysis) -> list[str]:
    """The runs left out because they repeat another run's judging."""
    why = {"duplicate": "the same judge, settings and repeat number on the same answers as",
           "replay": "every reply replayed from the response cache, identical to those of"}
    return [f"{run.path} is left out, counted once: {why[run.reason]} {run.kept}"
            for run in analysis.set_aside]


def analysis_warnings(analysis: Analysis) -> list[str]:
    """Everything the analysis left out, in one list: unmatched or ambiguous labels, set-aside runs."""
    labelled = label_warnings(analysis.labels) if analysis.labels is not None else []
    return [*labelled, *set_aside_warnings(analysis)]


def rater_agreement_note(analysis: Analysis) -> str | None:
    """The raters' agreement with each other, framed as context for the judges' agreement with them."""
    found = analysis.rater_agreement
    if found is None:
        return None
    return (f"Agreement among the {len(found.raters)} human raters, as context (not a bound on a judge's agreement "
            f"with them: a judge can agree with the raters' mean more than any one rater does): "
            f"α {alpha(found.alpha, found.note)}, mean pairwise Spearman {num(found.mean_pairwise_spearman)} "
            f"on {items(found.n_items)} rated by two or more")


def leave_one_out_table(analysis: Analysis) -> Table | None:
    """Each rater and each judge against the mean of the other raters, on the same items."""
    rows = [(card, rater, versus) for card in analysis.cards if card.humans is not None
            for rater, versus in card.humans.leave_one_out.items()]
    if not rows:
        return None
    table = Table(title="Each rater, and the judge, against the mean of the other raters (Spearman ρ on the same "
                  "items)", title_justify="left")
    for column in ("task / judge", "rater left out", "n", "rater ρ", "judge ρ"):
        table.add_column(column, justify="left" if column in ("task / judge", "rater left out") else "right")
    for card, rater, versus in rows:
        table.add_row(escape(f"{card.task} / {card.judge}"), escape(rater), str(versus.n), num(versus.rater.spearman),
                      num(versus.judge.spearman))
    return table


def print_analysis(analysis: Analysis, console: Console) -> None:
    if analysis.labels is not None:
        labels = analysis.labels
        line = (f"human labels {escape(labels.file)}: {labels.labels} label(s) from {len(labels.raters)} rater(s), "
                f"{labels.matched} matched")
        if labels.replaced:
            line += f", {labels.replaced} superseded by a later label of the same rater"
        console.print(line, highlight=False)
    for warning in analysis_warnings(analysis):
        console.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False)
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
                      f"judges = {alpha(group.alpha, group.note)} on {items(group.n_items)} scored by two or more",
                      highlight=False)
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
    raters = rater_agreement_note(analysis)
    if raters is not None:
        console.print(escape(raters), highlight=False)
    leave_one_out = leave_one_out_table(analysis)
    if leave_one_out is not None:
        console.print(leave_one_out)
    for card in analysis.cards:
        if card.length is not None and card.length.systems:
            beta = card.length.slope_per_doubling
            slope = missing(card.length.note) if beta is None else num(beta, signed=True)
            table = Table(title=f"Length-controlled means: {card.task} / {card.judge} (β {escape(slope)} points per "
                          "doubling of length)", title_justify="left")
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
