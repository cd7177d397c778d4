"""What the judge checks per LongWeave task, and how batches and failures are handled."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

JudgedTask = Literal["biog", "sr", "nw"]


@dataclass(frozen=True)
class JudgedConfig:
    """Judge batching and failure handling. The defaults fix the documented official bugs.

    biog_batch_size, sr_batch_size: targets per judge call (official effective values 10, 5).
    nw_batch_size: statements per call within a category; None = one call per category
        (official).
    keep_layout: BioG/NW truncation keeps punctuation and line breaks (False: official, the
        first words re-joined with single spaces).
    unscored_as_negative: targets without a verdict count as not covered / not answered /
        not found (official: a failed batch is all False); False leaves them unscored.
    min_scored_share: the least share of a sample's targets that must carry a verdict for the
        sample to be scored (ignored when ``unscored_as_negative``).
    cf_unscored_relevant: an unparsable or failed CF relevance verdict counts as relevant
        (official); False leaves the sample unscored.
    """

    biog_batch_size: int = 10
    sr_batch_size: int = 5
    nw_batch_size: int | None = None
    keep_layout: bool = True
    unscored_as_negative: bool = False
    min_scored_share: float = 0.5
    cf_unscored_relevant: bool = False

    def __post_init__(self) -> None:
        for name in ("biog_batch_size", "sr_batch_size", "nw_batch_size"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"JudgedConfig.{name} must be >= 1, got {value}")
        if not 0.0 <= self.min_scored_share <= 1.0:
            raise ValueError(f"JudgedConfig.min_scored_share must be in [0, 1], got {self.min_scored_share}")

    @classmethod
    def official(cls) -> JudgedConfig:
        """The official behaviour: punctuation-losing truncation, failures count as False/True."""
        return cls(keep_layout=False, unscored_as_negative=True, cf_unscored_relevant=True)
