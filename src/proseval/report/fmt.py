"""How the report writes numbers: three decimals, CIs in brackets, a dash for a missing value."""

from __future__ import annotations

from ..runtime.records import MetricSummary

DASH = "—"


def num(value: float | None, digits: int = 3) -> str:
    return DASH if value is None else f"{value:.{digits}f}"


def ci_text(summary: MetricSummary) -> str:
    if summary.ci_low is None or summary.ci_high is None:
        return DASH
    return f"[{summary.ci_low:.3f}, {summary.ci_high:.3f}]"
