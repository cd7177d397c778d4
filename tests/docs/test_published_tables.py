"""The papers' published tables recomputed from their own cells (``../shared/data/papers``).

No paper publishes the model outputs behind its tables, so a table can only be checked against
itself: a printed average against the printed cells it averages, under the definitions proseval
implements (docs/reproducing-papers.md names each check). Cells the transcription flags as
doubtful (``DOUBT:`` in their note) are the only ones allowed to disagree, and they must.
"""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from pathlib import Path
from statistics import mean

import pytest


def rows(shared_dir: Path, name: str) -> list[dict[str, str]]:
    with (shared_dir / "data" / "papers" / f"{name}.csv").open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def rounding(*printed: str) -> float:
    """The largest error of a sum or mean of numbers rounded as printed: half a unit of the least precise."""
    return max(0.5 * 10 ** -len(value.partition(".")[2]) for value in printed) + 1e-9


def test_longweave_table_3_overall_is_the_mean_over_tasks_and_over_lengths(shared_dir):
    """proseval's Overall/Avg is the mean over task × length cells: on a full grid, the mean of
    the seven task averages and the mean of the four length averages alike."""
    table: dict[str, dict[str, str]] = defaultdict(dict)
    for row in rows(shared_dir, "longweave"):
        if row["table"] == "Table 3":
            table[row["model"]][row["slice"]] = row["value"]
    assert len(table) == 23
    for model, cells in table.items():
        overall = float(cells["overall"])
        for columns in (("CF", "BioG", "SR", "NW", "KVG", "SMS", "PR"), ("1k", "2k", "4k", "8k")):
            tolerance = rounding(cells["overall"]) + rounding(*(cells[c] for c in columns))
            assert mean(float(cells[c]) for c in columns) == pytest.approx(overall, abs=tolerance), (model, columns)


def meeseeks_turns(shared_dir: Path) -> tuple[dict, dict, dict]:
    """Per model: the utility rate of each turn, each printed average over turns (a, b), and the doubtful cells."""
    turns: dict[str, dict[int, str]] = defaultdict(dict)
    averages: dict[str, dict[tuple[int, int], str]] = defaultdict(dict)
    doubtful: dict[str, set] = defaultdict(set)
    for row in rows(shared_dir, "meeseeks"):
        setting = row["setting"].split(";")[0]
        if single := re.fullmatch(r"turn (\d+)", setting):
            key: int | tuple[int, int] = int(single[1])
            turns[row["model"]][key] = row["value"]
        else:
            span = re.fullmatch(r"turns (\d+)-(\d+) average", setting)
            key = (int(span[1]), int(span[2]))
            averages[row["model"]][key] = row["value"]
        if "DOUBT:" in row["note"]:
            doubtful[row["model"]].add(key)
    return turns, averages, doubtful


def test_meeseeks_table_3_averages_are_the_means_of_the_turns_of_tables_4_and_5(shared_dir):
    turns, averages, doubtful = meeseeks_turns(shared_dir)
    assert len(turns) == 17 and all(sorted(t) == list(range(1, 21)) for t in turns.values())
    agree = disagree = 0
    for model, spans in averages.items():
        for (first, last), printed in spans.items():
            cells = [turns[model][t] for t in range(first, last + 1)]
            close = abs(mean(map(float, cells)) - float(printed)) <= rounding(printed) + rounding(*cells)
            assert close != ((first, last) in doubtful[model]), (model, first, last)
            agree += close
            disagree += not close
    assert (agree, disagree) == (44, 7)


def test_meeseeks_utility_never_falls_from_one_turn_to_the_next(shared_dir):
    """Only failed items are asked again and a passed item stays passed (proseval's carry-forward),
    so the Utility Rate of a turn is at least that of the turn before."""
    turns, _, doubtful = meeseeks_turns(shared_dir)
    falls = [
        (model, turn)
        for model, rates in turns.items()
        for turn in range(2, 21)
        if float(rates[turn]) < float(rates[turn - 1])
    ]
    assert falls and all(turn in doubtful[model] for model, turn in falls)


def test_writingbench_table_3_avg_lies_within_its_language_and_domain_scores(shared_dir):
    """Avg is a mean over all queries (proseval's `overall`), so it lies between the lowest and the
    highest score of any partition of the queries: ZH / EN, and the six domains."""
    table: dict[str, dict[str, str]] = defaultdict(dict)
    for row in rows(shared_dir, "writingbench"):
        if row["table"] == "Table 3" and row["metric"] == "Score":
            table[row["model"]][row["slice"]] = row["value"]
    assert len(table) == 16
    for model, cells in table.items():
        printed = cells.pop("overall")
        for part in (["ZH", "EN"], [s for s in cells if s.startswith("D")]):
            values = [cells[s] for s in part]
            slack = rounding(*values) + rounding(printed)
            assert min(map(float, values)) - slack <= float(printed) <= max(map(float, values)) + slack, (model, part)


def test_revision_distance_table_4_total_is_the_sum_of_its_categories_and_table_2s_distance(shared_dir):
    """proseval's knowledge setting files each edit under one category, so D is their sum."""
    table_4: dict[str, dict[str, str]] = defaultdict(dict)
    distance: dict[str, dict[str, str]] = {}
    for row in rows(shared_dir, "revision_distance"):
        if row["table"] == "Table 4":
            table_4[row["model"]][row["slice"]] = row["value"]
        elif row["table"] == "Table 2" and row["metric"] == "D_Revision":
            distance[row["model"]] = row
    assert set(table_4) == {"Vanilla GPT-4", "CoT GPT-4"}
    for model, cells in table_4.items():
        parts = [cells[c] for c in ("Order", "Comp", "Desc")]
        tolerance = 3 * rounding(*parts) + rounding(cells["Total"])
        assert sum(map(float, parts)) == pytest.approx(float(cells["Total"]), abs=tolerance), model
        same = cells["Total"] == distance[model]["value"]
        assert same != ("DOUBT:" in distance[model]["note"]), model
