"""What a judge's verdicts reveal about its biases: a change of verdict when the texts of its prompt are
shown in the other order (position), a slope of its verdicts on the answers' length (length), and
a lean towards candidates of its own family (self-preference)."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from functools import lru_cache

import numpy as np

from .card import Interval, LengthBias, PositionBias, SelfPreference
from .collect import AnswerKey, Verdict
from .judge_pairs import interval
from .stats.bootstrap import gap_difference_interval
from .stats.inputs import codes
from .stats.length import (
    length_beta_interval,
    length_controlled_means,
    length_slope,
    length_slope_interval,
    length_spread,
)
from .stats.position import score_shift, share_changed_interval
from .table import Item, VerdictTable, values_of


def position_bias(table: VerdictTable, judge: str, primary: Mapping[Item, Verdict], seed: int) -> PositionBias | None:
    """How the judge's verdicts change when the texts of its prompt are shown in the other order."""
    swapped: dict[Item, Verdict] = {}
    for indices in table.swapped.get(judge, {}).values():
        swapped.update(table.by_run[indices[0]])
    items = sorted(set(swapped) & set(primary))
    if not items:
        return None
    first, second = values_of(primary, items), values_of(swapped, items)
    shift = score_shift(first, second)
    flips = share_changed_interval(first, second, seed=seed)
    return PositionBias(
        n=shift.n,
        flip_rate=shift.share_changed,
        mean_shift=shift.mean_change,
        flip_rate_ci=interval(flips) if shift.n else None,
    )


def _answer_means(primary: Mapping[Item, Verdict]) -> dict[AnswerKey, float]:
    """Each answer's mean verdict over its criteria (the unit whose length is known)."""
    values: dict[AnswerKey, list[float]] = defaultdict(list)
    for (answer, _), verdict in primary.items():
        if verdict.value is not None:
            values[answer].append(verdict.value)
    return {answer: statistics.fmean(v) for answer, v in values.items()}


MIN_LENGTH_ANSWERS = 5  # answers of known length a length slope needs
MIN_LENGTH_SPREAD = 0.25  # doublings: the log2 lengths' root mean square deviation within their groups


def length_guard(lengths: Sequence[int], groups: Sequence[Hashable]) -> str:
    """Why no length slope is given on these answers (one entry per answer, with the group its slope is
    taken within), or "": a slope fitted on a handful of answers, or on lengths a few words apart,
    extrapolates to a doubling the data never saw and can be as large as it likes."""
    if len(lengths) < MIN_LENGTH_ANSWERS:
        return f"too few answers: {len(lengths)}, needs {MIN_LENGTH_ANSWERS}"
    spread = length_spread(lengths, groups)
    if spread < MIN_LENGTH_SPREAD:
        return f"lengths too alike: they spread {spread:.2f} doublings, needs {MIN_LENGTH_SPREAD}"
    return ""


def _within_run(
    primary: Mapping[Item, Verdict], lengths: Mapping[AnswerKey, int], seed: int
) -> tuple[float | None, int, str, Interval | None]:
    """The slope of the verdicts on log2 length within each run, net of each criterion's level (a fixed
    effect per run and criterion; criteria rated on one answer only, as WritingBench's per-query
    ones, share one per run): its value, the verdicts it rests on, why it is missing, its interval
    (answers resampled whole: an answer's verdicts share its length)."""
    items = [
        (answer, criterion, v.value)
        for (answer, criterion), v in primary.items()
        if v.value is not None and answer in lengths
    ]
    answers_rated: dict[tuple[str, str], int] = defaultdict(int)
    for answer, criterion, _ in items:
        answers_rated[(answer[0], criterion)] += 1
    # as arrays and codes, converted once for the slope, its guard and its interval
    groups, _ = codes([(a[0], c if answers_rated[(a[0], c)] > 1 else None) for a, c, _ in items])
    scores = np.array([v for _, _, v in items], dtype=float)
    words = np.array([lengths[a] for a, _, _ in items], dtype=float)
    slope = length_slope(scores, words, groups)
    answers = list(dict.fromkeys(a for a, _, _ in items))
    guard = length_guard([lengths[a] for a in answers], [a[0] for a in answers])
    if slope.slope is not None and guard:
        return None, slope.n, guard, None
    if slope.slope is not None:
        return (
            slope.slope,
            slope.n,
            "",
            interval(length_slope_interval(scores, words, groups, codes([a for a, _, _ in items])[0], seed=seed)),
        )
    if not items:
        return None, 0, "no scored verdict on an answer of known length", None
    if slope.n == 0:
        return None, 0, "no two verdicts to compare within a run", None
    return None, slope.n, "the answers' lengths do not vary", None


def length_bias(
    primary: Mapping[Item, Verdict], lengths: Mapping[AnswerKey, int], candidates: Mapping[str, str], seed: int
) -> LengthBias:
    """The slopes of the judge's verdicts on the answers' length: within each run, and across the
    candidates' answers to each sample net of each candidate's level (with the candidates' means
    with length taken out)."""
    within_run, n_within_run, within_run_note, within_run_ci = _within_run(primary, lengths, seed)
    means = _answer_means(primary)
    answers = [a for a in means if a in lengths]
    groups = [f"{a[1]}#{a[2]}" for a in answers]
    shared = _repeated(groups)
    if not shared:
        return LengthBias(
            note="needs two or more answers per sample (several candidates, or epochs)",
            within_run_slope=within_run,
            n_within_run=n_within_run,
            within_run_note=within_run_note,
            within_run_slope_ci=within_run_ci,
        )
    kept = [i for i, g in enumerate(groups) if g in shared]
    scores = [means[answers[i]] for i in kept]
    words = [lengths[answers[i]] for i in kept]
    keys = [groups[i] for i in kept]
    systems = [candidates.get(answers[i][0], answers[i][0]) for i in kept]
    slope = length_slope(scores, words, keys)
    controlled = length_controlled_means(scores, words, keys, systems)
    guard = length_guard(words, keys)
    if controlled.beta is not None and guard:
        return LengthBias(
            note=guard,
            n=slope.n,
            within_run_slope=within_run,
            n_within_run=n_within_run,
            within_run_note=within_run_note,
            within_run_slope_ci=within_run_ci,
        )
    note = "" if controlled.beta is not None else "length cannot be told apart from candidate and sample"
    beta_ci = (
        interval(length_beta_interval(scores, words, keys, systems, seed=seed)) if controlled.beta is not None else None
    )
    means_of = {str(s): {"raw": raw, "length_controlled": lc} for s, (raw, lc) in controlled.means.items()}
    return LengthBias(
        slope_per_doubling=controlled.beta,
        within_sample_slope=slope.slope,
        n=slope.n,
        note=note,
        systems=means_of,
        within_run_slope=within_run,
        n_within_run=n_within_run,
        within_run_note=within_run_note,
        slope_per_doubling_ci=beta_ci,
        within_run_slope_ci=within_run_ci,
    )


def _repeated(groups: Sequence[str]) -> set[str]:
    counts: dict[str, int] = defaultdict(int)
    for g in groups:
        counts[g] += 1
    return {g for g, c in counts.items() if c > 1}


FAMILIES = {
    "gpt": "openai",
    "o1": "openai",
    "o3": "openai",
    "o4": "openai",
    "chatgpt": "openai",
    "davinci": "openai",
    "claude": "anthropic",
    "gemini": "google",
    "gemma": "google",
    "palm": "google",
    "llama": "meta",
    "qwen": "qwen",
    "qwq": "qwen",
    "mistral": "mistral",
    "mixtral": "mistral",
    "ministral": "mistral",
    "deepseek": "deepseek",
    "phi": "microsoft",
    "command": "cohere",
    "grok": "xai",
    "glm": "zhipu",
    "yi": "01-ai",
    "smollm": "huggingface",
    "smollm2": "huggingface",
}


@lru_cache(maxsize=1024)
def model_family(spec: str) -> str:
    """The vendor family of a model binding, from its name ('openai/gpt-4o-mini' -> 'openai');
    an unknown name's family is its first word."""
    name = spec.rsplit("/", 1)[-1].lower()
    words = [w for w in name.replace("_", "-").replace(".", "-").split("-") if w]
    first = words[0] if words else name
    if first in FAMILIES:
        return FAMILIES[first]
    letters = "".join(ch for ch in first if ch.isalpha())
    return FAMILIES.get(letters, letters or first)


def self_preference(
    judge: str, table: VerdictTable, primary: Mapping[Item, Verdict], candidates: Mapping[str, str], seed: int
) -> SelfPreference:
    """How much more the judge gives candidates of its own family than the other judges do, against
    the same gap on the other candidates."""
    family = model_family(judge.split(" (prompts", 1)[0])
    own = sorted({c for c in candidates.values() if model_family(c) == family})
    result = SelfPreference(judge_family=family, own_family_candidates=own)
    others = [j for j in table.judges if j != judge]
    if not own or not others:
        return result
    other_primary = [table.primary(j) for j in others]
    gaps: dict[bool, list[float]] = {True: [], False: []}
    for item, verdict in primary.items():
        if verdict.value is None:
            continue
        rest = [value for p in other_primary if item in p and (value := p[item].value) is not None]
        if rest:
            is_own = model_family(candidates.get(item[0][0], "?")) == family
            gaps[is_own].append(verdict.value - statistics.fmean(rest))
    if gaps[True]:
        result.gap_own = statistics.fmean(gaps[True])
        result.n_own = len(gaps[True])
    if gaps[False]:
        result.gap_other = statistics.fmean(gaps[False])
        result.n_other = len(gaps[False])
    if gaps[True] and gaps[False]:
        result.difference = statistics.fmean(gaps[True]) - statistics.fmean(gaps[False])
        found = gap_difference_interval(
            gaps[True] + gaps[False], [True] * len(gaps[True]) + [False] * len(gaps[False]), seed=seed
        )
        result.difference_ci = interval(found)
    return result
