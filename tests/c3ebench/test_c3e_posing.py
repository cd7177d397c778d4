"""Candidate posing: each official posing bug fixed by default, and reproduced with --compat official."""

from __future__ import annotations

from pathlib import Path

import pytest

from proseval.benchmarks._shared.c3e import data
from proseval.benchmarks._shared.c3e.fields import judge_context
from proseval.benchmarks.c3ebench.posing import candidate_prompt
from proseval.benchmarks.c3ebench.prompts import PROMPTS


def prompt_for(item: data.Item, compat: str = "fixed") -> tuple[str, str]:
    return candidate_prompt(item, compat, PROMPTS.__getitem__, PROMPTS)  # type: ignore[arg-type]  # the compat as a plain string


@pytest.fixture
def items(tiny_dir: Path) -> dict[str, data.Item]:
    return {item.id: item for item in data.load_folder(tiny_dir, ["en", "zh"]).items}


def test_zh_cloze_shows_the_article_with_its_gap(items):
    item = items["cloze_cn_7"]
    name, text = prompt_for(item)
    assert name == "candidate_cloze_zh"
    assert item.input["content"] in text and "[fill in the blank]" in text
    assert text.startswith(item.instruction)


def test_zh_cloze_official_posing_omits_the_article(items):
    item = items["cloze_cn_7"]
    name, text = prompt_for(item, "official")
    assert name == "official_cloze_zh"
    assert item.instruction in text and "清晨的西湖" not in text


def test_zh_edit_labels_draft_and_critique_and_cites_no_unseen_reference(items):
    item = items["edit_cn_900"]
    _, text = prompt_for(item)
    draft_at, critique_at = text.index("【初稿（content）】"), text.index("【点评与修改建议（critique）】")
    assert draft_at < text.index("桥很老了。") < critique_at < text.index("意象单薄")
    assert "reference" not in text and "原文背景材料" not in text  # the data's instruction cites an unseen reference
    assert item.reference not in text


def test_zh_edit_official_posing_swaps_the_labels(items):
    item = items["edit_cn_900"]
    _, text = prompt_for(item, "official")
    assert text.startswith(item.instruction)  # the data's instruction, "reference" and all
    assert (
        text.index("【原文背景材料】") < text.index("桥很老了。") < text.index("【初稿材料】") < text.index("意象单薄")
    )


def test_en_edit_labels_the_draft_as_the_draft(items):
    _, fixed = prompt_for(items["edit_en_1"])
    _, official = prompt_for(items["edit_en_1"], "official")
    assert "[Content: the draft to revise]\nFloods are bad." in fixed and "Too vague" in fixed
    assert "background material" not in fixed
    assert official.startswith(items["edit_en_1"].instruction) and "[Content]\nFloods are bad." in official


def test_en_cloze_shows_prefix_gap_suffix_in_both_modes(items):
    item = items["cloze_en_1"]
    for compat in ("fixed", "official"):
        _, text = prompt_for(item, compat)
        assert "The river rose overnight.\n[fill in the blanks]\nBy noon the water had gone." in text
        assert item.reference not in text
    assert judge_context(item) == "The river rose overnight.\n[fill in the blanks]\nBy noon the water had gone."


def test_zh_expand_shows_the_outline_and_references_never_reach_the_candidate(items):
    _, text = prompt_for(items["condition_cn_400"])
    assert "【大纲】\n- 读书的意义" in text
    for item in items.values():
        for compat in ("fixed", "official"):
            assert item.reference not in prompt_for(item, compat)[1]


def test_every_official_zh_cloze_prompt_contains_its_article(official_dir: Path):
    zh = [i for i in data.load_folder(official_dir, ["zh"]).items if i.task == "cloze"]
    assert len(zh) == 200
    assert all(i.input["content"] in prompt_for(i)[1] for i in zh)
    assert not any(i.input["content"] in prompt_for(i, "official")[1] for i in zh)
    edits = [i for i in data.load_folder(official_dir, ["zh"]).items if i.task == "edit"]
    assert all(
        "reference" not in prompt_for(i)[1] or "reference" in i.input["content"] + i.input["critique"] for i in edits
    )
