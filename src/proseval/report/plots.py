"""One way to draw a chart: a matplotlib Figure rendered with Agg to PNG bytes.

Benchmarks draw on the axes `chart` gives them and get PNG bytes back, or None (with one
warning) when matplotlib (``proseval[plot]``) is not installed. The global pyplot backend is
never touched, so charts are safe in any process.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable
from typing import Any


def chart(draw: Callable[[Any], None], *, size: tuple[float, float] = (7.0, 4.5)) -> bytes | None:
    """Call ``draw(axes)`` on a fresh figure and return it as PNG bytes (None without matplotlib)."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        warnings.warn("matplotlib is not installed; install proseval[plot] to draw charts", stacklevel=2)
        return None
    figure = Figure(figsize=size)
    FigureCanvasAgg(figure)
    axes = figure.subplots()
    draw(axes)
    if axes.get_legend_handles_labels()[0]:
        axes.legend(loc="best", fontsize="small")
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()


def ci_errors(points: list[tuple[float, float | None, float | None]]) -> list[list[float]]:
    """Whisker lengths [below, above] for (mean, ci_low, ci_high) points; 0 where there is no CI."""
    return [[mean - low if low is not None else 0.0 for mean, low, _ in points],
            [high - mean if high is not None else 0.0 for mean, _, high in points]]
