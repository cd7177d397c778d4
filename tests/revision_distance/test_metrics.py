"""Grounding, weighting, ROUGE (against hand-computed values), statistics and the perturber."""

from __future__ import annotations

import pytest

from proseval.benchmarks.revision_distance.edits import Edit
from proseval.benchmarks.revision_distance.grounding import ground, match_score, tokens, word_count
from proseval.benchmarks.revision_distance.measure import measure
from proseval.benchmarks.revision_distance.perturb import RULES, perturb, substitutable
from proseval.benchmarks.revision_distance.rouge import HanCharacterTokenizer, rouge_scores
from proseval.benchmarks.revision_distance.stats import (
    average_ranks,
    distance_vs_human,
    mean_ci,
    perturbation_spread,
    spearman,
    spearman_ci,
    summarise_pairs,
    summarise_stability,
    wilson_ci,
)
from proseval.benchmarks.revision_distance.weights import edit_weight, weighted_distance, word_levenshtein

DRAFT = "The new library is big and it has many books. It is good for “students”."


# --- grounding --------------------------------------------------------------------------------


def test_a_verbatim_snippet_matches_whatever_its_case_spacing_and_quotes():
    assert match_score("it has   MANY books", DRAFT) == 1.0
    assert match_score('good for "students"', DRAFT) == 1.0


def test_a_near_quote_scores_its_token_similarity():
    # "it has many novels" (4 tokens): best window "it has many" (3 tokens), 3 matches → 2·3/(4+3)
    assert match_score("it has many novels", DRAFT) == pytest.approx(6 / 7)
    # one extra word: "it has very many books" vs the window "it has many books" → 2·4/(5+4)
    assert match_score("it has very many books", DRAFT) == pytest.approx(8 / 9)
    assert match_score("the cathedral was ancient", DRAFT) < 0.5


def test_grounding_counts_found_and_missing_snippets_and_leaves_insertions_out():
    edits = [
        Edit(original_snippet="is big"),
        Edit(original_snippet="It is good for students"),
        Edit(original_snippet="a quiet reading room"),
        Edit(original_snippet="", revised_snippet="new"),
    ]
    result = ground(edits, DRAFT, threshold=0.8)
    assert result.scores[0] == 1.0 and result.scores[3] is None
    assert (result.grounded, result.ungrounded, result.checked) == (2, 1, 3)
    assert result.share == pytest.approx(2 / 3)
    assert ground([Edit(revised_snippet="x")], DRAFT).share is None


def test_chinese_is_matched_and_counted_character_by_character():
    draft = "今天天气很好，我们去公园散步。"
    assert tokens("天气很好") == ["天", "气", "很", "好"]
    assert match_score("天气很好", draft) == 1.0  # inside a run of characters with no space
    assert match_score("天气不好", draft) == pytest.approx(3 / 4)  # 天气好 of 4 against the window 天气很好
    assert word_count(draft) == 13 and word_count("GPT-4 写了 text.") == 5  # gpt, 4, 写, 了, text


def test_the_threshold_decides_a_near_quote():
    edits = [Edit(original_snippet="it has many novels")]  # scores 6/7
    assert ground(edits, DRAFT, threshold=0.8).grounded == 1
    assert ground(edits, DRAFT, threshold=0.9).ungrounded == 1


# --- weighting --------------------------------------------------------------------------------


def test_word_levenshtein_by_hand():
    assert word_levenshtein("a b c".split(), "a x c d".split()) == 2  # substitute b, insert d
    assert word_levenshtein([], "a b".split()) == 2
    assert word_levenshtein("a b".split(), "a b".split()) == 0


def test_weights_by_level_and_by_size():
    edits = [
        Edit(revision_level="word", original_snippet="big", revised_snippet="large"),
        Edit(revision_level="paragraph", original_snippet="a b c", revised_snippet="a x c d e"),
        Edit(revision_level="?", original_snippet="", revised_snippet=""),
    ]
    assert [edit_weight(e, "level") for e in edits] == [1.0, 3.0, 1.0]
    assert edit_weight(Edit(revision_level="reference"), "level") == 2.0
    assert [edit_weight(e, "size") for e in edits] == [1.0, 3.0, 1.0]  # at least 1 each
    assert weighted_distance(edits, "none") == 3.0
    assert weighted_distance(edits, "level") == 5.0
    with pytest.raises(ValueError):
        edit_weight(edits[0], "heavy")


def test_every_level_has_a_weight():
    from proseval.benchmarks.revision_distance.edits import LEVELS, OTHER
    from proseval.benchmarks.revision_distance.weights import LEVEL_WEIGHTS

    assert set(LEVEL_WEIGHTS) == {*LEVELS, OTHER}


def test_measure_counts_categories_levels_and_normalises_by_length():
    edits = [
        Edit(action_name="delete", revision_level="word", original_snippet="big", revised_snippet=""),
        Edit(action_name="add", revision_level="sentence", original_snippet="", revised_snippet="More."),
        Edit(
            action_name="rephrase", revision_level="sentence", original_snippet="It is good", revised_snippet="It suits"
        ),
    ]
    m = measure(edits, DRAFT, "general", per_words=100, weighting="level")
    assert m.distance == 3
    assert m.categories == {"add": 1.0, "delete": 1.0, "rewrite": 1.0, "reorder": 0.0, "other": 0.0}
    assert m.levels["sentence"] == 2.0 and m.levels["word"] == 1.0
    assert m.normalised == pytest.approx(3 * 100 / 15)  # the draft has 15 words
    assert m.weighted == 5.0
    assert (m.grounding.grounded, m.grounding.ungrounded) == (2, 0)
    assert measure([], DRAFT, "knowledge").categories == {
        "order": 0.0,
        "comparison": 0.0,
        "description": 0.0,
        "other": 0.0,
    }


# --- ROUGE --------------------------------------------------------------------------------------


def test_rouge_tokenisation_is_the_packages_with_stemming_plus_han_characters():
    tokenizer = HanCharacterTokenizer()
    assert tokenizer.tokenize("The cats' 2 hats, running!") == ["the", "cat", "2", "hat", "run"]
    assert tokenizer.tokenize("GPT-4 写了“很好”的 text。") == ["gpt", "4", "写", "了", "很", "好", "的", "text"]
    assert tokenizer.tokenize("Café") == ["caf"]  # other non-ASCII letters: dropped, as by the package


def test_rouge_against_hand_computed_values():
    # unigrams: 5 of 6 overlap (the×2, cat, on, mat) → P = R = 5/6; bigrams (the cat), (on the), (the mat)
    # of 5 each → 3/5; LCS "the cat on the mat" = 5 → 5/6
    assert rouge_scores("the cat sat on the mat", "the cat lay on the mat") == pytest.approx(
        {"rouge1": 5 / 6, "rouge2": 3 / 5, "rougeL": 5 / 6}
    )


def test_rouge_stems_clips_and_handles_different_lengths():
    # stemmed: "the cat were run" vs "the cat run": overlap 3, P = 3/4, R = 3/3 → F1 = 6/7;
    # bigrams (the cat) (cat were) (were run) vs (the cat) (cat run): 1 → P 1/3, R 1/2 → F1 = 2/5
    assert rouge_scores("The cats were running", "the cat runs") == pytest.approx(
        {"rouge1": 6 / 7, "rouge2": 2 / 5, "rougeL": 6 / 7}
    )
    # candidate "a a b", reference "a b c d": clipped overlap a:1, b:1 = 2 → P 2/3, R 2/4 → F1 = 4/7;
    # LCS "a b" = 2 → 4/7; bigrams (a a) (a b) vs (a b) (b c) (c d): 1 → P 1/2, R 1/3 → 2/5
    assert rouge_scores("a a b", "a b c d") == pytest.approx({"rouge1": 4 / 7, "rouge2": 2 / 5, "rougeL": 4 / 7})
    assert rouge_scores("a", "a")["rouge2"] == 0.0  # no bigram at all
    assert rouge_scores("", "x y") == {"rouge1": 0.0, "rouge2": 0.0, "rougeL": 0.0}
    assert rouge_scores("x y", "x y") == {"rouge1": 1.0, "rouge2": 1.0, "rougeL": 1.0}


def test_chinese_rouge_counts_characters():
    # 6 characters each, 5 shared (今天天气 + 好) → 5/6; bigrams 今天 天天 天气 shared of 5 → 3/5; LCS 5 → 5/6
    assert rouge_scores("今天天气很好", "今天天气不好") == pytest.approx(
        {"rouge1": 5 / 6, "rouge2": 3 / 5, "rougeL": 5 / 6}
    )


# --- statistics -----------------------------------------------------------------------------------


def test_average_ranks_share_ties():
    assert average_ranks([10, 20, 10, 30]) == [1.5, 3.0, 1.5, 4.0]


def test_spearman_by_hand():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # ranks x 1,2,3 ; y 1,3,2 → d² = 0+1+1 = 2 → 1 − 6·2/(3·8) = 0.5
    assert spearman([1, 2, 3], [5, 9, 7]) == pytest.approx(0.5)
    assert spearman([1, 1, 1], [1, 2, 3]) is None and spearman([1], [2]) is None


def test_wilson_intervals_against_published_values():
    # z = 1.959964: for 0/n the upper end is z²/(n + z²) = 3.8415/13.8415 = 0.2775, for n/n the lower end
    # n/(n + z²) = 0.7225; for 5/10 the centre is 0.5 and the half-width z/(1 + z²/10)·sqrt(0.025 + z²/400) = 0.2634
    assert wilson_ci(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson_ci(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson_ci(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert wilson_ci(0, 0) is None


def test_spearman_interval_is_fisher_z_with_the_rank_correlation_variance():
    # ρ = 0.5, n = 13: z = atanh 0.5 = 0.549306; se = sqrt(1.06 / 10) = 0.325576; 1.959964 · se = 0.638118
    # → tanh(−0.088812) = −0.088579, tanh(1.187424) = 0.829778
    assert spearman_ci(0.5, 13) == pytest.approx((-0.088579, 0.829778), abs=1e-5)
    assert spearman_ci(0.5, 3) is None and spearman_ci(1.0, 20) is None and spearman_ci(None, 20) is None


def test_mean_interval_is_the_seeded_bootstrap_of_the_mean():
    values = [0.0, 1.0, 1.0, 2.0, 4.0, 0.0, 3.0, 1.0]
    low, high = mean_ci(values)
    assert low < sum(values) / len(values) < high and 0.0 <= low and high <= 4.0
    assert mean_ci(list(reversed(values))) == (low, high)  # the order of the samples does not matter
    assert mean_ci([2.0, 2.0, 2.0]) == (2.0, 2.0) and mean_ci([3.0]) is None and mean_ci([]) is None


def test_pair_summary():
    summary = summarise_pairs([(1, 3), (2, 2), (5, 1), (0, 4)])
    assert summary.pairs == 4 and summary.agreement == 0.5 and summary.tie_rate == 0.25
    assert summary.disagreement == 0.25 and summary.agreement_without_ties == pytest.approx(2 / 3)
    assert summary.agreement_ci == wilson_ci(2, 4) and summary.tie_rate_ci == wilson_ci(1, 4)
    assert summary.agreement_without_ties_ci == wilson_ci(2, 3)
    empty = summarise_pairs([])
    assert empty.agreement is None and empty.agreement_ci is None


def test_the_papers_sign_convention_for_the_human_correlation():
    """ρ(human, −D) = 0.38 is the paper's R = ρ(D, human) = −0.38; the interval is mirrored."""
    assert distance_vs_human(0.38, (0.1, 0.6)) == (-0.38, (-0.6, -0.1))
    assert distance_vs_human(None, None) == (None, None)
    # a direct check: more edits with lower human scores
    distances, humans = [1.0, 2.0, 4.0, 6.0], [5.0, 4.0, 2.0, 3.0]
    assert distance_vs_human(spearman(humans, [-d for d in distances]), None)[0] == pytest.approx(
        spearman(distances, humans)
    )


def test_app_h_one_text_perturbed_four_ways():
    """App. H: a text at D = 4 whose four perturbed copies score 4, 4, 5, 4."""
    spread = perturbation_spread(4, [4, 4, 5, 4])
    assert spread == {
        "original": 4.0,
        "perturbed": [4.0, 4.0, 5.0, 4.0],
        "spread": 1.0,
        "max_abs_change": 1.0,
        "unchanged": 3,
    }
    assert perturbation_spread(3, [])["spread"] is None


def test_stability_summary():
    summary = summarise_stability([(4, 4), (2, 3), (0, 2), (5, 5)])
    assert summary.mean_abs_change == pytest.approx(3 / 4) and summary.share_unchanged == 0.5
    assert summary.mean_relative_change == pytest.approx((0 + 1 / 2 + 2 / 1 + 0) / 4)
    assert summary.max_abs_change == 2
    assert summary.share_unchanged_ci == wilson_ci(2, 4) and summary.mean_abs_change_ci == mean_ci([0, 1, 2, 0])


# --- perturber -------------------------------------------------------------------------------------


def test_perturb_is_deterministic_and_uses_its_rules_only():
    text = "Many students often need help. They usually try to finish quickly. It takes about 20 minutes."
    first = perturb(text, seed=3, rate=0.2, key="x")
    assert first == perturb(text, seed=3, rate=0.2, key="x")
    assert len(first.substitutions) == 3  # round(0.2 × 16 words)
    table = {rule.word: rule.substitute for rule in RULES}
    assert all(table[old.lower()] == new.lower() for old, new in first.substitutions)
    assert first.text != text and len(first.text.split()) == len(text.split())


def test_perturb_keeps_case_and_punctuation_and_varies_with_seed_and_key():
    text = "Often, we usually finish quickly; perhaps."
    outcomes = {perturb(text, seed=s, rate=0.25, key=k).text for s in range(6) for k in ("a", "b")}
    assert len(outcomes) > 1
    assert perturb(text, seed=0, rate=1.0).text == "Frequently, we typically finish rapidly; maybe."


@pytest.mark.parametrize(
    "text, changed",
    [
        # "about" means "approximately" only before a number after a verb of measure or a preposition
        ("She wrote books about the sea.", "She wrote books about the sea."),
        ("A film about two soldiers.", "A film about two soldiers."),
        ("The film is about two brothers.", "The film is about two brothers."),
        ("Ask what it is about", "Ask what it is about"),
        ("It costs about $5, for about ten days.", "It costs approximately $5, for approximately ten days."),
        ("It takes about 20 minutes.", "It takes approximately 20 minutes."),
        ("About 30 people came.", "Approximately 30 people came."),
        # "show" as "make evident" only before "that"
        ("The study shows that sleep matters.", "The study demonstrates that sleep matters."),
        ("He showed me the way.", "He showed me the way."),
        # "try" as "attempt" only before "to"
        ("Try to be calm.", "Attempt to be calm."),
        ("Try the soup.", "Try the soup."),
        # "need" as a verb with an object after a subject, not a noun or an auxiliary
        ("I need help.", "I require help."),
        ("The needs of students vary.", "The needs of students vary."),
        ("Some needs are unmet.", "Some needs are unmet."),
        ("You need not come.", "You need not come."),
        # "many" before a plural noun, not after how / so / too or before "of"
        ("It has many books.", "It has numerous books."),
        ("How many books? So many books. Many of them.", "How many books? So many books. Many of them."),
        # nor in the set phrases of time and repetition
        ("Many years ago, many times over.", "Many years ago, many times over."),
        # "difficult" as "hard" only before "to": a difficult person is not a hard person
        ("He is a difficult person.", "He is a difficult person."),
        ("It is difficult to say.", "It is hard to say."),
        # words are matched whole, never inside another word
        ("Oftentimes the mainframe tryouts.", "Oftentimes the mainframe tryouts."),
        # "main" before its noun after a determiner
        ("The main idea is simple.", "The primary idea is simple."),
        ("The water main burst.", "The water main burst."),
        # predicative "happy", "easy to", "to start,"
        ("He is happy.", "He is glad."),
        ("They are happy with the service.", "They are happy with the service."),
        ("It is easy to use.", "It is simple to use."),
        ("Take it easy.", "Take it easy."),
        ("To start, press it.", "To begin, press it."),
        ("Start the car.", "Start the car."),
        # a word in a compound or contraction, and an article that would have to change, are left alone
        ("A quick-witted, often-cited study.", "A quick-witted, often-cited study."),
        ("It was an outcome we expected.", "It was an outcome we expected."),
        ("The outcome was good.", "The result was good."),
        ("We chose not to go.", "We chose not to go."),
        ("We chose this method.", "We selected this approach."),
    ],
)
def test_perturb_substitutes_only_where_the_context_keeps_the_meaning(text, changed):
    assert perturb(text, seed=0, rate=1.0).text == changed


def test_about_needs_a_number_after_it():
    from proseval.benchmarks.revision_distance.perturb import before_number

    assert before_number("at", "20") and before_number("for", "two") and before_number("", "$")
    assert not before_number("at", "") and not before_number("at", "the") and not before_number("is", "20")


def test_every_rule_substitutes_a_different_word():
    assert all(rule.word != rule.substitute and rule.word.islower() for rule in RULES)
    assert len({rule.word for rule in RULES}) == len(RULES)


def test_perturb_leaves_text_without_a_safe_word_alone_and_checks_the_rate():
    assert perturb("Zebra xylophone.", seed=1, rate=0.5).substitutions == ()
    assert substitutable("Books about the sea.") == []
    assert perturb("often", rate=0.01).text == "frequently"  # at least one word
    with pytest.raises(ValueError):
        perturb("often", rate=1.5)
