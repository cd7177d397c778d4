"""The command line (run, show, plot, describe), presets, and the official End2End items."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from proseval.benchmarks.ravel.params import RavelParams
from proseval.benchmarks.ravel.task import load_items
from proseval.cli import app
from proseval.registry import get_entry
from ravel.ravel_fixtures import efficient, model

runner = CliRunner()


def test_run_show_and_plot_from_the_command_line(tmp_path: Path, data_dir: Path, scripts):
    candidate = scripts("cli-eff", model(lambda turn, state: efficient(state)))
    judge = scripts("cli-judge", ['{"score": 8, "verdict": "good"}'])
    runs = []
    for protocol in ("agent", "no_review"):
        run_dir = tmp_path / protocol
        result = runner.invoke(
            app,
            [
                "run",
                "ravel",
                "--model",
                candidate,
                "--role",
                f"judge={judge}",
                "--data-dir",
                str(data_dir),
                "--language",
                "en",
                "--protocol",
                protocol,
                "--run-dir",
                str(run_dir),
                "--no-cache",
                "--display",
                "none",
            ],
        )
        assert result.exit_code == 0, result.output
        runs.append(run_dir)
    assert "RAVEL trajectories" in result.output and "RAVEL outcomes" in result.output
    shown = runner.invoke(app, ["ravel", "show", str(runs[0]), "--sample", "end2end_en_2"])
    assert shown.exit_code == 0, shown.output
    assert "[  6] refine section 1: success" in shown.output and "# On Water" in shown.output
    plotted = runner.invoke(app, ["ravel", "plot", *map(str, runs), "--out", str(tmp_path / "plots")])
    assert plotted.exit_code == 0, plotted.output
    # agent: sections drafted at steps 2 and 4, completed at 3 and 7 in both episodes (medians 3 and 5:
    # Δ_med 2); no_review: drafted at 2 and 3, never completed, so at T_max = 50 (Δ_med 50 - 2.5 = 47.5)
    assert (
        "Δ_med = 2 (median completion 5 − median first draft 3; 4 drafted sections, 0 at T_max); "
        "median completion step over all 4 sections 5\n"
    ) in plotted.output
    assert (
        "[no_review]: Δ_med = 47.5 (median completion 50 − median first draft 2.5; 4 drafted sections, "
        "4 at T_max); median completion step over all 4 sections 50; cross-run shift from the first run's: +45"
    ) in plotted.output
    medians = json.loads((tmp_path / "plots" / "ravel_lifecycle_medians.json").read_text())
    assert [(m["delta_med"], m["completion_median"], m["completion_median_shift_vs_first"]) for m in medians] == [
        (2.0, 5.0, None),
        (47.5, 50.0, 45.0),
    ]
    assert (tmp_path / "plots" / "ravel_lifecycles.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "plots" / "ravel_score_curve.png").is_file()
    table = (runs[1] / "ravel.md").read_text()
    # no_review: both episodes finished (S = 100 % by eq. 8), none with every section completed (premature)
    assert "| all | 2 | 0 | 100.0 | 0.0 | 2 | 0 | 8.00 (2) | 0 |" in table
    # |T| 4, n 2, no review, no refine; drafts at steps 2 and 3, no section ever completed, so every
    # completion step is T_max = 50: Δ_med = 50 - 2.5; 4 sections at T_max, none undrafted
    assert (
        "| all | 4.0 | 2.0 | 2.00 | 2.00 | 0.0 | 0.0 | 0.0 | — (0) | 0.0 | 0.0 | 0/0/0 | 2.5 | 50.0 | 47.5 | 4 / 0 |"
    ) in table
    assert "| lang | \\|T\\| | \\|O\\| |" in table and "\n\n## RAVEL trajectories\n\n" in table  # a valid table


def test_presets_for_both_official_agent_versions():
    presets = get_entry("ravel").presets()
    assert presets["official"].params["revision_cap"] == 3 and presets["official"].params["history_window"] == 10
    assert presets["january"].params["revision_cap"] is None and presets["january"].params["history_window"] == 0
    assert presets["official"].gen["candidate"]["temperature"] == 0.2
    assert RavelParams(revision_cap="none").revision_cap is None
    # no cap on the outline's length: not by default, not in either preset (the official agent has none)
    assert RavelParams().max_sections is None
    assert presets["official"].params["max_sections"] is None and presets["january"].params["max_sections"] is None
    assert RavelParams(max_sections="none").max_sections is None and RavelParams(max_sections=20).max_sections == 20
    # the January hint names options that exist
    notes = presets["january"].notes
    assert "--tool-roles" not in notes and "--role reviser=TESTED" in notes


def test_describe_lists_the_metrics():
    """Every metric a run reports is in describe's Metrics table with its definition."""
    from proseval.benchmarks.ravel.metrics import DEFINITIONS

    described = runner.invoke(app, ["describe", "ravel"])
    assert described.exit_code == 0, described.output
    text = "".join(described.output.replace("│", "").split())  # table rows wrapped, read as one line
    for metric, fragment in (
        ("success", "S (eq. 8)"),
        ("reviews_per_section", "rho (eq. 9 as printed)"),
        ("refines_per_section", "rho, Table 2 reading"),
        ("delta_med", "Delta_med (Fig. 4)"),
        ("refine_delta", "delta (eq. 10)"),
        ("error_rate", "ERR: the policy's invalid actions"),
        ("tool_error_rate", "not in ERR"),
    ):
        assert fragment in DEFINITIONS[metric]
        assert metric + "".join(DEFINITIONS[metric].split()) in text, metric
    for metric in ("success_all_completed", "refines_per_step"):
        assert metric in text


def test_the_official_end2end_topics(shared_dir: Path):
    folder = shared_dir / "data" / "c3ebench"
    data, items = load_items(RavelParams(data_dir=str(folder)))
    assert all(f.verified for f in data.files)
    assert len(items) == 299 and {i.task for i in items} == {"end2end"}  # EN 99 + ZH 200
    assert [i.language for i in items[:4]] == ["en", "zh", "en", "zh"]  # interleaved for --limit
    en = load_items(RavelParams(data_dir=str(folder), language=["en"], genre=["poetry"]))[1]
    assert len(en) == 3 and all(i.genre == "poetry" for i in en)


def test_a_rescore_with_another_judge_keeps_the_trajectory(tmp_path: Path, data_dir: Path, scripts):
    candidate = scripts("rs-eff", model(lambda turn, state: efficient(state)))
    run_dir = tmp_path / "run"
    judge = "judge=" + scripts("rs-a", ['{"score": 5}'])
    first = runner.invoke(
        app,
        [
            "run",
            "ravel",
            "--model",
            candidate,
            "--role",
            judge,
            "--data-dir",
            str(data_dir),
            "--language",
            "en",
            "--limit",
            "1",
            "--run-dir",
            str(run_dir),
            "--no-cache",
            "--display",
            "none",
        ],
    )
    assert first.exit_code == 0, first.output
    again = runner.invoke(
        app,
        [
            "score",
            str(run_dir),
            "--role",
            "judge=" + scripts("rs-b", ['{"score": 9}']),
            "--out",
            str(tmp_path / "rescored"),
            "--no-cache",
            "--display",
            "none",
        ],
    )
    assert again.exit_code == 0, again.output
    from proseval.api import read_run

    rescored = read_run(next((tmp_path / "rescored").iterdir()))
    record = next(rescored.records())
    assert record.scores["judge"].value == 9.0 and record.scores["success"].value == 1.0
    assert record.scores["steps"].value == 8.0 and len(record.state.turns) == 8
