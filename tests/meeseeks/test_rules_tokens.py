"""The rule checkers' tokenizers: each pattern's tokens, and when lower-casing happens."""

from __future__ import annotations

import pytest

from proseval.benchmarks.meeseeks.rules import german, indonesian, lemma, russian
from proseval.benchmarks.meeseeks.rules.base import RuleContext, Verdict
from proseval.benchmarks.meeseeks.rules.compat import crashes_under_head
from proseval.benchmarks.meeseeks.rules.tokens import ASCII_WORD, WORD, tokenizer


def test_each_language_cuts_its_own_tokens() -> None:
    assert german.words("Er sagt: „Nein!“ — 42.") == ["Er", "sagt:", "„Nein!“", "42."]
    assert indonesian._words("Saya makan-makan 3 Roti.") == ["saya", "makan", "makan", "roti"]
    assert lemma.tokens("Die Häuser, 2 Mal.") == ["die", "häuser", "2", "mal"]
    assert russian.tokens("Кто-то за́мок купил в 1999 году, ok.") == ["Кто-то", "за́мок", "купил", "в", "1999", "году"]


def test_lowering_the_text_first_can_split_a_token() -> None:
    # "İ" lower-cases to "i" and a combining dot, which is no word character.
    assert tokenizer(WORD, lower="text")("İstanbul") == ["i", "stanbul"]
    assert tokenizer(WORD, lower="tokens")("İstanbul") == ["i̇stanbul"]
    assert tokenizer(ASCII_WORD, lower="tokens")("İstanbul") == ["stanbul"]
    assert tokenizer(ASCII_WORD)("Jalan Raya") == ["Jalan", "Raya"]


@pytest.mark.parametrize(("on_empty", "empty_verdict"), [(True, False), (False, True)])
def test_a_crashing_reference_fails_under_head_only(on_empty: bool, empty_verdict: bool) -> None:
    check = crashes_under_head("crashes", on_empty=on_empty)(lambda params, items, ctx: Verdict.ok("fine"))
    head, fixed = RuleContext(compat="head"), RuleContext()
    assert check(None, ["x"], fixed).passed is True
    assert check(None, [], fixed).passed is True
    failed = check(None, ["x"], head)
    assert (failed.passed, failed.reason) == (False, "crashes")
    assert check(None, [], head).passed is empty_verdict
