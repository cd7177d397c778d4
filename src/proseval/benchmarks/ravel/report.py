"""RAVEL's figures over a run: the metrics table, paragraph lifecycles and the score curve."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from proseval.runtime.records import ScoredSample

TRAJECTORY = "trajectory"
JUDGE = "judge"
EPISODE_METRICS = ("success", "finished", "premature_finish", "steps", "outline_len", "efficiency",
                   "refine_density", "refine_delta", "error_rate", "forced_completions")


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
    """Failed actions of the scored episodes, by cause (an invalid decision, a state that does not
    allow the action, an unusable tool answer)."""
    totals = {"decision": 0, "state": 0, "tool": 0}
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
    row = {"episodes": len(samples), "failed": len(samples) - len(ok),
           "S": _mean(_values(ok, "success")), "finish_rate": _mean(_values(ok, "finished")),
           "premature_finishes": int(sum(_values(ok, "premature_finish"))),
           "T": _mean(_values(ok, "steps")), "outline_len": _mean(_values(ok, "outline_len")),
           "efficiency": _mean(_values(ok, "efficiency")),
           "efficiency_successful": _mean(_values(successful, "efficiency")),
           "refine_density": _mean(_values(ok, "refine_density")), "refine_delta": _mean(_values(ok, "refine_delta")),
           "refine_delta_n": len(_values(ok, "refine_delta")), "error_rate": _mean(_values(ok, "error_rate")),
           "failed_by": failed_by(ok),
           "forced_completions": int(sum(_values(ok, "forced_completions"))),
           "judge": _mean(judged), "judge_n": len(judged),
           "judge_unscored": sum(1 for s in ok if s.scores.get(JUDGE) is not None and s.scores[JUDGE].value is None)}
    for key in ("S", "finish_rate"):
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
    return {"overall": summary_row(samples),
            "by_language": {lang: summary_row([s for s in samples if str(s.metadata.get("language")) == lang])
                            for lang in languages},
            "lifecycles": lifecycle_points(samples), "score_curve": score_curve(samples)}


def _f(value: Any, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


OUTCOME = ["episodes", "failed", "S %", "finish %", "premature", "forced", "judge 1-10 (n)", "judge unscored"]
TRAJECTORY_COLUMNS = ["|T|", "|O|", "|T|/n", "|T|/n (S)", "ρ %", "δ (pairs)", "ERR %", "failed: dec/state/tool"]


def outcome_cells(row: dict[str, Any]) -> list[str]:
    return [str(row["episodes"]), str(row["failed"]), _f(row["S"], 1), _f(row["finish_rate"], 1),
            str(row["premature_finishes"]), str(row["forced_completions"]), f"{_f(row['judge'])} ({row['judge_n']})",
            str(row["judge_unscored"])]


def trajectory_cells(row: dict[str, Any]) -> list[str]:
    return [_f(row["T"], 1), _f(row["outline_len"], 1), _f(row["efficiency"]), _f(row["efficiency_successful"]),
            _f(row["refine_density"], 1), f"{_f(row['refine_delta'])} ({row['refine_delta_n']})",
            _f(row["error_rate"], 1), "/".join(str(row["failed_by"].get(k, 0)) for k in ("decision", "state", "tool"))]


def tables(summary: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    groups = [("all", summary["overall"]), *summary["by_language"].items()]
    return [("RAVEL outcomes and judge score (reference = 6)", ["lang", *OUTCOME],
             [[name, *outcome_cells(row)] for name, row in groups]),
            ("RAVEL trajectories", ["lang", *TRAJECTORY_COLUMNS],
             [[name, *trajectory_cells(row)] for name, row in groups])]


LEGEND = ("S: finished with every section completed; premature: finished with sections left; |T|: decisions; "
          "|O|: outline sections; ρ: successful refines per decision; δ: reviewer score after − before a refine "
          "(episodes with a pair); ERR: failed actions per decision; failed: the failed actions by cause (invalid "
          "decision / action not allowed in the state / unusable tool answer); forced: sections closed at the "
          "revision cap; judge: C3EBench End2End judge (reference = 6) on the final manuscript, mean over the scored "
          "episodes (n); judge unscored: the judge's request failed or its answer was unusable.")


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def markdown(summary: dict[str, Any]) -> str:
    parts = ["# RAVEL results", ""]
    for title, header, rows in tables(summary):
        parts += [f"## {title}", "", _row(header), "|" + "---|" * len(header), *map(_row, rows), ""]
    return "\n".join([*parts, LEGEND, ""])


def lifecycle_drawer(series: dict[str, list[dict[str, Any]]]) -> Callable[[Any], None] | None:
    """Scatter of first-draft step vs completion step per section, one series per model; sections
    never completed are drawn at the top in hollow markers."""
    if not any(series.values()):
        return None

    def draw(axes: Any) -> None:
        top = max([p["first_draft"] or 0 for pts in series.values() for p in pts]
                  + [p["completed"] or 0 for pts in series.values() for p in pts] + [1]) + 1
        for label, points in series.items():
            if not points:
                continue  # nothing drafted in that run: no legend entry either
            done = [p for p in points if p["first_draft"] is not None and p["completed"] is not None]
            open_ = [p for p in points if p["first_draft"] is not None and p["completed"] is None]
            line = axes.scatter([p["first_draft"] for p in done], [p["completed"] for p in done], label=label,
                                alpha=0.7)
            if open_:
                axes.scatter([p["first_draft"] for p in open_], [top] * len(open_), facecolors="none",
                             edgecolors=line.get_facecolor(), label=f"{label}: not completed")
        axes.plot([0, top], [0, top], color="grey", linestyle=":", linewidth=1)
        axes.set_xlabel("step of the first draft")
        axes.set_ylabel(f"step completed ({top} = never)")
        axes.set_title("Paragraph lifecycles")

    return draw


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
