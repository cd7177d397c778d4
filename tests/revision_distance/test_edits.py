"""Parsing reviser replies, splitting compound edits, categories and levels."""

from __future__ import annotations

import json

import pytest

from proseval.benchmarks.revision_distance.edits import (
    Edit,
    action_category,
    action_of_word,
    category_of,
    knowledge_category,
    level_of,
    normalise,
    parse_reply,
    split_actions,
    split_compound,
)


def edit(action="replace", original="old words", revised="new words", level="phrase", **more) -> dict:
    return {
        "action_name": action,
        "revision_description": "d",
        "revision_level": level,
        "original_snippet": original,
        "revised_snippet": revised,
        "revision_intention": "i",
        **more,
    }


def test_a_bare_array_of_edits_is_parsed_field_by_field():
    reply = json.dumps([edit(), edit(action="delete", original="very", revised="")])
    parsed = parse_reply(reply)
    assert parsed.status == "ok" and parsed.usable and parsed.raw_count == 2
    assert [e.action_name for e in parsed.edits] == ["replace", "delete"]
    assert parsed.edits[1] == Edit("delete", "d", "phrase", "very", "", "i")


def test_edits_inside_an_object_fenced_and_after_prose_are_found():
    reply = "Here are my edits:\n```json\n" + json.dumps({"edits": [edit()]}) + "\n```\nHope this helps."
    parsed = parse_reply(reply)
    assert parsed.status == "ok" and len(parsed.edits) == 1


def test_an_empty_list_is_usable_and_means_no_edit():
    parsed = parse_reply("[]")
    assert parsed.usable and parsed.edits == () and parsed.status == "ok"
    assert parse_reply('{"edits": []}').edits == ()


@pytest.mark.parametrize(
    "reply, status",
    [
        ("The draft is fine, but I would shorten the second sentence.", "unparsable"),
        ("", "empty"),
        ('["shorten the intro", "fix the typo"]', "unparsable"),
        ('{"score": 3}', "unparsable"),
        ("42", "unparsable"),
    ],
)
def test_replies_without_a_list_of_edit_objects_are_unusable(reply, status):
    parsed = parse_reply(reply)
    assert not parsed.usable and parsed.edits is None and parsed.status == status


def test_slightly_broken_json_is_repaired_and_says_so():
    reply = '[{"action_name": "replace", "original_snippet": "a", "revised_snippet": "b",}'
    parsed = parse_reply(reply)
    assert parsed.status == "repaired" and len(parsed.edits) == 1 and parsed.missing_fields == 1


@pytest.mark.parametrize(
    "action, expected",
    [
        ("simplify and reorganize", ["simplify", "reorganize"]),
        ("add/delete", ["add", "delete"]),
        ("rephrase, shorten; reorder", ["rephrase", "shorten", "reorder"]),
        ("replace", ["replace"]),
        ("expand + clarify & then move", ["expand", "clarify", "move"]),
        ("Simplifying and reorganising", ["Simplifying", "reorganising"]),  # inflected verbs are verbs
        ("add a sentence, then move it", ["add a sentence", "move it"]),
        ("group related works and compare them", ["group related works", "compare them"]),
        ("add X, delete Y, add Z", ["add X", "delete Y"]),  # the same action again counts once
    ],
)
def test_several_actions_split_into_distinct_actions(action, expected):
    assert split_actions(action) == expected


@pytest.mark.parametrize(
    "action",
    [
        "add examples and citations",  # one action on a compound object
        "add examples, figures and citations",
        "add examples and additional citations",  # "additional" is not the verb "add"
        "Add details and references",
        "compare and contrast",  # two verbs of one action
        "Compare and contrast the two methods",
        "Rephrase and rephrase",
        "rewrite and rephrase",
    ],
)
def test_one_action_with_a_compound_object_or_synonymous_verbs_is_one_edit(action):
    assert split_actions(action) == [action]


@pytest.mark.parametrize(
    "word, action",
    [
        ("moves", "move"),
        ("moved", "move"),
        ("moving", "move"),
        ("simplified", "simplify"),
        ("dropped", "delete"),
        ("Reorganizes", "reorganise"),
        ("grouping", "group"),
        ("contrasted", "compare"),
        ("adds", "add"),
    ],
)
def test_inflected_verbs_name_their_action(word, action):
    assert action_of_word(word).name == action


@pytest.mark.parametrize("word", ["citations", "examples", "additional", "references", "need", "deletion"])
def test_words_that_are_not_action_verbs(word):
    assert action_of_word(word) is None  # "deletion" is a noun: only with nouns=True


def test_nouns_of_actions_are_known_when_asked_for():
    assert action_of_word("deletion", nouns=True).name == "delete"
    assert action_of_word("Reorganisation", nouns=True).name == "reorganise"
    assert action_of_word("comparisons", nouns=True).name == "compare"
    assert action_of_word("insertion", nouns=True).name == "add"


def test_a_compound_edit_counts_once_per_action_and_keeps_its_snippets():
    parts = split_compound(Edit(action_name="simplify and reorganize", original_snippet="x y", revised_snippet="y"))
    assert [p.action_name for p in parts] == ["simplify", "reorganize"]
    assert all(p.original_snippet == "x y" and p.revised_snippet == "y" for p in parts)


def test_normalise_splits_then_drops_noops_and_duplicates():
    edits = [
        Edit(action_name="simplify and reorganize", original_snippet="A", revised_snippet="B"),
        Edit(action_name="replace", original_snippet="same  text", revised_snippet="same text"),
        Edit(action_name="capitalise", original_snippet="paris", revised_snippet="Paris"),
        Edit(action_name="Simplify", original_snippet="A", revised_snippet="B"),
        Edit(action_name="add", original_snippet="", revised_snippet="new"),
    ]
    kept, added, noops, duplicates = normalise(edits)
    assert (added, noops, duplicates) == (1, 1, 1)
    assert [(e.action_name, e.original_snippet) for e in kept] == [
        ("simplify", "A"),
        ("reorganize", "A"),
        ("capitalise", "paris"),
        ("add", ""),
    ]


def test_parse_reply_reports_what_normalisation_did():
    reply = json.dumps([edit(action="simplify and reorganize"), edit(), edit(), edit(original="x", revised="x")])
    parsed = parse_reply(reply)
    assert (parsed.raw_count, parsed.split_added, parsed.noops, parsed.duplicates) == (4, 1, 1, 1)
    assert [e.action_name for e in parsed.edits] == ["simplify", "reorganize", "replace"]


@pytest.mark.parametrize(
    "action, original, revised, expected",
    [
        ("insert a clause", "", "x", "add"),
        ("Remove", "x", "", "delete"),
        ("move sentence", "x", "x y", "reorder"),
        ("rephrase", "x", "y", "rewrite"),
        ("Deletion of the second sentence", "x", "y", "delete"),
        ("Reorganisation of paragraphs", "x", "y", "reorder"),
        ("group the examples", "x", "y", "reorder"),
        ("frobnicate", "", "x", "add"),
        ("frobnicate", "x", "", "delete"),
        ("frobnicate", "x", "y", "other"),
        ("compare", "x", "y", "other"),  # no general category: the snippets decide
    ],
)
def test_action_categories(action, original, revised, expected):
    assert action_category(Edit(action_name=action, original_snippet=original, revised_snippet=revised)) == expected


def test_knowledge_categories_come_from_the_reviser_first():
    assert knowledge_category(Edit(action_name="expand", category="Comparison")) == "comparison"
    assert knowledge_category(Edit(action_name="x", category="description and comparison")) == "description"
    assert category_of(Edit(action_name="x", category="description"), "knowledge") == "description"
    assert category_of(Edit(action_name="delete", category="description"), "general") == "delete"


@pytest.mark.parametrize(
    "action, expected",
    [
        ("reorganise the works by year", "order"),
        ("Reorder", "order"),
        ("group related works", "order"),
        ("move the paragraph", "order"),
        ("compare", "comparison"),
        ("contrast with our method", "comparison"),
        ("expand", "description"),
        ("simplify the description", "description"),
        ("describe the model", "description"),
        ("Expansion", "description"),
        ("add comparison with X", "comparison"),  # a category named in the action
        ("add a sentence", "other"),
        ("delete", "other"),
        ("rephrase", "other"),  # the action alone does not say
        ("add related work", "other"),  # "related" is not "relate"
    ],
)
def test_knowledge_categories_come_from_the_action_when_the_reviser_gives_none(action, expected):
    assert knowledge_category(Edit(action_name=action)) == expected
    assert knowledge_category(Edit(action_name=action, category="style")) == expected  # not one of the three


@pytest.mark.parametrize(
    "level, expected",
    [
        ("Word", "word"),
        ("sentence-level", "sentence"),
        ("clause", "phrase"),
        ("section", "document"),
        ("Paragraph", "paragraph"),
        ("", "other"),
        ("sentence/paragraph", "sentence"),
        ("reference", "reference"),
        ("citation level", "reference"),
    ],
)
def test_levels(level, expected):
    assert level_of(Edit(revision_level=level)) == expected


def test_a_copied_format_description_is_not_an_edit():
    echo = {
        "action_name": "<one verb: add, delete>",
        "revision_description": "<what the edit does>",
        "revision_level": "<word or sentence>",
        "original_snippet": "<the exact draft text>",
        "revised_snippet": "<the text after the edit>",
        "revision_intention": "<why>",
    }
    only = parse_reply(json.dumps([echo, echo]))
    assert not only.usable and only.status == "unparsable" and "format description" in only.detail
    mixed = parse_reply(json.dumps([echo, edit()]))
    assert len(mixed.edits) == 1 and mixed.notes == {"template_echoes": 1} and mixed.raw_count == 1
    assert parse_reply(json.dumps([edit(original="<b>", revised="<strong>")])).edits  # real edits of markup stay


def test_a_list_cut_short_is_repaired_whole_not_read_as_its_first_edit():
    whole = json.dumps([edit(), edit(action="delete", original="very", revised="")])
    parsed = parse_reply(whole[:-30])  # the second edit cut inside a field
    assert parsed.status == "repaired" and parsed.raw_count == 2


def test_a_list_wins_over_an_example_object_before_it_and_a_lone_edit_object_counts():
    example = json.dumps(edit(action="example"))
    parsed = parse_reply(f"For instance {example}. My edits: " + json.dumps([edit(), edit(action="delete")]))
    assert [e.action_name for e in parsed.edits] == ["replace", "delete"]
    lone = parse_reply("I would make one edit: " + json.dumps(edit(action="delete")))
    assert lone.status == "ok" and [e.action_name for e in lone.edits] == ["delete"]


def test_the_structured_schema_limits_levels_and_knowledge_categories():
    from proseval.benchmarks.revision_distance.scoring import edits_schema

    general = edits_schema("general")["properties"]["edits"]["items"]
    knowledge = edits_schema("knowledge")["properties"]["edits"]["items"]
    assert "category" not in general["properties"] and general["required"] == list(general["properties"])
    assert knowledge["properties"]["category"]["enum"] == ["order", "comparison", "description"]
    # no word level where grammar and word choice are out of scope; the reference level for knowledge writing
    assert general["properties"]["revision_level"]["enum"] == ["phrase", "sentence", "paragraph", "document"]
    assert knowledge["properties"]["revision_level"]["enum"] == ["reference", "sentence", "paragraph", "document"]
    # a reply following the schema parses into edits with those categories
    reply = json.dumps({"edits": [edit(category="comparison")]})
    assert knowledge_category(parse_reply(reply).edits[0]) == "comparison"


# --- the reviser's instructions (§3, App. D) ---------------------------------------------------------


def render(name: str) -> str:
    from proseval.benchmarks.revision_distance.prompts import PROMPTS

    values = {"draft": "DRAFT", "reference": "REF", "instruction": "REQ"}
    return PROMPTS[name].render(
        **{k: v for k, v in values.items() if k in PROMPTS[name].placeholders + PROMPTS[name].optional}
    )


@pytest.mark.parametrize("name", ["reviser-general", "reviser-reference-free"])
def test_the_general_prompts_ask_for_concept_structure_coherence_and_flow_not_grammar_or_word_choice(name):
    text = " ".join(render(name).split()).lower()
    for wanted in ("concepts", "structured", "hang together", "logically", "grammar", "word choice"):
        assert wanted in text
    assert "leave grammar, spelling, punctuation and word choice as they are" in text
    verbs = text[text.index('"action_name": "<one verb:') : text.index('"revision_description"')]
    assert "replace" not in verbs and "rephrase" not in verbs  # no invitation to word-level edits
    assert "expand" in verbs and "reorganize" in verbs
    level = text[text.index('"revision_level"') : text.index('"original_snippet"')]
    assert "word" not in level


def test_the_knowledge_prompt_works_on_the_cited_works_and_does_not_copy_the_target():
    text = " ".join(render("reviser-knowledge").split()).lower()
    assert "cited works (the references)" in text
    for action in ("expand", "simplify", "compare", "group", "reorganise"):
        assert action in text
    assert "do not copy sentences from the target" in text and "grammar and word choice alone" in text
    level = text[text.index('"revision_level"') : text.index('"original_snippet"')]
    assert "reference" in level and "word" not in level


def test_knowledge_categories_are_matched_as_words_not_substrings():
    # "border" holds "order", "disorders" too; neither names the category
    assert knowledge_category(Edit(action_name="Clarify the border dispute")) == "description"  # clarify's own
    assert knowledge_category(Edit(action_name="add", category="border cases")) == "other"
    assert knowledge_category(Edit(action_name="note the disorders studied")) == "other"
    # "in order to" is a conjunction, not the category
    assert knowledge_category(Edit(action_name="add a citation in order to support the claim")) == "other"
    # the category as a word, singular or plural, still counts
    assert knowledge_category(Edit(action_name="fix the order of the works")) == "order"
    assert knowledge_category(Edit(action_name="x", category="Comparisons")) == "comparison"


@pytest.mark.parametrize(
    "action",
    ["search and replace", "Find and Replace the term", "copy and paste the list", "cut and paste the paragraph"],
)
def test_fixed_multi_word_actions_are_one_edit(action):
    assert split_actions(action) == [action]
    assert split_actions(f"{action} and simplify the intro") == [action, "simplify the intro"]
