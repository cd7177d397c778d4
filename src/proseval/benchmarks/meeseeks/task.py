"""The `meeseeks` task: multi-round instruction following with rule checks, a Yes/No judge and feedback."""

from __future__ import annotations

import functools
import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proseval.benchmarks._shared.samples import SampleList
from proseval.benchmarks.meeseeks.data import CJK_LANGUAGES, MeeseeksItem, load_items
from proseval.benchmarks.meeseeks.deps import DependencyGraph
from proseval.benchmarks.meeseeks.download import (
    DataCheck,
    check_data,
    download,
    has_data,
)
from proseval.benchmarks.meeseeks.loop import reevaluate_item, run_item
from proseval.benchmarks.meeseeks.metrics import MODEL_FAILED, Check, carry_forward, official_counting, score_item
from proseval.benchmarks.meeseeks.params import (
    DATA_ENV,
    MeeseeksParams,
    default_data_dir,
)
from proseval.benchmarks.meeseeks.prompts import PROMPTS
from proseval.benchmarks.meeseeks.report import rounds_report
from proseval.kit import (
    GenerateConfig,
    Rating,
    Sample,
    SampleContext,
    Scale,
    Score,
    State,
    Task,
    round_robin,
    scorer,
)
from proseval.kit.charts import chart
from proseval.kit.runs import Results, ScoredSample
from proseval.kit.sandbox import isolation

SCORE = "meeseeks"
UTILITY = "utility"
# Official settings for all three roles (reference commit): temperature 0, 8096 new tokens.
ROLE_CONFIG = GenerateConfig(temperature=0.0, max_tokens=8096)


def resolve_items(params: MeeseeksParams) -> tuple[list[MeeseeksItem], DataCheck]:
    """The items of the data folder (given, else ``$PROSEVAL_MEESEEKS_DIR``, else the download folder)
    and its verification (see :func:`~proseval.benchmarks.meeseeks.download.check_data`)."""
    folder = Path(params.data_dir or os.environ.get(DATA_ENV) or default_data_dir()).expanduser()
    if not has_data(folder):
        if not params.download:
            raise ValueError(
                f"no Meeseeks data in {folder}: pass --data-dir PATH (the official input_data/ folder or the "
                f"repository holding it), set ${DATA_ENV}, run `proseval meeseeks download` once, or add "
                f"--download to fetch the official files"
            )
        try:
            download(folder)
        except OSError as exc:  # network and disk errors become a clear message, like data errors
            raise ValueError(str(exc)) from exc
    check = check_data(folder, verify=params.verify)
    items = load_items(folder, params.language, official_runner_only=params.compat == "head")
    return items, check


def dependency_graph(item: MeeseeksItem) -> DependencyGraph:
    """Built (and checked) once per item in a process: a task is built several times per profile or run
    set, from the same item objects while the data are unchanged (`data.load_file`)."""
    return _graph(_Same(item))


class _Same:
    """An item compared by identity: a key as cheap to hash as the item is costly (a frozen model hashes
    every field), and as safe, since the cache holds the item and so its identity."""

    __slots__ = ("item",)

    def __init__(self, item: MeeseeksItem) -> None:
        self.item = item

    def __hash__(self) -> int:
        return id(self.item)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.item is self.item


@functools.lru_cache(maxsize=1 << 15)
def _graph(same: _Same) -> DependencyGraph:
    item = same.item
    return DependencyGraph.build(
        tuple(sq.point_id for sq in item.sub_questions),
        tuple(tuple(sq.dep) for sq in item.sub_questions),
        where=f"{item.source_file}: item {item.index}",
    )


def to_sample(item: MeeseeksItem) -> Sample:
    return Sample(
        id=f"meeseeks/{item.id}",
        input=item.question,
        target=item.model_dump(mode="json"),
        metadata={
            "language": item.language,
            "category": item.category,
            "source_file": item.source_file,
            "official_runner": item.official_runner,
        },
    )


# --- per-item scores ---------------------------------------------------------------------------


def _checks(raw: Sequence[Sequence[Any]]) -> list[Check]:
    """Checks from stored ``[tags, result, infra]`` lists (runs before the infra flag: two items)."""
    return [Check(entry[0], entry[1], bool(entry[2]) if len(entry) > 2 else False) for entry in raw]


def counted_checks(turn: dict[str, Any]) -> list[Any] | None:
    """The checks of a round that count for scoring, or None.

    A round from the second on in which a check stayed undecided (a judge, extractor or sandbox
    failure) does not count: the item keeps its last counted round, so an infrastructure
    failure can never raise (or lower) its score. Round 1 counts with its decided checks.
    """
    if turn["checks"] is None or (turn["round"] > 1 and turn.get("undecided", 0) > 0):
        return None
    return turn["checks"]


def judge_verdicts(turns: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The Yes/No judge's verdicts on the sample's answer: those of the last round evaluated (its
    answer is `State.output`; earlier rounds judged earlier answers). A sub-question gated by a
    dependency was not asked (method ``dependency``); a compat=head reply without a verdict line,
    read as 0 by the reference's rule, is kept as unread (``defaulted``, result None)."""
    evaluated = [turn for turn in turns if turn.get("sub_questions") is not None]
    if not evaluated:
        return None
    last = evaluated[-1]
    verdicts = [
        {
            "position": r["position"],
            "question": r["question"],
            "result": None if r.get("defaulted") else r["result"],
            "status": "defaulted" if r.get("defaulted") else r["status"],
        }
        for r in last["sub_questions"]
        if r.get("method") == "judge"
    ]
    return {"round": last["round"], "verdicts": verdicts}


JUDGE_SCALE = Scale(0, 1, "binary")


def requirement_names(verdicts: Sequence[Mapping[str, Any]]) -> list[str]:
    """The criterion name of each verdict of `judge_verdicts` (the ratings' and the labelling form's):
    its requirement, with its position in the item (``(#k)``, from 1) when the same question is
    asked twice."""
    asked = Counter(v["question"] for v in verdicts)
    return [v["question"] if asked[v["question"]] == 1 else f"{v['question']} (#{v['position'] + 1})" for v in verdicts]


def judge_ratings(scores: Mapping[str, Score]) -> list[Rating]:
    """`Task.ratings`: the judge's pass (1) / fail (0) per requirement it was asked about, named by
    `requirement_names`. Rule checks (by code, on the extractor's output) and the extractor's output
    itself are not verdicts of a judge."""
    score = scores.get(SCORE)
    judged = score.metadata.get("judge_verdicts") if score is not None else None
    if not judged:
        return []
    verdicts = judged["verdicts"]
    return [
        Rating(name, None if v["result"] is None else float(v["result"]), JUDGE_SCALE)
        for name, v in zip(requirement_names(verdicts), verdicts)
    ]


def score_state(state: State) -> dict[str, Score]:
    """The last counted round's per-item score and utility, with every round's values in the metadata."""
    rounds, per_round = [], []
    for turn in state.turns:
        counted = counted_checks(turn)
        rounds.append(
            {
                "round": turn["round"],
                "checks": counted,
                "undecided": turn.get("undecided", 0),
                "unsupported": turn.get("unsupported", 0),
                "candidate_error": turn.get("candidate_error"),
                "candidate_overflow": bool(turn.get("candidate_overflow")),
                "not_counted": turn["checks"] is not None and counted is None,
                "uncounted_checks": turn["checks"] if counted is None else None,
            }
        )
        if counted is not None:
            item = score_item(_checks(turn["checks"]))
            per_round.append(
                {
                    "round": turn["round"],
                    "score": item.score,
                    "utility": item.utility,
                    "failed": turn["failed"],
                    "undecided": turn["undecided"],
                    "unsupported": turn["unsupported"],
                }
            )
    final = per_round[-1]
    metadata = {
        "final_round": final["round"],
        "per_round": per_round,
        "rounds": rounds,
        "undecided": final["undecided"],
        "unsupported": final["unsupported"],
        "judge_verdicts": judge_verdicts(state.turns),
    }
    explanation = f"round {final['round']}: {final['failed']} sub-question(s) failed, {final['undecided']} undecided"
    if final["score"] is None:
        score = Score(
            value=None,
            parse_status="not_applicable",
            metadata=metadata,
            explanation=f"{explanation}; no check could be decided",
        )
    else:
        score = Score(
            value=final["score"],
            parse_status="partial" if final["undecided"] else "ok",
            explanation=explanation,
            metadata=metadata,
        )
    utility = Score(
        value=final["utility"],
        parse_status="ok" if final["utility"] is not None else "partial",
        explanation="1 if every sub-question passed"
        if final["utility"] is not None
        else "no failure, but some sub-question is undecided",
    )
    return {SCORE: score, UTILITY: utility}


# --- aggregation -------------------------------------------------------------------------------


@dataclass
class _RoundInputs:
    """Per round, for every item processed in it: its counted checks (or `MODEL_FAILED`, or None
    when it produced no evaluation), its checks as the official code counts them, and counts."""

    checks: list[dict[str, Any]] = field(default_factory=list)
    official: list[dict[str, Any]] = field(default_factory=list)
    counts: list[dict[str, Any]] = field(default_factory=list)
    errors: list[int] = field(default_factory=list)
    model_failed: list[int] = field(default_factory=list)
    not_counted: list[int] = field(default_factory=list)

    def slot(self, number: int) -> None:
        while len(self.checks) < number:
            for column in (self.checks, self.official, self.counts):
                column.append({})
            for tally in (self.errors, self.model_failed, self.not_counted):
                tally.append(0)


def _per_round_inputs(samples: Sequence[ScoredSample]) -> _RoundInputs:
    inputs = _RoundInputs()
    for sample in samples:
        score = sample.scores.get(SCORE)
        if sample.status != "ok" or score is None:
            inputs.slot(1)
            overflow = sample.model_failure == "context_overflow"
            # Never evaluated: a model failure counts as a failed item; a failed request is unscored.
            inputs.checks[0][sample.id] = inputs.official[0][sample.id] = MODEL_FAILED if overflow else None
            inputs.model_failed[0] += overflow
            inputs.errors[0] += sample.status != "ok" and not overflow
            continue
        for entry in score.metadata["rounds"]:
            number = entry["round"]
            inputs.slot(number)
            raw, uncounted = entry["checks"], entry.get("uncounted_checks")
            if entry.get("candidate_overflow"):
                inputs.checks[number - 1][sample.id] = inputs.official[number - 1][sample.id] = MODEL_FAILED
                inputs.model_failed[number - 1] += 1
            else:
                inputs.checks[number - 1][sample.id] = None if raw is None else _checks(raw)
                every = raw if raw is not None else uncounted
                inputs.official[number - 1][sample.id] = None if every is None else _checks(every)
                inputs.errors[number - 1] += entry.get("candidate_error") is not None
            inputs.counts[number - 1][sample.id] = None if raw is None else (entry["undecided"], entry["unsupported"])
            inputs.not_counted[number - 1] += bool(entry.get("not_counted"))
    return inputs


def aggregate_rounds(samples: Sequence[ScoredSample]) -> dict[str, Any]:
    """Per-round full-set metrics with carry-forward, in proseval's and the official layout."""
    ids = [s.id for s in samples]
    inputs = _per_round_inputs(samples)
    english = any(s.metadata.get("language") not in CJK_LANGUAGES for s in samples)
    report = rounds_report(inputs.checks, ids, english=english)
    carried = carry_forward(inputs.counts, ids)
    official = carry_forward(inputs.official, ids)
    rounds = []
    for number, (entry, state, as_official) in enumerate(zip(report, carried, official)):
        decided_counts = [c for c in state.values() if c is not None]
        counted_officially = official_counting([as_official[item_id] for item_id in ids])
        rounds.append(
            {
                **entry["summary"],
                "undecided_checks": sum(c[0] for c in decided_counts),
                "unsupported_checks": sum(c[1] for c in decided_counts),
                "candidate_errors": inputs.errors[number],
                "model_failed_this_round": inputs.model_failed[number],
                "not_counted_items": inputs.not_counted[number],
                "official_counting": {
                    "meeseeks_score": counted_officially.meeseeks_score,
                    "utility_score": counted_officially.utility_score,
                },
            }
        )
    return {
        "rounds": rounds,
        "round_stats": {f"round_{e['official']['round']}_stats": e["official"] for e in report},
        "failed_samples": sum(1 for s in samples if s.status != "ok"),
        "capability_names": "en" if english else "zh",
    }


def utility_plot_png(rounds: Sequence[dict[str, Any]]) -> bytes | None:
    """Utility Rate (and both Meeseeks Scores) per round; None when matplotlib is not installed."""
    numbers = [r["round"] for r in rounds]

    def draw(axes) -> None:
        for key, label in (
            ("utility_score", "Utility Rate"),
            ("meeseeks_score", "Meeseeks Score"),
            ("capability_mean_level1", "mean of level-1 capabilities"),
        ):
            points = [(n, r[key]) for n, r in zip(numbers, rounds) if r[key] is not None]
            if points:
                axes.plot(*zip(*points), marker="o", label=label)
        axes.set_xlabel("round")
        axes.set_ylim(0, 1)
        axes.set_xticks(numbers)
        axes.grid(alpha=0.3)

    return chart(draw, size=(6, 3.5))


def artifacts(results: Results) -> dict[str, str | bytes]:
    data = results.extra.get(SCORE) or {}
    files: dict[str, str | bytes] = {
        f"{name}.json": json.dumps(stats, ensure_ascii=False, indent=4)
        for name, stats in data.get("round_stats", {}).items()
    }
    chart = utility_plot_png(data.get("rounds", []))
    if chart is not None:
        files["meeseeks_rounds.png"] = chart
    return files


def sandbox_record(params: MeeseeksParams) -> dict[str, Any]:
    """How model-written extraction code will be confined here; refuses weak isolation unless allowed.

    Raises ValueError (before any request) when code-guided extraction is asked for on a machine
    without seccomp and the user has not passed --allow-weak-sandbox.
    """
    if params.extraction != "code":
        return {"used": False}
    layers = isolation.available_layers()
    missing = isolation.missing_for_strong_isolation(layers)
    if missing and not params.allow_weak_sandbox:
        raise ValueError(isolation.refusal_message(missing))
    return {"used": True, "layers": [name for name, on in layers.items() if on], "weak_accepted": bool(missing)}


def make_task(params: MeeseeksParams) -> Task:
    sandbox = sandbox_record(params)
    items, check = resolve_items(params)
    if params.order == "interleaved":
        items = round_robin(items, lambda item: item.source_file)
    graphs = {f"meeseeks/{item.id}": dependency_graph(item) for item in items}  # fails early on bad data

    def dataset() -> Sequence[Sample]:
        return SampleList(items, to_sample)

    async def protocol(sample: Sample, ctx: SampleContext) -> State:
        return await run_item(MeeseeksItem.model_validate(sample.target), graphs[sample.id], ctx, params)

    @scorer(SCORE, metrics=(SCORE, UTILITY))
    async def meeseeks(sample: Sample, state: State, ctx: SampleContext) -> dict[str, Score]:
        return score_state(state)

    async def reevaluate(sample: Sample, stored: State, ctx: SampleContext) -> State:
        return await reevaluate_item(MeeseeksItem.model_validate(sample.target), graphs[sample.id], ctx, params, stored)

    languages = sorted({item.language for item in items})
    return Task(
        name="meeseeks",
        version="1",
        description="Meeseeks: multi-constraint instruction following with feedback rounds",
        dataset=dataset,
        protocol=protocol,
        scorers=[meeseeks],
        roles_required=("candidate", "extractor", "judge"),
        role_configs={role: ROLE_CONFIG for role in ("candidate", "extractor", "judge")},
        slice_keys=("language",),
        headline="meeseeks",
        dataset_source={
            "source": "meituan-longcat/Meeseeks input_data"
            if check.official_file_set
            else "user-supplied Meeseeks item files",
            **check.as_source(),
            "languages": languages,
            "n_items": len(items),
            "extraction_sandbox": sandbox,
        },
        aggregate=lambda samples: {SCORE: aggregate_rounds(samples)},
        artifacts=artifacts,
        reevaluate=reevaluate,
        rescore_roles=("extractor", "judge"),
        prompts=dict(PROMPTS),
        ratings=judge_ratings,
    )
