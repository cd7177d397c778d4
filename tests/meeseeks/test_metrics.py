"""Meeseeks metrics and round statistics, against hand-computed values and official files."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from proseval.benchmarks.meeseeks.metrics import (
    ENGLISH_NAMES,
    HIERARCHY,
    MODEL_FAILED,
    Check,
    capability_tree,
    carry_forward,
    checks_from_sub_questions,
    dataset_score,
    level1_score,
    official_counting,
    score_item,
    score_tags,
)
from proseval.benchmarks.meeseeks.report import official_round_stats, rounds_report

FIXTURES = Path(__file__).parent / "fixtures" / "metrics"


def approx(fraction: Fraction):
    return pytest.approx(float(fraction), abs=1e-12)


# ---- per-item score ---------------------------------------------------------------------


def test_worked_example_of_the_official_per_item_score():
    # Untagged 1; (单元数量合规, 生成名字/标题) 0; (0~10字, 精确) 1; 接龙 0; 重复 1
    # -> tag means 1, 0, 0, 1, 1, 0, 1 -> 4/7, utility 0.
    checks = [
        Check(None, 1),
        Check("单元数量合规、生成名字/标题", 0),
        Check("0~10字、精确", 1),
        Check("接龙", 0),
        Check("重复", 1),
    ]
    item = score_item(checks)
    assert item.score == approx(Fraction(4, 7))
    assert (item.utility, item.undecided) == (0, 0)


def test_tag_shared_by_several_checks_is_averaged_first():
    # A: [1, 0] -> 1/2; B: [1] -> 1; 未定义: [1] -> 1 => (1/2 + 1 + 1) / 3 = 5/6
    item = score_item([Check("A、B", 1), Check("A", 0), Check(None, 1)])
    assert item.score == approx(Fraction(5, 6))


def test_score_tags_split_on_both_separators():
    assert score_tags("A, B,,C、 D") == ["A", "B", "C", "D"]
    assert score_tags(None) == ["未定义"]


def test_all_passed_gives_utility_one():
    item = score_item([Check("A", 1), Check(None, 1)])
    assert (item.score, item.utility) == (1.0, 1)


def test_undecided_checks_are_neither_passes_nor_failures():
    passed_and_undecided = score_item([Check("A", 1), Check("B", None)])
    assert passed_and_undecided.score == 1.0
    assert passed_and_undecided.utility is None
    assert passed_and_undecided.undecided == 1
    failed_and_undecided = score_item([Check("A", 0), Check("B", None)])
    assert (failed_and_undecided.score, failed_and_undecided.utility) == (0.0, 0)
    nothing_decided = score_item([Check("A", None)])
    assert (nothing_decided.score, nothing_decided.utility) == (None, None)


def test_dataset_score_counts_items_without_result():
    item1 = [Check("A", 1), Check("B", 0)]  # 1/2, utility 0
    item2 = [Check("A", 1)]  # 1, utility 1
    item3 = [Check("A", 1), Check("B", None)]  # 1, utility undecided, partial
    score = dataset_score([item1, item2, item3, None])
    assert score.meeseeks_score == approx(Fraction(5, 2) / 3)
    assert score.utility_score == approx(Fraction(1, 2))
    assert (score.items, score.scored_items, score.utility_items) == (4, 3, 2)
    assert (score.partial, score.not_evaluated) == (1, 1)


def test_empty_dataset_has_no_score():
    score = dataset_score([])
    assert (score.meeseeks_score, score.utility_score) == (None, None)


# ---- capability tree ----------------------------------------------------------------------


def test_hierarchy_has_the_documented_shape_and_every_node_an_english_label():
    def walk(nodes, level):
        for name, children in nodes:
            yield name, level, not children
            yield from walk(children, level + 1)

    nodes = list(walk(HIERARCHY, 1))
    leaves = [(level) for _, level, leaf in nodes if leaf]
    assert len(nodes) == 42
    assert (leaves.count(2), leaves.count(3)) == (3, 29)
    assert {name for name, _, _ in nodes} == set(ENGLISH_NAMES)


def test_capability_tree_counts_leaves_and_sums_internal_nodes():
    items = [
        [Check("主题约束", 1), Check("精确、范围", 0), Check(None, 0)],
        [Check("范围", 1), Check("0～10字", 1), Check("json", 0), Check("字数约束", 0)],
        [Check("单元数量合规", 0), Check("主题约束", None)],
    ]
    tree = {node.name: node for node in capability_tree(items)}
    assert list(tree) == ["单元细节合规", "整体结构合规"]  # 任务意图理解 has no check
    content = tree["单元细节合规"]
    children = {node.name: node for node in content.children}
    assert list(children) == ["主题约束", "字数约束"]
    assert (children["主题约束"].correct, children["主题约束"].wrong) == (1, 0)
    assert children["主题约束"].unscored == 1
    words = {node.name: (node.correct, node.wrong) for node in children["字数约束"].children}
    assert words == {"精确": (0, 1), "范围": (1, 1), "0~10字": (1, 0)}
    # 主题约束 1/1 + 精确 0/1 + 范围 1/2 + 0~10字 1/1 -> 3 correct, 2 wrong
    assert (content.correct, content.wrong, content.total) == (3, 2, 5)
    assert content.percentage == approx(Fraction(3, 5))
    structure = tree["整体结构合规"]
    assert (structure.correct, structure.wrong, structure.percentage) == (0, 1, 0.0)
    # Paper definition: mean over level-1 capabilities = (3/5 + 0) / 2
    assert level1_score(list(tree.values())) == approx(Fraction(3, 10))


def test_report_and_score_split_tags_differently():
    # The score splits on commas and keeps 0～10字 / 0~10字 apart; the report does the opposite.
    item = [Check("0～10字", 1), Check("0~10字", 0), Check("精确,范围", 1)]
    assert score_item(item).score == approx(Fraction(1 + 0 + 1 + 1, 4))
    tree = capability_tree([item])
    words = tree[0].children[0]
    assert words.name == "字数约束"
    assert [(n.name, n.correct, n.wrong) for n in words.children] == [("0~10字", 1, 1)]


def test_level1_score_without_checks_is_none():
    assert level1_score(capability_tree([[Check(None, 1)]])) is None


# ---- carry-forward and round statistics ---------------------------------------------------


def load_rounds():
    data = json.loads((FIXTURES / "carry_forward_rounds.json").read_text(encoding="utf-8"))
    rounds = [
        {
            item_id: None
            if sub_questions is None
            else checks_from_sub_questions(sub_questions, where=f"round {n} item {item_id}")
            for item_id, sub_questions in processed.items()
        }
        for n, processed in enumerate(data["rounds"], start=1)
    ]
    return rounds, data["item_ids"]


def test_carry_forward_keeps_the_latest_evaluation():
    rounds, ids = load_rounds()
    first, second = carry_forward(rounds, ids)
    assert first["D"] is None and second["D"] is None
    assert second["B"] is rounds[0]["B"]  # not re-asked: carried from round 1
    assert second["E"] is rounds[0]["E"]  # re-asked but not evaluated: round 1 still counts
    assert second["A"] is rounds[1]["A"] and second["C"] is rounds[1]["C"]


def test_carry_forward_rejects_unknown_items():
    with pytest.raises(ValueError, match="round 1: unknown item id"):
        carry_forward([{"Z": None}], ["A"])


def test_multi_round_report_hand_computed():
    rounds, ids = load_rounds()
    first, second = rounds_report(rounds, ids, english=False)

    # Round 1: A 1/2 (util 0), B 1 (util 1), C 2/3 (util 0), E 1/2 (util 0), D never answered.
    assert first["official"]["meeseeks_score"] == approx((Fraction(1, 2) + 1 + Fraction(2, 3) + Fraction(1, 2)) / 4)
    assert first["official"]["utility_score"] == approx(Fraction(1, 4))
    assert first["official"]["total_items"] == 4
    assert first["summary"]["not_evaluated_items"] == 1
    assert first["summary"]["processed_this_round"] == 5
    # Content: 主题约束 2/2 + 精确 0/1 + 范围 1/1 + 重复 0/1 + 写作手法 1/1 + 词频 0/1 = 4/7;
    # structure: 单元数量合规 1/1.
    assert first["summary"]["capability_mean_level1"] == approx((Fraction(4, 7) + 1) / 2)

    # Round 2: A improves to 1 (util 1), B carried 1 (util 1), C regresses to 0, E carried 1/2.
    assert second["official"]["meeseeks_score"] == approx((1 + 1 + 0 + Fraction(1, 2)) / 4)
    assert second["official"]["utility_score"] == approx(Fraction(2, 4))
    assert second["official"]["total_items"] == 4
    assert second["summary"]["processed_this_round"] == 4
    assert second["summary"]["capability_mean_level1"] == approx((Fraction(3, 7) + 1) / 2)
    leaf = {"children": {}}
    assert second["official"]["capability_stats"] == {
        "单元细节合规": {
            "percentage": 3 / 7,
            "correct": 3,
            "wrong": 4,
            "total": 7,
            "children": {
                "主题约束": {"percentage": 0.5, "correct": 1, "wrong": 1, "total": 2, **leaf},
                "字数约束": {
                    "percentage": 0.5,
                    "correct": 1,
                    "wrong": 1,
                    "total": 2,
                    "children": {
                        "精确": {"percentage": 1.0, "correct": 1, "wrong": 0, "total": 1, **leaf},
                        "范围": {"percentage": 0.0, "correct": 0, "wrong": 1, "total": 1, **leaf},
                    },
                },
                "其他特殊规则": {
                    "percentage": 1 / 3,
                    "correct": 1,
                    "wrong": 2,
                    "total": 3,
                    "children": {
                        "重复": {"percentage": 0.0, "correct": 0, "wrong": 1, "total": 1, **leaf},
                        "写作手法": {"percentage": 1.0, "correct": 1, "wrong": 0, "total": 1, **leaf},
                        "词频": {"percentage": 0.0, "correct": 0, "wrong": 1, "total": 1, **leaf},
                    },
                },
            },
        },
        "整体结构合规": {
            "percentage": 1.0,
            "correct": 1,
            "wrong": 0,
            "total": 1,
            "children": {
                "单元数量合规": {"percentage": 1.0, "correct": 1, "wrong": 0, "total": 1, **leaf},
            },
        },
    }
    assert list(second["official"]["capability_stats"]["单元细节合规"]["children"]) == [
        "主题约束",
        "字数约束",
        "其他特殊规则",
    ]


def test_official_stats_omit_nodes_with_only_undecided_checks():
    stats = official_round_stats(1, [[Check("主题约束", None), Check("精确", 1)]], english=True)
    content = stats["capability_stats"]["Granular Content Validation"]
    assert list(content["children"]) == ["Word count requirement"]
    assert content["total"] == 1


def test_checks_from_sub_questions_normalises_results_and_tag_keys():
    sub_questions = [
        {"能力项": "A", "eval_result": True},
        {"能力項": "B", "eval_result": 0},
        {"능력항": "C", "eval_result": 1},
        {"eval_result": None},
    ]
    assert checks_from_sub_questions(sub_questions) == [
        Check("A", 1),
        Check("B", 0),
        Check("C", 1),
        Check(None, None),
    ]
    official = checks_from_sub_questions(sub_questions, tag_aliases=False)
    assert [c.tags for c in official] == ["A", None, None, None]


@pytest.mark.parametrize("bad", [[{"point_id": 0}], 2, "1"])
def test_checks_from_sub_questions_rejects_odd_results_with_location(bad):
    with pytest.raises(ValueError, match="round_1.json item 3, sub-question 0"):
        checks_from_sub_questions([{"eval_result": bad}], where="round_1.json item 3")


# ---- differential checks against the official files ---------------------------------------


def _leaf_counts(nodes: dict, english_to_chinese: dict) -> dict[str, tuple[int, int]]:
    counts = {}
    for name, node in nodes.items():
        if node["children"]:
            counts.update(_leaf_counts(node["children"], english_to_chinese))
        else:
            counts[english_to_chinese[name]] = (node["correct"], node["wrong"])
    return counts


def _key_paths(nodes: dict, prefix=()) -> list[tuple[str, ...]]:
    paths = []
    for name, node in nodes.items():
        paths.append((*prefix, name))
        assert list(node) == ["percentage", "correct", "wrong", "total", "children"]
        paths.extend(_key_paths(node["children"], (*prefix, name)))
    return paths


@pytest.mark.parametrize("round_number", [1, 2])
def test_official_english_stats_are_reproduced_from_their_leaf_counts(shared_dir, round_number):
    path = shared_dir / "data" / "meeseeks" / f"round_{round_number}_stats_english_official.json"
    official = json.loads(path.read_text(encoding="utf-8"))
    english_to_chinese = {english: chinese for chinese, english in ENGLISH_NAMES.items()}
    counts = _leaf_counts(official["capability_stats"], english_to_chinese)
    checks = [Check(tag, result) for tag, (correct, wrong) in counts.items() for result in [1] * correct + [0] * wrong]
    ours = official_round_stats(round_number, [checks], english=True)
    assert list(ours) == list(official)  # same keys in the same order
    assert _key_paths(ours["capability_stats"]) == _key_paths(official["capability_stats"])
    assert ours["capability_stats"] == official["capability_stats"]
    # The mean of the level-1 pass rates is a summary, not the Meeseeks Score: the official
    # statistics report 0.645 / 0.679 (the per-item definition of the paper's App. D.2), while
    # the level-1 mean of the same run is 0.5412 / 0.5647.
    tree = capability_tree([checks])
    expected = {
        1: (0 + Fraction(1834, 2560) + Fraction(1134, 1250)) / 3,
        2: (0 + Fraction(1898, 2560) + Fraction(1191, 1250)) / 3,
    }[round_number]
    assert level1_score(tree) == approx(expected)
    assert abs(official["meeseeks_score"] - float(expected)) > 0.1


def test_official_utility_values_are_whole_item_fractions(shared_dir):
    folder = shared_dir / "data" / "meeseeks"
    for name, passed in (("round_1", 147), ("round_2", 169)):
        stats = json.loads((folder / f"{name}_stats_english_official.json").read_text("utf-8"))
        assert stats["total_items"] == 363
        assert stats["utility_score"] == passed / 363


def _official_sample(shared_dir: Path, name: str) -> list[dict]:
    path = shared_dir / "data" / "meeseeks" / "official_sample_run_zh" / name
    return json.loads(path.read_text(encoding="utf-8"))


def test_official_sample_run_scores_hand_computed(shared_dir):
    round_1 = _official_sample(shared_dir, "round_1.json")
    round_2 = _official_sample(shared_dir, "round_2.json")
    ids = [item["og_question"] for item in round_1]
    rounds = [
        {
            item["og_question"]: checks_from_sub_questions(item["sub_questions"], where=f"{name} item {index}")
            for index, item in enumerate(items)
        }
        for name, items in (("round_1.json", round_1), ("round_2.json", round_2))
    ]
    # Every item has the same 5 checks: untagged gate, 2 double-tagged and 2 single-tagged,
    # so an item scores (r0 + 2 r1 + 2 r2 + r3 + r4) / 7 from the recorded eval_results.
    per_item = [score_item(rounds[0][i]).score for i in ids]
    assert per_item == [approx(Fraction(n, 7)) for n in (4, 5, 5, 1, 7, 2, 7, 5, 7, 7)]
    first, second = rounds_report(rounds, ids, english=False)
    assert first["official"]["meeseeks_score"] == approx(Fraction(50, 70))
    assert first["official"]["utility_score"] == approx(Fraction(4, 10))
    # Round 2 re-asked 6 items; item 5's gate now fails, forcing its dependants to 0.
    assert second["summary"]["processed_this_round"] == 6
    assert second["official"]["meeseeks_score"] == approx(Fraction(48, 70))
    assert second["official"]["utility_score"] == approx(Fraction(4, 10))
    # Capability tree of round 1: 生成名字/标题 6/10; 精确 6/10 + 0~10字 6/10;
    # 接龙 7/10 + 重复 9/10 -> content 34/50; 单元数量合规 6/10 -> structure 6/10.
    stats = first["official"]["capability_stats"]
    assert (stats["单元细节合规"]["correct"], stats["单元细节合规"]["total"]) == (34, 50)
    assert (stats["整体结构合规"]["correct"], stats["整体结构合规"]["total"]) == (6, 10)
    assert first["summary"]["capability_mean_level1"] == approx((Fraction(34, 50) + 6 / 10) / 2)


def test_utility_rate_under_both_definitions_on_four_items():
    passed = [Check("主题约束", 1), Check(None, 1)]  # every check passed: utility 1
    failed = [Check("主题约束", 1), Check("精确", 0)]  # one failed: utility 0, score 1/2
    undecided = [Check("主题约束", 1), Check(None, None, infra=True)]  # a judge failure: undecided
    score = dataset_score([passed, failed, MODEL_FAILED, undecided])
    # the paper's Utility Rate: the overflowing item is a failed item; the undecided one is left out
    assert score.utility_score == approx(Fraction(1, 3))
    assert score.utility_score_answered == approx(Fraction(1, 2))
    assert score.meeseeks_score == approx((1 + Fraction(1, 2) + 0 + 1) / 4)
    assert score.meeseeks_score_answered == approx((1 + Fraction(1, 2) + 1) / 3)
    assert (score.model_failed, score.utility_items, score.not_evaluated) == (1, 3, 0)
    # as the official code counts: the judge failure is a failed check
    official = official_counting([passed, failed, MODEL_FAILED, undecided])
    assert official.utility_score == approx(Fraction(1, 4))
    assert official.meeseeks_score == approx((1 + Fraction(1, 2) + 0 + Fraction(1, 2)) / 4)
