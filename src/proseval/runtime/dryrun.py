"""`--dry-run`: what a run would ask of each role, and what that would cost, without sending anything.

The task's own protocol and scorers are driven with a *stand-in* per role: it sends nothing,
builds no model (no key, endpoint or model file is needed, no embedded model is loaded),
counts each request's input tokens offline (`runtime.cost.message_tokens`: cl100k_base in the
OpenAI chat format, for every model) and answers with a reply said to use the role's output
estimate (`runtime.cost.output_estimate`: the stated estimate, else `max_tokens`, else 1,024
tokens for the candidate and 256 for other roles), whose text has about that many tokens, so that
a judge's prompt holding the candidate's answer is counted at that size too.

The reply is the task's own when it gives one (`Task.dry_run_reply`, asked with the role, the
messages, the output estimate and the turn; it returns None where it has no opinion), else a
synthetic one. The synthetic reply of the candidate is filler words. Any other role (judges,
extractors, …) gets JSON: an instance of the request's `response_format` JSON schema when it asks
for one, else ``{"score": 5, "reason": "<filler>"}``; tasks whose judges read another shape find
it unparsable. The estimate assumes every judge-like reply parses at its first attempt: a re-ask
(a turn named ``…#N`` with N ≥ 1, `judging.ask`) is answered but not counted.

Multi-step protocols take the path these replies lead them down. Meeseeks stops after its first
round (a lower bound). RAVEL answers its own roles (`benchmarks.ravel.dryrun`): its policy never
finishes and takes every step its limit allows (an upper bound for the policy), and the tools
answer in their parsers' shapes with a review below the pass mark each time, so every step but a
skipped one calls a tool; each tool's calls are counted under the role it is bound to (a tool left
to the candidate in the candidate's row). A protocol whose path ends with no text is scored on a
stand-in text of the candidate's output estimate, so that its judge's requests are counted.

Nothing is written: no run folder, no checkpoint, no response cache.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.prices import ModelPrice, Prices
from ..core.task import DryRunReply, Task
from ..models.base import Completion, GenerateConfig, Message, Usage
from ..tokens import count_tokens
from .cost import message_tokens, output_estimate, output_source
from .options import RunOptions
from .plan import SamplePlan, check_run_size
from .records import RoleBinding
from .runner import Runner

FILLER = "word"  # one cl100k token, and one more per repetition after a space
_REASK = re.compile(r"#(\d+)$")


def is_reask(turn: str | int) -> bool:
    """Whether `turn` is a second or later attempt of a bounded re-ask (``judge#1``, ``criteria#2``)."""
    match = _REASK.search(str(turn))
    return match is not None and int(match.group(1)) > 0


def filler(tokens: int) -> str:
    """Text of `tokens` cl100k tokens (at least one)."""
    return " ".join([FILLER] * max(1, tokens))


def _instance(schema: Any, depth: int = 0) -> Any:
    """A small value that fits a JSON schema (objects with their required keys, one array item)."""
    if not isinstance(schema, dict) or depth > 8:
        return None
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for combined in ("anyOf", "oneOf", "allOf"):
        if isinstance(schema.get(combined), list) and schema[combined]:
            return _instance(schema[combined][0], depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties") or {}
        keys = schema.get("required") or list(properties)
        return {key: _instance(properties.get(key, {}), depth + 1) for key in keys}
    if kind == "array":
        return [_instance(schema.get("items", {}), depth + 1)]
    if kind == "integer":
        low, high = schema.get("minimum", 1), schema.get("maximum", 10)
        return int((low + high) // 2) if isinstance(low, (int, float)) and isinstance(high, (int, float)) else 5
    if kind == "number":
        return 0.5
    if kind == "boolean":
        return True
    if kind == "string":
        return "x"
    return None


def _fill_first_string(value: Any, text: str) -> bool:
    """Put `text` into the first string of `value` (in place); False if it holds none."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str):
                value[key] = text
                return True
            if _fill_first_string(item, text):
                return True
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, str):
                value[i] = text
                return True
            if _fill_first_string(item, text):
                return True
    return False


def synthetic_reply(role: str, config: GenerateConfig, tokens: int) -> str:
    """The stand-in's answer of about `tokens` tokens (see the module's text)."""
    if role == "candidate":
        return filler(tokens)
    schema = None
    fmt = config.response_format or {}
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        schema = (fmt.get("json_schema") or {}).get("schema")
    value = _instance(schema) if schema is not None else {"score": 5, "reason": "x"}
    if not isinstance(value, (dict, list)):
        return json.dumps(value)
    frame = count_tokens(json.dumps(value))
    _fill_first_string(value, filler(max(1, tokens - frame)))
    return json.dumps(value)


@dataclass
class RoleEstimate:
    """One role's requests and tokens in a dry run, and their price."""

    role: str
    spec: str
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    reasks: int = 0  # re-asks answered but not counted (the estimate assumes first replies parse)
    sources: set[str] = field(default_factory=set)  # where the output estimates came from
    price: ModelPrice | None = None
    batch: bool = False  # the role runs in the provider's batch mode

    def cost(self, *, batch: bool = False) -> float | None:
        if self.price is None:
            return None
        return self.price.cost(self.input_tokens, self.output_tokens, batch=batch)

    def expected_cost(self) -> float | None:
        """The cost as the run would pay it: the batch price for a role in batch mode."""
        return self.cost(batch=self.batch)


@dataclass
class Estimate:
    """A dry run of one task: per role, what it would send and cost."""

    label: str
    task: str
    samples: int  # (sample, epoch) pairs that would run
    done: int  # pairs already finished (a resume skips them)
    roles: dict[str, RoleEstimate]
    currency: str = "USD"
    errors: int = 0  # samples that ended in an error with synthetic replies
    internal: int = 0  # scorer errors on synthetic replies

    def cost(self, *, batch: bool = False) -> float | None:
        costs = [r.cost(batch=batch) for r in self.roles.values() if r.requests]
        return None if any(c is None for c in costs) else sum(c for c in costs if c is not None)

    def expected_cost(self) -> float | None:
        costs = [r.expected_cost() for r in self.roles.values() if r.requests]
        return None if any(c is None for c in costs) else sum(c for c in costs if c is not None)

    def as_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "task": self.task,
            "samples": self.samples,
            "done": self.done,
            "currency": self.currency,
            "errors": self.errors,
            "roles": {
                role: {
                    "model": r.spec,
                    "requests": r.requests,
                    "input_tokens": r.input_tokens,
                    "output_tokens": r.output_tokens,
                    "reasks_not_counted": r.reasks,
                    "output_from": sorted(r.sources),
                    "cost": r.cost(),
                    "batch_cost": r.cost(batch=True),
                    "batch_mode": r.batch,
                }
                for role, r in self.roles.items()
            },
        }


class StandIn:
    """Plays one role in a dry run: counts each request and answers with the task's reply, else a
    synthetic one."""

    def __init__(
        self, tally: RoleEstimate, config: GenerateConfig, stated: Mapping[str, int], reply: DryRunReply | None = None
    ):
        self.tally = tally
        self.config = config
        self.stated = stated
        self.reply = reply

    async def generate(
        self,
        messages: list[Message],
        config: GenerateConfig | dict[str, Any] | None = None,
        *,
        sample_id: str,
        epoch: int = 0,
        turn: str | int = 0,
    ) -> Completion:
        effective = self.config.merged(config)
        role = self.tally.role
        output = output_estimate(role, effective, self.stated)
        prompt = message_tokens(messages)
        if is_reask(turn):
            self.tally.reasks += 1
        else:
            self.tally.requests += 1
            self.tally.input_tokens += prompt
            self.tally.output_tokens += output
            self.tally.sources.add(output_source(role, effective, self.stated))
        text = self.reply(role, messages, output, str(turn)) if self.reply is not None else None
        if text is None:
            text = synthetic_reply(role, effective, output)
        return Completion(text=text, finish_reason="stop", usage=Usage(prompt_tokens=prompt, completion_tokens=output))


class _NoCheckpoints:
    """A run folder that keeps nothing (a dry run writes no checkpoint)."""

    def write_checkpoint(self, sample_id: str, epoch: int, data: Any) -> None:
        return None

    def read_checkpoint(self, sample_id: str, epoch: int) -> Any | None:
        return None

    def clear_checkpoint(self, sample_id: str, epoch: int) -> None:
        return None


def _with_text(task: Task, config: GenerateConfig, stated: Mapping[str, int]) -> Task:
    """`task` whose protocol, when it ends with no text, ends with filler of the candidate's output
    estimate instead: the scorers then send what they would on a written text (RAVEL's judge)."""
    protocol = task.protocol

    async def written(sample: Any, ctx: Any) -> Any:
        state = await protocol(sample, ctx)
        if state.output.strip():
            return state
        return state.model_copy(update={"output": filler(output_estimate("candidate", config, stated))})

    return replace(task, protocol=written)


class _DryRunner(Runner):
    """The runner's own sample code (protocol, then every scorer) over stand-ins."""

    def __init__(self, task: Task, bindings: dict[str, RoleBinding], roles: dict[str, StandIn]):
        options = RunOptions(use_cache=False, display="none")
        super().__init__(task, bindings, _NoCheckpoints(), options)  # type: ignore[arg-type]  # keeps nothing
        self.roles = roles  # type: ignore[assignment]  # stand-ins answer for the models
        self.internal = 0

    def _report_internal(self, where: str, detail: str, effect: str = "") -> None:
        self.internal += 1


async def estimate_run(
    task: Task,
    bindings: dict[str, RoleBinding],
    *,
    limit: int | None = None,
    epochs: int = 1,
    done: Iterable[tuple[str, int]] = (),
    prices: Prices | None = None,
    estimates: Mapping[str, int] | None = None,
    batch_roles: Iterable[str] = (),
    label: str | None = None,
) -> Estimate:
    """Drive `task` over every (sample, epoch) not in `done` with stand-ins (module text)."""
    stated = dict(estimates or {})
    batch = set(batch_roles)
    tallies = {
        role: RoleEstimate(role, b.spec, price=None if prices is None else prices.of(b.spec), batch=role in batch)
        for role, b in bindings.items()
    }
    stand_ins = {role: StandIn(tallies[role], b.config, stated, task.dry_run_reply) for role, b in bindings.items()}
    candidate = bindings.get("candidate")
    scored = task if candidate is None else _with_text(task, candidate.config, stated)
    runner = _DryRunner(scored, bindings, stand_ins)
    plan = SamplePlan(task, limit)
    check_run_size(plan.count, epochs)
    finished = {key for key in done if key[1] < epochs and key[0] in plan.ids}
    estimate = Estimate(
        label or task.name,
        task.name,
        0,
        len(finished),
        tallies,
        currency=prices.currency if prices is not None else "USD",
    )
    for epoch in range(epochs):
        for sample in plan.samples():
            if (sample.id, epoch) in finished:
                continue
            record = await runner.run_sample(sample, epoch)
            estimate.samples += 1
            estimate.errors += record.status == "error"
    estimate.internal = runner.internal
    return estimate
