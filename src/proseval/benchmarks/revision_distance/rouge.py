"""ROUGE-1, ROUGE-2 and ROUGE-L F1 against a reference (a small pure implementation).

Tokenisation follows the common convention: lower case, every run of characters other than
ASCII letters and digits is a separator, no stemming, no stop-word removal. ROUGE-N counts
clipped n-gram overlaps; ROUGE-L uses the longest common subsequence of the token lists. F1
is the harmonic mean of precision and recall (0 when there is no overlap).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

_SEPARATOR = re.compile(r"[^a-z0-9]+")


def rouge_tokens(text: str) -> list[str]:
    return [t for t in _SEPARATOR.split(text.lower()) if t]


def _f1(overlap: int, candidate_total: int, reference_total: int) -> float:
    if overlap == 0 or candidate_total == 0 or reference_total == 0:
        return 0.0
    precision, recall = overlap / candidate_total, overlap / reference_total
    return 2 * precision * recall / (precision + recall)


def ngrams(words: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))


def rouge_n(candidate: str, reference: str, n: int) -> float:
    cand, ref = ngrams(rouge_tokens(candidate), n), ngrams(rouge_tokens(reference), n)
    overlap = sum((cand & ref).values())
    return _f1(overlap, sum(cand.values()), sum(ref.values()))


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    previous = [0] * (len(b) + 1)
    for left in a:
        current = [0]
        for j, right in enumerate(b, start=1):
            current.append(previous[j - 1] + 1 if left == right else max(previous[j], current[j - 1]))
        previous = current
    return previous[-1]


def rouge_l(candidate: str, reference: str) -> float:
    cand, ref = rouge_tokens(candidate), rouge_tokens(reference)
    return _f1(lcs_length(cand, ref), len(cand), len(ref))


def rouge_scores(candidate: str, reference: str) -> dict[str, float]:
    """``{"rouge1": F1, "rouge2": F1, "rougeL": F1}``."""
    return {"rouge1": rouge_n(candidate, reference, 1), "rouge2": rouge_n(candidate, reference, 2),
            "rougeL": rouge_l(candidate, reference)}
