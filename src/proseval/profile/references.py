"""The papers' own models as reference points: their published headline figures (`references.csv`,
shipped), and the rule for when a profile may be read beside them.

A paper's figures are comparable with a profile's only when the profile ran at the `paper` size
(each paper's preset, full size) and every judging role was bound to the judge the paper names.
A paper that names no judge, or that measured other texts, is never comparable. The profile's
headline is shown in the paper's unit where it converts to it (`paper_unit`: LongWeave's fraction
x 100), else in its own unit, labelled as such.
"""

from __future__ import annotations

import csv
import io
import re
from importlib import resources

from pydantic import BaseModel

BUNDLED = "references.csv"

# Benchmarks whose paper figures no profile run can match, and why.
NEVER_COMPARABLE = {
    "revision-distance": "the paper measured its own drafts (WildChat writing, ACL related-work paragraphs) against "
                         "references; the profile measures the model's WritingBench answers without references",
}


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
    judge: str  # the judge the paper names for it; empty when it names none
    judge_key: str  # `judge` normalised (`normalise`): a bound model matches when its name starts with it
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
    comparable: bool
    why: str


def read_references() -> list[Reference]:
    text = resources.files(__package__).joinpath(BUNDLED).read_text(encoding="utf-8")
    return [Reference(**row) for row in csv.DictReader(io.StringIO(text))]


def normalise(spec: str) -> str:
    """A model's name without its provider and with letters and digits only, lower case
    (`openai/gpt-5.2-2025-11-20` -> `gpt5220251120`)."""
    return re.sub(r"[^a-z0-9]", "", spec.rsplit("/", 1)[-1].lower())


def comparability(benchmark: str, references: list[Reference], size: str, judges: dict[str, str]) -> Comparability:
    """Whether a profile's `benchmark` (run at `size`, its judging roles bound to `judges`) can be
    read beside the paper's figures, and why (not)."""
    if not references:
        return Comparability(comparable=False, why="no published figures")
    if benchmark in NEVER_COMPARABLE:
        return Comparability(comparable=False, why=NEVER_COMPARABLE[benchmark])
    first = references[0]
    if not first.judge_key:
        return Comparability(comparable=False, why=f"{first.paper} does not name the judge of {first.table}")
    if size != "paper":
        return Comparability(comparable=False, why=f"the profile ran at size {size}, not the paper's preset and size")
    other = {role: spec for role, spec in judges.items() if not normalise(spec).startswith(first.judge_key)}
    if other:
        bound = ", ".join(f"{role}={spec}" for role, spec in sorted(other.items()))
        return Comparability(comparable=False, why=f"judged by {bound}, not the paper's {first.judge}")
    return Comparability(comparable=True, why=f"paper preset and size, judge {first.judge} as in {first.table}")
