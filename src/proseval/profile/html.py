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
from .comparable import verdict_line
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
    for i, (row, mean) in enumerate((r, r.mean) for r in rows if r.mean is not None):
        low = row.ci_low if row.ci_low is not None else mean
        high = row.ci_high if row.ci_high is not None else mean
        colour = COLOURS[models.index(row.model) % len(COLOURS)]
        marks.append(
            Mark(
                row.model,
                colour,
                x(mean),
                x(low),
                x(high),
                14.0 + 14 * i,
                f"{row.model}: {num(mean)} [{num(low)}, {num(high)}]",
            )
        )
    direction = "lower is better" if dimension.lower_is_better else "higher is better"
    unit = f"{dimension.unit}, " if dimension.unit else ""
    return Strip(
        dimension.benchmark,
        f"{dimension.benchmark}: {dimension.metric or 'no headline'} ({unit}{direction})",
        num(lo, 2),
        num(hi, 2),
        marks,
        20.0 + 14 * max(len(marks), 1),
    )


def _money(row: BenchmarkRow) -> str:
    return "" if row.cost is None else f"{row.cost:.4f} {row.currency or ''}".strip()


def rows_table(profile: Profile) -> HtmlTable:
    columns = [
        "benchmark",
        "model",
        "state",
        "metric",
        "unit",
        "mean",
        "95% CI",
        "n",
        "unscored",
        "failed",
        "model failures",
        "requests",
        "cost",
        "time running (s)",
    ]
    rows = []
    for r in profile.rows:
        ci = "" if r.ci_low is None else f"[{num(r.ci_low)}, {num(r.ci_high)}]"
        failures = ", ".join(f"{k} {v}" for k, v in sorted(r.model_failures.items()) if v)
        state = r.state + (f": {r.reason}" if r.reason else "")
        rows.append(
            [
                Cell(r.benchmark, kind="label"),
                Cell(r.model, kind="label"),
                Cell(state, kind="label"),
                Cell(r.metric or "", kind="label"),
                Cell(r.unit or "", kind="label"),
                Cell(num(r.mean)),
                Cell(ci),
                Cell(str(r.n)),
                Cell(str(r.unscored)),
                Cell(str(r.failed)),
                Cell(failures, kind="label"),
                Cell(f"{r.requests:,}"),
                Cell(_money(r)),
                Cell("" if r.seconds is None else f"{r.seconds:.0f}"),
            ]
        )
    return HtmlTable(
        "profile-rows",
        "Benchmarks",
        columns,
        rows,
        "One row per benchmark and model, each on its own metric and scale: the headline's mean with "
        "its 95% interval, the samples it scored (n), unscored and failed samples, the model's "
        "failures (empty, truncated, refused answers, context overflows), requests, recorded cost and "
        "the time spent running (the sum of the run's sessions: a pause between a stop and its resume "
        "is not counted). No number is averaged over the benchmarks.",
    )


def differences_table(profile: Profile) -> HtmlTable | None:
    if not profile.differences:
        return None
    rows = [
        [
            Cell(d.benchmark, kind="label"),
            Cell(d.metric, kind="label"),
            Cell(f"{d.model} − {d.baseline}", kind="label"),
            Cell(str(d.paired)),
            Cell(num(d.diff)),
            Cell("" if d.ci_low is None else f"[{num(d.ci_low)}, {num(d.ci_high)}]"),
            Cell(num(d.p_value)),
            Cell(d.verdict, kind="label"),
            Cell(d.note or "", kind="label"),
        ]
        for d in profile.differences
    ]
    columns = ["benchmark", "metric", "difference", "paired", "mean", "95% CI", "p", "verdict", "note"]
    return HtmlTable(
        "profile-differences",
        "Paired differences",
        columns,
        rows,
        "Each model minus the first, over the samples both scored (bootstrap interval, sign-flip "
        "p-value: the compare command's statistics).",
    )


def ranking_table(profile: Profile) -> HtmlTable:
    rows = [
        [Cell(d.benchmark, kind="label"), Cell(d.dimension, kind="label"), Cell(ranking_text(d) or "—", kind="label")]
        for d in profile.dimensions
    ]
    return HtmlTable(
        "profile-ranking",
        "Tiers per dimension",
        ["benchmark", "dimension", "best tier first"],
        rows,
        "Complete runs only (a run with failed samples is not ranked); each benchmark on its own "
        "metric and direction. A model's tier is 1 + the number of models that beat it: whose paired "
        "difference with it, on the samples both scored, has a 95% bootstrap interval excluding 0 in "
        "their favour. Models in one tier are not shown to differ, whatever their means.",
    )


def _figure_text(value: float | None, low: float | None, high: float | None) -> str:
    return "—" if value is None else num(value) + ("" if low is None else f" [{num(low)}, {num(high)}]")


def _own_label(model: str, by: dict[str, str], key: str | None) -> str:
    """`model (this profile)`, or with the slice the paper leaves open: `model, language en`."""
    extra = [f"{k} {v}" for k, v in by.items() if k != key]
    return f"{model} (this profile{', ' + ', '.join(extra) if extra else ''})"


def paper_table(d: Dimension) -> HtmlTable:
    """The paper's figures at their own granularity (one column per table, metric and slice as
    printed), the profile's models first in the columns their headline converts to."""
    columns = list(dict.fromkeys((r.table, r.metric, r.slice) for r in d.references))
    placed = [
        c
        for c in columns
        if d.paper_unit is not None
        and any(r.unit == d.paper_unit.unit for r in d.references if (r.table, r.metric, r.slice) == c)
    ]
    first_table = placed[0][:2] if placed else None
    own: dict[str, dict[tuple[str, str, str], str]] = {}
    key = next((k for f in d.figures for k in f.by), None)
    for f in d.figures:
        label = _own_label(f.model, f.by, key)
        for column in placed:
            if column[:2] == first_table and column[2] == f.slice:
                own.setdefault(label, {})[column] = _figure_text(f.mean, f.ci_low, f.ci_high)
    values: dict[str, dict[tuple[str, str, str], str]] = {}
    for r in d.references:
        values.setdefault(r.model, {})[(r.table, r.metric, r.slice)] = r.value or "—"
    rows = [
        [Cell(model, kind="label"), *[Cell(cells.get(c, "")) for c in columns]]
        for model, cells in [*own.items(), *values.items()]
    ]
    names = [f"{table} {metric}: {slice_}" for table, metric, slice_ in columns]
    units = ", ".join(dict.fromkeys(r.unit or "unit not stated" for r in d.references))
    return HtmlTable(
        f"references-{d.benchmark}",
        f"{d.benchmark}: the paper's figures beside this profile's",
        ["model", *names],
        rows,
        f"The paper's figures as printed ({units}), one column per table, metric and slice; this "
        "profile's runs first, with their 95% intervals, in the columns their headline converts to.",
    )


def own_figures_table(d: Dimension) -> HtmlTable | None:
    """The profile's figures in the headline's own unit, where it does not convert to the paper's."""
    if d.paper_unit is not None or not d.figures:
        return None
    rows = [
        [
            Cell(f.model, kind="label"),
            Cell(f.slice, kind="label"),
            Cell(_figure_text(f.mean, f.ci_low, f.ci_high)),
            Cell(str(f.n)),
        ]
        for f in d.figures
    ]
    return HtmlTable(
        f"own-{d.benchmark}",
        f"{d.benchmark}: this profile's figures ({d.unit or 'unit not stated'})",
        ["model", "slice", "mean [95% CI]", "n"],
        rows,
        "In the headline's own unit: it does not convert to the paper's, so the two are not set side by side.",
    )


def reference_tables(profile: Profile) -> list[tuple[list[HtmlTable], str, bool]]:
    """Per benchmark with published figures: the figures at the paper's granularity, the verdict
    line ("comparable because …" / "not comparable because …") and how the units stand."""
    made = []
    for d in profile.dimensions:
        if not d.references or d.comparability is None:
            continue
        tables = [t for t in (paper_table(d), own_figures_table(d)) if t is not None]
        made.append(
            (tables, f"{verdict_line(d.benchmark, d.comparability)}; {units_text(d)}", d.comparability.comparable)
        )
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
    environment = Environment(
        loader=ChoiceLoader(
            [PackageLoader("proseval.profile", "templates"), PackageLoader("proseval.report", "templates")]
        ),
        autoescape=select_autoescape(default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    strips = [
        strip(d, [r for r in profile.rows if r.benchmark == d.benchmark], profile.models)
        for d in profile.dimensions
        if d.benchmark not in profile.skipped
    ]
    return environment.get_template("profile.html.j2").render(
        profile=profile,
        strips=strips,
        width=WIDTH,
        legend=[(model, COLOURS[i % len(COLOURS)]) for i, model in enumerate(profile.models)],
        rows=rows_table(profile),
        diffs=differences_table(profile),
        ranking=ranking_table(profile),
        references=reference_tables(profile),
        judges=judges(profile),
        version=__version__,
        generated=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )


def write_profile_html(profile: Profile, folder: Path) -> Path:
    path = folder / PROFILE_HTML
    path.write_text(render(profile), encoding="utf-8")
    return path
