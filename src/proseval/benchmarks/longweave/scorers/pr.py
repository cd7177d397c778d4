"""Paragraph Reordering (PR): Kendall's tau-b of the answer's paragraph order, mapped to [0, 1].

1. The answer's segments are the texts after ``[[Segment k]]`` markers. Labels outside
   0..n-1 and repeated labels (the later block) are dropped; unless exactly n segments
   remain, the score is 0.
2. Each answer segment is matched by content, not by label, to the original paragraph it is
   most similar to: TF-IDF vectors (fitted on the original and answer paragraphs together,
   scikit-learn's defaults re-implemented), cosine similarity, first maximum.
3. kendalls_tau = (1 + tau_b) / 2 of (answer position, matched original index); 0 when tau_b is
   undefined (every segment matched to the same original).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from proseval.benchmarks.longweave.scorers.result import RuleScore

_EMPHASIS = r"(?:\*\*|__|\*|_)?"
_OFFICIAL_SEGMENT = re.compile(r"\[\[Segment\s*(\d+)\]\]\s*\n(.*?)(?=\n\[\[Segment|\Z)", re.DOTALL)
_TOLERANT_SEGMENT = re.compile(
    rf"{_EMPHASIS}\[\[Segment\s*(\d+)\]\]{_EMPHASIS}[^\S\n]*\n?(.*?)"
    rf"(?=\n[^\S\n]*{_EMPHASIS}\[\[Segment|\Z)",
    re.DOTALL,
)
# scikit-learn's default token pattern: runs of two or more word characters.
_TOKEN = re.compile(r"(?u)\b\w\w+\b")


@dataclass(frozen=True)
class PRConfig:
    """Which official behaviours to keep. The default fixes the documented bug.

    tolerant_markers: accept Markdown emphasis around ``[[Segment k]]`` and text on the
        marker's line (False: official, the marker must be bare and followed by a newline; an
        empty segment body then swallows the next marker).
    """

    tolerant_markers: bool = True

    @classmethod
    def official(cls) -> PRConfig:
        return cls(tolerant_markers=False)


def extract_segments(answer: str, n: int, *, tolerant: bool = True) -> list[tuple[int, str]]:
    """(label, text) of the answer's segments with labels in 0..n-1, first occurrence only."""
    pattern = _TOLERANT_SEGMENT if tolerant else _OFFICIAL_SEGMENT
    kept: dict[int, str] = {}
    for label_text, body in pattern.findall(answer):
        label = int(label_text)
        if 0 <= label < n and label not in kept:
            kept[label] = body.strip()
    return list(kept.items())


def align_to_originals(answer_paragraphs: Sequence[str], originals: Sequence[str]) -> list[int]:
    """For each answer paragraph, the index of the most similar original (TF-IDF cosine)."""
    vectors = _tfidf_vectors([*originals, *answer_paragraphs])
    postings: dict[str, list[tuple[int, float]]] = {}
    for index, vector in enumerate(vectors[: len(originals)]):
        for term, weight in vector.items():
            postings.setdefault(term, []).append((index, weight))
    aligned = []
    for vector in vectors[len(originals) :]:
        similarities = [0.0] * len(originals)
        for term, weight in vector.items():
            for index, other in postings.get(term, ()):
                similarities[index] += weight * other
        aligned.append(similarities.index(max(similarities)))
    return aligned


def kendall_tau_b(ranking: Sequence[int]) -> float | None:
    """Kendall's tau-b between positions 0..n-1 and `ranking` (ties allowed in `ranking`);
    None when undefined (fewer than two items, or all of them tied)."""
    n = len(ranking)
    pairs = n * (n - 1) // 2
    tied = sum(t * (t - 1) // 2 for t in Counter(ranking).values())
    if pairs == 0 or tied == pairs:
        return None
    balance = 0
    for i in range(n):
        for j in range(i + 1, n):
            balance += (ranking[j] > ranking[i]) - (ranking[j] < ranking[i])
    return balance / math.sqrt(pairs * (pairs - tied))


def score_pr(answer: str, segments: Sequence[str], *, config: PRConfig = PRConfig()) -> RuleScore:
    """Score one PR answer against the document's paragraphs in their original order."""
    n = len(segments)
    if n < 2:
        return RuleScore(
            None,
            {"kendalls_tau": None},
            {},
            "a document needs two segments to have an order",
        )
    found = extract_segments(answer, n, tolerant=config.tolerant_markers)
    trace: dict[str, Any] = {"labels": [label for label, _ in found]}
    if len(found) != n:
        trace["problem"] = f"{len(found)} usable segments, expected {n}"
        return RuleScore(0.0, {"kendalls_tau": 0.0}, trace)
    aligned = align_to_originals([text for _, text in found], segments)
    tau = kendall_tau_b(aligned)
    trace.update(aligned=aligned, tau_b=tau)
    if tau is None:
        trace["problem"] = "every segment matched the same original"
        return RuleScore(0.0, {"kendalls_tau": 0.0}, trace)
    value = (1.0 + tau) / 2.0
    return RuleScore(value, {"kendalls_tau": value}, trace)


def _tfidf_vectors(documents: Sequence[str]) -> list[dict[str, float]]:
    """L2-normalised TF-IDF vectors with smoothed idf: ln((1 + N) / (1 + df)) + 1."""
    counts = [Counter(_TOKEN.findall(document.lower())) for document in documents]
    frequency: Counter[str] = Counter()
    for count in counts:
        frequency.update(count.keys())
    idf = {term: math.log((1 + len(documents)) / (1 + df)) + 1.0 for term, df in frequency.items()}
    vectors = []
    for count in counts:
        weights = {term: tf * idf[term] for term, tf in count.items()}
        norm = math.sqrt(sum(w * w for w in weights.values()))
        vectors.append({t: w / norm for t, w in weights.items()} if norm else {})
    return vectors
