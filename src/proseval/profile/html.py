"""The profile as a self-contained HTML page (`profile.html`): the benchmark table, one chart strip
per benchmark on its own scale, the paired differences, the rankings, the judges' evaluator cards
and the papers' figures. Drawn as inline SVG: no script, nothing loaded from outside (the report's
page rules)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from jinja2 import (
    ChoiceLoader,
    Environment,
    PackageLoader,
    StrictUndefined,
    select_autoescape,
)

from .. import __version__
from ..errors import ProsevalError
from ..reliability.analysis import analyse
from ..report.fmt import num
from ..report.judges import JudgesPart, judges_part
from ..report.sections import Cell, HtmlTable
from .report import BenchmarkRow, Dimension, Profile, ranking_text, units_text

PROFILE_HTML = "profile.html"
WIDTH, LEFT, RIGHT = 640.0, 10.0, 10.0
COLOURS = ("#1f6feb", "#d1242f", "#1a7f37", "#8250df", "#bc4c00", "#0a7b83")


@dataclass
class Mark:
    """One model on a strip: its mean and interval in pixels."""

    model: str
    colour: str
    x: float
    low: float
    high: float
    y: float
    text: str


@dataclass
class Strip:
    benchmark: str
    title: str
    lo: str
    hi: str
    marks: list[Mark]
    height: float


def _scale(dimension: Dimension, rows: list[BenchmarkRow]) -> tuple[float, float]:
    """The benchmark's declared range, widened to take every value shown (or 0 .. the largest value)."""
    values = [v for r in rows for v in (r.mean, r.ci_low, r.ci_high) if v is not None]
    lo, hi = dimension.scale if dimension.scale is not None else (0.0, max(values, default=1.0) or 1.0)
    return min([lo, *values]), max([hi, *values])


def strip(dimension: Dimension, rows: list[BenchmarkRow], models: list[str]) -> Strip:
    lo, hi = _scale(dimension, rows)
    span = (hi - lo) or 1.0

    def x(value: float) -> float:
        return round(LEFT + (value - lo) / span * (WIDTH - LEFT - RIGHT), 1)

    marks = []
    for i, row in enumerate(r for r in rows if r.mean is not None):
        mean: float = row.mean  # type: ignore[assignment]
        low = row.ci_low if row.ci_low is not None else mean
        high = row.ci_high if row.ci_high is not None else mean
        colour = COLOURS[models.index(row.model) % len(COLOURS)]
        marks.append(Mark(row.model, colour, x(mean), x(low), x(high), 14.0 + 14 * i,
                          f"{row.model}: {num(mean)} [{num(low)}, {num(high)}]"))
    direction = "lower is better" if dimension.lower_is_better else "higher is better"
    unit = f"{dimension.unit}, " if dimension.unit else ""
    return Strip(dimension.benchmark, f"{dimension.benchmark}: {dimension.metric or 'no headline'} ({unit}{direction})",
                 num(lo, 2), num(hi, 2), marks, 20.0 + 14 * max(len(marks), 1))


def _money(row: BenchmarkRow) -> str:
    return "" if row.cost is None else f"{row.cost:.4f} {row.currency or ''}".strip()


def rows_table(profile: Profile) -> HtmlTable:
    columns = ["benchmark", "model", "state", "metric", "unit", "mean", "95% CI", "n", "unscored", "failed",
               "model failures", "requests", "cost", "time running (s)"]
    rows = []
    for r in profile.rows:
        ci = "" if r.ci_low is None else f"[{num(r.ci_low)}, {num(r.ci_high)}]"
        failures = ", ".join(f"{k} {v}" for k, v in sorted(r.model_failures.items()) if v)
        state = r.state + (f": {r.reason}" if r.reason else "")
        rows.append([Cell(r.benchmark, kind="label"), Cell(r.model, kind="label"), Cell(state, kind="label"),
                     Cell(r.metric or "", kind="label"), Cell(r.unit or "", kind="label"), Cell(num(r.mean)),
                     Cell(ci), Cell(str(r.n)),
                     Cell(str(r.unscored)), Cell(str(r.failed)), Cell(failures, kind="label"),
                     Cell(f"{r.requests:,}"), Cell(_money(r)), Cell("" if r.seconds is None else f"{r.seconds:.0f}")])
    return HtmlTable("profile-rows", "Benchmarks", columns, rows,
                     "One row per benchmark and model, each on its own metric and scale: the headline's mean with "
                     "its 95% interval, the samples it scored (n), unscored and failed samples, the model's "
                     "failures (empty, truncated, refused answers, context overflows), requests, recorded cost and "
                     "the time spent running (the sum of the run's sessions: a pause between a stop and its resume "
                     "is not counted). No number is averaged over the benchmarks.")


def differences_table(profile: Profile) -> HtmlTable | None:
    if not profile.differences:
        return None
    rows = [[Cell(d.benchmark, kind="label"), Cell(d.metric, kind="label"),
             Cell(f"{d.model} − {d.baseline}", kind="label"), Cell(str(d.paired)), Cell(num(d.diff)),
             Cell("" if d.ci_low is None else f"[{num(d.ci_low)}, {num(d.ci_high)}]"), Cell(num(d.p_value)),
             Cell(d.verdict, kind="label"), Cell(d.note or "", kind="label")] for d in profile.differences]
    columns = ["benchmark", "metric", "difference", "paired", "mean", "95% CI", "p", "verdict", "note"]
    return HtmlTable("profile-differences", "Paired differences", columns, rows,
                     "Each model minus the first, over the samples both scored (bootstrap interval, sign-flip "
                     "p-value: the compare command's statistics).")


def ranking_table(profile: Profile) -> HtmlTable:
    rows = [[Cell(d.benchmark, kind="label"), Cell(d.dimension, kind="label"),
             Cell(ranking_text(d) or "—", kind="label")] for d in profile.dimensions]
    return HtmlTable("profile-ranking", "Tiers per dimension", ["benchmark", "dimension", "best tier first"], rows,
                     "Complete runs only (a run with failed samples is not ranked); each benchmark on its own "
                     "metric and direction. A model's tier is 1 + the number of models that beat it: whose paired "
                     "difference with it, on the samples both scored, has a 95% bootstrap interval excluding 0 in "
                     "their favour. Models in one tier are not shown to differ, whatever their means.")


def _own_rows(profile: Profile, d: Dimension) -> list[list[Cell]]:
    """The profile's models beside the paper's: in the paper's unit where the headline converts to it,
    else in the headline's own unit, said."""
    made = []
    for r in profile.rows:
        if r.benchmark != d.benchmark or r.mean is None:
            continue
        if d.paper_unit is None:
            value, unit = r.mean, f"{d.unit or 'unit not stated'} (proseval's headline; not converted)"
        else:
            value, unit = r.mean * d.paper_unit.factor, d.paper_unit.unit
            if d.paper_unit.factor != 1.0:
                unit += f" (proseval's {d.unit} × {d.paper_unit.factor:g})"
        made.append([Cell(f"{r.model} (this profile)", kind="label"), Cell(r.metric or "", kind="label"),
                     Cell("overall", kind="label"), Cell(num(value)), Cell(unit, kind="label"),
                     Cell(f"{profile.folder}", kind="label"), Cell(f"size {profile.size}", kind="label")])
    return made


def reference_tables(profile: Profile) -> list[tuple[HtmlTable, str, bool]]:
    """Per benchmark with published figures: the figures, why they are (not) comparable and how the
    units stand, and whether."""
    made = []
    for d in profile.dimensions:
        if not d.references or d.comparability is None:
            continue
        rows = [[Cell(r.model, kind="label"), Cell(r.metric, kind="label"), Cell(r.slice, kind="label"),
                 Cell(r.value), Cell(r.unit, kind="label"), Cell(f"{r.paper}, {r.table}", kind="label"),
                 Cell(r.settings, kind="label")] for r in d.references]
        if d.comparability.comparable:  # the profile's own models first, beside the paper's
            rows = _own_rows(profile, d) + rows
        table = HtmlTable(f"references-{d.benchmark}", f"{d.benchmark}: the paper's models",
                          ["model", "metric", "slice", "value", "unit", "source", "settings"], rows,
                          "Figures as printed in the paper.")
        made.append((table, f"{d.comparability.why}; {units_text(d)}", d.comparability.comparable))
    return made


def judges(profile: Profile) -> JudgesPart | None:
    """The evaluator cards of the judges of the profile's finished runs (`proseval agreement`'s analysis)."""
    paths = [Path(r.run_dir) for r in profile.rows if r.run_dir and r.state in ("complete", "failed samples")]
    if not paths:
        return None
    try:
        analysis = analyse(paths)
    except ProsevalError:  # runs the analysis cannot read: the page goes without the cards
        return None
    return judges_part(analysis) if analysis.cards else None


def render(profile: Profile) -> str:
    environment = Environment(loader=ChoiceLoader([PackageLoader("proseval.profile", "templates"),
                                                   PackageLoader("proseval.report", "templates")]),
                              autoescape=select_autoescape(default=True), undefined=StrictUndefined,
                              trim_blocks=True, lstrip_blocks=True)
    strips = [strip(d, [r for r in profile.rows if r.benchmark == d.benchmark], profile.models)
              for d in profile.dimensions if d.benchmark not in profile.skipped]
    return environment.get_template("profile.html.j2").render(
        profile=profile, strips=strips, width=WIDTH,
        legend=[(model, COLOURS[i % len(COLOURS)]) for i, model in enumerate(profile.models)],
        rows=rows_table(profile), diffs=differences_table(profile),
        ranking=ranking_table(profile), references=reference_tables(profile), judges=judges(profile),
        version=__version__,
        generated=datetime.now(timezone.utc).isoformat(timespec="seconds"))


def write_profile_html(profile: Profile, folder: Path) -> Path:
    path = folder / PROFILE_HTML
    path.write_text(render(profile), encoding="utf-8")
    return path
