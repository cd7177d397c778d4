"""The papers' own models as reference points: their published headline figures (`references.csv`,
shipped), and the rule for when a profile may be read beside them.

Whether a run's figures may be read beside them is decided from what ran (`comparable`). The
profile's headline is shown in the paper's unit where it converts to it (`paper_unit`: LongWeave's
fraction x 100), else in its own unit, labelled as such.
"""

from __future__ import annotations

import csv
import io
from importlib import resources

from pydantic import BaseModel, Field

BUNDLED = "references.csv"


class Reference(BaseModel):
    """One published figure, as printed, with where it comes from."""

    benchmark: str
    paper: str
    table: str
    model: str
    metric: str
    slice: str
    value: str  # as printed (Meeseeks prints `.52`)
    unit: str
    judge: str  # the judge the paper names for it, as printed; empty when it names none
    settings: str
    note: str

    @property
    def number(self) -> float | None:
        return float(self.value) if self.value else None


# proseval's headline unit -> a paper's unit: the factor from one to the other (equal units: 1).
UNIT_FACTORS: dict[tuple[str, str], float] = {
    ("fraction (0-1)", "score (0-100)"): 100.0,
    ("fraction (0-1)", "%"): 100.0,
    ("1-10 judge score", "10-point scale"): 1.0,
}


class PaperUnit(BaseModel):
    """The unit of a paper's figures that a profile's headline converts to: value × `factor`."""

    unit: str
    factor: float


def paper_unit(unit: str | None, references: list[Reference]) -> PaperUnit | None:
    """The first unit of `references` that the headline's `unit` converts to; None when none does
    (or the headline's unit is not known)."""
    if unit is None:
        return None
    for theirs in dict.fromkeys(r.unit for r in references if r.unit):
        factor = 1.0 if theirs == unit else UNIT_FACTORS.get((unit, theirs))
        if factor is not None:
            return PaperUnit(unit=theirs, factor=factor)
    return None


class Comparability(BaseModel):
    """Whether figures can be read beside a paper's: `reasons` are the checks that failed (not
    comparable) or every check (comparable), `why` joins them; `caveats` are what the paper leaves
    open even then."""

    comparable: bool
    why: str
    reasons: list[str] = Field(default_factory=list)
    caveats: list[str] = Field(default_factory=list)


def read_references() -> list[Reference]:
    text = resources.files(__package__).joinpath(BUNDLED).read_text(encoding="utf-8")
    return [Reference(**row) for row in csv.DictReader(io.StringIO(text))]
