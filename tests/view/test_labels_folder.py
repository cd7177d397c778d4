"""The viewer writes `RUNS/labels/` as soon as a session is planned (its plan, its raters), before
any label: `proseval agreement runs/*` and `proseval report runs/*` skip that folder as they skip
one with labels, with the one line that names what was skipped (`commandline.console.run_folders`)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from proseval.cli import app
from proseval.runtime.runlog import select_runs
from view.test_labelling import client, labelling_runs


def test_a_labels_folder_holding_only_a_plan_is_skipped_by_the_commands_that_read_runs(tmp_path: Path):
    root = labelling_runs(tmp_path / "runs", samples=2)
    client(root, session="pilot", seed=1, raters=("Ann", "Ben"))
    labels = root / "labels"
    assert sorted(p.name for p in labels.iterdir()) == ["pilot.plan.json", "pilot.raters.json"]  # no label yet
    everything = sorted(root.iterdir())
    runs, aside = select_runs(everything)  # what agreement and report read (`commandline.console.run_folders`)
    assert aside == [(labels, "the viewer's labels")] and labels not in runs and len(runs) == len(everything) - 1
    result = CliRunner().invoke(app, ["agreement", *map(str, everything)])
    assert result.exit_code == 0, result.output
    assert f"not runs, skipped: {labels} (the viewer's labels)" in " ".join(result.output.split())
