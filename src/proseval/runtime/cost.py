"""What requests cost: tokens counted offline, prices from the user's file, the spend of a run
recorded from real usage, and the limit `--max-cost` puts on it (docs/many-models.md, "Cost").

Counting. A request's input tokens are counted offline with cl100k_base (`proseval.tokens`;
the only tokenizer proseval ships, used for every model as a stated approximation) in the
OpenAI chat format: 3 tokens per message, its role and content, 1 more per `name`, and 3
priming the reply. Its output is estimated, in this order, by the user's stated estimate for
the role (`--estimate-output ROLE=TOKENS`), the request's `max_tokens`, or a default per role
(`DEFAULT_OUTPUT`: 1,024 for the candidate, 256 for any other role).

Spending. A `CostMeter` holds the spend recorded from real usage (a completion's reported
prompt and completion tokens × the price of the binding that answered, less the batch discount
for a role in batch mode; a cache hit costs nothing) and, with a limit, what requests in flight
may still cost. Before a request is sent its cost is estimated (input counted, output as
above) and reserved; a request whose reservation would take the recorded spend plus every
reservation past the limit is not sent (`CostLimitReached`), and the meter is stopped: no new
sample starts. Samples in flight go on while their requests fit; one whose request is refused
is abandoned without a record (its finished requests stay in the response cache, so a resume
gets them back for nothing). As long as a reply costs no more than its reservation (output
within `max_tokens`, input counted as the provider counts it), the spend never passes the
limit; otherwise by at most what the requests in flight cost beyond their reservations.

One meter can be shared by several runs (an evaluation set): each run reports through its own
`RunSpend`, which keeps the run's spend per role for its `usage.jsonl` and `results.json`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.prices import ModelPrice, Prices
from ..models.base import Completion, FatalError, GenerateConfig, Message
from ..tokens import count_tokens

CANDIDATE_OUTPUT = 1024
OTHER_OUTPUT = 256
DEFAULT_OUTPUT = {"candidate": CANDIDATE_OUTPUT}
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
REPLY_PRIMING = 3


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


def price_of(prices: Prices | None, spec: str) -> ModelPrice | None:
    return None if prices is None else prices.of(spec)


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
    reserved: float = 0.0
    stopped: bool = False  # a request was refused, or nothing more fits: start no new sample
    refused: int = 0
    largest: float = 0.0  # the costliest single request recorded
    unreported: int = 0  # completions without reported usage (counted offline instead)

    def __post_init__(self) -> None:
        self.spent = max(self.spent, self.previous)

    @property
    def currency(self) -> str:
        return self.prices.currency

    @property
    def limited(self) -> bool:
        return self.limit is not None

    def full(self) -> bool:
        """Whether no new sample should start: stopped, or the spend and reservations at the limit."""
        return self.stopped or (self.limit is not None and self.spent + self.reserved >= self.limit)

    def reserve(self, amount: float) -> bool:
        """Reserve `amount` for a request about to be sent; False (and stopped) when it does not fit."""
        if self.limit is not None and self.spent + self.reserved + amount > self.limit:
            self.stopped = True
            self.refused += 1
            return False
        self.reserved += amount
        return True

    def release(self, amount: float) -> None:
        self.reserved = max(0.0, self.reserved - amount)

    def record(self, amount: float) -> None:
        self.spent += amount
        self.largest = max(self.largest, amount)


@dataclass
class RunSpend:
    """One run's view of a (maybe shared) meter: its roles' prices, batch roles, spend per role."""

    meter: CostMeter
    specs: dict[str, str]  # role -> binding spec
    configs: dict[str, GenerateConfig] = field(default_factory=dict)  # role -> the binding's settings
    batch_roles: frozenset[str] = frozenset()
    by_role: dict[str, float] = field(default_factory=dict)  # this session's spend per role

    def price(self, role: str) -> ModelPrice | None:
        spec = self.specs.get(role)
        return None if spec is None else self.meter.prices.of(spec)

    def estimate(self, role: str, messages: list[Message], config: GenerateConfig | dict[str, Any] | None) -> float:
        """A request's estimated cost: input counted offline, output estimated (module text)."""
        price = self.price(role)
        if price is None:
            return 0.0
        base = self.configs.get(role, GenerateConfig())
        effective = base.merged(config)
        return price.cost(message_tokens(messages), output_estimate(role, effective, self.meter.estimates),
                          batch=role in self.batch_roles)

    def before(self, role: str, messages: list[Message], config: GenerateConfig | dict[str, Any] | None) -> float:
        """Reserve a request's estimated cost (0 without a limit); raises `CostLimitReached` when it does not fit."""
        if not self.meter.limited:
            return 0.0
        amount = self.estimate(role, messages, config)
        if not self.meter.reserve(amount):
            raise CostLimitReached(
                f"not sent: its estimated cost ({money(amount, self.meter.currency)}) would take the spend "
                f"({money(self.meter.spent, self.meter.currency)}, with {money(self.meter.reserved)} in flight) "
                f"past --max-cost {money(self.meter.limit or 0.0, self.meter.currency)}")
        return amount

    def after(self, role: str, reserved: float, completion: Completion | None,
              messages: list[Message] | None = None) -> None:
        """Release the reservation; record what the completion really cost (None: the request
        failed, nothing recorded). A reply without reported usage is counted offline instead."""
        self.meter.release(reserved)
        if completion is None or completion.cached:
            return
        price = self.price(role)
        if price is None:
            return
        prompt, completion_tokens = completion.usage.prompt_tokens, completion.usage.completion_tokens
        if prompt == 0 and completion_tokens == 0:
            self.meter.unreported += 1
            prompt, completion_tokens = message_tokens(messages or []), count_tokens(completion.text)
        amount = price.cost(prompt, completion_tokens, batch=role in self.batch_roles)
        self.meter.record(amount)
        self.by_role[role] = self.by_role.get(role, 0.0) + amount

    def session_usage(self, roles: Iterable[str]) -> dict[str, dict[str, Any]]:
        """What `usage.jsonl` keeps of this session's spend per priced role."""
        return {role: {"cost": round(self.by_role.get(role, 0.0), 10), "currency": self.meter.currency}
                for role in roles if self.price(role) is not None}


def previous_spend(sessions: list[dict[str, Any]]) -> float:
    """The spend earlier sessions of a run recorded in `usage.jsonl` (sessions without prices add 0)."""
    return sum(float(stats.get("cost") or 0.0) for session in sessions
               for stats in session.get("roles", {}).values() if isinstance(stats, dict))
