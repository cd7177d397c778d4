"""Task options: ``proseval run revision-distance --drafts d.jsonl --refs r.jsonl --setting general``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Setting = Literal["general", "knowledge", "reference-free"]
Weighting = Literal["none", "level", "size"]
# The reviser is a measuring instrument: greedy decoding by default; room for a long edit list.
REVISER_SETTINGS = {"temperature": 0.0, "max_tokens": 4096}


class ScoringOptions(BaseModel):
    """How the reviser is asked and its edits measured (shared by every revision-distance task)."""

    model_config = ConfigDict(extra="forbid")

    setting: Setting = Field(
        "general",
        description="general (reference-based), knowledge (reference-based, edits "
        "filed under order/comparison/description) or reference-free",
    )
    weighting: Weighting = Field(
        "none",
        description="also report a weighted distance (revision_distance_weighted; "
        "in pairs mode weighted_chosen / weighted_rejected and pair_agree_weighted): edits "
        "weighted by their level (level) or by the words they change (size)",
    )
    per_words: int = Field(
        100,
        ge=0,
        description="also report edits per this many draft words (revision_distance_norm; drafts mode only; 0: off)",
    )
    grounding_threshold: float = Field(
        0.8,
        ge=0.0,
        le=1.0,
        description="fuzzy-match score at which an edit's original snippet counts as found in the draft",
    )
    attempts: int = Field(
        1, ge=1, le=5, description="asks of the reviser per text until its reply holds a list of edits (1: no re-ask)"
    )
    structured: bool = Field(
        False,
        description="ask the reviser's endpoint for schema-checked JSON "
        "(response_format); replies are parsed and checked all the same",
    )


class RevisionDistanceParams(ScoringOptions):
    drafts: str | None = Field(
        None, description="JSON Lines file of drafts (draft, optional id / reference / instruction)"
    )
    refs: str | None = Field(
        None, description="JSON Lines file of references (id, reference), joined to the drafts by id"
    )
    pairs: str | None = Field(
        None,
        description="JSON Lines file of chosen/rejected pairs (optional chosen_score, "
        "rejected_score): the pairwise agreement mode",
    )

    @model_validator(mode="after")
    def _one_source(self) -> RevisionDistanceParams:
        if (self.drafts is None) == (self.pairs is None):
            raise ValueError("give exactly one of --drafts FILE and --pairs FILE")
        if self.refs is not None and self.drafts is None:
            raise ValueError("--refs goes with --drafts (a pair carries its reference on its own line)")
        return self


class StabilityParams(ScoringOptions):
    drafts: str = Field(..., description="JSON Lines file of drafts, as for revision-distance")
    refs: str | None = Field(None, description="JSON Lines file of references, joined to the drafts by id")
    perturb_seed: int = Field(0, description="seed of the word substitutions (the stability command's --seed)")
    rate: float = Field(0.05, gt=0.0, le=1.0, description="share of the draft's words to substitute (at least one)")
    variants: int = Field(
        4, ge=1, le=20, description="perturbed copies per draft, seeds seed .. seed + variants - 1 (App. H: four)"
    )

    @model_validator(mode="after")
    def _unweighted(self) -> StabilityParams:
        if self.weighting != "none":
            raise ValueError(
                "the stability check compares unweighted distances: --weighting is not used here (leave it at none)"
            )
        return self
