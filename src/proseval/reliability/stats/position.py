"""Position bias: `flip_rate` for pairwise verdicts ("A"/"B"/"tie") under swapped presentation,
`score_shift` for pointwise scores under swapped presentation, with `share_changed_interval`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .bootstrap import Interval, mean_interval
from .inputs import EQUAL, Values, paired

VERDICTS: tuple[str, ...] = ("A", "B", "tie")
_MIRROR = {"A": "B", "B": "A", "tie": "tie"}


def _verdict(value: str | None) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    normal = text.upper() if text.upper() in ("A", "B") else text.lower()
    if normal not in VERDICTS:
        raise ValueError(f"unknown verdict {value!r}; expected one of {VERDICTS}")
    return normal


@dataclass(frozen=True)
class FlipRate:
    flip_rate: float | None  # share of pairs whose verdict does not follow the swap
    first_both: float | None  # share that preferred the first-shown answer in both orders
    second_both: float | None  # share that preferred the second-shown answer in both orders
    n: int


def flip_rate(first: Sequence[str | None], swapped: Sequence[str | None]) -> FlipRate:
    """Position bias of a pairwise judge: the same pairs judged in both presentation orders.

    Verdicts name positions ("A" = shown first). A consistent judge mirrors its verdict when the
    order is swapped (A <-> B, tie stays tie); anything else is a flip. Answering "A" both times
    means it preferred whatever came first. Pairs missing either verdict are dropped; an
    unknown verdict raises ValueError.
    """
    if len(first) != len(swapped):
        raise ValueError(f"verdict lists differ in length: {len(first)} and {len(swapped)}")
    pairs = [(a, b) for a, b in zip(map(_verdict, first), map(_verdict, swapped)) if a and b]
    if not pairs:
        return FlipRate(None, None, None, 0)
    n = len(pairs)
    return FlipRate(
        flip_rate=sum(_MIRROR[a] != b for a, b in pairs) / n,
        first_both=sum(a == b == "A" for a, b in pairs) / n,
        second_both=sum(a == b == "B" for a, b in pairs) / n,
        n=n,
    )


@dataclass(frozen=True)
class ScoreShift:
    share_changed: float | None  # share of items whose score changed with the order
    mean_change: float | None  # mean of swapped - first (signed: systematic drift)
    mean_abs_change: float | None  # mean |swapped - first| (size, whatever the direction)
    n: int


def score_shift(first: Values, swapped: Values) -> ScoreShift:
    """Position sensitivity of a pointwise judge: the same items scored under swapped presentation."""
    a, b = paired(first, swapped)
    if a.size == 0:
        return ScoreShift(None, None, None, 0)
    change = b - a
    return ScoreShift(
        share_changed=float(np.mean(np.abs(change) > EQUAL)),
        mean_change=float(change.mean()),
        mean_abs_change=float(np.abs(change).mean()),
        n=int(a.size),
    )


def share_changed_interval(
    first: Values, swapped: Values, *, resamples: int = 1000, seed: int = 0, confidence: float = 0.95
) -> Interval:
    """Bootstrap interval of `score_shift`'s share_changed (the position flip rate), over the items."""
    a, b = paired(first, swapped)
    return mean_interval(np.abs(b - a) > EQUAL, resamples=resamples, seed=seed, confidence=confidence)
