"""Trajectory metrics of one episode (pure), from its steps and final state.

Definitions (proseval docs ravel gives each with the paper's equation where the paper numbers one):

- |T| (``steps``): policy decisions consumed, failed ones and ``finish`` included.
- n (``outline_len``): sections of the final outline.
- S (``success``, eq. 8): ``finish`` emitted within T_max (1/0), whatever the sections' status.
- ``success_all_completed``: ``finish`` within T_max with every section completed (the stricter
  reading); ``premature_finish``: ``finish`` with some section not completed.
- η (``efficiency``): |T| / n, for episodes with n > 0.
- ρ, eq. 9 as printed (``reviews_per_section``): the trajectory's review actions / n, in %, for
  episodes with n > 0 (eq. 9 sums 𝕀(a_t = review) over T); ``refines_per_section``: successful
  refines / n, in % (the reading Table 2's figures fit); ``refines_per_step``: successful refines /
  |T|, in % (the per-step reading).
- δ (``refine_delta``, eq. 10): mean over the episode's (successful refine → next review of the
  same section) pairs of the reviewer's score after minus its score before the refine; a pair is
  broken by a new draft of the section or a new outline; episodes without a pair have none.
- ERR (``error_rate``): the policy's invalid actions / |T|, in %: decisions that cannot be
  executed (``failed_by`` ``decision``) or that the state does not allow (``state``).
- ``tool_error_rate``: steps whose tool answer was unusable (``failed_by`` ``tool``) / |T|, in %;
  ERR + ``tool_error_rate`` is every failed step. ``skipped`` steps (the official cap) are in
  neither.
- lifecycle: per section of the final outline, the step of its first draft and the step it was
  (last) completed at, or T_max when it never was (``completion_step``); Fig. 4's Δ_med of a run:
  median completion step minus median first-draft step, over the drafted sections.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from proseval.benchmarks.ravel import state as st
from proseval.benchmarks.ravel.env import Step

# What `proseval describe ravel` lists: each metric a run reports, with the paper's equation.
DEFINITIONS = {
    "success": "S (eq. 8): share of episodes whose policy emits finish within T_max",
    "success_all_completed": "share of episodes that finish within T_max with every section completed",
    "premature_finish": "share of episodes that finish with some section not completed",
    "steps": "|T|: policy decisions consumed, failed ones and finish included",
    "outline_len": "n: sections of the final outline",
    "efficiency": "eta: |T| / n",
    "reviews_per_section": "rho (eq. 9 as printed): review actions / n, in %",
    "refines_per_section": "rho, Table 2 reading: successful refines / n, in %",
    "refines_per_step": "successful refines / |T|, in % (the per-step reading of rho)",
    "refine_delta": "delta (eq. 10): reviewer score after a refine minus before it, mean over pairs",
    "error_rate": "ERR: the policy's invalid actions / |T|, in %",
    "tool_error_rate": "unusable tool answers / |T|, in % (not in ERR)",
    "forced_completions": "sections completed by the revision cap (--compat official)",
    "judge": "final judge score 1-10 against the reference (reference = 6)",
    "completion_median": "median step at which a section is completed, never-completed ones at T_max",
    "delta_med": "Delta_med (Fig. 4): median completion step - median first-draft step, drafted sections, "
    "never-completed ones at T_max",
}

POLICY_FAILURES = ("decision", "state")  # the policy's invalid actions (ERR)
TOOL_FAILURES = ("tool",)  # unusable tool answers (tool_error_rate)
DEFAULT_MAX_STEPS = st.Settings().max_steps  # T_max


def _percent(count: int, total: int) -> float:
    return 100.0 * count / total if total else 0.0


@dataclass(frozen=True)
class EpisodeMetrics:
    steps: int
    outline_len: int
    finished: bool
    all_completed: bool
    failed_actions: int  # every failed step: the policy's invalid actions and unusable tool answers
    skipped: int  # review/refine steps the official cap blocked (--compat official)
    refines: int
    deltas: tuple[float, ...]
    forced_completions: int
    failed_by: dict[str, int] = field(default_factory=dict)  # decision / state / tool
    lifecycles: tuple[dict[str, Any], ...] = field(default=())
    reviews: int = 0  # review actions a_t = review: valid review decisions, whatever their outcome
    score_curve: tuple[float | None, ...] = field(default=())

    @property
    def success(self) -> bool:
        """S, eq. 8: the policy emitted ``finish`` within T_max."""
        return self.finished

    @property
    def success_all_completed(self) -> bool:
        return self.finished and self.all_completed

    @property
    def premature_finish(self) -> bool:
        return self.finished and not self.all_completed

    @property
    def invalid_actions(self) -> int:
        return sum(self.failed_by.get(cause, 0) for cause in POLICY_FAILURES)

    @property
    def tool_failures(self) -> int:
        return sum(self.failed_by.get(cause, 0) for cause in TOOL_FAILURES)

    @property
    def executed(self) -> int:
        """Actions that reached the environment: |T| minus invalid decisions and skipped steps."""
        return self.steps - self.failed_by.get("decision", 0) - self.skipped

    @property
    def efficiency(self) -> float | None:
        return self.steps / self.outline_len if self.outline_len else None

    @property
    def reviews_per_section(self) -> float | None:
        """ρ, eq. 9 as printed: Σ_t 𝕀(a_t = review) / n, in % (None without an outline)."""
        return _percent(self.reviews, self.outline_len) if self.outline_len else None

    @property
    def refines_per_section(self) -> float | None:
        """ρ as Table 2's figures fit it: successful refines / n, in % (None without an outline)."""
        return _percent(self.refines, self.outline_len) if self.outline_len else None

    @property
    def refines_per_step(self) -> float:
        return _percent(self.refines, self.steps)

    @property
    def error_rate(self) -> float:
        """ERR: the policy's invalid actions per decision, in %."""
        return _percent(self.invalid_actions, self.steps)

    @property
    def tool_error_rate(self) -> float:
        return _percent(self.tool_failures, self.steps)

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


def lifecycles(steps: list[Step], final: st.Episode, max_steps: int) -> list[dict[str, Any]]:
    """Per section of the final outline: the step of its first draft, the step it was last
    completed (None if it ends not completed) and its completion step (that step, else T_max)."""
    last_outline = max((s.step for s in steps if s.action == "outline" and s.outcome == "success"), default=0)
    rows = []
    for section in final.sections:
        own = [
            s
            for s in steps
            if s.step > last_outline and s.section_id == section.id and s.outcome in ("success", "skipped")
        ]
        drafts = [s.step for s in own if s.action == "draft"]
        done = [s.step for s in own if s.status_after == "completed"]
        completed = done[-1] if done and section.status == "completed" else None
        rows.append(
            {
                "section": section.id,
                "first_draft": drafts[0] if drafts else None,
                "completed": completed,
                "completion_step": completed if completed is not None else max_steps,
                "status": section.status,
                "revisions": section.revisions,
            }
        )
    return rows


def completion_median(points: Iterable[dict[str, Any]]) -> float | None:
    """The median completion step of a set of sections (never-completed ones at T_max)."""
    values = [p["completion_step"] for p in points if p.get("completion_step") is not None]
    return float(statistics.median(values)) if values else None


def median_shift(reference: Iterable[dict[str, Any]], other: Iterable[dict[str, Any]]) -> float | None:
    """Cross-run shift (not Fig. 4's Δ_med): median completion step of `other` minus that of `reference`."""
    a, b = completion_median(reference), completion_median(other)
    return None if a is None or b is None else b - a


def lifecycle_medians(points: Iterable[dict[str, Any]], max_steps: int = DEFAULT_MAX_STEPS) -> dict[str, Any]:
    """Fig. 4 for one run: over the drafted sections, the median first-draft (start) step, the
    median completion (end) step, a section not completed at the end counted at T_max, and
    Δ_med = end − start. Sections never drafted have no start and are left out (counted)."""
    points = list(points)
    drafted = [p for p in points if p.get("first_draft") is not None]
    starts = [p["first_draft"] for p in drafted]
    ends = [
        p["completion_step"]
        if p.get("completion_step") is not None
        else p["completed"]
        if p.get("completed") is not None
        else max_steps
        for p in drafted
    ]
    start = float(statistics.median(starts)) if starts else None
    end = float(statistics.median(ends)) if ends else None
    return {
        "start_median": start,
        "end_median": end,
        "delta_med": None if start is None or end is None else end - start,
        "sections": len(points),
        "drafted": len(drafted),
        "not_completed": sum(p.get("completed") is None for p in drafted),
        "never_drafted": len(points) - len(drafted),
    }


def score_curve(states: list[st.Episode]) -> list[float | None]:
    """After each step: the mean reviewer score of the sections reviewed so far (None before any)."""
    curve: list[float | None] = []
    for episode in states:
        scores = [s.score for s in episode.sections if s.score is not None]
        curve.append(sum(scores) / len(scores) if scores else None)
    return curve


def measure(
    steps: list[Step], final: st.Episode, states: list[st.Episode] | None = None, *, max_steps: int = DEFAULT_MAX_STEPS
) -> EpisodeMetrics:
    """The episode's metrics; `max_steps` is T_max (where never-completed sections are placed)."""
    return EpisodeMetrics(
        steps=len(steps),
        outline_len=final.n,
        finished=final.finished,
        all_completed=final.all_completed,
        failed_actions=sum(s.outcome == "failed" for s in steps),
        skipped=sum(s.outcome == "skipped" for s in steps),
        failed_by=dict(Counter(s.failure or "unknown" for s in steps if s.outcome == "failed")),
        refines=sum(s.action == "refine" and s.outcome == "success" for s in steps),
        reviews=sum(s.action == "review" and s.failure != "decision" for s in steps),
        deltas=tuple(refine_deltas(steps)),
        forced_completions=sum(s.forced and s.status == "completed" for s in final.sections),
        lifecycles=tuple(lifecycles(steps, final, max_steps)),
        score_curve=tuple(score_curve(states)) if states is not None else (),
    )
