"""The analysis as text: its tables and sentences (`analysis_tables`, `analysis_lines`), which the
terminal (`print_analysis`), the HTML report and the labelling page all show, so none of them shows
less than another. Evaluator cards first, then judge pairs, human labels, disagreements. A figure
that cannot be given is "—" with the reason beside it."""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .card import Analysis, EvaluatorCard, HumanAgreement, Interval, JudgePair, LabelSummary, PairStats

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
        parts.append(f"pref {pct_ci(h.preference_agreement, h.preference_agreement_ci)} (n {h.n_preferences})")
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
    return "; ".join(parts) or missing(bias.within_run_note or bias.note)


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


CARD_COLUMNS = (
    "task / role",
    "judge",
    "ratings",
    "unscored",
    "mean",
    "vs humans",
    "vs other judges",
    "repeats",
    "length bias",
    "position flips",
    "self-preference",
    "per 1,000",
)


def card_cells(card: EvaluatorCard) -> list[str]:
    """One evaluator card as plain text cells (the terminal and the HTML report show the same); a
    missing figure is "—" with the reason the card records (`EvaluatorCard.missing`)."""
    position = pct_ci(card.position.flip_rate, card.position.flip_rate_ci) if card.position else DASH
    cells = [
        f"{card.task} / {card.role}",
        card.judge,
        str(card.n_ratings),
        pct(card.unscored_rate),
        num(card.mean),
        _humans(card),
        _others(card),
        _repeats(card),
        _length(card),
        position,
        _self(card),
        _cost(card),
    ]
    for index, column in enumerate(CARD_COLUMNS):
        reason = card.missing.get(column)
        if reason and cells[index] == DASH:
            cells[index] = missing(reason)
    return cells


def stats_cells(stats: PairStats) -> list[str]:
    ci = DASH if stats.ci_low is None else f"[{stats.ci_low:+.2f}, {stats.ci_high:+.2f}]"
    found = stats.intervals
    return [
        str(stats.n),
        with_ci(stats.spearman, found.get("spearman")),
        with_ci(stats.kendall_tau_b, found.get("kendall_tau_b")),
        with_ci(stats.pearson, found.get("pearson")),
        pct(stats.exact),
        pct(stats.within_one),
        with_ci(stats.weighted_kappa, found.get("weighted_kappa")),
        with_ci(stats.alpha, found.get("alpha")),
        num(stats.mean_difference, signed=True),
        ci,
    ]


STAT_COLUMNS = (
    "n",
    "Spearman [95% CI]",
    "Kendall τ-b [95% CI]",
    "Pearson [95% CI]",
    "exact",
    "within 1",
    "κ (quadratic) [95% CI]",
    "α [95% CI]",
    "mean A − B",
    "95% CI",
)


@dataclass(frozen=True)
class AnalysisTable:
    """One table of the analysis as plain text, the same for the terminal and the HTML pages:
    `labels` leading columns are names (the rest figures); `flagged` cells are highlighted; a
    table with `terminal` False is on the HTML pages only (per-slice detail)."""

    id: str
    title: str
    columns: list[str]
    rows: list[list[str]]
    labels: int = 1
    caption: str = ""
    flagged: frozenset[tuple[int, int]] = frozenset()
    terminal: bool = True


def _system(pair: JudgePair) -> str:
    if pair.system is None:
        return DASH
    return f"{with_ci(pair.system.kendall_tau_b, pair.system.kendall_tau_b_ci)} ({pair.system.n_models} models)"


def _versus_raters(humans: HumanAgreement) -> str:
    """The judge's pairwise consistency and preference agreement with the raters, with intervals."""
    parts = []
    if humans.n_pairs:
        share = pct_ci(humans.pairwise_consistency, humans.pairwise_consistency_ci)
        parts.append(
            f"pairwise consistency with the raters' mean (pairs of answers to the same instruction the "
            f"raters score differently, ordered alike): {share} of {humans.n_pairs} pair(s)"
        )
    else:
        parts.append(
            "pairwise consistency: — (no two answers to the same instruction scored differently by the raters)"
        )
    if humans.n_preferences:
        parts.append(
            f"the raters' A/B/tie preferences its scores imply: "
            f"{pct_ci(humans.preference_agreement, humans.preference_agreement_ci)} of {humans.n_preferences}"
        )
    return "; ".join(parts)


def analysis_tables(analysis: Analysis) -> list[AnalysisTable]:
    """Every table of the analysis, in the order they are shown."""
    tables = [
        AnalysisTable(
            "cards",
            "Evaluator cards",
            list(CARD_COLUMNS),
            [card_cells(card) for card in analysis.cards],
            2,
            "vs humans: Spearman's ρ of the judge with the raters' mean score (n items), and the share of the "
            "raters' A/B/tie preferences its scores imply (pref); per 1,000 ratings: tokens, price (from the prices "
            "file given), request time (the sum of request latencies, not wall time)",
            frozenset(
                (row, 10)
                for row, card in enumerate(analysis.cards)
                if card.self_preference is not None and card.self_preference.flagged
            ),
        )
    ]
    if analysis.pairs:
        tables.append(
            AnalysisTable(
                "pairs",
                "Agreement between judges",
                ["task / role", "A", "B", *STAT_COLUMNS, "system τ [95% CI]"],
                [
                    [f"{pair.task} / {pair.role}", pair.a, pair.b, *stats_cells(pair.overall), _system(pair)]
                    for pair in analysis.pairs
                ],
                3,
                "on the items both judges rated; system τ: Kendall's τ-b between the two judges' rankings of the "
                "candidate models (its interval resamples the items)",
            )
        )
    for n, card in enumerate(analysis.cards):
        if card.humans is not None and card.humans.per_rater:
            tables.append(
                AnalysisTable(
                    f"humans-{n}",
                    f"{card.judge} ({card.task} / {card.role}) against each human rater",
                    ["rater", *STAT_COLUMNS],
                    [[rater, *stats_cells(stats)] for rater, stats in card.humans.per_rater.items()],
                    caption=_versus_raters(card.humans),
                )
            )
    for n, panel in enumerate(analysis.panels):
        tables.append(
            AnalysisTable(
                f"panel-{n}",
                f"Panel of {len(panel.judges)} judges: {panel.task} / {panel.role}",
                ["candidate", "panel", *panel.judges],
                [
                    [candidate, num(means.get("panel")), *(num(means.get(j)) for j in panel.judges)]
                    for candidate, means in panel.candidates.items()
                ],
                caption=f"an item's panel score is the {panel.aggregate} of the verdicts of the judges that scored it; "
                f"{panel.n_partial} item(s) scored by part of the panel, {panel.n_unscored} by none",
            )
        )
    rows = [
        [f"{card.task} / {card.judge}", rater, str(versus.n), rho(versus.rater), rho(versus.judge)]
        for card in analysis.cards
        if card.humans is not None
        for rater, versus in card.humans.leave_one_out.items()
    ]
    if rows:
        tables.append(
            AnalysisTable(
                "leave-one-out",
                "Each rater, and the judge, against the mean of the other raters",
                ["task / judge", "rater left out", "n", "rater ρ [95% CI]", "judge ρ [95% CI]"],
                rows,
                2,
                "Spearman's ρ on the items the judge, the rater and another rater rated",
            )
        )
    for n, card in enumerate(analysis.cards):
        if card.length is not None and card.length.systems:
            beta = card.length.slope_per_doubling
            slope = (
                missing(card.length.note)
                if beta is None
                else with_ci(beta, card.length.slope_per_doubling_ci, signed=True)
            )
            tables.append(
                AnalysisTable(
                    f"length-{n}",
                    f"Length-controlled means: {card.task} / {card.judge}",
                    ["candidate", "raw mean", "length-controlled mean"],
                    [
                        [system, num(means.get("raw")), num(means.get("length_controlled"))]
                        for system, means in card.length.systems.items()
                    ],
                    caption=f"β {slope} points per doubling of the answer's length within a sample; the controlled mean "
                    "predicts each answer's score at its sample's mean length",
                )
            )
    for n, pair in enumerate(analysis.pairs):
        for key, values in pair.slices.items():
            tables.append(
                AnalysisTable(
                    f"slice-{n}-{len(tables)}",
                    f"{pair.a} (A) vs {pair.b} (B) per {key}",
                    [key, *STAT_COLUMNS],
                    [[value, *stats_cells(stats)] for value, stats in values.items()],
                    terminal=False,
                )
            )
        if pair.top_disagreements:
            tables.append(
                AnalysisTable(
                    f"top-{n}",
                    f"Largest disagreements: {pair.a} (A) vs {pair.b} (B)",
                    ["answers", "sample", "criterion", "A", "B"],
                    [
                        [d.answers, f"{d.sample_id}#{d.epoch}", d.criterion, num(d.a, 1), num(d.b, 1)]
                        for d in pair.top_disagreements
                    ],
                    3,
                )
            )
    return tables


def analysis_lines(analysis: Analysis) -> list[str]:
    """The analysis's sentences beside its tables: the labels read, tasks left out, each group's
    alpha over all its judges, the raters' agreement with each other."""
    lines = []
    if analysis.labels is not None:
        labels = analysis.labels
        line = (
            f"human labels {labels.file}: {labels.labels} label(s) from {len(labels.raters)} rater(s), "
            f"{labels.matched} matched an answer and criterion a judge rated"
        )
        if labels.replaced:
            line += f", {labels.replaced} superseded by a later label of the same rater"
        lines.append(line)
    if analysis.tasks_without_ratings:
        lines.append(
            f"{', '.join(analysis.tasks_without_ratings)} declare(s) no judged verdicts; those runs are left out"
        )
    for group in analysis.groups:
        value = missing(group.note) if group.alpha is None else with_ci(group.alpha, group.alpha_ci)
        lines.append(
            f"{group.task} / {group.role}: Krippendorff's α over all {len(group.judges)} judges = {value} "
            f"on {items(group.n_items)} scored by two or more"
        )
    raters = rater_agreement_note(analysis)
    if raters is not None:
        lines.append(raters)
    return lines


def label_warnings(labels: LabelSummary) -> list[str]:
    """What of a labels file is left out: labels that match nothing a judge rated, ambiguous ones."""
    found = []
    if labels.unmatched:
        unrated = (
            f"; no judge rated the criteria {', '.join(repr(c) for c in labels.unrated_criteria)}"
            if labels.unrated_criteria
            else ""
        )
        found.append(
            f"{labels.unmatched} human label(s) unmatched: no judge rated that answer on that criterion "
            f"(e.g. {', '.join(labels.unmatched_examples)}){unrated}; they are left out"
        )
    if labels.ambiguous:
        found.append(
            f"{labels.ambiguous} human label(s) ambiguous: answers of several runs fit; give the run id "
            "in the label's run field"
        )
    return found


def set_aside_warnings(analysis: Analysis) -> list[str]:
    """The runs left out because they repeat another run's judging."""
    why = {
        "duplicate": "the same judge, settings and repeat number on the same answers as",
        "replay": "every reply replayed from the response cache, identical to those of",
    }
    return [f"{run.path} is left out, counted once: {why[run.reason]} {run.kept}" for run in analysis.set_aside]


def analysis_warnings(analysis: Analysis) -> list[str]:
    """Everything the analysis left out, in one list: unmatched or ambiguous labels, set-aside runs."""
    labelled = label_warnings(analysis.labels) if analysis.labels is not None else []
    return [*labelled, *set_aside_warnings(analysis)]


def rater_agreement_note(analysis: Analysis) -> str | None:
    """The raters' agreement with each other, framed as context for the judges' agreement with them."""
    found = analysis.rater_agreement
    if found is None:
        return None
    value = missing(found.note) if found.alpha is None else with_ci(found.alpha, found.alpha_ci)
    return (
        f"Agreement among the {len(found.raters)} human raters, as context (not a bound on a judge's agreement "
        f"with them: a judge can agree with the raters' mean more than any one rater does): "
        f"α {value}, mean pairwise Spearman "
        f"{with_ci(found.mean_pairwise_spearman, found.mean_pairwise_spearman_ci)} "
        f"on {items(found.n_items)} rated by two or more"
    )


def print_analysis(analysis: Analysis, console: Console) -> None:
    """The analysis in the terminal: its sentences, what it left out, then its tables (those the
    HTML pages show too, but the per-slice detail)."""
    lines = analysis_lines(analysis)
    if analysis.labels is not None:
        console.print(escape(lines.pop(0)), highlight=False)
    for warning in analysis_warnings(analysis):
        console.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False)
    if not analysis.cards:
        for line in lines:
            console.print(escape(line), highlight=False)
        console.print("no judged verdicts in these runs")
        return
    for found in analysis_tables(analysis):
        if not found.terminal:
            continue
        title = f"{found.title} ({found.caption})" if found.caption else found.title
        table = Table(title=escape(title), title_justify="left")
        for index, column in enumerate(found.columns):
            table.add_column(escape(column), justify="left" if index < found.labels else "right")
        for row, cells in enumerate(found.rows):
            table.add_row(
                *(
                    f"[yellow]{escape(c)}[/]" if (row, col) in found.flagged else escape(c)
                    for col, c in enumerate(cells)
                )
            )
        console.print(table)
    for line in lines:
        console.print(escape(line), highlight=False)
