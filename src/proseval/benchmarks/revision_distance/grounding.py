"""Grounding: does an edit's `original_snippet` really occur in the draft? (pure functions)

A reviser may quote text that is not in the draft (a paraphrase, a hallucination, a quote
from the reference). Matching is fuzzy: both texts are case-folded and tokenised into words
and punctuation, every Han or kana character being a word of its own (Chinese and Japanese
have no spaces between words); a snippet found verbatim scores 1.0, otherwise its best token-level
similarity (difflib's ratio) over the draft windows of the snippet's length ±1 tokens. An edit
is grounded when that score reaches the threshold (default 0.8). An edit with an empty
original snippet (a pure insertion) has nothing to quote and is left out of the grounding
share.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from proseval.benchmarks.revision_distance.edits import Edit

DEFAULT_THRESHOLD = 0.8
# Han ideographs and kana: scripts written without spaces, where every character counts as a word.
HAN_KANA = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{HAN_KANA}]|(?:(?![{HAN_KANA}])\w)+|[^\w\s]")
_QUOTES = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "–": "-", "—": "-"})


def tokens(text: str) -> list[str]:
    """Case-folded word and punctuation tokens (typographic quotes and dashes made plain)."""
    return _TOKEN.findall(text.translate(_QUOTES).casefold())


def word_count(text: str) -> int:
    """Words of `text`: its tokens other than punctuation (a Han or kana character is one word)."""
    return sum(1 for token in tokens(text) if token[0].isalnum() or token[0] == "_")


def match_score(snippet: str, draft: str) -> float:
    """1.0 when the snippet's tokens occur in the draft in a row, else the best fuzzy ratio (0-1)."""
    wanted = tokens(snippet)
    if not wanted:
        return 0.0
    have = tokens(draft)
    size = len(wanted)
    if any(have[i : i + size] == wanted for i in range(len(have) - size + 1)):
        return 1.0
    best = 0.0
    matcher = SequenceMatcher(autojunk=False)
    matcher.set_seq2(wanted)
    for width in (size - 1, size, size + 1):
        if width < 1:
            continue
        for start in range(max(1, len(have) - width + 1)):
            matcher.set_seq1(have[start : start + width])
            if matcher.real_quick_ratio() <= best or matcher.quick_ratio() <= best:
                continue
            best = max(best, matcher.ratio())
            if best == 1.0:
                return best
    return best


@dataclass(frozen=True)
class Grounding:
    """Per-edit match scores (None for insertions) and the grounded / ungrounded counts."""

    scores: tuple[float | None, ...]
    grounded: int
    ungrounded: int

    @property
    def checked(self) -> int:
        return self.grounded + self.ungrounded

    @property
    def share(self) -> float | None:
        """Grounded edits among those that quote the draft; None when none quotes it."""
        return self.grounded / self.checked if self.checked else None


def ground(edits: Sequence[Edit], draft: str, threshold: float = DEFAULT_THRESHOLD) -> Grounding:
    scores = tuple(match_score(e.original_snippet, draft) if tokens(e.original_snippet) else None for e in edits)
    grounded = sum(1 for s in scores if s is not None and s >= threshold)
    ungrounded = sum(1 for s in scores if s is not None and s < threshold)
    return Grounding(scores, grounded, ungrounded)
