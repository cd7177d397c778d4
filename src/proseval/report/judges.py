"""The judges' section of the HTML report, and the page of `proseval agreement --out`: the
evaluator cards and agreement tables of a `reliability` analysis."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from .. import __version__
from ..reliability.card import Analysis
from ..reliability.render import (
    CARD_COLUMNS,
    STAT_COLUMNS,
    analysis_warnings,
    card_cells,
    num,
    pct,
    rater_agreement_note,
    stats_cells,
)
from .sections import Cell, HtmlTable, slug


@dataclass
class JudgesPart:
    runs: int
    tables: list[HtmlTable] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _cells(texts: list[str], labels: int) -> list[Cell]:
    return [Cell(t, kind="label" if i < labels else "num") for i, t in enumerate(texts)]


def judges_part(analysis: Analysis) -> JudgesPart:
    part = JudgesPart(runs=len(analysis.runs))
    part.warnings += [f"{warning}." for warning in analysis_warnings(analysis)]
    part.tables.append(HtmlTable("judges-cards", "Evaluator cards", list(CARD_COLUMNS),
                                 [_cells(card_cells(card), 2) for card in analysis.cards],
                                 "per 1,000 ratings: tokens, price (from the prices file given), request time "
                                 "(the sum of request latencies, not wall time)"))
    if analysis.pairs:
        rows = []
        for pair in analysis.pairs:
            system = "—" if pair.system is None else f"{num(pair.system.kendall_tau_b)} ({pair.system.n_models} models)"
            rows.append(_cells([f"{pair.task} / {pair.role}", pair.a, pair.b, *stats_cells(pair.overall), system], 3))
        part.tables.append(HtmlTable("judges-pairs", "Agreement between judges",
                                     ["task / role", "A", "B", *STAT_COLUMNS, "system τ"], rows,
                                     "on the items both judges rated; system τ: Kendall's τ-b between the two "
                                     "judges' rankings of the candidate models"))
    for panel in analysis.panels:
        rows = [_cells([candidate, num(means.get("panel")), *(num(means.get(j)) for j in panel.judges)], 1)
                for candidate, means in panel.candidates.items()]
        part.tables.append(HtmlTable(f"judges-panel-{slug(panel.task)}-{slug(panel.role)}",
                                     f"Panel of {len(panel.judges)} judges: {panel.task} / {panel.role}",
                                     ["candidate", "panel", *panel.judges], rows,
                                     f"an item's panel score is the {panel.aggregate} of the verdicts of the judges "
                                     f"that scored it; {panel.n_partial} item(s) scored by part of the panel, "
                                     f"{panel.n_unscored} by none"))
    for pair in analysis.pairs:
        for key, values in pair.slices.items():
            rows = [_cells([value, *stats_cells(stats)], 1) for value, stats in values.items()]
            part.tables.append(HtmlTable(f"judges-slice-{slug(pair.a)}-{slug(pair.b)}-{slug(key)}",
                                         f"{pair.a} (A) vs {pair.b} (B) per {key}", [key, *STAT_COLUMNS], rows))
    for card in analysis.cards:
        if card.humans is not None and card.humans.per_rater:
            rows = [_cells([rater, *stats_cells(stats)], 1) for rater, stats in card.humans.per_rater.items()]
            part.tables.append(HtmlTable(f"judges-humans-{slug(card.judge)}", f"{card.judge} against each human rater",
                                         ["rater", *STAT_COLUMNS], rows,
                                         f"pairwise consistency with the raters' mean: "
                                         f"{pct(card.humans.pairwise_consistency)}"))
        if card.length is not None and card.length.systems:
            rows = [_cells([s, num(m.get("raw")), num(m.get("length_controlled"))], 1)
                    for s, m in card.length.systems.items()]
            part.tables.append(HtmlTable(f"judges-length-{slug(card.judge)}",
                                         f"Length-controlled means under {card.judge}",
                                         ["candidate", "raw mean", "length-controlled mean"], rows,
                                         f"slope {num(card.length.slope_per_doubling, signed=True)} points per "
                                         "doubling of the answer's length within a sample; the controlled mean "
                                         "predicts each answer's score at its sample's mean length"))
    for pair in analysis.pairs:
        if pair.top_disagreements:
            rows = [_cells([d.answers, f"{d.sample_id}#{d.epoch}", d.criterion, num(d.a, 1), num(d.b, 1)], 3)
                    for d in pair.top_disagreements]
            part.tables.append(HtmlTable(f"judges-top-{slug(pair.a)}-{slug(pair.b)}",
                                         f"Largest disagreements: {pair.a} (A) vs {pair.b} (B)",
                                         ["answers", "sample", "criterion", "A", "B"], rows))
    raters = rater_agreement_note(analysis)
    if raters is not None:
        part.notes.append(f"{raters}.")
    return part


def _environment() -> Environment:
    return Environment(loader=PackageLoader("proseval.report", "templates"), autoescape=select_autoescape(default=True),
                       undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def write_analysis_page(analysis: Analysis, output: Path, title: str = "proseval: judging the judges") -> None:
    """A self-contained HTML page of the analysis (no script, nothing loaded from outside)."""
    text = _environment().get_template("agreement.html.j2").render(
        title=title, judges=judges_part(analysis), version=__version__,
        generated=datetime.now(timezone.utc).isoformat(timespec="seconds"))
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
