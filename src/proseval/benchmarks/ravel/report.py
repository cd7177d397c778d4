"""RAVEL's figures over a run: the metrics table, paragraph lifecycles and the score curve."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from proseval.benchmarks.ravel.metrics import completion_median, lifecycle_medians, median_shift
from proseval.kit.runs import ScoredSample

TRAJECTORY = "trajectory"
JUDGE = "judge"
EPISODE_METRICS = (
    "success",
    "success_all_completed",
    "premature_finish",
    "steps",
    "outline_len",
    "efficiency",
    "reviews_per_section",
    "refines_per_section",
    "refines_per_step",
    "refine_delta",
    "error_rate",
    "tool_error_rate",
    "forced_completions",
)
PERCENT_SHARES = ("S", "S_all_completed")  # per-episode 0/1 values shown as % of episodes
FAILURE_CAUSES = ("decision", "state", "tool")


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _values(samples: Iterable[ScoredSample], metric: str) -> list[float]:
    out = []
    for sample in samples:
        score = sample.scores.get(metric)
        if sample.status == "ok" and score is not None and isinstance(score.value, (int, float)):
            out.append(float(score.value))
    return out


def failed_by(samples: Iterable[ScoredSample]) -> dict[str, int]:
    """Failed steps of the scored episodes, by cause (an invalid decision, a state that does not
    allow the action, an unusable tool answer)."""
    totals = dict.fromkeys(FAILURE_CAUSES, 0)
    for sample in samples:
        score = sample.scores.get("steps")
        if sample.status == "ok" and score is not None:
            for cause, count in score.metadata.get("failed_by", {}).items():
                totals[cause] = totals.get(cause, 0) + int(count)
    return totals


def summary_row(samples: list[ScoredSample]) -> dict[str, Any]:
    """The headline figures of a group of episodes (failed episodes counted, never averaged)."""
    ok = [s for s in samples if s.status == "ok"]
    successful = [s for s in ok if (s.scores.get("success") and s.scores["success"].value == 1.0)]
    judged = _values(ok, JUDGE)
    row: dict[str, Any]  # counts, means and tables of figures
    row = {
        "episodes": len(samples),
        "failed": len(samples) - len(ok),
        "S": _mean(_values(ok, "success")),
        "S_all_completed": _mean(_values(ok, "success_all_completed")),
        "premature_finishes": int(sum(_values(ok, "premature_finish"))),
        "T": _mean(_values(ok, "steps")),
        "outline_len": _mean(_values(ok, "outline_len")),
        "efficiency": _mean(_values(ok, "efficiency")),
        "efficiency_successful": _mean(_values(successful, "efficiency")),
        "reviews_per_section": _mean(_values(ok, "reviews_per_section")),
        "refines_per_section": _mean(_values(ok, "refines_per_section")),
        "refines_per_step": _mean(_values(ok, "refines_per_step")),
        "refine_delta": _mean(_values(ok, "refine_delta")),
        "refine_delta_n": len(_values(ok, "refine_delta")),
        "error_rate": _mean(_values(ok, "error_rate")),
        "tool_error_rate": _mean(_values(ok, "tool_error_rate")),
        "failed_by": failed_by(ok),
        "forced_completions": int(sum(_values(ok, "forced_completions"))),
        "completion_median": completion_median(lifecycle_points(ok)),
        "fig4": lifecycle_medians(lifecycle_points(ok)),
        "judge": _mean(judged),
        "judge_n": len(judged),
        "judge_unscored": sum(1 for s in ok if s.scores.get(JUDGE) is not None and s.scores[JUDGE].value is None),
    }
    for key in PERCENT_SHARES:
        row[key] = None if row[key] is None else 100.0 * row[key]
    return row


def lifecycle_points(samples: Iterable[ScoredSample]) -> list[dict[str, Any]]:
    points = []
    for sample in samples:
        score = sample.scores.get("steps")
        if sample.status == "ok" and score is not None:
            points += [{"episode": sample.id, **row} for row in score.metadata.get("lifecycles", [])]
    return points


def score_curve(samples: Iterable[ScoredSample]) -> list[dict[str, Any]]:
    """Per step index: the mean, over episodes that reached it with a reviewed section, of the mean section score."""
    by_step: dict[int, list[float]] = {}
    for sample in samples:
        score = sample.scores.get("steps")
        if sample.status != "ok" or score is None:
            continue
        for index, value in enumerate(score.metadata.get("score_curve", []), start=1):
            if value is not None:
                by_step.setdefault(index, []).append(float(value))
    return [{"step": k, "mean_score": sum(v) / len(v), "episodes": len(v)} for k, v in sorted(by_step.items())]


def summarize(samples: list[ScoredSample]) -> dict[str, Any]:
    languages = sorted({str(s.metadata.get("language")) for s in samples})
    return {
        "overall": summary_row(samples),
        "by_language": {
            lang: summary_row([s for s in samples if str(s.metadata.get("language")) == lang]) for lang in languages
        },
        "lifecycles": lifecycle_points(samples),
        "score_curve": score_curve(samples),
    }


def _f(value: Any, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


OUTCOME = [
    "episodes",
    "failed",
    "S % (eq. 8)",
    "S all completed %",
    "premature",
    "forced",
    "judge 1-10 (n)",
    "judge unscored",
]
TRAJECTORY_COLUMNS = [
    "|T|",
    "|O|",
    "|T|/n",
    "|T|/n (S)",
    "ρ % (eq. 9: reviews/n)",
    "ρ % (Table 2 reading: refines/n)",
    "refines/step %",
    "δ (episodes)",
    "ERR %",
    "tool failures %",
    "failed: dec/state/tool",
    "median first draft",
    "median completion",
    "Δ_med (Fig. 4)",
    "not completed / never drafted",
]


def outcome_cells(row: dict[str, Any]) -> list[str]:
    return [
        str(row["episodes"]),
        str(row["failed"]),
        _f(row["S"], 1),
        _f(row["S_all_completed"], 1),
        str(row["premature_finishes"]),
        str(row["forced_completions"]),
        f"{_f(row['judge'])} ({row['judge_n']})",
        str(row["judge_unscored"]),
    ]


def trajectory_cells(row: dict[str, Any]) -> list[str]:
    return [
        _f(row["T"], 1),
        _f(row["outline_len"], 1),
        _f(row["efficiency"]),
        _f(row["efficiency_successful"]),
        _f(row["reviews_per_section"], 1),
        _f(row["refines_per_section"], 1),
        _f(row["refines_per_step"], 1),
        f"{_f(row['refine_delta'])} ({row['refine_delta_n']})",
        _f(row["error_rate"], 1),
        _f(row["tool_error_rate"], 1),
        "/".join(str(row["failed_by"].get(k, 0)) for k in FAILURE_CAUSES),
        *fig4_cells(row["fig4"]),
    ]


def fig4_cells(fig4: dict[str, Any]) -> list[str]:
    return [
        _f(fig4["start_median"], 1),
        _f(fig4["end_median"], 1),
        _f(fig4["delta_med"], 1),
        f"{fig4['not_completed']} / {fig4['never_drafted']}",
    ]


def tables(summary: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    groups = [("all", summary["overall"]), *summary["by_language"].items()]
    return [
        (
            "RAVEL outcomes and judge score (reference = 6)",
            ["lang", *OUTCOME],
            [[name, *outcome_cells(row)] for name, row in groups],
        ),
        ("RAVEL trajectories", ["lang", *TRAJECTORY_COLUMNS], [[name, *trajectory_cells(row)] for name, row in groups]),
    ]


LEGEND = (
    "S (eq. 8): finish emitted within T_max; S all completed: finished with every section completed; "
    "premature: finished with sections left; |T|: decisions; |O| = n: outline sections; ρ (eq. 9): "
    "review actions per outline section, as eq. 9 is printed (episodes with an outline); ρ (Table 2 reading): "
    "successful refines per outline section, the reading Table 2's figures fit; refines/step: successful "
    "refines per decision; δ (eq. 10): reviewer score (0-10) after − before a refine (episodes with a pair); "
    "ERR: the policy's invalid actions (invalid decision or action not allowed in the state) per decision; tool "
    "failures: unusable tool answers per decision; failed: the failed steps by cause (invalid decision / "
    "action not allowed in the state / unusable tool answer); median first draft, median completion and "
    "Δ_med = median completion − median first draft (Fig. 4): over the drafted sections of the scored "
    "episodes' final outlines, a section not completed at the end counted at T_max; not completed / never "
    "drafted: sections counted at T_max / sections left out (no first draft); forced: sections closed at the "
    "revision cap; judge: C3EBench End2End judge (reference = 6) on the final manuscript, mean over the "
    "scored episodes (n); judge unscored: the judge's request failed or its answer was unusable."
)


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def markdown(summary: dict[str, Any]) -> str:
    parts = ["# RAVEL results", ""]
    for title, header, rows in tables(summary):
        parts += [f"## {title}", "", _row(header), "|" + "---|" * len(header), *map(_row, rows), ""]
    return "\n".join([*parts, LEGEND, ""])


def _completion_step(point: dict[str, Any], fallback: int) -> int:
    """Where a section is drawn: its completion step (T_max when never completed)."""
    value = point.get("completion_step", point.get("completed"))
    return fallback if value is None else int(value)


def lifecycle_drawer(series: dict[str, list[dict[str, Any]]]) -> Callable[[Any], None] | None:
    """Scatter of first-draft step vs completion step per section, one series per model: sections
    never completed are drawn hollow at T_max; dashed lines mark each series' median completion
    (horizontal) and median first-draft (vertical) step over its drafted sections, and the legend
    captions its Δ_med (Fig. 4)."""
    if not any(series.values()):
        return None

    def draw(axes: Any) -> None:
        top = (
            max(
                [p["first_draft"] or 0 for pts in series.values() for p in pts]
                + [p.get("completion_step") or p["completed"] or 0 for pts in series.values() for p in pts]
                + [1]
            )
            + 1
        )
        for label, points in series.items():
            if not points:
                continue  # nothing drafted in that run: no legend entry either
            drafted = [p for p in points if p["first_draft"] is not None]
            done = [p for p in drafted if p["completed"] is not None]
            open_ = [p for p in drafted if p["completed"] is None]
            line = axes.scatter(
                [p["first_draft"] for p in done], [p["completed"] for p in done], label=label, alpha=0.7
            )
            if open_:
                axes.scatter(
                    [p["first_draft"] for p in open_],
                    [_completion_step(p, top) for p in open_],
                    facecolors="none",
                    edgecolors=line.get_facecolor(),
                    label=f"{label}: not completed (at T_max)",
                )
            fig4 = lifecycle_medians(points, top)
            if fig4["delta_med"] is not None:
                colour = line.get_facecolor()[0]
                axes.axhline(
                    fig4["end_median"],
                    color=colour,
                    linestyle="--",
                    linewidth=1,
                    label=f"{label}: {fig4_caption(fig4)}",
                )
                axes.axvline(fig4["start_median"], color=colour, linestyle=":", linewidth=1)
        axes.plot([0, top], [0, top], color="grey", linestyle=":", linewidth=1)
        axes.set_xlabel("step of the first draft")
        axes.set_ylabel("step completed (T_max = never)")
        axes.set_title("Paragraph lifecycles")

    return draw


def fig4_caption(fig4: dict[str, Any]) -> str:
    """The Fig. 4 caption of one series: Δ_med with the two medians it is made of."""
    if fig4["delta_med"] is None:
        return "Δ_med — (no drafted section)"
    return (
        f"Δ_med = {fig4['delta_med']:g} (median completion {fig4['end_median']:g} − median first draft "
        f"{fig4['start_median']:g}; {fig4['drafted']} drafted sections, {fig4['not_completed']} at T_max)"
    )


def median_shifts(series: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Per series: Fig. 4's medians and Δ_med (median completion − median first draft, over its
    drafted sections), its median completion step over all its sections, and, after the first
    series, the cross-run shift of that median (this series' minus the first's; not Fig. 4's Δ_med)."""
    items = list(series.items())
    if not items:
        return []
    reference = items[0][1]
    return [
        {
            "label": label,
            **lifecycle_medians(points),
            "completion_median": completion_median(points),
            "completion_median_shift_vs_first": None if index == 0 else median_shift(reference, points),
        }
        for index, (label, points) in enumerate(items)
    ]


def curve_drawer(series: dict[str, list[dict[str, Any]]]) -> Callable[[Any], None] | None:
    if not any(series.values()):
        return None

    def draw(axes: Any) -> None:
        for label, points in series.items():
            if not points:
                continue
            axes.plot([p["step"] for p in points], [p["mean_score"] for p in points], marker="o", label=label)
        axes.set_xlabel("step")
        axes.set_ylabel("mean reviewer score of reviewed sections (0-10)")
        axes.set_ylim(0, 10)
        axes.set_title("In-loop review score over steps")

    return draw
