"""Trajectory metrics of one episode (pure), from its steps and final state.

Definitions (also in docs/ravel.md):

- |T| (``steps``): policy decisions consumed, failed ones and ``finish`` included.
- n (``outline_len``): sections of the final outline.
- S (``success``): ``finish`` emitted within T_max with every section completed (1/0).
- ``finished``: ``finish`` emitted within T_max, completed or not; ``premature_finish``: finish
  with some section not completed.
- η (``efficiency``): |T| / n, for episodes with n > 0.
- ρ (``refine_density``): successful refine actions / |T|, in %.
- δ (``refine_delta``): mean over the episode's (successful refine → next review of the same
  section) pairs of the reviewer's score after minus its score before the refine; a pair is
  broken by a new draft of the section or a new outline; episodes without a pair have none.
- ERR (``error_rate``): failed actions / |T|, in % (``skipped`` steps of the official cap are
  not failures); ``failed_by`` splits the failed actions by
  cause: an invalid decision, an action the state does not allow, an unusable tool answer.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from proseval.benchmarks.ravel import state as st
from proseval.benchmarks.ravel.env import Step


@dataclass(frozen=True)
class EpisodeMetrics:
    steps: int
    outline_len: int
    success: bool
    finished: bool
    premature_finish: bool
    failed_actions: int
    skipped: int  # review/refine steps the official cap blocked (--compat official)
    refines: int
    deltas: tuple[float, ...]
    forced_completions: int
    failed_by: dict[str, int] = field(default_factory=dict)  # decision / state / tool
    lifecycles: tuple[dict[str, Any], ...] = field(default=())
    score_curve: tuple[float | None, ...] = field(default=())

    @property
    def executed(self) -> int:
        """Actions that reached the environment: |T| minus invalid decisions and skipped steps."""
        return self.steps - self.failed_by.get("decision", 0) - self.skipped

    @property
    def efficiency(self) -> float | None:
        return self.steps / self.outline_len if self.outline_len else None

    @property
    def refine_density(self) -> float:
        return 100.0 * self.refines / self.steps if self.steps else 0.0

    @property
    def error_rate(self) -> float:
        return 100.0 * self.failed_actions / self.steps if self.steps else 0.0

    @property
    def refine_delta(self) -> float | None:
        return sum(self.deltas) / len(self.deltas) if self.deltas else None


def refine_deltas(steps: list[Step]) -> list[float]:
    """Score after − score before, for each refine followed by a review of the same section."""
    open_pairs: dict[int, float] = {}
    deltas = []
    for step in steps:
        if step.outcome != "success":
            continue
        if step.action == "outline":
            open_pairs.clear()
        elif step.action == "draft" and step.section_id is not None:
            open_pairs.pop(step.section_id, None)
        elif step.action == "refine" and step.section_id is not None and step.score_before is not None:
            open_pairs[step.section_id] = step.score_before
        elif step.action == "review" and step.section_id in open_pairs and step.score is not None:
            deltas.append(step.score - open_pairs.pop(step.section_id))
    return deltas


def lifecycles(steps: list[Step], final: st.Episode) -> list[dict[str, Any]]:
    """Per section of the final outline: the step of its first draft and the step it was last completed."""
    last_outline = max((s.step for s in steps if s.action == "outline" and s.outcome == "success"), default=0)
    rows = []
    for section in final.sections:
        own = [s for s in steps if s.step > last_outline and s.section_id == section.id
               and s.outcome in ("success", "skipped")]
        drafts = [s.step for s in own if s.action == "draft"]
        done = [s.step for s in own if s.status_after == "completed"]
        rows.append({"section": section.id, "first_draft": drafts[0] if drafts else None,
                     "completed": done[-1] if done and section.status == "completed" else None,
                     "status": section.status, "revisions": section.revisions})
    return rows


def score_curve(states: list[st.Episode]) -> list[float | None]:
    """After each step: the mean reviewer score of the sections reviewed so far (None before any)."""
    curve: list[float | None] = []
    for episode in states:
        scores = [s.score for s in episode.sections if s.score is not None]
        curve.append(sum(scores) / len(scores) if scores else None)
    return curve


def measure(steps: list[Step], final: st.Episode, states: list[st.Episode] | None = None) -> EpisodeMetrics:
    return EpisodeMetrics(
        steps=len(steps), outline_len=final.n, success=final.finished and final.all_completed,
        finished=final.finished, premature_finish=final.finished and final.premature,
        failed_actions=sum(s.outcome == "failed" for s in steps),
        skipped=sum(s.outcome == "skipped" for s in steps),
        failed_by=dict(Counter(s.failure or "unknown" for s in steps if s.outcome == "failed")),
        refines=sum(s.action == "refine" and s.outcome == "success" for s in steps),
        deltas=tuple(refine_deltas(steps)),
        forced_completions=sum(s.forced and s.status == "completed" for s in final.sections),
        lifecycles=tuple(lifecycles(steps, final)),
        score_curve=tuple(score_curve(states)) if states is not None else (),
    )
