"""The judge-reliability analysis: agreement, consistency, bias and cost per judge, from run folders.

Items are (answer, criterion) pairs: the answer a run's candidate wrote to one sample (and epoch),
and one criterion a judge rated it on. A judge's verdict on an item is taken from its first run on
those answers (by start time); its later runs on the same answers are repeats, used only for
consistency, each judging counted once (`repeats`). Every statistic is computed on the items both
sides rated (an unscored verdict counts in the unscored rate, never as a value).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .. import __version__
from ..core.prices import Prices
from .biases import length_bias, position_bias, self_preference
from .card import Analysis, Consistency, Cost, EvaluatorCard, PairStats, RunInfo, SetAsideRun
from .collect import AnswerKey, JudgedRun, Judgements, Verdict, collect
from .humans import Preference, human_agreement, human_values, rater_agreement
from .judge_pairs import alpha_note, group_agreement, judge_pairs
from .labels import LabelSet
from .panel import panel_summary
from .repeats import distinct_runs
from .stats.agreement import repeat_consistency
from .table import Group, Item, VerdictTable


@dataclass(frozen=True)
class _Context:
    """What every part of one analysis reads: the runs kept, who wrote which answers, the answers'
    lengths, the human labels, the prices and the seed."""

    runs: Mapping[int, JudgedRun]
    candidates: Mapping[str, str]
    lengths: Mapping[AnswerKey, int]
    human: Mapping[Item, Mapping[str, float]]
    preferences: Sequence[Preference]
    labelled: bool
    prices: Prices | None
    seed: int


def analyse_judgements(
    found: Judgements,
    *,
    labels: LabelSet | None = None,
    prices: Prices | None = None,
    seed: int = 0,
    panel: str = "mean",
) -> Analysis:
    """The analysis of collected judgements (pure: no files read): per task and role, a card per
    judge, the judges' pairs, their group's alpha and their panel; then the raters' own agreement."""
    kept, aside = distinct_runs(found.runs)
    runs = {run.index: run for run in kept}
    kept_verdicts = [v for v in found.verdicts if v.run in runs]
    human, preferences, label_summary = human_values(labels, kept, kept_verdicts)
    context = _Context(
        runs,
        {run.answers: run.candidate for run in kept if run.candidate != "?"},
        found.lengths,
        human,
        preferences,
        labels is not None,
        prices,
        seed,
    )
    analysis = Analysis(
        created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        package_version=__version__,
        runs=[
            RunInfo(
                index=r.index,
                run_id=r.run_id,
                path=str(r.path),
                task=r.header.task,
                answers=r.answers,
                candidate=r.candidate,
                judges=r.judges,
            )
            for r in kept
        ],
        labels=label_summary,
        tasks_without_ratings=found.no_ratings,
        set_aside=[
            SetAsideRun(run_id=a.run.run_id, path=str(a.run.path), reason=a.reason, kept=str(a.kept.path))
            for a in aside
        ],
    )
    grouped: dict[Group, list[Verdict]] = defaultdict(list)
    for verdict in kept_verdicts:
        grouped[(runs[verdict.run].header.task, verdict.role)].append(verdict)
    for (task, role), verdicts in sorted(grouped.items()):
        table = VerdictTable(runs, verdicts)
        primaries = {j: table.primary(j) for j in sorted(table.judges)}
        against: dict[tuple[str, str], PairStats] = {}
        for a, b in sharing_pairs(primaries):  # judges with no item in common have no agreement to show
            pairs, pair_stats = judge_pairs(
                task, role, {a: primaries[a], b: primaries[b]}, table.scale(), context.candidates, seed
            )
            analysis.pairs += pairs
            against.update(pair_stats)
        analysis.cards += [
            _evaluator_card(context, task, role, judge, table, primaries, against) for judge in primaries
        ]
        for sharing in sharing_groups(primaries):  # a panel of the judges that scored the same items
            group = group_agreement(task, role, sharing, table.scale(), seed)
            if group is not None:
                analysis.groups.append(group)
            if len(sharing) > 1:
                summary, items = panel_summary(task, role, sharing, context.candidates, panel)
                analysis.panels.append(summary)
                analysis.panel_items.extend(items)
    if human:
        item_scales = {(v.answer, v.criterion): v.scale for v in kept_verdicts}
        scales = {item_scales[item] for item in human}
        analysis.rater_agreement = rater_agreement(human, scales.pop() if len(scales) == 1 else None, seed)
    return analysis


def sharing_pairs(primaries: Mapping[str, Mapping[Item, Verdict]]) -> list[tuple[str, str]]:
    """Each two judges (in their order) that rated at least one item in common."""
    judges = list(primaries)
    return [
        (a, b)
        for i, a in enumerate(judges)
        for b in judges[i + 1 :]
        if not primaries[a].keys().isdisjoint(primaries[b].keys())
    ]


def sharing_groups(primaries: Mapping[str, Mapping[Item, Verdict]]) -> list[dict[str, Mapping[Item, Verdict]]]:
    """The judges split into groups linked by items they rated in common (each judge in one group,
    in their order): RAVEL's reviewer, run on each candidate's own model, makes one group per
    candidate, never a panel of judges that rated different answers."""
    group_of = {judge: judge for judge in primaries}

    def root(judge: str) -> str:
        while group_of[judge] != judge:
            judge = group_of[judge]
        return judge

    for a, b in sharing_pairs(primaries):
        group_of[root(b)] = root(a)
    groups: dict[str, dict[str, Mapping[Item, Verdict]]] = {}
    for judge, verdicts in primaries.items():
        groups.setdefault(root(judge), {})[judge] = verdicts
    return list(groups.values())


def _evaluator_card(
    context: _Context,
    task: str,
    role: str,
    judge: str,
    table: VerdictTable,
    primaries: Mapping[str, Mapping[Item, Verdict]],
    against: Mapping[tuple[str, str], PairStats],
) -> EvaluatorCard:
    """One judge's card: what it rated, its consistency and biases, its agreement with the other
    judges (`against`, keyed (judge, other)) and with the humans, its cost."""
    scale, primary, seed = table.scale(), primaries[judge], context.seed
    judge_runs = [context.runs[i] for indices in table.judges[judge].values() for i in indices]
    given = sum(len(table.by_run[r.index]) for r in judge_runs)  # every rating paid for, repeats too
    values = [v.value for v in primary.values()]
    scored = [v for v in values if v is not None]
    card = EvaluatorCard(
        task=task,
        role=role,
        judge=judge,
        scale=scale.describe() if scale else "",
        runs=[r.run_id for r in judge_runs],
        candidates=sorted({r.candidate for r in judge_runs}),
        n_ratings=len(values),
        n_unscored=len(values) - len(scored),
        unscored_rate=(len(values) - len(scored)) / len(values) if values else None,
        mean=statistics.fmean(scored) if scored else None,
        consistency=_consistency(table, judge),
        position=position_bias(table, judge, primary, seed),
        length=length_bias(primary, context.lengths, context.candidates, seed),
        self_preference=self_preference(judge, table, primary, context.candidates, seed),
        cost=_cost(judge_runs, role, given, context.prices),
    )
    for other in primaries:
        if (judge, other) in against:
            card.other_judges[other] = against[(judge, other)]
    if context.human or context.preferences:
        card.humans = human_agreement(primary, context.human, context.preferences, scale, seed)
    card.missing = _missing(card, labelled=context.labelled)
    return card


def _consistency(table: VerdictTable, judge: str) -> Consistency | None:
    """Per-item spread over the judge's repeated runs on the same answers."""
    rows: list[list[float | None]] = []
    repeats = 1
    for indices in table.judges[judge].values():
        if len(indices) < 2:
            continue
        repeats = max(repeats, len(indices))
        items = sorted(set().union(*(table.by_run[i] for i in indices)))
        rows += [[table.by_run[i][item].value if item in table.by_run[i] else None for i in indices] for item in items]
    if not rows:
        return None
    width = max(len(r) for r in rows)
    matrix = [r + [None] * (width - len(r)) for r in rows]
    found = repeat_consistency(matrix)
    return Consistency(
        repeats=repeats,
        n_items=found.n_items,
        mean_variance=found.mean_variance,
        mean_sd=found.mean_std,
        changed_share=found.share_changed,
        alpha=found.alpha,
        note=alpha_note(found.n_items, found.alpha, "judged twice"),
    )


def _cost(judge_runs: Sequence[JudgedRun], role: str, items: int, prices: Prices | None) -> Cost:
    requests = prompt = completion = cached = 0
    latency = 0.0
    for run in judge_runs:
        usage = run.roles_usage.get(role, {})
        requests += int(usage.get("requests", 0))
        prompt += int(usage.get("prompt_tokens", 0))
        completion += int(usage.get("completion_tokens", 0))
        cached += int(usage.get("cached_tokens", 0))  # of the prompt tokens; absent in older runs
        calls = int(usage.get("requests", 0)) - int(usage.get("cache_hits", 0))
        latency += float(usage.get("mean_latency_s") or 0.0) * max(calls, 0)
    cost = Cost(items=items, requests=requests, prompt_tokens=prompt, completion_tokens=completion)
    if items and any(role in run.roles_usage for run in judge_runs):  # else no results.json: unknown, not 0
        cost.tokens_per_1000 = round((prompt + completion) * 1000 / items, 1)
        cost.seconds_per_1000 = round(latency * 1000 / items, 2) if latency else None
        spec = judge_runs[0].header.roles[role].spec if judge_runs and role in judge_runs[0].header.roles else ""
        price = prices.of(spec) if prices is not None else None
        if price is not None and prices is not None:
            cost.price_per_1000 = price.cost(prompt, completion, cached_tokens=cached) * 1000 / items
            cost.currency = prices.currency
    return cost


def _missing(card: EvaluatorCard, *, labelled: bool) -> dict[str, str]:
    """Why each missing figure of the card is missing, by its column (`render.CARD_COLUMNS`)."""
    missing = {}
    if card.mean is None:
        missing["mean"] = "nothing scored"
    if card.humans is None:
        missing["vs humans"] = "no label on its items" if labelled else "no labels given"
    if not card.other_judges:
        missing["vs other judges"] = "no other judge of these answers"
    if card.consistency is None:
        missing["repeats"] = "not repeated"
    if card.length is not None and card.length.slope_per_doubling is None and card.length.within_run_slope is None:
        missing["length bias"] = card.length.within_run_note
    if card.position is None:
        missing["position flips"] = "no --swap-order re-score"
    if card.self_preference is not None and not card.self_preference.flagged:
        missing["self-preference"] = "no candidate of its family"
    if card.cost is None or card.cost.tokens_per_1000 is None:
        missing["per 1,000"] = "no usage recorded: no results.json"
    return missing


def analyse(
    paths: Sequence[Path],
    *,
    labels: LabelSet | None = None,
    prices: Prices | None = None,
    seed: int = 0,
    panel: str = "mean",
    data_dir: Path | None = None,
) -> Analysis:
    """Read the run folders and analyse their judges (see the module docstring); `panel` ("mean" or
    "median") makes an item's panel score from the judges' verdicts; `data_dir` is the benchmark's
    data for runs that predate recorded verdicts (`collect`)."""
    if panel not in ("mean", "median"):
        raise ValueError(f"panel score must be mean or median, not {panel!r}")
    return analyse_judgements(collect(paths, data_dir=data_dir), labels=labels, prices=prices, seed=seed, panel=panel)
