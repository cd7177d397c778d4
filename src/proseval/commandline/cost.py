"""Cost on the command line: `--prices`, `--max-cost`, `--estimate-output`, the `--dry-run` tables and
the message a run stopped at its cost limit ends with (the machinery: `runtime.cost`, `runtime.dryrun`)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, Optional

import typer
from rich.markup import escape
from rich.table import Table

from ..core.prices import Prices, finite_amount, read_prices
from ..core.task import Task
from ..runtime.config import CostOptions
from ..runtime.cost import (
    CANDIDATE_OUTPUT,
    OTHER_OUTPUT,
    CostMeter,
    Refusal,
    meter_for,
    missing_prices,
    money,
    observed_outputs,
    previous_spend,
    round_up,
)
from ..runtime.dryrun import Estimate, estimate_run
from ..runtime.loop import run_async
from ..runtime.records import RoleBinding
from ..runtime.runlog import RunFolder
from .console import console, errors, fail
from .requests import checked, counts_by_role

STOPPED_AT_COST_LIMIT = 3  # the exit status of a run stopped by --max-cost (resumable)
MARGIN = 0.25  # a suggested limit's share on top of what the samples left should cost
ESTIMATED_PAIRS = 50  # the samples (left, and finished) whose requests a suggested limit estimates (spread over them)

PricesOpt = typer.Option(
    None,
    "--prices",
    help="Prices file (YAML: currency, and per model input/output prices "
    "per million tokens, optional batch_discount; see docs/many-models.md#cost): the spend is "
    "recorded per role, and --dry-run and --max-cost price the requests.",
)
MaxCostOpt = typer.Option(
    None,
    "--max-cost",
    help="Stop starting new work once the spend recorded from real usage "
    "(plus what requests in flight are expected to cost) would pass this amount, in the prices "
    "file's currency; the run stays resumable. Needs --prices.",
)
DryRunOpt = typer.Option(
    False,
    "--dry-run",
    help="Send nothing and write nothing: per task and role, the requests, "
    "input tokens (counted offline), output tokens (estimated) and cost (with --prices).",
)
EstimateOutputOpt = typer.Option(
    None,
    "--estimate-output",
    help="ROLE=TOKENS: the output tokens a request of ROLE "
    "is expected to use, for --dry-run, and for --max-cost until the role's first answer "
    "(then the mean of its answers) (default: its max_tokens, else "
    f"{CANDIDATE_OUTPUT} for the candidate, {OTHER_OUTPUT} for other roles). Repeatable.",
)


@dataclass
class CostRequest:
    """What the cost options ask for, checked."""

    prices_path: Path | None = None
    prices: Prices | None = None
    max_cost: float | None = None
    estimates: dict[str, int] = field(default_factory=dict)

    def meter(self, bindings: Iterable[RoleBinding], *, previous: float = 0.0) -> CostMeter | None:
        """The meter of a run with these bindings (None without prices); with --max-cost, every
        binding's model must be priced (else the command stops here, before anything is written)."""
        if self.prices is None:
            return None
        specs = [b.spec for b in bindings]
        meter = meter_for(
            self.prices,
            specs,
            limit=self.max_cost,
            estimates=self.estimates,
            previous=previous,
            source=str(self.prices_path),
        )
        unpriced = missing_prices(self.prices, specs)
        if unpriced:
            errors.print(
                f"[yellow]note:[/] {escape(str(self.prices_path))} has no price for "
                f"{escape(', '.join(unpriced))}: their spend is not recorded",
                highlight=False,
            )
        return meter


def cost_request(
    prices: Optional[Path],
    max_cost: Optional[float],
    estimate_output: Optional[list[str]] = None,
    file: Optional[CostOptions] = None,
) -> CostRequest:
    """The cost options checked: --max-cost needs --prices and is positive; estimates are counts.
    `file` holds the cost keys of a config or set file (`prices`, `max_cost`, `estimate_output`):
    each flag wins over its key."""
    keys = file or CostOptions()
    if max_cost is not None:
        try:
            finite_amount(max_cost)
        except ValueError as exc:
            fail(f"--max-cost {exc}")
        if not max_cost > 0:
            fail(f"--max-cost must be a positive amount (got {max_cost})")
    limit = "--max-cost" if max_cost is not None else "max_cost: in the file"
    prices = prices if prices is not None else (Path(keys.prices) if keys.prices is not None else None)
    max_cost = max_cost if max_cost is not None else keys.max_cost
    if max_cost is not None and prices is None:
        fail(
            f"{limit} needs --prices FILE"
            + (" or prices: in the file" if file is not None else "")
            + " (the price of each model, in the currency the limit is in)"
        )
    estimates = (
        checked(lambda: counts_by_role(estimate_output, "--estimate-output"))
        if estimate_output
        else dict(keys.estimate_output)
    )
    for role, tokens in estimates.items():
        if tokens < 1:
            fail(f"--estimate-output {role}={tokens}: TOKENS must be at least 1")
    loaded = read_prices(prices) if prices is not None else None
    return CostRequest(prices, loaded, max_cost, estimates)


def run_spend(folder: RunFolder) -> float:
    """What a run folder's sessions recorded as spent."""
    return previous_spend(folder.read_usage()) if folder.path.is_dir() else 0.0


# --- dry runs ---------------------------------------------------------------------------------


def _int(value: int) -> str:
    return f"{value:,}"


def _money(value: float | None) -> str:
    return "—" if value is None else money(value)


DRY_RUN_TITLE = "Dry run: nothing sent, nothing written"


def estimate_table(estimates: list[Estimate], currency: str | None, title: str = DRY_RUN_TITLE) -> Table:
    """Per task (member) and role: requests, input and output tokens, cost at full and batch price."""
    title += f"; cost in {currency}" if currency else ""
    table = Table(title=title, title_justify="left")
    for name in ("task", "role", "model", "samples", "calls", "tok in", "tok out", "cost", "batch cost"):
        left = name in ("task", "role", "model")
        table.add_column(
            name,
            justify="left" if left else "right",
            overflow="fold",
            min_width={"task": 6, "role": 9, "model": 12}.get(name),
        )
    totals = [0, 0, 0]
    full: list[float | None] = []
    batch: list[float | None] = []
    for estimate in estimates:
        first = True
        for role, r in estimate.roles.items():
            mode = " (batch mode)" if r.batch else ""
            table.add_row(
                escape(estimate.label) if first else "",
                escape(role + mode),
                escape(r.spec),
                _int(estimate.samples) if first else "",
                _int(r.requests),
                _int(r.input_tokens),
                _int(r.output_tokens),
                _money(r.cost()) if r.requests else _money(0.0),
                _money(r.cost(batch=True)) if r.requests else _money(0.0),
            )
            first = False
            totals[0] += r.requests
            totals[1] += r.input_tokens
            totals[2] += r.output_tokens
            if r.requests:
                full.append(r.cost())
                batch.append(r.cost(batch=True))
    if len(estimates) > 1 or any(len(e.roles) > 1 for e in estimates):
        table.add_section()
        table.add_row(
            "[bold]total[/]",
            "",
            "",
            _int(sum(e.samples for e in estimates)),
            *(_int(t) for t in totals),
            _money(_sum(full)),
            _money(_sum(batch)),
        )
    return table


def _sum(costs: list[float | None]) -> float | None:
    """The total, unknown (None) when any part is."""
    return None if None in costs else sum(c for c in costs if c is not None)


def print_set_estimates(
    setplan: Any, request: CostRequest, *, retry_failed: bool = False, title: str = DRY_RUN_TITLE
) -> list[Estimate]:
    """The dry run of an evaluation set: each member's estimate (a member that would be refused
    said so instead), printed as one table under `title`; the estimates."""
    from ..runtime.sets import estimate_set

    estimates = []
    for member, decision, reason, estimate in run_async(
        estimate_set(setplan, prices=request.prices, estimates=request.estimates, retry_failed=retry_failed)
    ):
        if estimate is None:
            console.print(
                f"[yellow]{escape(member.name)}: would be refused[/]: {escape(reason or '')}", highlight=False
            )
            continue
        estimate.label = f"{member.name} ({decision})"
        estimates.append(estimate)
    print_estimates(estimates, request, title)
    return estimates


def print_estimates(estimates: list[Estimate], request: CostRequest, title: str = DRY_RUN_TITLE) -> None:
    """The dry run's table and what its figures assume."""
    currency = request.prices.currency if request.prices is not None else None
    console.print(estimate_table(estimates, currency, title))
    for line in [*_price_notes(estimates, request), *_assumptions(estimates)]:
        console.print(line, highlight=False)


def _price_notes(estimates: list[Estimate], request: CostRequest) -> list[str]:
    """What the prices cover: the models without one, the cost as configured (batch prices), the
    estimate against --max-cost."""
    specs = [r.spec for e in estimates for r in e.roles.values() if r.requests]
    if request.prices is None:
        return [
            f"no prices: tokens only; prices missing for {escape(', '.join(missing_prices(None, specs)))} "
            "(give --prices FILE; see docs/many-models.md#cost)"
        ]
    currency = request.prices.currency or ""
    notes = []
    unpriced = missing_prices(request.prices, specs)
    if unpriced:
        notes.append(
            f"[yellow]prices missing[/] in {escape(str(request.prices_path))} for: "
            f"{escape(', '.join(unpriced))} (their cost and the totals are shown as —)"
        )
    expected = [cost for e in estimates if (cost := e.expected_cost()) is not None]
    if len(expected) < len(estimates):
        return notes
    total = sum(expected)
    if any(r.batch for e in estimates for r in e.roles.values()):
        notes.append(f"as configured (batch price for the roles in batch mode): {money(total, currency)}")
    if request.max_cost is not None:
        verdict = "within" if total <= request.max_cost else "[bold yellow]past[/]"
        notes.append(
            f"the estimate, {money(total, currency)}, is {verdict} --max-cost {money(request.max_cost, currency)}"
        )
    return notes


def _assumptions(estimates: list[Estimate]) -> list[str]:
    """What the figures rest on: pairs already finished, where output tokens come from, how input
    tokens are counted, samples that failed on synthetic replies."""
    notes = []
    done = sum(e.done for e in estimates)
    if done:
        notes.append(f"{done} (sample, epoch) pair(s) already finished are not counted")
    sources: dict[str, set[str]] = {}
    for e in estimates:
        for role, r in e.roles.items():
            sources.setdefault(role, set()).update(r.sources)
    notes.append(
        "tokens out from: " + ", ".join(f"{role} {'/'.join(sorted(kinds))}" for role, kinds in sources.items() if kinds)
    )
    reasks = sum(r.reasks for e in estimates for r in e.roles.values())
    notes.append(
        "input tokens: counted offline with cl100k_base in the OpenAI chat format (other tokenizers "
        "differ by a few percent); output tokens: --estimate-output, else max_tokens (an upper "
        f"bound), else {CANDIDATE_OUTPUT} for the candidate and {OTHER_OUTPUT} for other roles; one "
        "attempt per judge request (replies assumed to parse"
        + (f"; {reasks} re-ask(s) not counted" if reasks else "")
        + ")"
    )
    failed = sum(e.errors for e in estimates)
    if failed:
        notes.append(
            f"[yellow]{failed} sample(s) ended in an error on synthetic replies[/]: their later "
            "requests are not counted"
        )
    return notes


def dry_run(
    task: Task,
    bindings: dict[str, RoleBinding],
    request: CostRequest,
    *,
    limit: Optional[int],
    epochs: int,
    done: Iterable[tuple[str, int]] = (),
    label: Optional[str] = None,
    batch_roles: Iterable[str] = (),
) -> Estimate:
    """Estimate one run (the pairs in `done` skipped) and print it; sends and writes nothing."""
    estimate = run_async(
        estimate_run(
            task,
            bindings,
            limit=limit,
            epochs=epochs,
            done=done,
            prices=request.prices,
            estimates=request.estimates,
            batch_roles=batch_roles,
            label=label,
        )
    )
    print_estimates([estimate], request)
    return estimate


# --- the end of a run stopped at its limit ----------------------------------------------------------


def stop_if_limited(meter: CostMeter | None, folder: RunFolder, results: Any, request: CostRequest) -> None:
    """After a run: if --max-cost stopped it, say so, how to go on, and exit with status 3."""
    if meter is None or not meter.limited or results.complete or not meter.full():
        return
    stopped(meter, folder, results, request)


def pair_costs(folder: RunFolder, prices: Prices) -> dict[tuple[str, int], float]:
    """What each finished (sample, epoch) pair of a run cost: its record's tokens at `prices` (the
    batch price for the run's roles in batch mode; cache hits priced as if paid)."""
    header = folder.read_header()
    costs = {}
    for sample in folder.iter_scored():
        cost = 0.0
        for role, usage in sample.usage.items():
            price = prices.of(header.roles[role].spec) if role in header.roles else None
            if price is not None:
                cost += price.cost(
                    usage.prompt_tokens,
                    usage.completion_tokens,
                    cached_tokens=usage.cached_tokens,
                    batch=role in header.batch,
                )
        costs[(sample.id, sample.epoch)] = cost
    return costs


def reserved_outputs(folder: RunFolder, stated: Mapping[str, int] | None = None) -> dict[str, int]:
    """The output tokens a resume of the run reserves per request of each role: the mean of the role's
    answers so far (`usage.jsonl`), else the stated estimate (`--estimate-output`)."""
    reserved = dict(stated or {})
    for role, (answers, tokens) in observed_outputs(folder.read_usage()).items():
        if answers:
            reserved[role] = max(1, math.ceil(tokens / answers))
    return reserved


def spread(keys: list[tuple[str, int]], most: int = ESTIMATED_PAIRS) -> set[tuple[str, int]]:
    """At most `most` of `keys`, spread evenly over them."""
    step = max(1, math.ceil(len(keys) / most))
    return set(keys[::step])


def pair_estimate(
    folder: RunFolder, task: Task, prices: Prices, stated: Mapping[str, int] | None = None
) -> float | None:
    """What a (sample, epoch) pair left in the run of `task` should cost at most: the cost of its
    requests at the reservations a resume makes for them (the dry run, `runtime.dryrun`, of up to
    `ESTIMATED_PAIRS` pairs spread over those left: each request's input counted, its output at
    `reserved_outputs`, a cache hit priced as if paid), scaled up by what the finished pairs cost beyond
    the same estimate of them (the rounds and re-asks a dry run does not see), never down; per pair.
    None when it cannot be told (no pair left, a role without a price)."""
    from ..runtime.plan import SamplePlan

    try:
        header = folder.read_header()
        paid = pair_costs(folder, prices)
        plan = SamplePlan(task, header.limit)
        keys = [(sample.id, epoch) for epoch in range(header.epochs) for sample in plan.samples()]
        reserved = reserved_outputs(folder, stated)

        def estimate(chosen: set[tuple[str, int]]) -> tuple[float | None, int]:
            found = run_async(
                estimate_run(
                    task,
                    header.roles,
                    limit=header.limit,
                    epochs=header.epochs,
                    done=set(keys) - chosen,
                    prices=prices,
                    estimates=reserved,
                    batch_roles=header.batch,
                )
            )
            return found.expected_cost(), found.samples

        left, n_left = estimate(spread([key for key in keys if key not in paid]))
        if left is None or not n_left:
            return None
        finished = spread([key for key in keys if key in paid])
        scale = 1.0
        if finished:
            again, _ = estimate(finished)
            if again:
                scale = max(1.0, sum(paid[key] for key in finished) / again)
    except Exception:  # noqa: BLE001 - a suggestion goes by what can be told; the stop itself stands
        return None
    return left / n_left * scale


def run_progress(
    folder: RunFolder, prices: Prices, total: int, stated: Mapping[str, int] | None = None, task: Task | None = None
) -> tuple[int, float | None]:
    """A run's (sample, epoch) pairs left of its `total`, and what one of them should cost at most
    (`pair_estimate`, given the run's `task`; without it, the mean cost of a finished pair); None when
    neither can be told."""
    if not folder.exists():
        return total, None
    paid = pair_costs(folder, prices)
    left = max(0, total - len(paid))
    per_pair = pair_estimate(folder, task, prices, stated) if left and task is not None else None
    if per_pair is None and paid:
        per_pair = sum(paid.values()) / len(paid)
    return left, per_pair


def cost_left(progress: Iterable[tuple[int, float | None]]) -> float | None:
    """What the pairs left of some runs (their `run_progress`) should cost at most: each run's cost of a
    pair × its pairs left, a run without one at the mean over the others; None when no run has one."""
    progress = list(progress)
    means = [mean for _, mean in progress if mean is not None]
    if not means:
        return None
    fallback = sum(means) / len(means)
    return sum(left * (fallback if mean is None else mean) for left, mean in progress)


def one_request(meter: CostMeter) -> float:
    """What one more request may need: the reservation the limit refused, the costliest request
    recorded, or a hundredth of the limit, whichever is largest."""
    refused = meter.refusal.amount if meter.refusal is not None else 0.0
    return max(refused, meter.largest, 0.01 * (meter.limit or 1.0))


def suggested_limit(meter: CostMeter, left: float | None) -> float:
    """A --max-cost with which one resume should finish the work, an upper estimate: the spend so far
    plus what the work left should cost at most (`cost_left`) with `MARGIN` more; at least the spend
    or the limit plus one more request (`one_request`); twice that with nothing to go by. Rounded up
    to two significant digits."""
    floor = max(meter.spent, meter.limit or 0.0) + one_request(meter)
    guess = meter.spent + left * (1 + MARGIN) if left is not None else 2 * floor
    return round_up(max(guess, floor))


SOURCES = {
    "max_tokens": "its max_tokens",
    "default": "the role's default",
    "stated": "--estimate-output",
    "mean": "the mean of its answers so far",
}


def too_small(meter: CostMeter) -> Refusal | None:
    """The refused request, when the limit left this command less room than that one request needs
    (however the requests in flight had ended, it could not have been sent)."""
    refusal = meter.refusal
    if refusal is None or meter.limit is None or refusal.amount <= meter.limit - meter.previous:
        return None
    return refusal


def resume_command(folder: RunFolder, request: CostRequest, limit: float) -> str:
    """`proseval resume` with the run's prices file, its output estimates and `limit` (markup escaped)."""
    stated = "".join(f" --estimate-output {role}={tokens}" for role, tokens in request.estimates.items())
    return (
        f"proseval resume {escape(str(folder.path))} --prices {escape(str(request.prices_path))} "
        f"--max-cost {limit:g}{stated}"
    )


def limit_reason(meter: CostMeter) -> str:
    """Why the limit stopped the work, for the stop message: a limit too small for the request it
    refused (`too_small`), with the ways to let it go; else the spend against the limit."""
    currency = meter.currency
    limit = meter.limit or 0.0
    refusal = too_small(meter)
    if refusal is None:
        return f"spent {money(meter.spent, currency)} of {money(limit, currency)}"
    room = max(0.0, limit - meter.previous)
    role = escape(refusal.role)
    return (
        f"--max-cost {money(limit, currency)} is too small for one {role} request: it reserves "
        f"{money(refusal.amount, currency)} (its input and {refusal.output_tokens:,} output tokens: "
        f"{SOURCES.get(refusal.source, refusal.source)}), more than the {money(room, currency)} the limit leaves; "
        f"lower the reservation with --estimate-output {role}=TOKENS (the output tokens one answer should need), "
        f"or raise the limit (this request alone needs {money(meter.previous + refusal.amount, currency)})"
    )


def stopped(meter: CostMeter, folder: RunFolder, results: Any, request: CostRequest) -> NoReturn:
    counts = results.counts
    left, per_pair = run_progress(folder, meter.prices, counts.total, meter.estimates, meter.task_in(folder.path))
    rest = cost_left([(left, per_pair)])
    resume = resume_command(folder, request, suggested_limit(meter, rest))
    errors.print(
        f"[bold yellow]stopped at the cost limit:[/] {limit_reason(meter)}; {counts.finished}/{counts.total} "
        f"samples finished, the others are left to a resume: {resume}",
        highlight=False,
    )
    errors.print(how_suggested(meter, left, rest), highlight=False)
    raise typer.Exit(STOPPED_AT_COST_LIMIT)


def how_suggested(meter: CostMeter, left: int, rest: float | None) -> str:
    """How the suggested limit was reached (`suggested_limit`), in a line."""
    currency = meter.currency
    more = money(one_request(meter), currency)
    if rest is None:
        return (
            f"(the suggested limit: twice the larger of the spend and the limit plus one more request of {more}; "
            "nothing to estimate the samples left by)"
        )
    return (
        f"(the suggested limit, an upper estimate: the {money(meter.spent, currency)} spent plus "
        f"{money(rest, currency)} for the {left} sample(s) left — their requests at what a resume reserves for "
        "them: input counted, output the mean of the role's answers so far, its output estimate before the "
        "first; scaled up if the finished samples cost more than the same estimate of them — and a quarter "
        f"more; at least the larger of the spend and the limit plus one more request of {more}; rounded up)"
    )
