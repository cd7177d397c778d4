"""A benchmark variant: data + protocol + scorers + aggregation, and the roles it needs.

`aggregate` adds task-specific numbers to `results.json` (under `extra`); `artifacts`
returns extra files (tables, charts) written into the run folder beside it. `reevaluate`
lets `proseval score` redo judge-dependent steps that live in the protocol. `prompts` are the
templates the task sends; its protocol and scorers render them with ``ctx.prompt(name)``, so a
user's replacement reaches every call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..models.base import GenerateConfig, Message
from .prompt import PromptTemplate
from .ratings import Ratings
from .sample import Sample
from .score import Score
from .state import State

if TYPE_CHECKING:  # named in annotations only: registering a task (`proseval --help`) builds no results model
    from .context import Context
    from .results import Results, ScoredSample

Protocol = Callable[[Sample, "Context"], Awaitable[State]]
Reevaluate = Callable[[Sample, State, "Context"], Awaitable[State]]
Scorer = Callable[[Sample, State, "Context"], Awaitable[dict[str, Score]]]
Aggregate = Callable[[list["ScoredSample"]], dict[str, Any]]
Artifacts = Callable[["Results"], dict[str, "str | bytes"]]
# A dry run's reply to one request: (role, messages, output tokens, turn) -> text, or None.
DryRunReply = Callable[[str, list[Message], int, str], "str | None"]


@dataclass
class Task:
    name: str
    version: str
    dataset: Callable[[], Iterable[Sample]]
    protocol: Protocol
    scorers: list[Scorer]
    roles_required: tuple[str, ...] = ("candidate",)
    # Roles a user may bind but need not: unbound, the task falls back (see `ctx.has_role`).
    optional_roles: tuple[str, ...] = ()
    role_configs: dict[str, GenerateConfig] = field(default_factory=dict)
    slice_keys: tuple[str, ...] = ()
    # The metric that sums a run up: leaderboards, the viewer's run list and reports lead with it.
    headline: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    dataset_source: dict[str, Any] = field(default_factory=dict)
    aggregate: Aggregate | None = None
    artifacts: Artifacts | None = None
    description: str = ""
    # Re-scoring: a task whose judge-dependent steps run inside its protocol (not only in its
    # scorers) redoes them on a stored state here; None means the scorers are all there is.
    reevaluate: Reevaluate | None = None
    # The roles a re-score can bind anew (default: every role but the candidate).
    rescore_roles: tuple[str, ...] | None = None
    # Every prompt the task sends, by name; a user may replace any with --prompt NAME=FILE.
    prompts: dict[str, PromptTemplate] = field(default_factory=dict)
    # The preset the run was built from (name, the values it set, those the user overrode).
    preset: dict[str, Any] | None = None
    # A re-score with a registered scorer (`proseval score --scorer NAME`): its name and options.
    scorer_plugin: dict[str, Any] | None = None
    # What the task's judge-like roles rated in a sample (`core.ratings`): the verdicts the
    # judge-reliability analysis compares. None: the task has no judged verdicts.
    ratings: Ratings | None = None
    # The parameter that presents the judge's texts in the other order when set to "swapped" (a
    # reference-anchored prompt, a pairwise comparison): `proseval score --swap-order` re-judges
    # with it, and the analysis reports how often verdicts change (position bias).
    swap_param: str | None = None
    # Dry runs (`--dry-run`, `runtime.dryrun`): the task's own stand-in reply to a request of
    # `role` at `turn` (the turn its protocol or scorer named), of about `tokens` output tokens, so
    # that a multi-step protocol takes the path a real run would. None, or a None reply: the
    # generic synthetic reply (filler for the candidate, JSON for other roles).
    dry_run_reply: DryRunReply | None = None
