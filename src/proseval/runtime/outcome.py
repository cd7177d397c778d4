"""What a run came to — one model for the terminal summary, `results.json`, `set.json`, the report
and the exit status.

A run's *outcome* is one of:

- ``complete``: every planned sample has a record and none of them failed;
- ``failed_samples``: every planned sample has a record, but some failed (a request failed after
  its retries, a model file could not be loaded, a protocol raised): their scores are missing,
  `proseval resume RUN --retry-failed` runs them again;
- ``stopped``: samples are missing (the cost limit, an interrupt); `proseval resume RUN` goes on.

A run refused before it starts (a bad option, a missing key or model file) has no outcome: it
has no run folder. Model failures (empty, truncated, refused answers, a prompt longer than the
candidate's context) are answers scored as the benchmark defines: they do not make a run fail.
Unscored scores (a judge reply that could not be read) are counted and shown, not failures of
the run. The `Outcome` type and `outcome_of` are in `core.results`, beside the results that record them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from ..core.results import Outcome

EXIT_OK = 0
EXIT_ENVIRONMENT = 1  # a problem with the environment or the data, or a bug (the message says which)
EXIT_USAGE = 2  # the command line, or a file or folder it names, must change
EXIT_COST_LIMIT = 3  # stopped at --max-cost; resumable
EXIT_FAILED_SAMPLES = 4  # finished, but some samples failed; --retry-failed runs them again
EXIT_INTERRUPTED = 130  # Ctrl-C (SIGINT); resumable
EXIT_TERMINATED = 143  # SIGTERM; resumable

REASONS_SHOWN = 3  # the most common failure reasons a summary names
REASON_WIDTH = 160  # characters of one reason kept


def reason_key(error: str | None) -> str:
    """A failed sample's error as a reason to count: its first line, cut to a readable width."""
    line = (error or "").strip().splitlines()[0].strip() if (error or "").strip() else "no reason recorded"
    return line if len(line) <= REASON_WIDTH else line[: REASON_WIDTH - 1] + "…"


def count_reasons(errors: Iterable[str | None]) -> dict[str, int]:
    """Each distinct reason with its count, most common first (ties by text)."""
    counts = Counter(reason_key(error) for error in errors)
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def reasons_text(reasons: dict[str, int], shown: int = REASONS_SHOWN) -> str:
    """`connection refused … (8); timed out (2); 1 other reason (1)`."""
    items = list(reasons.items())
    parts = [f"{reason} ({n})" for reason, n in items[:shown]]
    rest = items[shown:]
    if rest:
        parts.append(f"{len(rest)} other reason{'s' if len(rest) > 1 else ''} ({sum(n for _, n in rest)})")
    return "; ".join(parts)


def exit_status(outcome: Outcome | None) -> int:
    """The exit status of a run that ended with `outcome`."""
    return {"complete": EXIT_OK, "failed_samples": EXIT_FAILED_SAMPLES, "stopped": EXIT_COST_LIMIT}.get(
        outcome or "complete", EXIT_OK
    )
