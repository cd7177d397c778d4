"""One way to draw a chart: a matplotlib Figure rendered with Agg to PNG bytes.

Benchmarks (through `proseval.kit`) and the HTML report draw on the axes `chart` gives them and
get PNG bytes back, or None (with one warning) when matplotlib (``proseval[plot]``) is not
installed. The global pyplot backend is never touched, so charts are safe in any process.
"""

from __future__ import annotations

import functools
import io
import re
import warnings
from collections.abc import Callable
from typing import Any

_GLYPH = re.compile(r"Glyph (\d+) ")
#: Families that draw Chinese, Japanese and Korean characters (labels of C3EBench, Meeseeks,
#: WritingBench slices), tried in this order for any character the first font lacks.
CJK_FAMILIES = (
    "Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Sans CJK KR", "Source Han Sans SC", "Source Han Sans",
    "WenQuanYi Micro Hei", "WenQuanYi Zen Hei", "Droid Sans Fallback", "Microsoft YaHei", "SimHei",
    "PingFang SC", "Hiragino Sans GB", "Hiragino Sans", "Yu Gothic", "Malgun Gothic", "Apple SD Gothic Neo",
)


@functools.cache
def font_families() -> tuple[str, ...]:
    """Matplotlib's default font, then every installed family of `CJK_FAMILIES`. A font installed
    after matplotlib built its font cache is not in that cache, so when no CJK family is known the
    system's font folders are scanned once and new files added (a few hundredths of a second)."""
    from matplotlib import font_manager, rcParams

    manager = font_manager.fontManager
    if not {entry.name for entry in manager.ttflist} & set(CJK_FAMILIES):
        known = {entry.fname for entry in manager.ttflist}
        for path in font_manager.findSystemFonts():
            if path not in known:
                try:
                    manager.addfont(path)
                except (OSError, RuntimeError, ValueError):
                    continue  # a font file FreeType cannot read
    installed = {entry.name for entry in manager.ttflist}
    return (rcParams["font.sans-serif"][0], *(name for name in CJK_FAMILIES if name in installed))


def chart(draw: Callable[[Any], None], *, size: tuple[float, float] = (7.0, 4.5)) -> bytes | None:
    """Call ``draw(axes)`` on a fresh figure and return it as PNG bytes (None without matplotlib).
    Characters the default font lacks come from an installed CJK font (`font_families`)."""
    try:
        from matplotlib import rc_context
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        warnings.warn("matplotlib is not installed; install proseval[plot] to draw charts", stacklevel=2)
        return None
    with rc_context({"font.family": list(font_families())}), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figure = Figure(figsize=size)
        FigureCanvasAgg(figure)
        axes = figure.subplots()
        draw(axes)
        if axes.get_legend_handles_labels()[0]:
            axes.legend(loc="best", fontsize="small")
        figure.tight_layout()
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=110)
    _report(caught)
    return buffer.getvalue()


def _report(caught: list[warnings.WarningMessage]) -> None:
    """Pass the chart's warnings on, matplotlib's one-per-character missing-glyph warnings as one."""
    missing = [w for w in caught if "missing from font" in str(w.message)]
    for w in caught:
        if w not in missing:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if missing:
        glyphs = sorted({chr(int(m.group(1))) if (m := _GLYPH.match(str(w.message))) else "?" for w in missing})
        warnings.warn(f"{len(glyphs)} glyphs missing from font, drawn as boxes ({', '.join(glyphs[:5])}"
                      f"{', …' if len(glyphs) > 5 else ''}); for Chinese, Japanese or Korean labels install a "
                      "CJK font (e.g. fonts-noto-cjk)", stacklevel=3)


def ci_errors(points: list[tuple[float, float | None, float | None]]) -> list[list[float]]:
    """Whisker lengths [below, above] for (mean, ci_low, ci_high) points; 0 where there is no CI."""
    return [[mean - low if low is not None else 0.0 for mean, low, _ in points],
            [high - mean if high is not None else 0.0 for mean, _, high in points]]
