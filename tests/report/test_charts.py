"""Charts draw Chinese, Japanese and Korean labels with an installed CJK font, not as boxes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

from proseval.plots import CJK_FAMILIES, chart, font_families

pytest.importorskip("matplotlib")


def system_has_cjk_font() -> bool:
    """What fontconfig says, independently of proseval's search."""
    if shutil.which("fc-list") is None:
        return False
    listed = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True).stdout
    return any(name in listed for name in CJK_FAMILIES)


def system_cjk_font_files() -> list[str]:
    """The files fontconfig lists for Chinese, independently of proseval's search."""
    listed = subprocess.run(
        ["fc-list", "--format=%{file}\n", ":lang=zh"], capture_output=True, text=True, check=True
    ).stdout
    return sorted(set(listed.split()))


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
    assert missing_glyph_warnings(["中文标签", "日本語のラベル", "한국어", "English"]) == []
    families = font_families()
    assert families[0] == "DejaVu Sans" and len(families) > 1  # Latin text keeps matplotlib's font


INSTALLED_LATER = textwrap.dedent(
    """
    import json, shutil, sys, warnings
    from matplotlib import font_manager
    from proseval.plots import chart

    # The machine's font folders hidden from matplotlib's own scan, as on a machine without the font:
    # fontconfig sees only the folder the font is installed in below.
    font_manager.X11FontDirectories.clear()

    def missing():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            chart(lambda axes: axes.set_title("中文标签"))
        return [str(w.message) for w in caught if "missing from font" in str(w.message)]

    before = missing()
    shutil.copy(sys.argv[1], sys.argv[2])  # the font the warning asks for, installed now
    print(json.dumps({"before": before, "after": missing()}))
    """
)


def test_a_cjk_font_installed_after_matplotlibs_font_cache_is_used_by_the_next_chart(tmp_path: Path):
    """The warning's advice works: matplotlib's font cache was made without the font, a chart drew
    boxes, the font is installed, and the next chart of the same process draws the characters."""
    if not system_has_cjk_font():  # a failure in CI (tests/conftest.py), where .ci/run installs one
        pytest.skip("no CJK font on this machine (install e.g. fonts-noto-cjk or fonts-wqy-microhei)")
    font = system_cjk_font_files()[0]
    fonts, home, mpl = tmp_path / "fonts", tmp_path / "home", tmp_path / "matplotlib"
    for folder in (fonts, home, mpl):
        folder.mkdir()
    config = tmp_path / "fonts.conf"
    config.write_text(
        f'<?xml version="1.0"?>\n<fontconfig><dir>{fonts}</dir><cachedir>{tmp_path / "fc-cache"}'
        "</cachedir></fontconfig>\n",
        encoding="utf-8",
    )
    env = {**os.environ, "MPLCONFIGDIR": str(mpl), "HOME": str(home), "FONTCONFIG_FILE": str(config)}
    env.pop("XDG_DATA_HOME", None)
    subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], env=env, check=True, timeout=600)
    [cache] = mpl.glob("fontlist-*.json")  # matplotlib's font cache, made now: as if before the font was installed
    made = json.loads(cache.read_text(encoding="utf-8"))
    cjk = {os.path.realpath(path) for path in system_cjk_font_files()}
    made["ttflist"] = [entry for entry in made["ttflist"] if os.path.realpath(entry["fname"]) not in cjk]
    cache.write_text(json.dumps(made), encoding="utf-8")

    drawn = subprocess.run(
        [sys.executable, "-c", INSTALLED_LATER, font, str(fonts / Path(font).name)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert drawn.returncode == 0, drawn.stderr
    charts = json.loads(drawn.stdout)
    assert len(charts["before"]) == 1 and "install a CJK font" in charts["before"][0]
    assert charts["after"] == []


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
