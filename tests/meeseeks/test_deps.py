"""Dependency levels and failure propagation between sub-questions."""

from __future__ import annotations

import pytest

from proseval.benchmarks.meeseeks.deps import DependencyGraph, GatedResult, apply_dependencies

# The common shape: a gate (0) and checks depending on it; 3 depends on 2 as well.
GRAPH = DependencyGraph.build([0, 1, 2, 3], [[], [0], [0], [0, 2]])


def test_levels_and_waves():
    assert GRAPH.levels() == [0, 1, 1, 2]
    assert GRAPH.waves() == [[0], [1, 2], [3]]


def test_all_pass_keeps_own_results():
    gated = apply_dependencies(GRAPH, [1, 0, 1, 1])
    assert [g.value for g in gated] == [1, 0, 1, 1]
    assert {g.reason for g in gated} == {"evaluated"}


def test_failed_gate_fails_every_dependant_transitively():
    gated = apply_dependencies(GRAPH, [0, 1, 1, 1])
    assert gated == [
        GatedResult(0, "evaluated"),
        GatedResult(0, "dependency_failed"),
        GatedResult(0, "dependency_failed"),
        GatedResult(0, "dependency_failed"),
    ]


def test_failed_middle_check_only_fails_its_own_dependants():
    gated = apply_dependencies(GRAPH, [1, 1, 0, 1])
    assert [(g.value, g.reason) for g in gated] == [
        (1, "evaluated"),
        (1, "evaluated"),
        (0, "evaluated"),
        (0, "dependency_failed"),
    ]


def test_undecided_gate_leaves_dependants_undecided_not_failed():
    gated = apply_dependencies(GRAPH, [None, 1, 0, 1])
    assert [(g.value, g.reason) for g in gated] == [
        (None, "evaluated"),
        (None, "dependency_undecided"),
        (None, "dependency_undecided"),
        (None, "dependency_undecided"),
    ]


def test_failure_wins_over_undecided():
    graph = DependencyGraph.build([0, 1, 2], [[], [], [0, 1]])
    assert apply_dependencies(graph, [None, 0, 1])[2] == GatedResult(0, "dependency_failed")


def test_gate_is_checked_against_current_values():
    assert GRAPH.gate(3, [1, 1, 1, None]) == "open"
    assert GRAPH.gate(3, [1, 1, 0, None]) == "failed"
    assert GRAPH.gate(1, [None, None, None, None]) == "undecided"


def test_repeated_point_ids_are_addressed_by_position():
    # Several -1 ids (as in some official items); a dependency on a repeated id sees all holders.
    graph = DependencyGraph.build([0, -1, -1, 5], [[], [0], [0], [-1]])
    assert graph.levels() == [0, 1, 1, 2]
    gated = apply_dependencies(graph, [1, 1, 0, 1])
    assert [g.value for g in gated] == [1, 1, 0, 0]


def test_unknown_dependency_names_the_item_and_sub_question():
    with pytest.raises(ValueError, match=r"DATA\[1\.1\].json#3, sub-question 1: .*\[7\]"):
        DependencyGraph.build([0, 1], [[], [7]], where="DATA[1.1].json#3")


def test_cycle_is_rejected():
    with pytest.raises(ValueError, match="cycle"):
        DependencyGraph.build([0, 1], [[1], [0]])


def test_length_mismatch_is_rejected():
    with pytest.raises(ValueError):
        apply_dependencies(GRAPH, [1, 1])
