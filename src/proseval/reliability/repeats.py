"""Each judging of the same answers counted once.

`proseval score RUN --repeats N` run twice makes 2N repeat folders, the second N replaying the first
N from the response cache: counted as new repeats, they would make a judge look more consistent
than it is. So a run that repeats another's judging is set aside, with a warning naming both:

- a **duplicate** has the same judging identity as another run (`collect.judging_identity`: the
  same answers, task parameters, judge models, settings and prompts, seed and repeat number);
- a **replay** got every judge reply from the response cache, and its replies are byte-identical
  to those of another run of the same judges on the same answers.

Of two copies, the one whose judge was asked is kept (then the earlier one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .collect import JudgedRun


@dataclass(frozen=True)
class SetAside:
    run: JudgedRun
    kept: JudgedRun  # the run it repeats, analysed in its place
    reason: Literal["duplicate", "replay"]


def distinct_runs(runs: Sequence[JudgedRun]) -> tuple[list[JudgedRun], list[SetAside]]:
    """The runs to analyse (in their given order) and those set aside (see the module docstring)."""
    kept: list[JudgedRun] = []
    aside: list[SetAside] = []
    by_identity: dict[str, JudgedRun] = {}
    by_replies: dict[tuple[str, str, str], JudgedRun] = {}
    for run in sorted(runs, key=lambda r: (r.replayed, r.header.started_at, r.index)):
        replies = (run.answers, repr(sorted(run.judges.items())), run.replies)
        if run.identity in by_identity:
            aside.append(SetAside(run, by_identity[run.identity], "duplicate"))
        elif run.replayed and replies in by_replies:
            aside.append(SetAside(run, by_replies[replies], "replay"))
        else:
            kept.append(run)
            by_identity[run.identity] = run
            by_replies.setdefault(replies, run)
    return sorted(kept, key=lambda r: r.index), sorted(aside, key=lambda a: a.run.index)
