"""Hand-made cases for the German sentence, clause and number rule families."""

from __future__ import annotations

import pytest

from proseval.benchmarks.meeseeks.rules.base import RuleContext
from proseval.benchmarks.meeseeks.rules.german import diminutives, german_number, imperative_kind
from proseval.benchmarks.meeseeks.rules.registry import evaluate_rule

DE = RuleContext(language="de")
HEAD = RuleContext(language="de", compat="head")


def de(label, items, ctx=DE):
    return evaluate_rule(label, items, ctx, "latin").passed


# --- numbers -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "word, value",
    [
        ("eins", 1),
        ("zwölf", 12),
        ("einundzwanzig", 21),
        ("dreißig", 30),
        ("hundert", 100),
        ("einhundertelf", 111),
        ("zweitausendvierundzwanzig", 2024),
        ("hunderttausend", 100000),
        ("siebenhundertsiebenundsiebzigtausendsiebenhundertsiebenundsiebzig", 777777),
        ("ein", None),
        ("eine", None),
        ("Keine", None),
        ("21", None),
        ("Hunderte", None),
        ("", None),
    ],
)
def test_german_number_words(word, value):
    assert german_number(word) == value


def test_numbers_count_distinct_words_only():
    assert de("check_numbers_count:[3]", ["Ich habe drei Äpfel und zwölf Birnen.", "Dreißig Tage."]) is True
    assert de("check_numbers_count:[3]", ["Ich habe drei Äpfel und drei Birnen, 12 Kiwis."]) is False
    assert de("check_numbers_count:[1]", []) is False


def test_numbers_length_needs_a_number_word():
    assert de("check_numbers_length:[9]", ["Es waren einundzwanzig Gäste."]) is True
    assert de("check_numbers_length:[9]", ["Es waren einundzwanzig Gäste und eins."]) is False
    assert de("check_numbers_length:[9]", ["Keine Zahl hier, nur 123456789."]) is False
    assert de("check_numbers_length:[9]", []) is False


def test_numbers_length_and_parity_per_item():
    assert de("german_numbers_length:[15,15]", ["dreihundertfünfundzwanzig"]) is True
    assert de("german_numbers_length:[15,15]", ["dreihundertfünfundzwanzig", "eins"]) is False
    assert de("german_numbers_length:[15,15]", [""]) is False
    assert de("german_numbers_parity:[2,2]", ["zwei", "zweiunddreißig"]) is True
    assert de("german_numbers_parity:[1,1]", ["eins", "einundzwanzig"]) is True
    assert de("german_numbers_parity:[2,2]", ["zwei", "drei"]) is False
    assert de("german_numbers_parity:[2,2]", ["22"]) is False  # digits are not allowed
    assert de("german_numbers_parity:[2,2]", []) is True


def test_number_monotonicity_either_direction():
    assert de("check_number_monotonicity", ["drei", "zwanzig", "hundert"]) is True
    assert de("check_number_monotonicity", ["hundert", "zwanzig", "drei"]) is True
    assert de("check_number_monotonicity", ["drei", "hundert", "zwanzig"]) is False
    assert de("check_number_monotonicity", ["drei", "Hallo"]) is False
    assert de("check_number_monotonicity", []) is True


# --- conjunctions and articles -------------------------------------------------------------


def test_distinct_coordinating_conjunctions_per_item():
    assert de("german_words_count:[2,2]", ["Ich lese und du schreibst, aber er kocht und singt."]) is True
    assert de("german_words_count:[2,2]", ["Ich lese und du schreibst."]) is False
    assert de("german_words_count:[1,1]", ["Ich lese und du schreibst.", "Ich lese, oder du gehst, denn ..."]) is False
    assert de("german_words_count:[1,1]", []) is True


def test_conjunctions_first_occurrences_in_order():
    ordered = [
        "Ich lese, aber du schreibst.",
        "Ich lese, denn es regnet.",
        "Ich lese und du schreibst.",
        "Nicht ich, sondern du.",
        "Ich oder du.",
    ]
    assert de("check_conjunctions_order", ordered) is True
    assert de("check_conjunctions_order", ordered[::-1]) is False
    assert de("check_conjunctions_order", ordered[:4]) is False
    assert de("check_conjunctions_order", []) is False


def test_three_conjunctions_whole_text_fixed_first_item_head():
    text = "Ich bleibe, weil es regnet. Ich weiß, dass du kommst. Ich gehe, obwohl ich müde bin."
    assert de("check_three_conjunctions", [text]) is True
    assert de("check_three_conjunctions", [text.upper()]) is True
    assert de("check_three_conjunctions", [text.replace("obwohl", "wenn")]) is False
    assert de("check_three_conjunctions", ["Hallo.", text]) is True
    assert de("check_three_conjunctions", ["Hallo.", text], HEAD) is False
    assert de("check_three_conjunctions", [], HEAD) is False
    assert de("check_three_conjunctions", []) is False


def test_three_articles():
    assert de("check_three_articles", ["Der Hund bellt.", "Das Kind lacht, die Katze schläft."]) is True
    assert de("check_three_articles", ["Der Hund bellt, den Ball."]) is False
    assert de("check_three_articles", []) is False


# --- word lists -----------------------------------------------------------------------------


def test_modal_verbs_count_repeats_and_moechte_with_infinitive():
    assert de("check_modal_verbs_count:[3]", ["Du musst gehen. Du musst bleiben. Wir wollen reisen."]) is True
    assert de("check_modal_verbs_count:[2]", ["Ich möchte Tee. Du kannst gehen."]) is False
    assert de("check_modal_verbs_count:[2]", ["Ich möchte schwimmen. Du kannst gehen."]) is True
    assert de("check_modal_verbs_count:[1]", [""]) is False


def test_declarative_statements_with_modal_verbs():
    items = [
        "Du musst jetzt gehen.",
        "Sie soll anrufen.",
        "Ich möchte Tee.",
        "Kannst du kommen?",
        "Komm her!",
        "Ich weiß, dass ich schnell lernen kann.",
        "Du musst jetzt gehen.",
    ]
    assert de("check_declarative_sentence_modal_verbs:[3]", items) is True
    assert de("check_declarative_sentence_modal_verbs:[4]", items) is False  # distinct items only
    assert de("check_declarative_sentence_modal_verbs:[2]", ["Wir wollen reisen.", "Ich kann schwimmen."]) is True
    assert (
        de("check_declarative_sentence_modal_verbs:[2]", ["Wir wollen reisen.", "Ich kann schwimmen."], HEAD) is False
    )
    assert de("check_declarative_sentence_modal_verbs:[1]", []) is False


def test_declarative_modal_lengths_strictly_increase():
    rising = ["Ich kann gehen.", "Wir können morgen gehen.", "Wir können morgen früh nach Hause gehen."]
    assert de("check_declarative_sentence_length_monotonicity", rising) is True
    assert de("check_declarative_sentence_length_monotonicity", rising[::-1]) is False
    assert de("check_declarative_sentence_length_monotonicity", ["Ich gehe heute."]) is False


def test_diminutives_distinct_and_not_plural_nouns():
    text = (
        "Das Mädchen sah ein Kätzchen, ein Häuschen und ein Büchlein. In vielen Bereichen gab es "
        "Zeichen, Kuchen und Menschen mit Taschen. Allein das Fräulein kam."
    )
    assert sorted(diminutives(text)) == ["Büchlein", "Fräulein", "Häuschen", "Kätzchen", "Mädchen"]
    assert de("german_text_diminutive_words:[5]", [text]) is True
    assert de("german_text_diminutive_words:[2,2]", ["Das Brötchen.", "Das Brötchen."]) is False
    assert de("german_text_diminutive_words:[1]", [""]) is False


def test_weak_masculine_nouns_exact_count_and_ending():
    assert de("check_words_case:[3]", ["Studenten", "Herrn", "kollegen"]) is True
    assert de("check_words_case:[3]", ["Studenten", "Herrn"]) is False
    assert de("check_words_case:[3]", ["Studenten", "Herrn", "Apotheker"]) is False
    assert de("check_words_case:[3]", []) is False


def test_profession_order_against_the_passage():
    assert de("order_profession1_check", ["Lehrer", "Arzt"]) is True
    assert de("order_profession1_check", ["Köchin", "Bäuerin", "Architektin"]) is True
    assert de("order_profession1_check", ["Arzt", "Lehrer"]) is False
    assert de("order_profession1_check", ["Apotheker"]) is False
    assert de("order_profession1_check", [""]) is False
    assert de("order_profession2_check", ["Lehrerin", "Ärztin"]) is True
    assert de("order_profession2_check", ["der Koch"]) is True
    assert de("order_profession2_check", ["Arzt"]) is False
    assert de("order_profession2_check", []) is True


# --- imperatives ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sentence, kind",
    [
        ("Kommen Sie bitte herein!", "formal"),
        ("Bitte setzen Sie sich.", "formal"),
        ("Haben Sie Geduld.", "formal"),
        ("Komm her!", "informal"),
        ("Lies das Buch!", "informal"),
        ("Geht nach Hause!", "informal"),
        ("Steht jeden Morgen um sechs Uhr auf!", "informal"),
        ("Seid pünktlich!", "informal"),
        ("Peter trinkt Kaffee.", None),
        ("Wir gehen jetzt nach Hause.", None),
        ("Können Sie mir helfen?", None),
        ("Die Kadetten stehen früh auf.", None),
        ("Disziplin ist wichtig!", None),
        ("Gehen wir!", None),
    ],
)
def test_imperative_kind(sentence, kind):
    assert imperative_kind(sentence) == kind


def test_imperative_counts_distinct_items():
    items = ["Kommen Sie herein!", "Setzen Sie sich!", "Komm her!", "Lies das Buch!", "Komm her!", "Er liest."]
    assert de("check_formal_imperative_sentence:[2, 1000]", items) is True
    assert de("check_formal_imperative_sentence:[3, 1000]", items) is False
    assert de("check_informal_imperative_sentence:[2, 1000]", items) is True
    assert de("check_informal_imperative_sentence:[3, 1000]", items) is False
    assert de("check_imperative_sentence:[4, 1000]", items) is True
    assert de("check_imperative_sentence:[4, 1000]", items, HEAD) is False  # head: informal never found
    assert de("check_informal_imperative_sentence:[1, 1000]", items, HEAD) is False
    assert de("check_imperative_sentence:[1, 1000]", []) is False


# --- sentence and clause lengths ------------------------------------------------------------


def test_sentence_length_monotonicity_non_strict():
    assert de("check_sentence_length_monotonicity", ["Geh.", "Geh jetzt.", "Geh jetzt.", "Geh jetzt bitte."]) is True
    assert de("check_sentence_length_monotonicity", ["Geh jetzt.", "Geh."]) is False
    assert de("check_sentence_length_monotonicity", []) is True


def test_odd_increase_and_even_decrease():
    items = ["a", "b c d e", "f g", "h i j", "k l m"]  # odd: 1, 2, 3; even: 4, 3
    assert de("check_odd_increase", items) is True
    assert de("check_even_decrease", items) is True
    assert de("check_odd_increase", ["a b", "x", "c d"]) is False  # equal is not increasing
    assert de("check_even_decrease", ["x", "a", "y", "b c"]) is False
    assert de("check_odd_increase", []) is True


def test_clause_monotonicity_and_first_last_odd():
    assert de("german_clause_monotonicity", ["a b c", "a b c d"]) is True
    assert de("german_clause_monotonicity", ["a b c", "a b c"]) is False
    assert de("german_clause_odd_even", ["a b c", "a b", "a"]) is True
    assert de("german_clause_odd_even", ["a b c", "a b"]) is False
    assert de("german_clause_odd_even", []) is False
    assert de("german_clause_odd_even", [""]) is False


def test_clause_verb_final():
    assert de("german_clause_verb", ["Man schläft früh, weil man morgens fit sein will."]) is True
    assert de("german_clause_verb", ["weil frühes Aufstehen die Produktivität steigert"]) is True
    assert de("german_clause_verb", ["Ich weiß, dass er kommt, weil er Zeit hat."]) is True
    assert de("german_clause_verb", ["weil ich bin müde"]) is False
    assert de("german_clause_verb", ["Ich weiß, dass er kommt morgen."]) is False
    assert de("german_clause_verb", ["weil es gut für die Gesundheit"]) is False
    assert de("german_clause_verb", [""]) is False
    assert de("german_clause_verb", []) is True


def test_total_sentences_and_word_count_parity():
    assert de("german_total_sentences:[2]", ["Eins.", "Zwei."]) is True
    assert de("german_total_sentences:[2]", ["Eins. Zwei."]) is False
    assert de("german_total_sentences:[2]", ["Eins.", "Zwei.", " "]) is True
    assert de("check_word_counts_odd", ["Ich gehe heute.", "x", "Ich gehe heute gern mit."]) is True
    assert de("check_word_counts_odd", ["Ich gehe.", "x"]) is False
    assert de("check_word_counts_even", ["x", "Ich gehe.", "y", "Ich gehe heute gern."]) is True
    assert de("check_word_counts_even", ["x", "Ich gehe heute."]) is False


def test_number_monotonicity_is_strict_and_reads_millions():
    assert de("check_number_monotonicity", ["zwei", "zwei", "drei"]) is False
    assert de("check_number_monotonicity", ["eine Million", "zwei Millionen"]) is True
    assert de("check_number_monotonicity", ["zwei Millionen fünf", "eine Million"]) is True
    assert de("check_number_monotonicity", ["fünf"]) is True


def test_clause_verb_needs_a_final_finite_verb_in_each_clause():
    assert de("german_clause_verb", ["Weil es regnet, bleibe ich zu Hause."]) is True
    assert de("german_clause_verb", ["Weil ich dich liebe!"]) is True
    assert de("german_clause_verb", ["Er hofft, morgen zu kommen."]) is False
    assert de("german_clause_verb", ["weil er 30 Jahre alt ist 2"]) is False


def test_clause_verb_head_reads_only_the_last_token():
    head = RuleContext(language="de", compat="head")
    assert de("german_clause_verb", ["Weil es regnet, bleibe ich zu Hause."], head) is False
    assert de("german_clause_verb", ["Weil ich dich liebe!"], head) is False
    assert de("german_clause_verb", ["Ich weiß, dass er morgen kommt."], head) is True


def test_three_articles_head_needs_bare_tokens():
    head = RuleContext(language="de", compat="head")
    assert de("check_three_articles", ["der, die, das."]) is True
    assert de("check_three_articles", ["der, die, das."], head) is False
    assert de("check_three_articles", ["Der Hund, die Katze, das Kind."], head) is True


def test_word_count_parity_head_counts_a_free_standing_dash():
    head = RuleContext(language="de", compat="head")
    assert de("check_word_counts_odd", ["Er kommt – nicht."]) is True
    assert de("check_word_counts_odd", ["Er kommt – nicht."], head) is False
