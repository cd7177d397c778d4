"""ROUGE-1, ROUGE-2 and ROUGE-L F1 against a reference, computed by Google's ``rouge-score`` package.

Settings: the package's tokenizer with Porter stemming (``use_stemmer=True``): text is lower-cased,
every run of characters other than ASCII ``a-z0-9`` separates tokens, words longer than three
characters are stemmed; no stop-word removal. ``rougeL`` is the package's sentence-level ROUGE-L
(longest common subsequence over the whole token list, not ``rougeLsum``). The F-measure is
reported.

Chinese and Japanese: the package's tokenizer drops every character outside ASCII, so a Chinese
text would have no token at all. Here every Han or kana character is a token of its own (the
usual character-level ROUGE for Chinese) and the text between such characters goes through the
package's tokenizer unchanged; a text without them is tokenised exactly as by the package. Other
non-ASCII letters (accents, Cyrillic, Hangul) are still dropped by the package's tokenizer.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from proseval.benchmarks.revision_distance.grounding import HAN_KANA

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")
INSTALL_HINT = "the ROUGE baselines need the rouge-score package: pip install 'proseval[revision-distance]'"
_HAN_KANA_CHAR = re.compile(f"([{HAN_KANA}])")


def require_rouge_score() -> None:
    """Raise a `ValueError` naming the install command when ``rouge-score`` is missing (checked
    when a task is built, so the run stops before any request)."""
    try:
        import rouge_score  # noqa: F401  # only whether it is installed
    except ImportError:
        raise ValueError(INSTALL_HINT) from None


class HanCharacterTokenizer:
    """rouge-score's default tokenizer (with stemming), plus one token per Han or kana character."""

    def __init__(self) -> None:
        from rouge_score.tokenizers import DefaultTokenizer

        self._default = DefaultTokenizer(use_stemmer=True)

    def tokenize(self, text: str) -> list[str]:
        tokens: list[str] = []
        for piece in _HAN_KANA_CHAR.split(text):
            if _HAN_KANA_CHAR.fullmatch(piece):
                tokens.append(piece)
            elif piece:
                tokens.extend(self._default.tokenize(piece))
        return tokens


@lru_cache(maxsize=1)
def _scorer() -> Any:
    require_rouge_score()
    from rouge_score.rouge_scorer import RougeScorer

    return RougeScorer(list(ROUGE_TYPES), tokenizer=HanCharacterTokenizer())


def rouge_scores(candidate: str, reference: str) -> dict[str, float]:
    """``{"rouge1": F1, "rouge2": F1, "rougeL": F1}`` of `candidate` against `reference`."""
    scores = _scorer().score(reference, candidate)  # the package takes (target, prediction)
    return {name: float(scores[name].fmeasure) for name in ROUGE_TYPES}
