"""What requests cost: tokens counted offline, prices from the user's file, the spend of a run
recorded from real usage, and the limit `--max-cost` puts on it (docs/many-models.md, "Cost").

Counting. A request's input tokens are counted offline with cl100k_base (`proseval.tokens`;
the only tokenizer proseval ships, used for every model as a stated approximation) in the
OpenAI chat format: 3 tokens per message, its role and content, 1 more per `name`, and 3
priming the reply. Its output is estimated, in this order, by the user's stated estimate for
the role (`--estimate-output ROLE=TOKENS`), the request's `max_tokens`, or a default per role
(`DEFAULT_OUTPUT`: 1,024 for the candidate, 256 for any other role).

Spending. A `CostMeter` holds the spend recorded from real usage (a completion's reported
prompt and completion tokens × the price of the binding that answered, its cached prompt tokens at
the cached-input price when the prices file gives one, less the batch discount
for an answer that came through a provider batch: a batch role's request sent in real time
after failing in batches pays the full price; a cache hit costs nothing) and, with a limit,
what the requests in flight are expected to cost. Before a request is sent its expected cost is
reserved: its input counted, its output the mean output of its role's answers in the run so far
(`RunSpend.outputs`, earlier sessions included), before the first answer estimated as above. A
request is sent when the recorded spend, every reservation and its own fit the limit. When only
reservations stand in the way it waits, first come first served, for requests in flight to end
(their cost recorded, their reservations released); in batch mode its sample counts as waiting
on a batch meanwhile, so the pending requests are sent, and a phase the limit would cut goes out
in several batches. When the recorded spend alone leaves it no room it is not sent
(`CostLimitReached`) and the meter is stopped: no new sample starts. Samples in flight go on
while their requests fit; one whose request is refused is abandoned without a record (its
finished requests stay in the response cache, so a resume gets them back for nothing). The meter
keeps the first refused request (`Refusal`: its role, reservation and output tokens), so that a
limit too small for a single request is said to be so, with the way to lower the reservation.

A batch's answers are paid when the batch ends: their cost is recorded the moment its results
are read (`RunSpend.paid_in_batch`), before the samples waiting on them take them, so that a
session killed after that keeps their spend; each answer's cost is then recorded once.

Overshoot. Reservations are expectations, so the spend can pass the limit: by at most what the
requests in flight when the last request was sent cost beyond their reservations (then the
spend plus every reservation was within the limit, and only those requests are charged after).
One reply's excess is at most (its `max_tokens` − its output estimate) × the output price, with
its input counted as the provider counts it; a batch role's request sent in real time after
failing in batches adds the batch discount of its price. In real time a role has at most its
concurrency in flight, so the spend stays within the limit plus, summed over the roles,
concurrency × (`max_tokens` − estimate) × output price; in batch mode the requests of the
batches in flight count instead. Worst-case reservations for the last stretch were weighed and
not taken: they leave up to one worst-case request of the limit unspent, and split a batch
phase whose expected cost fits into several batches (a round trip each).

One meter can be shared by several runs (an evaluation set): each run reports through its own
`RunSpend`, which keeps the run's spend per role for its `usage.jsonl` and `results.json`.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..core.prices import ModelPrice, Prices
from ..core.task import Task
from ..errors import UsageError
from ..models.base import Completion, FatalError, GenerateConfig, Message
from ..tokens import count_tokens

CANDIDATE_OUTPUT = 1024
OTHER_OUTPUT = 256
DEFAULT_OUTPUT = {"candidate": CANDIDATE_OUTPUT}
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
REPLY_PRIMING = 3
# How a wait for room is awaited: batch mode counts the sample as waiting on a batch meanwhile.
Wait = Callable[[Awaitable[float | None]], Awaitable[float | None]]


def message_tokens(messages: Iterable[Message]) -> int:
    """Input tokens of a chat request, counted offline (cl100k_base, OpenAI's chat format)."""
    total = REPLY_PRIMING
    for message in messages:
        total += TOKENS_PER_MESSAGE
        for key, value in message.items():
            if key in ("role", "content") and value:
                total += count_tokens(str(value))
            elif key == "name":
                total += TOKENS_PER_NAME + count_tokens(str(value))
    return total


def output_estimate(role: str, config: GenerateConfig | None, stated: Mapping[str, int] | None = None) -> int:
    """The output tokens a request of `role` is expected to use: the user's stated estimate for
    the role, else its `max_tokens`, else the role's default."""
    if stated and role in stated:
        return int(stated[role])
    if config is not None and config.max_tokens is not None:
        return int(config.max_tokens)
    return DEFAULT_OUTPUT.get(role, OTHER_OUTPUT)


def output_source(role: str, config: GenerateConfig | None, stated: Mapping[str, int] | None = None) -> str:
    """Where `output_estimate` took its number from: "stated", "max_tokens" or "default"."""
    if stated and role in stated:
        return "stated"
    return "max_tokens" if config is not None and config.max_tokens is not None else "default"


def missing_prices(prices: Prices | None, specs: Iterable[str]) -> list[str]:
    """The model specs (sorted, each once) that `prices` does not list (all of them without a file)."""
    return sorted({spec for spec in specs if prices is None or prices.of(spec) is None})


@dataclass(frozen=True)
class Refusal:
    """A request the limit refused: its role, its reservation (`amount`), the output tokens reserved
    and where that number came from (`output_source`'s, or "mean": the mean of the role's answers)."""

    role: str
    amount: float
    output_tokens: int
    source: str


class CostLimitReached(FatalError):
    """A request not sent because its estimated cost would take the spend past `--max-cost`.

    A `ModelError`, so that a protocol or scorer stops asking as it does for a failed call; the
    runner abandons the sample without a record whatever the task did with it."""


def money(amount: float, currency: str = "") -> str:
    """An amount for people: 4 significant decimals below 1, 2 above."""
    text = f"{amount:.4f}" if abs(amount) < 1 else f"{amount:,.2f}"
    return f"{text} {currency}".strip()


def round_up(amount: float) -> float:
    """A round limit at or above `amount` (two significant digits), for a suggested `--max-cost`."""
    if amount <= 0:
        return 0.01
    step = 10 ** (math.floor(math.log10(amount)) - 1)
    return round(math.ceil(amount / step - 1e-9) * step, 10)


@dataclass
class CostMeter:
    """The spend of one command's runs: recorded from real usage, reserved for requests in flight,
    and, with `limit`, the point at which no new work is started (see the module's text)."""

    prices: Prices
    limit: float | None = None
    estimates: dict[str, int] = field(default_factory=dict)  # stated output estimates per role
    spent: float = 0.0  # recorded: earlier sessions (`previous`) and this one
    previous: float = 0.0  # what the run folder(s) had recorded before this command
    reserved: float = 0.0  # the expected cost of the requests in flight
    held: int = 0  # the reservations held by requests in flight
    stopped: bool = False  # a request was refused: start no new sample
    refused: int = 0
    largest: float = 0.0  # the costliest single request recorded
    unreported: int = 0  # completions without reported usage (counted offline instead)
    refusal: Refusal | None = None  # the first request the limit refused
    # each run folder metered here, with the task its run ran (`runtime.runner`): what the samples a
    # run left at the limit would cost is estimated with it (`commandline.cost`)
    tasks: dict[Path, Task] = field(default_factory=dict, repr=False)

    @property
    def currency(self) -> str:
        return self.prices.currency

    @property
    def limited(self) -> bool:
        return self.limit is not None

    def __post_init__(self) -> None:
        self.spent = max(self.spent, self.previous)
        # requests waiting for room, first come first served: their expected cost (asked anew), their answer
        self._waiting: deque[tuple[Callable[[], float], asyncio.Future[float | None]]] = deque()

    def full(self) -> bool:
        """Whether no new sample should start: a request was refused, or the spend is at the limit."""
        return self.stopped or (self.limit is not None and self.spent >= self.limit)

    async def reserve(self, amount: Callable[[], float], wait: Wait | None = None) -> float | None:
        """Reserve a request's expected cost, `amount()`: the amount reserved, or None when the spend
        alone leaves it no room (it only grows; the meter is stopped). While only reservations stand
        in its way it waits (through `wait` when given), after the requests already waiting, for
        requests in flight to release theirs; `amount` is asked again then (answers move it)."""
        while self._waiting and self._waiting[0][1].done():  # cancelled while waiting
            self._waiting.popleft()
        if not self._waiting:
            value = amount()
            outcome = self._admit(value)
            if outcome != "wait":
                return value if outcome == "reserved" else None
        future: asyncio.Future[float | None] = asyncio.get_running_loop().create_future()
        self._waiting.append((amount, future))
        try:
            return await (future if wait is None else wait(future))
        except asyncio.CancelledError:
            if future.done() and not future.cancelled() and (reserved := future.result()) is not None:
                self.release(reserved)  # reserved for it just before it was cancelled
            raise

    def _admit(self, amount: float) -> Literal["reserved", "wait", "refused"]:
        if self.limit is None or self.spent + self.reserved + amount <= self.limit:
            self.reserved += amount
            self.held += 1
            return "reserved"
        if self.held and self.spent + amount <= self.limit:
            return "wait"
        self.stopped = True
        self.refused += 1
        return "refused"

    def release(self, amount: float) -> None:
        """Release a request's reservation; then the waiting requests that fit now are reserved for,
        in order, up to the first that still has to wait (and those refused are answered so)."""
        self.held = max(0, self.held - 1)
        self.reserved = max(0.0, self.reserved - amount) if self.held else 0.0
        while self._waiting:
            expected, future = self._waiting[0]
            if not future.done():
                value = expected()
                outcome = self._admit(value)
                if outcome == "wait":
                    return
                future.set_result(value if outcome == "reserved" else None)
            self._waiting.popleft()

    def record(self, amount: float) -> None:
        self.spent += amount
        self.largest = max(self.largest, amount)

    def metered(self, folder: Path, task: Task) -> None:
        """Keep the task a run in `folder` runs under this meter."""
        self.tasks[folder.resolve()] = task

    def task_in(self, folder: Path) -> Task | None:
        """The task the last run in `folder` metered here ran, if any."""
        return self.tasks.get(folder.resolve())


@dataclass
class RunSpend:
    """One run's view of a (maybe shared) meter: its roles' prices, batch roles, spend per role."""

    meter: CostMeter
    specs: dict[str, str]  # role -> binding spec
    configs: dict[str, GenerateConfig] = field(default_factory=dict)  # role -> the binding's settings
    batch_roles: frozenset[str] = frozenset()
    by_role: dict[str, float] = field(default_factory=dict)  # this session's spend per role
    # role -> (answers, their output tokens) in the run: earlier sessions' (`observed_outputs`) and this one's
    outputs: dict[str, tuple[int, int]] = field(default_factory=dict)
    # answers whose cost `paid_in_batch` recorded, by identity: `after` records no cost for them
    _prepaid: dict[int, Completion] = field(default_factory=dict, repr=False)

    def price(self, role: str) -> ModelPrice | None:
        spec = self.specs.get(role)
        return None if spec is None else self.meter.prices.of(spec)

    def output_tokens(self, role: str, config: GenerateConfig) -> int:
        """A request's expected output: the mean of its role's answers in the run (at most its
        `max_tokens`); before the first, `output_estimate`."""
        answers, tokens = self.outputs.get(role, (0, 0))
        if not answers:
            return output_estimate(role, config, self.meter.estimates)
        mean = math.ceil(tokens / answers)
        return mean if config.max_tokens is None else min(mean, config.max_tokens)

    def reserved_output(self, role: str, config: GenerateConfig | dict[str, Any] | None) -> tuple[int, str]:
        """The output tokens a request of `role` reserves now, and where the number comes from: "mean"
        (of the role's answers so far), else `output_source`'s."""
        effective = self.configs.get(role, GenerateConfig()).merged(config)
        source = "mean" if self.outputs.get(role, (0, 0))[0] else output_source(role, effective, self.meter.estimates)
        return self.output_tokens(role, effective), source

    def expected(
        self, role: str, messages: list[Message], config: GenerateConfig | dict[str, Any] | None
    ) -> Callable[[], float]:
        """A request's expected cost, asked when it is reserved: its input counted offline (once), its
        output as expected at that time (module text), at the batch price for a role in batch mode."""
        price = self.price(role)
        if price is None:
            return lambda: 0.0
        effective = self.configs.get(role, GenerateConfig()).merged(config)
        tokens, batch = message_tokens(messages), role in self.batch_roles
        return lambda: price.cost(tokens, self.output_tokens(role, effective), batch=batch)

    async def before(
        self,
        role: str,
        messages: list[Message],
        config: GenerateConfig | dict[str, Any] | None,
        wait: Wait | None = None,
    ) -> float:
        """Reserve a request's expected cost (0 without a limit), waiting while only the reservations
        of requests in flight stand in the way (`CostMeter.reserve`; batch mode's `wait` counts the
        sample as waiting); raises `CostLimitReached` when the spend alone leaves it no room."""
        meter = self.meter
        if not meter.limited:
            return 0.0
        expected = self.expected(role, messages, config)
        reserved = await meter.reserve(expected, wait)
        if reserved is None:
            if meter.refusal is None:
                meter.refusal = Refusal(role, expected(), *self.reserved_output(role, config))
            raise CostLimitReached(
                f"not sent: its expected cost ({money(expected(), meter.currency)}) would take the spend "
                f"({money(meter.spent, meter.currency)}) past --max-cost {money(meter.limit or 0.0, meter.currency)}"
            )
        return reserved

    def after(
        self, role: str, reserved: float, completion: Completion | None, messages: list[Message] | None = None
    ) -> None:
        """Count the answer (None: the request failed) and release the reservation, last: the
        requests that waited for it see the new spend and mean."""
        if completion is not None:
            self._count(role, completion, messages)
        if self.meter.limited:
            self.meter.release(reserved)

    def _count(self, role: str, completion: Completion, messages: list[Message] | None) -> None:
        """Add the answer's output to its role's mean; record what it really cost (a cache hit:
        nothing), at the batch price when it came through a batch. A reply without reported usage
        is counted offline instead."""
        prompt, output = completion.usage.prompt_tokens, completion.usage.completion_tokens
        unreported = prompt == 0 and output == 0
        if unreported:
            prompt, output = message_tokens(messages or []), count_tokens(completion.text)
        answers, tokens = self.outputs.get(role, (0, 0))
        self.outputs[role] = (answers + 1, tokens + output)
        price = self.price(role)
        if self._prepaid.pop(id(completion), None) is completion or completion.cached or price is None:
            return
        self.meter.unreported += int(unreported)
        amount = price.cost(prompt, output, cached_tokens=completion.usage.cached_tokens, batch=completion.batched)
        self.meter.record(amount)
        self.by_role[role] = self.by_role.get(role, 0.0) + amount

    def paid_in_batch(self, role: str, completions: Iterable[Completion], *, record: bool = True) -> None:
        """Record what a batch's answers cost (at the batch price) as its results are read, before
        the samples waiting on them take them; their `after` then records no cost again. `record`
        False: an earlier session saw the batch end and recorded them. An answer without reported
        usage is left to `after`, which counts it offline from its request."""
        price = self.price(role)
        for completion in completions:
            usage = completion.usage
            if completion.cached or price is None or (usage.prompt_tokens == 0 and usage.completion_tokens == 0):
                continue
            self._prepaid[id(completion)] = completion
            if record:
                amount = price.cost(
                    usage.prompt_tokens, usage.completion_tokens, cached_tokens=usage.cached_tokens, batch=True
                )
                self.meter.record(amount)
                self.by_role[role] = self.by_role.get(role, 0.0) + amount

    def session_usage(self, roles: Iterable[str]) -> dict[str, dict[str, Any]]:
        """What `usage.jsonl` keeps of this session's spend per priced role."""
        return {
            role: {"cost": round(self.by_role.get(role, 0.0), 10), "currency": self.meter.currency}
            for role in roles
            if self.price(role) is not None
        }


def meter_for(
    prices: Prices,
    specs: Iterable[str],
    *,
    limit: float | None = None,
    estimates: Mapping[str, int] | None = None,
    previous: float = 0.0,
    source: str = "the prices",
) -> CostMeter:
    """The meter of runs whose roles are bound to `specs`; with a limit, every spec must have a price
    in `prices` (named `source` in the error), checked before anything is sent or written."""
    unpriced = missing_prices(prices, specs)
    if limit is not None and unpriced:
        raise UsageError(
            f"a cost limit needs a price for every model: {source} has no price for "
            f"{', '.join(unpriced)}; add them (e.g. {unpriced[0]}: {{input: 0, output: 0}} for a "
            "free local model)"
        )
    return CostMeter(prices, limit=limit, estimates=dict(estimates or {}), previous=previous)


def observed_outputs(sessions: Iterable[Mapping[str, Any]]) -> dict[str, tuple[int, int]]:
    """Per role, the answers (requests less errors, cache hits included) and their reported output
    tokens that earlier sessions of a run recorded in `usage.jsonl`: the start of `RunSpend.outputs`."""
    found: dict[str, tuple[int, int]] = {}
    for session in sessions:
        for role, stats in session.get("roles", {}).items():
            if isinstance(stats, dict):
                answers, tokens = found.get(role, (0, 0))
                found[role] = (
                    answers + max(0, int(stats.get("requests") or 0) - int(stats.get("errors") or 0)),
                    tokens + int(stats.get("completion_tokens") or 0),
                )
    return found


def previous_spend(sessions: Iterable[Mapping[str, Any]]) -> float:
    """The spend earlier sessions of a run recorded in `usage.jsonl` (sessions without prices add 0)."""
    return sum(
        float(stats.get("cost") or 0.0)
        for session in sessions
        for stats in session.get("roles", {}).values()
        if isinstance(stats, dict)
    )
