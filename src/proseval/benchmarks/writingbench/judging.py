"""Judge prompts and judge-reply parsing for WritingBench.

Two judge modes share the same prompt structure (instruction, score bands, rules, output
format, criterion, request, response, criterion again, output format again):

* per criterion (official): one judge call per criterion, the criterion rendered as the
  Python ``repr`` of its official dict, as the official prompt does;
* batched (proseval): all criteria of a query in one call, answered as one JSON object.

The wording is proseval's own; scores from it are not leaderboard-comparable. A user's text
(placeholders ``{criteria}``, ``{query}``, ``{response}``) replaces it with
``--prompt judge=FILE`` (``judge_batched``, ``judge_system`` likewise).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from proseval.benchmarks.writingbench.clean import strip_reasoning
from proseval.benchmarks.writingbench.criteria import Criterion
from proseval.kit import PromptTemplate, Rating, Scale, Score, find_json_values, parse_score, repair_json_value

# --- prompts -------------------------------------------------------------------------------

_SCALE = """\
Score bands (whole numbers from 1 to 10):
- 1-2: fails the criterion: essential parts are missing, wrong or unusable.
- 3-4: attempts the criterion but with serious gaps or errors; clearly below a competent answer.
- 5-6: meets the criterion at an acceptable, ordinary level, the level most models reach, \
with visible weaknesses.
- 7-8: meets the criterion well; only minor refinements remain.
- 9-10: meets the criterion exceptionally; hard to improve in any meaningful way."""

_RULES = """\
Rules:
- Base the score on concrete passages of the response and refer to them in the reason.
- Be strict. Length, headings and polished formatting earn nothing by themselves.
- Check for content that sounds plausible but is invented or contradicts the request and \
its materials.
- A response that only introduces, outlines or announces the requested content without \
delivering it fails the criterion.
- Give a whole-number score from 1 to 10."""

_OUTPUT_SINGLE = """\
Output: one JSON object and nothing else, with two keys: "score" (a whole number from 1 to \
10) and "reason" (a string). Do not put double quotation marks or other characters that \
would break the JSON inside the reason."""

_OUTPUT_BATCHED = """\
Output: one JSON object and nothing else, of the form \
{"scores": [{"name": "<criterion name>", "score": <whole number 1-10>, "reason": "<text>"}, ...]} \
with one entry per criterion, in the order listed, each name copied exactly. Do not put \
double quotation marks or other characters that would break the JSON inside a reason."""


def _template(instruction: str, output: str, criteria_header: str) -> str:
    blocks = [
        instruction,
        _SCALE,
        _RULES,
        output,
        f"## {criteria_header}\n```\n{{criteria}}\n```",
        "## Request\n```\n{query}\n```",
        "## Response\n```\n{response}\n```",
        f"## {criteria_header} (repeated)\n```\n{{criteria}}\n```",
        output,
    ]
    return "\n\n".join(blocks)


_SLOTS = ("criteria", "query", "response")

JUDGE_SYSTEM = PromptTemplate(
    "judge_system",
    "You are a demanding writing reviewer who grades responses against explicit criteria.",
    description="the judge's system message (both judge modes)",
)

PER_CRITERION_TEMPLATE = PromptTemplate(
    "judge",
    _template(
        "Evaluate the response to the writing request below against the single criterion "
        "given, using the score bands and rules that follow.",
        _OUTPUT_SINGLE,
        "Criterion",
    ),
    _SLOTS,
    description="per-criterion judge request; {criteria} is one criterion as the official prompt shows it",
)

BATCHED_TEMPLATE = PromptTemplate(
    "judge_batched",
    _template(
        "Evaluate the response to the writing request below against each of the criteria "
        "listed, independently of one another, using the score bands and rules that follow.",
        _OUTPUT_BATCHED,
        "Criteria",
    ),
    _SLOTS,
    description="batched judge request (--judge-mode batched); {criteria} lists every criterion, numbered",
)


JUDGE_PROMPTS = {t.name: t for t in (JUDGE_SYSTEM, PER_CRITERION_TEMPLATE, BATCHED_TEMPLATE)}


def render_criterion(criterion: Criterion) -> str:
    """The criterion as the official prompt shows it: Python ``repr`` of its official dict."""
    return repr(criterion.to_official_dict())


def judge_messages(
    query: str,
    response: str,
    criterion: Criterion,
    template: PromptTemplate = PER_CRITERION_TEMPLATE,
    system: PromptTemplate = JUDGE_SYSTEM,
) -> list[dict[str, str]]:
    """Messages for judging one criterion."""
    user = template.render(criteria=render_criterion(criterion), query=query, response=response)
    return [{"role": "system", "content": system.render()}, {"role": "user", "content": user}]


def batched_judge_messages(
    query: str,
    response: str,
    criteria: Sequence[Criterion],
    template: PromptTemplate = BATCHED_TEMPLATE,
    system: PromptTemplate = JUDGE_SYSTEM,
) -> list[dict[str, str]]:
    """Messages for judging all criteria of a query in one call."""
    listed = "\n".join(f"{number}. {render_criterion(c)}" for number, c in enumerate(criteria, start=1))
    user = template.render(criteria=listed, query=query, response=response)
    return [{"role": "system", "content": system.render()}, {"role": "user", "content": user}]


# --- reply parsing -------------------------------------------------------------------------

ParseStatus = Literal["ok", "repaired", "coerced", "invalid", "unparsable"]


class JudgeVerdict(BaseModel):
    """One parsed judgement. ``score`` is None (unscored) unless the status is ok/repaired/coerced."""

    model_config = ConfigDict(frozen=True)

    score: int | None
    reason: str | None = None
    status: ParseStatus
    error: str | None = None

    @property
    def scored(self) -> bool:
        return self.score is not None


def _verdict(obj: dict[str, Any], repaired: bool) -> JudgeVerdict:
    parsed = parse_score(obj.get("score"), 1, 10)
    reason = obj.get("reason") if isinstance(obj.get("reason"), str) else None
    if parsed.value is None:
        return JudgeVerdict(score=None, reason=reason, status="invalid", error=parsed.detail)
    status: ParseStatus = "coerced" if parsed.status == "coerced" else "repaired" if repaired else "ok"
    return JudgeVerdict(score=parsed.value, reason=reason, status=status)


def _unparsable(error: str) -> JudgeVerdict:
    return JudgeVerdict(score=None, status="unparsable", error=error)


def _single_object(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) and "score" in value else None


def parse_judge_reply(text: str) -> JudgeVerdict:
    """Parse a per-criterion judge reply.

    Reasoning blocks are removed, then the last JSON object with a ``score`` key is taken
    (fenced, bare or after prose); JSON repair is the last resort. Anything that does not
    yield a whole number 1–10 is unscored, with the reason in ``error``.
    """
    body = strip_reasoning(text).text
    if not body.strip():
        return _unparsable("empty reply")
    found = [value for value in find_json_values(body) if _single_object(value) is not None]
    if found:
        complete = [value for value in found if "reason" in value]
        return _verdict((complete or found)[-1], repaired=False)
    repaired = _single_object(repair_json_value(body))
    if repaired is None:
        return _unparsable("no JSON object with a 'score' key in the reply")
    return _verdict(repaired, repaired=True)


def _normalise_name(name: str) -> str:
    return " ".join(name.replace("_", " ").split()).casefold()


def _batched_entries(value: Any) -> dict[str, Any] | None:
    if isinstance(value, dict) and isinstance(value.get("scores"), list):
        value = value["scores"]
    if isinstance(value, list):
        entries = {item["name"]: item for item in value if isinstance(item, dict) and isinstance(item.get("name"), str)}
    elif isinstance(value, dict):
        entries = {key: item for key, item in value.items() if isinstance(item, dict) and "score" in item}
    else:
        return None
    return entries or None


def parse_batched_reply(text: str, names: Sequence[str]) -> dict[str, JudgeVerdict]:
    """Parse a batched judge reply into one verdict per criterion name.

    Entries are matched to criteria by exact name, then by name ignoring case, underscores
    and spacing; a criterion without an entry is unscored.
    """
    body = strip_reasoning(text).text
    if not body.strip():
        return {name: _unparsable("empty reply") for name in names}
    found = [entries for entries in map(_batched_entries, find_json_values(body)) if entries is not None]
    entries, repaired = (found[-1], False) if found else (_batched_entries(repair_json_value(body)), True)
    if entries is None:
        return {name: _unparsable("no JSON object with per-criterion scores in the reply") for name in names}
    loose = {_normalise_name(key): item for key, item in entries.items()}
    verdicts = {}
    for name in names:
        obj = entries.get(name, loose.get(_normalise_name(name)))
        verdicts[name] = _verdict(obj, repaired) if obj is not None else _unparsable("criterion missing from the reply")
    return verdicts


# --- input budget --------------------------------------------------------------------------

TRUNCATION_MARKER = "\n\n[... response truncated to fit the judge's input limit ...]"


class FittedResponse(BaseModel):
    """A response cut to a token budget. ``text`` is None when not even the marker fits."""

    model_config = ConfigDict(frozen=True)

    text: str | None
    truncated: bool
    original_tokens: int
    kept_tokens: int
    error: str | None = None


def fit_response(
    response: str,
    *,
    max_input_tokens: int,
    prompt_tokens: int,
    count_tokens: Callable[[str], int],
    marker: str = TRUNCATION_MARKER,
) -> FittedResponse:
    """Keep the head of ``response`` so that the judge input stays within ``max_input_tokens``.

    ``prompt_tokens`` is the size of the judge prompt rendered with an empty response. The
    tail is cut at the longest prefix (found by bisection on characters) that fits together
    with ``marker``, which tells the judge that the text was cut.
    """
    budget = max_input_tokens - prompt_tokens
    original = count_tokens(response)
    if original <= budget:
        return FittedResponse(text=response, truncated=False, original_tokens=original, kept_tokens=original)
    if count_tokens(marker) > budget:
        return FittedResponse(
            text=None, truncated=False, original_tokens=original, kept_tokens=0, error="context_overflow"
        )
    fits, too_long = 0, len(response)
    while too_long - fits > 1:
        middle = (fits + too_long) // 2
        if count_tokens(response[:middle] + marker) <= budget:
            fits = middle
        else:
            too_long = middle
    kept = response[:fits] + marker
    return FittedResponse(text=kept, truncated=True, original_tokens=original, kept_tokens=count_tokens(kept))


# --- what the judge rated --------------------------------------------------------------------

SCORE_NAME = "writingbench"  # the task's one score; its metadata["criteria"] holds the verdicts
SCALE = Scale(1, 10, "ordinal")
# Statuses of a criterion the judge was never asked about: its prompt exceeded
# --judge-max-input-tokens even without the response, so no call was made. Every other status
# is a verdict: ok / repaired / coerced carry a score; invalid (out of range, not a whole
# number) and unparsable are replies that could not be read, and error is a judge call that
# failed (a model error, the endpoint's own context limit included): unscored ratings.
NOT_ASKED = frozenset({"context_overflow"})


def criterion_ratings(scores: Mapping[str, Score]) -> list[Rating]:
    """`Task.ratings`: one 1-10 rating per criterion of the query, named by the criterion."""
    score = scores.get(SCORE_NAME)
    criteria = score.metadata.get("criteria") if score is not None else None
    if not isinstance(criteria, dict):
        return []  # never judged (e.g. curation without criteria, a scorer that raised)
    found = []
    for name, entry in criteria.items():
        if not isinstance(entry, dict) or entry.get("status") in NOT_ASKED:
            continue
        value = entry.get("score")
        found.append(Rating(str(name), None if value is None else float(value), SCALE))
    return found
