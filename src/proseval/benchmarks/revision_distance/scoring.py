"""Scorers: Revision Distance for any draft, ROUGE beside it, and the pair and stability scorers.

The reviser is asked through `proseval.judging.ask.ask_until` (bounded re-asks at distinct
turns); its reply is parsed by `edits.parse_reply` and measured by `measure.measure`. A reply
cut at ``max_tokens`` whose edit list had to be repaired is unusable: the repaired list would
count only the edits written before the cut.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from proseval.benchmarks.revision_distance.data import REFERENCE_KEYS
from proseval.benchmarks.revision_distance.edits import (
    FIELDS,
    KNOWLEDGE_CATEGORIES,
    LEVELS,
    OTHER,
    ParsedReply,
    category_names,
    parse_reply,
)
from proseval.benchmarks.revision_distance.grounding import DEFAULT_THRESHOLD
from proseval.benchmarks.revision_distance.measure import Measure, measure
from proseval.benchmarks.revision_distance.prompts import PROMPT_LEVELS, PROMPT_OF_SETTING, SETTINGS
from proseval.benchmarks.revision_distance.rouge import rouge_scores
from proseval.benchmarks.revision_distance.stats import PairOutcome
from proseval.benchmarks.revision_distance.weights import WEIGHTINGS
from proseval.kit import Completion, Rating, Sample, Scale, Score, State, ask_until, json_schema_format, scorer

ROLE = "reviser"


@dataclass(frozen=True)
class ReviserOptions:
    """How the reviser is asked and its edits measured."""

    setting: str = "general"
    weighting: str = "none"
    per_words: int = 100
    threshold: float = DEFAULT_THRESHOLD
    attempts: int = 1
    structured: bool = False
    role: str = ROLE

    def __post_init__(self) -> None:
        if self.setting not in SETTINGS:
            raise ValueError(f"unknown setting {self.setting!r} (known: {', '.join(SETTINGS)})")
        if self.weighting not in WEIGHTINGS:
            raise ValueError(f"unknown weighting {self.weighting!r} (known: {', '.join(WEIGHTINGS)})")
        if self.attempts < 1:
            raise ValueError(f"attempts must be at least 1 (got {self.attempts})")
        if self.per_words < 0 or not 0.0 <= self.threshold <= 1.0:
            raise ValueError("per_words must be >= 0 and the grounding threshold within 0-1")

    @property
    def needs_reference(self) -> bool:
        return self.setting != "reference-free"


def edits_schema(setting: str) -> dict[str, Any]:
    """The JSON schema of a reviser reply (an object, since strict schemas need one at the top); the level,
    and in the knowledge setting the category, are limited to the names the setting's prompt gives."""
    properties: dict[str, Any] = {name: {"type": "string"} for name in FIELDS}
    properties["revision_level"] = {"type": "string", "enum": list(PROMPT_LEVELS[setting])}
    if setting == "knowledge":
        properties["category"] = {"type": "string", "enum": list(KNOWLEDGE_CATEGORIES)}
    edit = {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}
    return {
        "type": "object",
        "properties": {"edits": {"type": "array", "items": edit}},
        "required": ["edits"],
        "additionalProperties": False,
    }


@dataclass(frozen=True)
class Revision:
    """One reviser verdict: the parsed reply, its measurements (None when unusable) and the raw text."""

    parsed: ParsedReply
    measured: Measure | None
    raw: str
    attempts: int
    error: str = ""

    def unscored(self) -> Score:
        status = "error" if self.error else self.parsed.status
        reason = self.error or self.parsed.detail or "the reviser's reply holds no list of edits"
        return Score.unscored(
            status if status in ("error", "empty", "unparsable") else "unparsable",
            reason,
            raw=self.raw[:300],
            attempts=self.attempts,
        )


def reference_of(sample: Sample) -> str | None:
    """The reference in `sample.target`: the target itself when it is text, or one of its keys."""
    target = sample.target
    if isinstance(target, str):
        return target if target.strip() else None
    if isinstance(target, dict):
        for key in REFERENCE_KEYS:
            value = target.get(key)
            if isinstance(value, str) and value.strip():
                return value
    return None


def instruction_of(sample: Sample) -> str:
    """The request the draft answers: ``target["instruction"]``, else the sample's text input."""
    if isinstance(sample.target, dict) and isinstance(sample.target.get("instruction"), str):
        return sample.target["instruction"]
    if isinstance(sample.input, str):
        return sample.input
    users = [m.get("content", "") for m in sample.input if m.get("role") == "user"]
    return users[-1] if users else ""


class _FinishReasons:
    """`ctx` for `ask_until`, noting why each reply ended (``length``: cut at max_tokens)."""

    def __init__(self, ctx: Any) -> None:
        self._ctx = ctx
        self.last: str | None = None

    async def generate(self, *args: Any, **kwargs: Any) -> Completion:
        completion = await self._ctx.generate(*args, **kwargs)
        self.last = completion.finish_reason
        return completion


async def revise(
    ctx: Any, options: ReviserOptions, *, draft: str, reference: str | None, instruction: str, turn: str
) -> Revision:
    """Ask the reviser for the edits of one draft and measure them; never raises for a failed call."""
    template = ctx.prompt(PROMPT_OF_SETTING[options.setting])
    values: dict[str, str] = {"draft": draft, "instruction": instruction}
    if options.needs_reference:
        values["reference"] = reference or ""
    messages = [{"role": "user", "content": template.render(**values)}]
    config = (
        {"response_format": json_schema_format("revision_edits", edits_schema(options.setting))}
        if options.structured
        else None
    )
    raw: list[str] = []
    calls = _FinishReasons(ctx)

    def parse(text: str) -> ParsedReply:
        raw.append(text)
        parsed = parse_reply(text)
        if parsed.status == "repaired" and calls.last == "length":
            return ParsedReply(
                None,
                "unparsable",
                "the reply was cut at max_tokens inside its list of edits (raise -g reviser.max_tokens)",
            )
        return parsed

    asked = await ask_until(
        calls, options.role, messages, parse, lambda p: p.usable, attempts=options.attempts, turn=turn, config=config
    )
    last = asked.last or ParsedReply(None, "error", "no reply")
    text = raw[-1] if raw else ""
    if asked.error is not None and not last.usable:
        return Revision(last, None, text, asked.attempts, error=f"reviser call failed: {asked.error}")
    if not last.usable:
        return Revision(last, None, text, asked.attempts)
    measured = measure(
        last.edits or (),
        draft,
        options.setting,
        per_words=options.per_words,
        weighting=options.weighting,
        threshold=options.threshold,
    )
    return Revision(last, measured, text, asked.attempts)


def metric_names(options: ReviserOptions) -> tuple[str, ...]:
    names = ["revision_distance", "revision_categories", "revision_levels", "grounded_edits", "ungrounded_edits"]
    if options.per_words > 0:
        names.append("revision_distance_norm")
    if options.weighting != "none":
        names.append("revision_distance_weighted")
    return tuple(names)


def revision_scores(revision: Revision, options: ReviserOptions) -> dict[str, Score]:
    """The scores of one reviser verdict: all unscored together when the reply was unusable."""
    names = metric_names(options)
    if revision.measured is None:  # every metric unscored, the per-category ones included
        failed = revision.unscored()
        per_key = {"revision_categories": category_names(options.setting), "revision_levels": (*LEVELS, OTHER)}
        return {
            name: failed.model_copy(update={"value": dict.fromkeys(per_key[name])}) if name in per_key else failed
            for name in names
        }
    m, p = revision.measured, revision.parsed
    edits = [{**edit.as_dict(), "grounding": score} for edit, score in zip(p.edits or (), m.grounding.scores)]
    detail = {
        "status": p.status,
        "raw_count": p.raw_count,
        "split_added": p.split_added,
        "noops": p.noops,
        "duplicates": p.duplicates,
        "missing_fields": p.missing_fields,
        "attempts": revision.attempts,
        "grounded_share": m.grounding.share,
        "template_echoes": p.notes.get("template_echoes", 0),
    }
    scores = {
        "revision_distance": Score(
            value=float(m.distance),
            parse_status="repaired" if p.status == "repaired" else "ok",
            explanation=f"{m.distance} edit(s)",
            metadata={**detail, "edits": edits},
        ),
        "revision_categories": Score(value=dict(m.categories)),
        "revision_levels": Score(value=dict(m.levels)),
        "grounded_edits": Score(value=float(m.grounding.grounded)),
        "ungrounded_edits": Score(value=float(m.grounding.ungrounded)),
    }
    if "revision_distance_norm" in names:
        scores["revision_distance_norm"] = (
            Score(value=m.normalised)
            if m.normalised is not None
            else Score.unscored("not_applicable", "the draft has no words")
        )
    if "revision_distance_weighted" in names:
        scores["revision_distance_weighted"] = Score(value=m.weighted, metadata={"weighting": options.weighting})
    return scores


def revision_distance_scorer(
    setting: str = "general",
    *,
    weighting: str = "none",
    per_words: int = 100,
    threshold: float = DEFAULT_THRESHOLD,
    attempts: int = 1,
    structured: bool = False,
    role: str = ROLE,
) -> Callable[..., Any]:
    """A ``@scorer("revision-distance")`` measuring how many edits the `role` model would make to a draft.

    Contract. The returned coroutine function takes ``(sample, state, ctx)`` of any run:

    - the draft is ``state.output``;
    - the reference (needed unless `setting` is ``"reference-free"``) is ``sample.target`` when
      it is a string, else ``sample.target["reference"]`` (or ``"ref"`` / ``"target"``);
    - the request shown to the reviser is ``sample.target["instruction"]`` if present, else
      ``sample.input`` (its last user message when it is a chat);
    - ``ctx`` must have the role `role` bound (default ``reviser``) and the task's prompts must
      include the setting's template (``reviser-general``, ``reviser-knowledge`` or
      ``reviser-reference-free``, see `prompts.PROMPTS`); calls use turns ``revise#0``,
      ``revise#1``, … (one per attempt).

    It returns ``revision_distance`` (edits after normalisation; lower is better; its metadata
    holds the edits with their grounding scores), ``revision_categories`` and
    ``revision_levels`` (counts per category / level, as dicts), ``grounded_edits`` and
    ``ungrounded_edits``, plus ``revision_distance_norm`` (edits per `per_words` words; when
    `per_words` > 0) and ``revision_distance_weighted`` (when `weighting` is ``level`` or
    ``size``). Failure policy: a reply without a usable list of edits after `attempts` asks, or a
    failed call, leaves every one of these unscored (status ``unparsable``, ``empty`` or
    ``error``); ``[]`` is a distance of 0. An empty draft (a model failure) is not sent: its
    scores are unscored with status ``empty``. A missing reference in a reference-based
    setting is unscored with status ``error``.
    """
    options = ReviserOptions(setting, weighting, per_words, threshold, attempts, structured, role)
    names = metric_names(options)

    @scorer("revision-distance", metrics=names)
    async def revision_distance(sample: Sample, state: State, ctx: Any) -> dict[str, Score]:
        if not state.output.strip():
            return {name: Score.unscored("empty", "empty draft: nothing to revise") for name in names}
        reference = reference_of(sample)
        if options.needs_reference and reference is None:
            return {
                name: Score.unscored("error", f"setting {setting!r} needs a reference in sample.target")
                for name in names
            }
        revision = await revise(
            ctx, options, draft=state.output, reference=reference, instruction=instruction_of(sample), turn="revise"
        )
        return revision_scores(revision, options)

    return revision_distance


@scorer("rouge", metrics=["rouge"])
async def rouge_scorer(sample: Sample, state: State, ctx: Any) -> dict[str, Score]:
    """ROUGE-1/2/L F1 of ``state.output`` against the reference (see `reference_of`); an empty draft scores 0."""
    reference = reference_of(sample)
    if reference is None:
        return {"rouge": Score.unscored("not_applicable", "no reference")}
    return {"rouge": Score(value=rouge_scores(state.output, reference))}


PAIR_METRICS = ("distance_chosen", "distance_rejected", "pair_agree", "pair_tie")
WEIGHTED_PAIR_METRICS = ("weighted_chosen", "weighted_rejected", "pair_agree_weighted", "pair_tie_weighted")


def pair_metric_names(options: ReviserOptions) -> tuple[str, ...]:
    return PAIR_METRICS + (WEIGHTED_PAIR_METRICS if options.weighting != "none" else ())


def pair_scorer(options: ReviserOptions) -> Callable[..., Any]:
    """Both texts of a pair revised (turns ``chosen`` and ``rejected``); agreement when chosen needs fewer.

    ``state.output`` is the chosen text, ``sample.target["rejected"]`` the other; either reply
    unusable leaves the pair unscored. With a weighting, the weighted distances and their
    agreement are reported too.
    """
    names = pair_metric_names(options)

    @scorer("pairwise", metrics=names)
    async def pairwise(sample: Sample, state: State, ctx: Any) -> dict[str, Score]:
        both = await _revise_both(
            ctx,
            options,
            sample,
            ("chosen", state.output, "chosen"),
            ("rejected", sample.target["rejected"], "rejected"),
            names,
        )
        if isinstance(both, dict):
            return both
        chosen, rejected = both
        assert chosen.measured is not None and rejected.measured is not None
        c, r = chosen.measured.distance, rejected.measured.distance
        outcome = PairOutcome.of(c, r)
        edits = {
            which: [e.as_dict() for e in (rev.parsed.edits or ())]
            for which, rev in (("chosen", chosen), ("rejected", rejected))
        }
        scores = {
            "distance_chosen": Score(value=float(c), metadata={"edits": edits["chosen"]}),
            "distance_rejected": Score(value=float(r), metadata={"edits": edits["rejected"]}),
            "pair_agree": Score(value=outcome.agree),
            "pair_tie": Score(value=outcome.tie),
        }
        if options.weighting != "none":
            wc, wr = chosen.measured.weighted, rejected.measured.weighted
            weighted = PairOutcome.of(wc, wr)
            scores |= {
                "weighted_chosen": Score(value=wc, metadata={"weighting": options.weighting}),
                "weighted_rejected": Score(value=wr, metadata={"weighting": options.weighting}),
                "pair_agree_weighted": Score(value=weighted.agree),
                "pair_tie_weighted": Score(value=weighted.tie),
            }
        return scores

    return pairwise


PREFERENCE = "chosen vs rejected"
# The reviser's preference between a pair's texts, read off its two edit counts: 1 the chosen
# (human-preferred) text needs fewer edits, 0 as many, -1 the rejected one needs fewer.
PREFERENCE_SCALE = Scale(-1, 1, "ordinal")


def pair_ratings(role: str = ROLE) -> Callable[[Mapping[str, Score]], list[Rating]]:
    """`Task.ratings` of the pairs mode: the reviser's one comparative verdict per pair.

    An edit count alone is no rating (it has no upper bound, and a scale needs one); a pair's two
    counts compared are the reviser's judgement of which text is better, the one the pairs mode
    checks against the human preference. The weighted counts re-read the same edits: no second
    verdict. A pair whose reply for either text was unusable or failed is unscored (None); every
    pair is sent to the reviser (the pairs file requires both texts), so none is set by rule.
    """

    def ratings(scores: Mapping[str, Score]) -> list[Rating]:
        chosen, rejected = scores.get("distance_chosen"), scores.get("distance_rejected")
        if chosen is None or rejected is None:
            return []
        if not isinstance(chosen.value, (int, float)) or not isinstance(rejected.value, (int, float)):
            return [Rating(PREFERENCE, None, PREFERENCE_SCALE, role)]
        c, r = float(chosen.value), float(rejected.value)
        return [Rating(PREFERENCE, float((c < r) - (c > r)), PREFERENCE_SCALE, role)]

    return ratings


@scorer("rouge-pairs", metrics=["rouge_chosen", "rouge_rejected"])
async def pair_rouge_scorer(sample: Sample, state: State, ctx: Any) -> dict[str, Score]:
    """ROUGE-1/2/L F1 of the chosen (``state.output``) and the rejected text against the pair's reference."""
    reference = reference_of(sample)
    if reference is None:
        missing = Score.unscored("not_applicable", "no reference")
        return {"rouge_chosen": missing, "rouge_rejected": missing}
    return {
        "rouge_chosen": Score(value=rouge_scores(state.output, reference)),
        "rouge_rejected": Score(value=rouge_scores(sample.target["rejected"], reference)),
    }


async def _revise_both(
    ctx: Any,
    options: ReviserOptions,
    sample: Sample,
    first: tuple[str, str, str],
    second: tuple[str, str, str],
    names: tuple[str, ...],
) -> Any:
    """Two drafts of one sample revised alike, each ``(label, draft, turn)``: both revisions, or
    the unscored scores of every metric in `names` when either reply is unusable."""
    reference, instruction = reference_of(sample), instruction_of(sample)
    revisions = []
    for label, draft, turn in (first, second):
        revision = await revise(ctx, options, draft=draft, reference=reference, instruction=instruction, turn=turn)
        if revision.measured is None:
            failed = revision.unscored()
            failed.explanation = f"{label}: {failed.explanation}"
            return {name: failed for name in names}
        revisions.append(revision)
    return revisions


STABILITY_METRICS = ("distance_original", "distance_perturbed", "stability_abs_change", "stability_unchanged")


def stability_scorer(options: ReviserOptions) -> Callable[..., Any]:
    """The original (``state.output``, turn ``revise``) and perturbed (``sample.target["perturbed"]``, turn
    ``perturbed``) drafts revised alike; either reply unusable leaves the draft unscored."""

    @scorer("stability", metrics=STABILITY_METRICS)
    async def stability(sample: Sample, state: State, ctx: Any) -> dict[str, Score]:
        # the original draft is asked exactly as the drafts task asks it (same turn), so a drafts run
        # over the same ids and reviser fills the cache for this half of the check
        both = await _revise_both(
            ctx,
            options,
            sample,
            ("original", state.output, "revise"),
            ("perturbed", sample.target["perturbed"], "perturbed"),
            STABILITY_METRICS,
        )
        if isinstance(both, dict):
            return both
        original, perturbed = both
        assert original.measured is not None and perturbed.measured is not None
        o, p = original.measured.distance, perturbed.measured.distance
        return {
            "distance_original": Score(value=float(o)),
            "distance_perturbed": Score(value=float(p)),
            "stability_abs_change": Score(value=float(abs(p - o))),
            "stability_unchanged": Score(value=float(o == p)),
        }

    return stability
