"""Who may label in a session: whether people may join it is decided when it is planned and kept in
its plan (a restart without ``--rater`` does not open a session whose raters were named; only
``--reopen`` does, with a warning), and rater
names are compared as they look (Unicode's confusable skeleton, so a Cyrillic "Аnn" is "Ann")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from proseval.view.labelling import LabellingError, LabelOptions, joining_line
from proseval.view.raters import look_alike, same_name, skeleton
from view.test_labelling import LOCAL, client, labelling_runs, plan_of

CYRILLIC_ANN = "\u0410nn"  # А: CYRILLIC CAPITAL LETTER A
GREEK_BEN = "\u0392en"  # Β: GREEK CAPITAL LETTER BETA


def raters_in(root: Path, session: str) -> list[str]:
    return sorted(json.loads((root / "labels" / f"{session}.raters.json").read_text(encoding="utf-8"))["raters"])


def join(app, name: str):
    return TestClient(app, base_url=LOCAL).get("/label", params={"rater": name})


def test_a_session_planned_with_raters_stays_closed_when_restarted_without_them(tmp_path: Path):
    root = labelling_runs(tmp_path / "runs", samples=2)
    client(root, session="named", seed=1, raters=("Ann", "Ben"))
    assert plan_of(root, "named")["joining"] == "closed"
    for options in ({}, {"only": True}):  # a plain restart, and docs/viewer.md's --label-only one
        restarted = client(root, session="named", **options)
        assert not restarted.app.state.labelling.joinable
        refused = join(restarted.app, "Mallory")
        assert refused.status_code == 403 and "closed to joining" in refused.text
        assert "Your name" not in restarted.get("/label").text  # no join form on the start page
    assert raters_in(root, "named") == ["Ann", "Ben"]
    assert "closed to joining" in joining_line(client(root, session="named").app.state.labelling)


def test_reopen_opens_a_closed_session_says_so_on_stderr_and_the_plan_keeps_it(tmp_path: Path, monkeypatch):
    import uvicorn
    from typer.testing import CliRunner

    from proseval.cli import app

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    monkeypatch.setattr("proseval.view.server.listen", lambda host, port: [])
    root = labelling_runs(tmp_path / "runs", samples=2)
    client(root, session="named", seed=1, raters=("Ann",))
    items = plan_of(root, "named")["items"]
    assert plan_of(root, "named")["joining"] == "closed"
    started = CliRunner().invoke(app, ["view", str(root), "--label", "named", "--reopen"])
    assert started.exit_code == 0, started.output
    warning = "warning: session named was closed to joining and is open now (--reopen"
    assert warning in started.stderr and warning not in started.stdout
    assert "Session named is open" in started.stdout
    assert plan_of(root, "named")["joining"] == "open" and plan_of(root, "named")["items"] == items
    restarted = client(root, session="named")  # later starts need no --reopen, and warn no more
    assert restarted.app.state.labelling.joinable and not restarted.app.state.labelling.reopened
    assert join(restarted.app, "Cy").status_code == 200
    assert raters_in(root, "named") == ["Ann", "Cy"]
    again = CliRunner().invoke(app, ["view", str(root), "--label", "named", "--reopen"])
    assert again.exit_code == 0 and "warning" not in again.stderr  # open already: nothing to say
    alone = CliRunner().invoke(app, ["view", str(root), "--reopen"])
    assert alone.exit_code == 2 and "--reopen go with --label SESSION" in alone.output


def test_an_open_session_stays_open_when_a_rater_is_named_later(tmp_path: Path):
    root = labelling_runs(tmp_path / "runs", samples=2)
    assert join(client(root, session="open", seed=1).app, "Ann").status_code == 200
    assert plan_of(root, "open")["joining"] == "open"
    later = client(root, session="open", raters=("Ben",))  # Ben gets a link; others may still join
    assert later.app.state.labelling.new_keys.keys() == {"Ben"}
    assert join(later.app, "Cy").status_code == 200
    assert raters_in(root, "open") == ["Ann", "Ben", "Cy"]


def test_a_plan_from_before_joining_was_kept_is_closed_once_it_has_raters(tmp_path: Path):
    root = labelling_runs(tmp_path / "runs", samples=2)
    client(root, session="old", seed=1, raters=("Ann",))
    path = root / "labels" / "old.plan.json"
    plan = json.loads(path.read_text(encoding="utf-8"))
    del plan["joining"]
    path.write_text(json.dumps(plan), encoding="utf-8")
    assert join(client(root, session="old").app, "Mallory").status_code == 403
    assert raters_in(root, "old") == ["Ann"]


def test_a_plan_that_says_neither_open_nor_closed_is_refused(tmp_path: Path):
    root = labelling_runs(tmp_path / "runs", samples=2)
    client(root, session="odd", seed=1)
    path = root / "labels" / "odd.plan.json"
    path.write_text(path.read_text(encoding="utf-8").replace('"joining": "open"', '"joining": "yes"'), encoding="utf-8")
    with pytest.raises(LabellingError, match="joining is 'yes'"):
        client(root, session="odd")


def test_names_are_compared_by_their_confusable_skeleton():
    assert skeleton(CYRILLIC_ANN) == skeleton("Ann") and skeleton("Kim") == skeleton("Kirn")
    for name, other in (
        (CYRILLIC_ANN, "Ann"),
        (GREEK_BEN, "Ben"),
        ("ann", "Ann"),
        ("\uff21nn", "Ann"),
        ("AI", "al"),
        ("KIM", "Kirn"),
        ("  Ann  ", "Ann"),
    ):
        assert look_alike(name, other) and look_alike(other, name), (name, other)
    for name, other in (("Ann", "Anna"), ("Ben", "Bea"), ("Kim", "Tim")):
        assert not look_alike(name, other), (name, other)
    assert same_name(CYRILLIC_ANN, ["Bo", "Ann"]) == "Ann" and same_name("Ann", ["Ann", CYRILLIC_ANN]) == "Ann"


def test_no_one_joins_under_a_name_in_another_alphabet_that_looks_like_a_raters(tmp_path: Path):
    root = labelling_runs(tmp_path / "runs", samples=2)
    viewer = client(root, seed=1, rater="Ann")
    for app in (viewer.app, client(root).app):  # the second: a restart, the names read back from the raters file
        refused = join(app, CYRILLIC_ANN)
        assert refused.status_code == 409
        assert f"the name {CYRILLIC_ANN} looks like Ann, a rater" in refused.text
        assert "U+0410 CYRILLIC CAPITAL LETTER A" in refused.text
    assert raters_in(root, "s1") == ["Ann"]


def test_look_alike_raters_in_other_alphabets_are_refused_at_start_up_naming_both(tmp_path: Path):
    with pytest.raises(LabellingError, match=f"raters 'Ann' and '{CYRILLIC_ANN}' look alike") as refused:
        LabelOptions("s1", raters=("Ann", CYRILLIC_ANN))
    assert "U+0410 CYRILLIC CAPITAL LETTER A" in str(refused.value)
    root = labelling_runs(tmp_path / "runs", samples=2)
    client(root, seed=1, raters=("Ben",))
    with pytest.raises(LabellingError, match=f"rater '{GREEK_BEN}' looks like 'Ben'"):
        client(root, raters=(GREEK_BEN,))  # like a rater the session already has
