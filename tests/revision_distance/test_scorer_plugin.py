"""`proseval score RUN --scorer revision-distance`: the edits a reviser would make to any run's answers."""

from __future__ import annotations

import json

from typer.testing import CliRunner

import proseval
from proseval.cli import app
from proseval.models.scripted import register_script, unregister_script

cli = CliRunner()
TWO_EDITS = json.dumps(
    [
        {
            "action_name": "replace",
            "revision_description": "d",
            "revision_level": "word",
            "original_snippet": "Aim for about",
            "revised_snippet": "x",
            "revision_intention": "i",
        },
        {
            "action_name": "delete",
            "revision_description": "d",
            "revision_level": "sentence",
            "original_snippet": "zzz",
            "revised_snippet": "",
            "revision_intention": "i",
        },
    ]
)


def test_a_demo_run_is_measured_by_the_revision_distance_scorer(tmp_path):
    source = proseval.run("demo", model="scripted/echo", roles={"judge": "scripted/echo"}, limit=2, out=tmp_path)
    register_script("rd-plugin-reviser", [TWO_EDITS])
    try:
        result = cli.invoke(
            app,
            [
                "score",
                str(source.path),
                "--scorer",
                "revision-distance",
                "-O",
                "setting=reference-free",
                "--role",
                "reviser=scripted/rd-plugin-reviser",
                "--display",
                "none",
            ],
        )
    finally:
        unregister_script("rd-plugin-reviser")
    assert result.exit_code == 0, result.output
    folder = next(p for p in tmp_path.iterdir() if "rescore" in p.name)
    results = json.loads((folder / "results.json").read_text())
    assert results["metrics"]["revision_distance"]["mean"] == 2.0
    assert (
        results["metrics"]["grounded_edits"]["mean"] == 1.0
    )  # "Aim for about" occurs in every stored (echoed) answer, "zzz" does not
    header = json.loads((folder / "header.json").read_text())
    assert header["scorer_plugin"] == {"name": "revision-distance", "options": {"setting": "reference-free"}}
