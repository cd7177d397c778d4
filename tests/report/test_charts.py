"""Charts draw Chinese, Japanese and Korean labels with an installed CJK font, not as boxes."""

from __future__ import annotations

import shutil
import subprocess
import warnings

import pytest

from proseval.plots import CJK_FAMILIES, chart, font_families

pytest.importorskip("matplotlib")


def system_has_cjk_font() -> bool:
    """What fontconfig says, independently of proseval's search."""
    if shutil.which("fc-list") is None:
        return False
    listed = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True).stdout
    return any(name in listed for name in CJK_FAMILIES)


def missing_glyph_warnings(labels: list[str]) -> list[str]:
    def draw(axes):
        axes.bar(labels, range(1, len(labels) + 1))
        axes.set_title(" / ".join(labels))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert chart(draw)[:8] == b"\x89PNG\r\n\x1a\n"
    return [str(w.message) for w in caught if "missing from font" in str(w.message)]


def test_cjk_labels_are_drawn_with_an_installed_cjk_font():
    if not system_has_cjk_font():  # a failure in CI (tests/conftest.py), where .ci/run installs one
        pytest.skip("no CJK font on this machine (install e.g. fonts-noto-cjk or fonts-wqy-microhei)")
    families = font_families()
    assert families[0] == "DejaVu Sans" and len(families) > 1  # Latin text keeps matplotlib's font
    assert missing_glyph_warnings(["中文标签", "日本語のラベル", "한국어", "English"]) == []


def test_latin_labels_never_warn():
    assert missing_glyph_warnings(["cf", "biog", "1k", "naïve"]) == []


def test_without_a_cjk_font_one_warning_names_the_missing_characters(monkeypatch):
    """matplotlib warns once per missing character; a chart passes that on as one warning."""
    from proseval import plots

    monkeypatch.setattr(plots, "font_families", lambda: ("DejaVu Sans",))
    warned = missing_glyph_warnings(["中文标签", "English"])
    assert len(warned) == 1
    assert warned[0].startswith("4 glyphs missing from font, drawn as boxes (中, 文, 标, 签)")
    assert "install a CJK font" in warned[0]
