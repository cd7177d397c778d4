"""Charts never hide data: the legend sits outside the plotting area, labels inside the figure; the
check the whole suite runs on every chart it draws (PROSEVAL_STRICT_CHARTS, tests/conftest.py)."""

from __future__ import annotations

import pytest

from proseval.plots import ChartLayoutError, chart, layout_problems, place_legend

MODELS = ["openai/gpt-4o-mini", "openai-compatible/qwen2.5-7b", "anthropic/claude-sonnet-4-5"]


def bars(axes) -> None:
    """Bars up to the top of their axis, as a leaderboard's, with a legend entry per model."""
    for i, name in enumerate(MODELS):
        axes.bar([x + i * 0.25 for x in range(5)], [9.2, 9.0, 9.3, 9.1, 9.4], 0.25, yerr=0.6, label=name)
    axes.set_ylabel("mean judge score (1-10), 95% CI")
    axes.set_ylim(0, 10)


def figure_of(draw, size=(7, 3.6)):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots()
    draw(axes)
    return figure, axes


def test_a_legend_inside_the_plot_and_a_cut_label_are_found():
    figure, axes = figure_of(bars)
    axes.legend(loc="upper left")  # where matplotlib's "best" put it: over the bars' tops
    assert "a legend lies over the plotting area" in layout_problems(figure)
    figure, axes = figure_of(bars)
    axes.set_ylabel("a label " * 40)  # longer than the figure is high
    assert any("has text outside the figure" in p for p in layout_problems(figure))


@pytest.mark.parametrize(
    "label",
    [
        "short",
        "a long legend label that goes on and on: Δ_med = 4 (median completion "
        "12 − median first draft 8; 7 drafted sections, 1 at T_max)",
    ],
)
def test_the_legend_is_placed_beside_or_below_the_data_and_nothing_is_cut(label):
    def draw(axes):
        bars(axes)
        axes.plot([0, 4], [1, 9], label=label)

    figure, axes = figure_of(draw)
    place_legend(figure, axes)
    assert layout_problems(figure) == []
    assert chart(draw) is not None  # the strict check passes inside chart() too


def test_in_strict_mode_a_chart_that_hides_data_raises():
    def hiding(axes):
        bars(axes)
        axes.set_title("x " * 400)  # a title far wider than the figure

    with pytest.raises(ChartLayoutError, match="has text outside the figure"):
        chart(hiding)


def test_a_chart_drawn_once_is_the_png_savefig_writes(monkeypatch):
    """`chart` draws a figure once, checks that drawing and writes its pixels: the file is the one
    matplotlib's `savefig` writes of the same figure, with the strict check on or off."""
    import io

    import numpy as np
    from matplotlib import rc_context
    from PIL import Image

    from proseval.plots import PNG_DPI, font_families

    def draw(axes):
        bars(axes)
        axes.set_title("滑铁卢 — a title with CJK glyphs")

    saved = io.BytesIO()
    with rc_context({"font.family": list(font_families())}):  # as `chart` draws
        figure, axes = figure_of(draw, size=(7.0, 4.5))
        place_legend(figure, axes)
        figure.savefig(saved, format="png", dpi=PNG_DPI)
    expected = np.asarray(Image.open(saved))
    for strict in ("1", ""):
        monkeypatch.setenv("PROSEVAL_STRICT_CHARTS", strict)
        png = chart(draw)
        assert png is not None
        assert np.array_equal(np.asarray(Image.open(io.BytesIO(png))), expected)
