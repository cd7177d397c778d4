"""One way to draw a chart: a matplotlib Figure rendered with Agg to PNG bytes.

Benchmarks (through `proseval.kit`) and the HTML report draw on the axes `chart` gives them and
get PNG bytes back, or None (with one warning) when matplotlib (``proseval[plot]``) is not
installed. The global pyplot backend is never touched, so charts are safe in any process.
"""

from __future__ import annotations

import functools
import io
import os
import re
import shutil
import subprocess
import textwrap
import warnings
from collections.abc import Callable, Iterable
from typing import Any

_GLYPH = re.compile(r"Glyph (\d+) ")
#: Families that draw Chinese, Japanese and Korean characters (labels of C3EBench, Meeseeks,
#: WritingBench slices), tried in this order for any character the first font lacks.
CJK_FAMILIES = (
    "Noto Sans CJK SC",
    "Noto Sans CJK JP",
    "Noto Sans CJK KR",
    "Source Han Sans SC",
    "Source Han Sans",
    "WenQuanYi Micro Hei",
    "WenQuanYi Zen Hei",
    "Droid Sans Fallback",
    "Microsoft YaHei",
    "SimHei",
    "PingFang SC",
    "Hiragino Sans GB",
    "Hiragino Sans",
    "Yu Gothic",
    "Malgun Gothic",
    "Apple SD Gothic Neo",
)


CJK_LANGUAGES = ("zh", "ja", "ko")  # fontconfig's language tags (zh-cn, zh-tw, ...) of CJK fonts


def fontconfig_cjk_files() -> set[str] | None:
    """The font files fontconfig says cover Chinese, Japanese or Korean (`fc-list`); None without
    fontconfig (macOS and Windows as a rule)."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return None
    try:
        listed = subprocess.run(
            [fc_list, "--format=%{file}\t%{lang}\n"], capture_output=True, text=True, timeout=60, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    files = set()
    for line in listed.splitlines():
        path, _, languages = line.partition("\t")
        if any(tag.split("-")[0] in CJK_LANGUAGES for tag in languages.split("|")):
            files.add(path)
    return files


def add_fonts(manager: Any, paths: Iterable[str]) -> None:
    """Add to matplotlib's font list the files of `paths` it does not hold."""
    known = {entry.fname for entry in manager.ttflist}
    for path in paths:
        if path not in known:
            try:
                manager.addfont(path)
            except (OSError, RuntimeError, ValueError):
                continue  # a font file FreeType cannot read


def font_families() -> tuple[str, ...]:
    """Matplotlib's default font, then the installed CJK families: those of `CJK_FAMILIES`, then
    any other in a file fontconfig lists for Chinese, Japanese or Korean.

    Matplotlib knows the fonts of its font cache, made when it first ran: fonts fontconfig lists
    for those languages that the cache lacks (installed since) are added to its list. Without
    fontconfig, the system's font folders are scanned when no CJK family is known (a few
    hundredths of a second). A chart that finds a character missing looks again
    (`refresh_font_families`), so a font installed while a process runs is used from then on."""
    return _families()


@functools.cache
def _families() -> tuple[str, ...]:
    from matplotlib import font_manager, rcParams

    manager = font_manager.fontManager
    cjk_files = fontconfig_cjk_files()
    if cjk_files is not None:
        add_fonts(manager, sorted(cjk_files))
    elif not {entry.name for entry in manager.ttflist} & set(CJK_FAMILIES):
        add_fonts(manager, font_manager.findSystemFonts())
    installed = {entry.name for entry in manager.ttflist}
    others = sorted({entry.name for entry in manager.ttflist if entry.fname in (cjk_files or ())} - set(CJK_FAMILIES))
    return (rcParams["font.sans-serif"][0], *(name for name in CJK_FAMILIES if name in installed), *others)


def refresh_font_families() -> bool:
    """Look for installed CJK fonts again; whether `font_families` changed."""
    before = font_families()
    _families.cache_clear()
    return font_families() != before


def chart(draw: Callable[[Any], None], *, size: tuple[float, float] = (7.0, 4.5)) -> bytes | None:
    """Call ``draw(axes)`` on a fresh figure and return it as PNG bytes (None without matplotlib).
    Characters the default font lacks come from an installed CJK font (`font_families`); when
    some are missing, fonts are looked for again and, if one was installed since, the chart is
    drawn again with it."""
    try:
        import matplotlib.backends.backend_agg  # noqa: F401  # drawing needs the Agg canvas, not matplotlib alone
    except ImportError:
        warnings.warn("matplotlib is not installed; install proseval[plot] to draw charts", stacklevel=2)
        return None
    png, caught = _drawn(draw, size)
    if _missing(caught) and refresh_font_families():
        png, caught = _drawn(draw, size)
    _report(caught)
    return png


def _drawn(draw: Callable[[Any], None], size: tuple[float, float]) -> tuple[bytes, list[warnings.WarningMessage]]:
    """The chart's PNG bytes and the warnings drawing it gave."""
    from matplotlib import image, rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with rc_context({"font.family": list(font_families())}), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figure = Figure(figsize=size, dpi=PNG_DPI, layout="constrained")  # room made for labels and the legend
        canvas = FigureCanvasAgg(figure)
        axes = figure.subplots()
        draw(axes)
        place_legend(figure, axes)
        # Drawn once: the layout checks measure this drawing and the PNG holds its pixels (as `savefig`
        # writes them, which would draw the figure again).
        canvas.draw()
        if os.environ.get(STRICT_ENV):
            problems = _problems_in_drawn(figure)
            if problems:
                raise ChartLayoutError("; ".join(dict.fromkeys(problems)))
        buffer = io.BytesIO()
        image.imsave(buffer, canvas.buffer_rgba(), format="png", origin="upper", dpi=PNG_DPI)
    return buffer.getvalue(), caught


PNG_DPI = 110  # the charts' resolution (pixels per inch)
LEGEND_BESIDE = 28  # longest label (characters) of a legend put beside the plot; longer ones go below it
LEGEND_WRAP = 70
STRICT_ENV = "PROSEVAL_STRICT_CHARTS"  # set (the test suite sets it): a chart that hides data or cuts a label raises


class ChartLayoutError(AssertionError):
    """A chart whose legend lies over its data or whose text is cut (only with `STRICT_ENV` set)."""


def place_legend(figure: Any, axes: Any) -> None:
    """The legend, if the chart has one, outside the plotting area, never over bars, points or error
    bars: right of it, or below it when its labels are long (wrapped at `LEGEND_WRAP` characters);
    the constrained layout shrinks the axes to make room."""
    handles, labels = axes.get_legend_handles_labels()
    if not handles:
        return
    wrapped = [textwrap.fill(label, LEGEND_WRAP) for label in labels]
    wide = max(len(label) for label in labels) > LEGEND_BESIDE
    figure.legend(
        handles, wrapped, loc="outside lower center" if wide else "outside right upper", fontsize="small", ncols=1
    )


def layout_problems(figure: Any) -> list[str]:
    """What hides data or is cut in a drawn figure: a legend over a plotting area, a plotting area's
    drawn texts (title, axis labels, tick labels) or a legend reaching outside the figure. Checked
    for every chart the tests draw (`STRICT_ENV`)."""
    figure.canvas.draw()
    return _problems_in_drawn(figure)


def _problems_in_drawn(figure: Any) -> list[str]:
    """`layout_problems` of a figure as last drawn."""
    renderer = figure.canvas.get_renderer()
    box = figure.bbox

    def outside(extent: Any) -> bool:
        return extent.x0 < box.x0 - 1 or extent.y0 < box.y0 - 1 or extent.x1 > box.x1 + 1 or extent.y1 > box.y1 + 1

    problems = []
    legends = [*figure.legends, *(a.get_legend() for a in figure.axes if a.get_legend() is not None)]
    for legend in legends:
        extent = legend.get_window_extent(renderer)
        if any(extent.overlaps(a.get_window_extent(renderer)) for a in figure.axes):
            problems.append("a legend lies over the plotting area")
        if outside(extent):
            problems.append("a legend reaches outside the figure")
    for axes in figure.axes:
        if axes.get_visible() and outside(axes.get_tightbbox(renderer)):
            labels = [t.get_text() for t in (axes.title, axes.xaxis.label, axes.yaxis.label) if t.get_text()]
            problems.append(f"the plot {' / '.join(labels) or 'without labels'} has text outside the figure")
    return problems


def _missing(caught: list[warnings.WarningMessage]) -> list[warnings.WarningMessage]:
    """Matplotlib's warnings of characters missing from the fonts (one per character)."""
    return [w for w in caught if "missing from font" in str(w.message)]


def _report(caught: list[warnings.WarningMessage]) -> None:
    """Pass the chart's warnings on, matplotlib's one-per-character missing-glyph warnings as one."""
    missing = _missing(caught)
    for w in caught:
        if w not in missing:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if missing:
        glyphs = sorted({chr(int(m.group(1))) if (m := _GLYPH.match(str(w.message))) else "?" for w in missing})
        warnings.warn(
            f"{len(glyphs)} glyphs missing from font, drawn as boxes ({', '.join(glyphs[:5])}"
            f"{', …' if len(glyphs) > 5 else ''}); for Chinese, Japanese or Korean labels install a "
            "CJK font (e.g. fonts-noto-cjk)",
            stacklevel=3,
        )


def ci_errors(points: list[tuple[float, float | None, float | None]]) -> list[list[float]]:
    """Whisker lengths [below, above] for (mean, ci_low, ci_high) points; 0 where there is no CI."""
    return [
        [mean - low if low is not None else 0.0 for mean, low, _ in points],
        [high - mean if high is not None else 0.0 for mean, _, high in points],
    ]
