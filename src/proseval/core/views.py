"""What a benchmark shows of its samples in the viewer, and what it asks a person labelling them.

Both are hooks a benchmark registers with its task (``@kit.task(..., views=..., labelling=...)``),
so the viewer draws a RAVEL trajectory or asks WritingBench's criteria without importing any
benchmark. They return plain data; the viewer's templates escape every text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ViewBlock:
    """One part of a sample's page: `kind` names a drawing the viewer knows (see docs/viewer.md),
    `data` its content as plain values (strings, numbers, lists, dicts)."""

    kind: str
    title: str
    data: Any = None


# The sample views of one record (the samples.jsonl line as a dict); [] for none.
SampleViews = Callable[[dict[str, Any]], list[ViewBlock]]


# What the two points of a 0-1 scale are called when a criterion names none: a yes/no question.
YES_NO = ("No", "Yes")


@dataclass(frozen=True)
class LabelCriterion:
    """One thing a rater scores: `name` is the criterion labels are recorded under (the same name
    the task's `ratings` give the judge's verdict, so the two can be compared); `title` is the words
    the rater reads above its question (a verdict's name is often an internal one: ``c3e``,
    ``reviewer: section 2``, ``fact 3: covered``), the name itself when a form gives none.

    `point_labels` name the scale's points from `low` to `high` (one each): the buttons show them
    instead of the numbers, and the label still records the number. A 0-1 scale without them is
    asked as No / Yes (`YES_NO`), recorded as 0 / 1 like a binary judge verdict.

    `paired` False: the criterion is about parts of this one answer (RAVEL's reviewed sections), so
    it is asked when the answer is scored alone, never of two answers side by side."""

    name: str
    description: str = ""
    low: int = 1
    high: int = 10
    point_labels: tuple[str, ...] = ()
    paired: bool = True
    title: str = ""

    def __post_init__(self) -> None:
        points = self.high - self.low + 1 if isinstance(self.low, int) and isinstance(self.high, int) else None
        if self.point_labels and len(self.point_labels) != points:
            raise ValueError(
                f"criterion {self.name!r}: {len(self.point_labels)} point label(s) for the "
                f"{points} points of {self.low!r}..{self.high!r}"
            )

    @property
    def shown_title(self) -> str:
        """What the rater reads above the question: its `title`, else its name."""
        return self.title.strip() or self.name

    @property
    def labels(self) -> tuple[str, ...]:
        """What each point's button shows, from low to high; () for the numbers themselves."""
        if self.point_labels:
            return self.point_labels
        return YES_NO if (self.low, self.high) == (0, 1) else ()


@dataclass(frozen=True)
class LabelForm:
    """What a rater is asked about one sample: the question, the criteria to score, and what they
    may see besides the answer (a reference text); `pairwise` is the question for two answers to
    the same item shown side by side (A, B or tie); an empty `pairwise` asks for no such pairs
    (the task's answers are not the candidates' own, e.g. the same given drafts in every run).

    `texts` is for a record that holds two texts to compare instead of one answer (Revision
    Distance's chosen and rejected): they are shown on random sides with the `pairwise` question,
    and the choice is recorded as a score on each criterion: its `high` for the first text, its
    `low` for the second, the middle for a tie."""

    question: str
    criteria: list[LabelCriterion] = field(default_factory=list)
    reference: str | None = None
    pairwise: str = "Which answer is better?"
    texts: tuple[str, str] | None = None


# The labelling form of one record (the samples.jsonl line as a dict).
Labelling = Callable[[dict[str, Any]], LabelForm]
