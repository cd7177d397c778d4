"""`proseval profile MODEL...`: a model's writing profile over the six benchmarks, as evaluation sets."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer

from ..commandline.options import NoProbeOpt

if TYPE_CHECKING:
    from ..profile.suite import Size

app = typer.Typer()  # this module's commands, mounted by name from cli/__init__.py

# Above either, the estimate asks before anything is sent (unless --yes).
CONFIRM_REQUESTS = 2_000
CONFIRM_COST = 5.0


@app.command("profile")
def profile_cmd(
    models: Optional[list[str]] = typer.Argument(
        None, help="The model(s) to profile, PROVIDER/MODEL; two or more are compared benchmark by benchmark."
    ),
    judge: Optional[str] = typer.Option(
        None,
        "--judge",
        "-j",
        help="PROVIDER/MODEL bound to every judging role "
        "of every benchmark (judges, Meeseeks' extractor, Revision Distance's "
        "reviser); --role wins over it.",
    ),
    size: str = typer.Option(
        "quick",
        "--size",
        "-s",
        help="quick (a fixed stratified subset of each benchmark, "
        "minutes), standard, or paper (each paper's preset, full size).",
    ),
    out: Path = typer.Option(
        Path("profile"),
        "--out",
        "-o",
        help="Folder of the profile: its set files, run "
        "folders, profile.json and profile.html. Running again resumes it.",
    ),
    role: Optional[list[str]] = typer.Option(
        None,
        "--role",
        "-r",
        help="ROLE=PROVIDER/MODEL for that role in every "
        "benchmark, or BENCHMARK.ROLE=PROVIDER/MODEL for one (e.g. "
        "meeseeks.extractor=..., ravel.reviser=...). Repeatable.",
    ),
    base_url: Optional[list[str]] = typer.Option(
        None,
        "--base-url",
        help="The OpenAI-compatible endpoint of "
        "every openai and openai-compatible model of the profile, judges "
        "included (not Anthropic's nor a named service's); repeat to "
        "spread requests over replicas.",
    ),
    role_base_url: Optional[list[str]] = typer.Option(
        None,
        "--role-base-url",
        help="ROLE=URL: the endpoint of one "
        "role in every benchmark, instead of --base-url; "
        "judge=URL reaches every role --judge binds (e.g. "
        "judge=http://judge:8000/v1). Repeatable.",
    ),
    concurrency: Optional[int] = typer.Option(
        None, "--concurrency", "-c", help="Requests in flight per role of each run (default: 16 remote, 1 local)."
    ),
    data: Optional[list[str]] = typer.Option(
        None,
        "--data",
        help="NAME=DIR: where a data set is (c3ebench, meeseeks, writingbench; see --show-suite). Repeatable.",
    ),
    download: bool = typer.Option(
        False,
        "--download",
        help="Fetch the official data of the benchmarks that can "
        "download it (pinned, checked) when it is not there yet.",
    ),
    suite_file: Optional[Path] = typer.Option(None, "--suite", help="Your own suite file (start from --show-suite)."),
    show_suite: bool = typer.Option(False, "--show-suite", help="Print the bundled suite file and exit."),
    batch: Optional[list[str]] = typer.Option(
        None,
        "--batch",
        help="ROLE: send this role's requests through the "
        "provider's batch API (proseval docs many-models, Batch mode). Repeatable.",
    ),
    prices: Optional[Path] = typer.Option(
        None,
        "--prices",
        help="Prices file: the estimate prices every request and the spend is recorded (proseval docs many-models).",
    ),
    max_cost: Optional[float] = typer.Option(
        None,
        "--max-cost",
        help="Stop starting new work once the recorded "
        "spend of the whole profile would pass this amount (needs --prices); "
        "running again with a higher limit continues.",
    ),
    yes: bool = typer.Option(
        False,
        "--yes",
        "-y",
        help=f"Do not ask before a profile estimated at more than "
        f"{CONFIRM_REQUESTS:,} requests or {CONFIRM_COST:g} in the prices' currency.",
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the bindings and the estimate; send nothing."),
    no_probe: bool = NoProbeOpt,
    display: Optional[str] = typer.Option(None, "--display", help="Progress display: rich, plain (log lines) or none."),
) -> None:
    """Profile how a model writes: the six benchmarks as one suite, then one report with a row per benchmark,
    never averaged into one number.

    See proseval docs profile: what each size runs, the bindings, the report and the papers' figures."""
    from ..commandline.console import fail
    from ..profile.suite import SIZES, bundled_text, load_suite, size_named

    if show_suite:
        typer.echo(bundled_text(), nl=False)  # as written: a console would wrap long lines at its width
        return
    if not models:
        fail("name the model(s) to profile, e.g. proseval profile openai/gpt-4o-mini --judge openai/gpt-4o")
    chosen = size_named(size)
    if chosen is None:
        fail(f"--size {size}: choose one of {', '.join(SIZES)}")
    run_profile(
        load_suite(suite_file),
        chosen,
        models,
        out=out,
        judge=judge,
        roles=role or [],
        base_url=base_url or [],
        role_base_url=role_base_url or [],
        concurrency=concurrency,
        data=data or [],
        download=download,
        batch=batch or [],
        prices=prices,
        max_cost=max_cost,
        yes=yes,
        dry_run=dry_run,
        display=display,
        probe=not no_probe,
        interactive=sys.stdin.isatty(),
    )


def _bindings_table(plan: Any) -> Any:
    """Each benchmark's roles and the model bound to each, the candidate's included."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=f"Profile bindings (size {plan.size})", title_justify="left")
    for name in ("benchmark", "role", "model"):
        table.add_column(name, overflow="fold")
    candidates = ", ".join(plan.labels())
    for bench in plan.suite.benchmarks:
        if bench.name not in plan.roles:
            continue
        answers = f"its answers to {bench.drafts_from}" if bench.drafts_from else candidates
        table.add_row(escape(bench.name), "candidate", escape(answers))
        for role, spec in plan.roles[bench.name].items():
            table.add_row("", escape(role), escape(spec))
        for role in plan.unbound[bench.name]:
            table.add_row("", escape(role), "the candidate (unbound: as in the paper's main setting)")
    return table


def _estimate(setplan: Any, plan: Any, cost: Any, *, dry_run: bool) -> tuple[int, float | None]:
    """Print the run-set's estimate of the first set (and what the later sets add); its requests and cost."""
    from rich.markup import escape

    from ..commandline.console import console
    from ..commandline.cost import print_set_estimates

    title = (
        f"Estimate (dry run: nothing sent; the set written to {plan.set_file})"
        if dry_run
        else "Estimate of the profile's requests and cost, before anything is sent"
    )
    estimates = print_set_estimates(setplan, cost, title=title)
    for name in plan.later:
        source = plan.suite.get(name).drafts_from
        answers = sum(m.n_samples for m in setplan.members if m.task_label == source)
        console.print(
            f"not in the estimate: {escape(name)}, measured afterwards on the {source} answers: about one "
            f"request per answer ({answers} over the models), each sending the answer and its request",
            highlight=False,
        )
    requests = sum(r.requests for e in estimates for r in e.roles.values())
    costs = [e.cost() for e in estimates]
    return requests, (sum(c for c in costs if c is not None) if cost.prices is not None and None not in costs else None)


def _confirm(requests: int, spend: float | None, currency: str | None, *, yes: bool, interactive: bool) -> None:
    from ..commandline.console import fail

    large = requests > CONFIRM_REQUESTS or (spend is not None and spend > CONFIRM_COST)
    if yes or not large:
        return
    what = f"{requests:,} requests" + (f", {spend:.2f} {currency}" if spend is not None else "")
    if not interactive:
        fail(f"the profile is estimated at {what}: add --yes to run it without asking")
    if not typer.confirm(f"The profile is estimated at {what}. Run it?", default=False):
        raise typer.Exit(1)


def _progress_line(member: Any) -> str:
    """One member's outcome in one line: state, samples, requests, recorded spend (the full summary
    is in its run folder and in the profile report)."""
    from ..runtime.cost import money

    info = member.summary()
    parts = [member.state]
    samples, usage = info["samples"], info["usage"]
    if samples is not None:
        parts.append(
            f"{samples['finished']}/{samples['total']} samples"
            + (f", {samples['failed']} failed" if samples["failed"] else "")
        )
    if usage is not None:
        parts.append(f"{usage['requests']:,} requests")
        if usage["cost"] is not None:
            parts.append(money(usage["cost"], usage["currency"]))
    if member.reason:
        parts.append(member.reason)
    return f"{member.name}: " + ", ".join(parts)


def _run_set(
    path: Path, *, prices: Optional[Path], max_cost: Optional[float], spent: float, display: Optional[str], probe: bool
) -> int:
    """Run (or resume, failed samples retried) one of the profile's sets with the run-set machinery
    (endpoint limits, batch, cost limit over `spent`, the whole profile's recorded spend); one line
    per member; its exit status."""
    from rich.markup import escape

    from ..commandline.console import console
    from ..commandline.cost import STOPPED_AT_COST_LIMIT, cost_request
    from ..commandline.requests import display_mode
    from ..commandline.sets import plan_set
    from ..runtime.cost import money
    from ..runtime.outcome import EXIT_ENVIRONMENT, EXIT_FAILED_SAMPLES
    from .run_set import print_warnings, run_members

    setplan = plan_set(path, report=False, probe=probe)
    for member in setplan.members:  # not built, probed nor recorded: Revision Distance's unused candidate
        member.bindings = dict(_used_bindings([member]))
    cost = cost_request(prices, max_cost, None, setplan.file)
    print_warnings(setplan.warnings)
    meter = cost.meter([b for m in setplan.members for b in m.bindings.values()], previous=spent)
    try:
        result = run_members(setplan, path, mode=display_mode(display), retry_failed=True, meter=meter)
    except typer.Exit as exc:
        return exc.exit_code
    for finished in result.members:
        console.print(escape(_progress_line(finished)), highlight=False, soft_wrap=True)
    if result.failed:
        return EXIT_ENVIRONMENT
    if meter is not None and any(m.state == "stopped" for m in result.members):  # only a cost limit stops one
        console.print(
            f"stopped at --max-cost: {money(meter.spent, meter.currency)} recorded over the profile's run "
            f"folders; run the profile again with a higher --max-cost to continue",
            highlight=False,
        )
        return STOPPED_AT_COST_LIMIT
    return EXIT_FAILED_SAMPLES if result.partial else 0


def _spent(plan: Any, setplan: Any) -> float:
    """What the profile's run folders recorded as spent so far (both kinds of set)."""
    from ..commandline.cost import run_spend
    from ..runtime.runlog import RunFolder

    later = [plan.run_path(name, model) for name in plan.later for model in plan.labels()]
    return sum(run_spend(RunFolder(path)) for path in [*(m.path for m in setplan.members), *later])


def _run_later(
    plan: Any,
    entry: dict[str, Any],
    options: dict[str, Any],
    *,
    prices: Optional[Path],
    max_cost: Optional[float],
    spent: float,
    display: Optional[str],
    probe: bool,
) -> int | None:
    """One model's set of the benchmarks measured on its answers, once its answers exist (the drafts
    kept in step with them, `profile.drafts`): its exit status, or None (and why, printed) when it
    cannot run yet."""
    from rich.markup import escape

    from ..commandline.console import errors
    from ..profile.drafts import sync_drafts
    from ..profile.plan import write_later_set
    from ..runtime.runlog import RunFolder

    label, names = entry["spec"], escape(", ".join(plan.later))
    source = plan.suite.get(next(iter(plan.later))).drafts_from
    folder = RunFolder(plan.run_path(source, label))
    results = folder.read_results() if folder.has_results else None
    if results is None or not results.complete:
        why = f"the {source} run is not finished; run the profile again"
    elif not all(sync_drafts(folder.path, plan.drafts_path(label), plan.run_path(name, label)) for name in plan.later):
        why = f"the {source} run has no answer to measure"
    elif max_cost is not None and spent >= max_cost:
        why = "the cost limit is spent"
    else:
        return _run_set(
            write_later_set(plan, entry, options),
            prices=prices,
            max_cost=max_cost,
            spent=spent,
            display=display,
            probe=probe,
        )
    errors.print(f"[yellow]{names} of {escape(label)} not run:[/] {escape(why)}", highlight=False)
    return 3 if why == "the cost limit is spent" else None


def run_profile(
    suite: Any,
    size: Size,
    models: list[str],
    *,
    out: Path,
    judge: Optional[str],
    roles: list[str],
    base_url: list[str],
    role_base_url: list[str],
    concurrency: Optional[int],
    data: list[str],
    download: bool,
    batch: list[str],
    prices: Optional[Path],
    max_cost: Optional[float],
    yes: bool,
    dry_run: bool,
    display: Optional[str],
    interactive: bool,
    probe: bool = True,
) -> None:
    """Plan, probe, estimate, confirm, run the sets, then write and print the profile (see proseval docs profile)."""
    from rich.markup import escape

    from ..commandline.console import console, errors, fail
    from ..commandline.cost import cost_request
    from ..commandline.envfile import load_env_file
    from ..commandline.requests import checked
    from ..commandline.sets import plan_set
    from ..models.urls import check_url
    from ..profile.plan import model_entries, plan_profile, write_first_set
    from ..runtime.roles import parse_assignments

    load_env_file()
    before = set(_files(out)) if dry_run else set()
    if len(set(models)) != len(models):
        fail("give each model once")
    overrides = checked(lambda: parse_assignments(roles, "--role"))
    folders = checked(lambda: parse_assignments(data, "--data"))
    endpoints = _role_endpoints(role_base_url)
    for url in base_url:
        checked(lambda: check_url(url, "--base-url"))
    entries = model_entries(models, base_url, endpoints)
    plan = plan_profile(
        suite,
        size,
        out,
        entries,
        judge=judge,
        overrides=overrides,
        data=folders,
        download=download,
        base_url=base_url,
        role_urls=endpoints,
    )
    for skipped in plan.skipped:
        errors.print(
            f"[bold yellow]skipped {escape(skipped.benchmark)}:[/] {escape(skipped.reason)}",
            highlight=False,
            soft_wrap=True,
        )
    if not plan.entries:
        fail("no benchmark of the suite can run (see the reasons above)", code=1)
    console.print(_bindings_table(plan))
    options = {"concurrency": concurrency, "batch": list(batch)}
    set_file = write_first_set(plan, options)
    setplan = plan_set(set_file, report=False)
    if probe and not dry_run:
        _probe([*_used_bindings(setplan.members), *_later_bindings(plan, entries, options)])
    cost = cost_request(prices, max_cost)
    requests, spend = _estimate(setplan, plan, cost, dry_run=dry_run)
    if dry_run:
        written = [str(p.relative_to(out)) for p in _files(out) if p not in before]
        console.print(
            f"profile folder: {out} (nothing sent; written: {', '.join(written) or 'nothing'}: run the "
            "same command without --dry-run to run it)",
            highlight=False,
        )
        return
    _confirm(
        requests, spend, cost.prices.currency if cost.prices is not None else None, yes=yes, interactive=interactive
    )
    statuses = [
        _run_set(set_file, prices=prices, max_cost=max_cost, spent=_spent(plan, setplan), display=display, probe=probe)
    ]
    if statuses[0] in (130, 143):  # interrupted: the runs keep what they finished
        raise typer.Exit(statuses[0])
    for entry in entries if plan.later else []:
        status = _run_later(
            plan,
            entry,
            options,
            prices=prices,
            max_cost=max_cost,
            spent=_spent(plan, setplan),
            display=display,
            probe=probe,
        )
        if status is not None:
            statuses.append(status)
        if status in (130, 143):
            raise typer.Exit(status)
    _report(plan)
    failed = [s for s in statuses if s]
    if failed:
        raise typer.Exit(failed[0])


def _files(folder: Path) -> list[Path]:
    """The files under `folder` (none when it does not exist), in a stable order."""
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []


def _role_endpoints(items: list[str]) -> dict[str, list[str]]:
    """`--role-base-url ROLE=URL` (repeated for replicas) by role, each URL checked (`models.urls`)."""
    from ..commandline.console import fail
    from ..commandline.requests import checked
    from ..models.urls import check_url

    endpoints: dict[str, list[str]] = {}
    for item in items:
        role, sep, url = item.partition("=")
        if not sep or not role.strip() or not url.strip():
            fail(f"--role-base-url {item!r} must look like ROLE=URL")
        endpoints.setdefault(role.strip(), []).append(
            checked(lambda: check_url(url.strip(), f"--role-base-url {role.strip()}"))
        )
    return endpoints


def _later_bindings(plan: Any, entries: list[dict[str, Any]], options: dict[str, Any]) -> list[tuple[str, Any]]:
    """The role bindings of the sets measured on the answers, read from stand-in sets (over a
    stand-in drafts file in a temporary folder): the real ones need answers not bought yet."""
    import tempfile

    from ..commandline.sets import plan_set
    from ..profile.plan import write_later_set, write_stand_in

    if not plan.later:
        return []
    with tempfile.TemporaryDirectory() as folder:
        stand_in = write_stand_in(Path(folder))
        paths = [
            write_later_set(plan, entry, options, drafts=stand_in, path=Path(folder) / f"{n}.yaml")
            for n, entry in enumerate(entries)
        ]
        return [pair for path in paths for pair in _used_bindings(plan_set(path, report=False).members)]


def _used_bindings(members: list[Any]) -> list[tuple[str, Any]]:
    """Each member's bindings of the roles its task uses (a set binds its model as the candidate
    even for a task that has none: Revision Distance's)."""
    return [
        (role, binding)
        for member in members
        for role, binding in member.bindings.items()
        if role in (*member.task.roles_required, *member.task.optional_roles)
    ]


def _probe(bindings: list[tuple[str, Any]]) -> None:
    """One probe request per distinct remote binding of every run of the profile (`runtime.probe`),
    before the estimate: a wrong model, key or endpoint of any benchmark's role ends the command
    within seconds, not after the other benchmarks were bought. The probe's memo keeps the runs
    from asking again."""
    from ..errors import UsageError
    from ..models.base import ModelError
    from ..runtime.executor import RoleModel
    from ..runtime.loop import run_async
    from ..runtime.probe import UNPROBED, binding_key, probe_roles
    from ..runtime.runner import build_checked
    from ..runtime.secrets import scrub

    distinct = {binding_key(b): (role, b) for role, b in bindings if b.spec.partition("/")[0] not in UNPROBED}

    async def probe_all() -> None:
        for role, binding in distinct.values():
            where = f"{role} ({binding.spec})"
            try:
                model = build_checked(binding, where)
            except ModelError as exc:  # a missing key or endpoint
                raise UsageError(f"{where}: {scrub(str(exc))}") from None
            try:
                await probe_roles({role: RoleModel(role, model, binding.config, concurrency=1)}, {role: binding})
            finally:
                await model.aclose()

    run_async(probe_all())


def _report(plan: Any) -> None:
    """profile.json, profile.html (with the report extra) and the terminal table."""
    from rich.markup import escape

    from ..commandline.console import console, errors
    from ..profile.report import build_profile, write_profile_json
    from ..profile.terminal import print_profile

    profile = build_profile(plan)
    written = [write_profile_json(profile, plan.folder)]
    try:
        from ..profile.html import write_profile_html
    except ImportError as exc:
        errors.print(f"note: no profile.html: it needs {exc.name} (pip install 'proseval[report]')", highlight=False)
    else:
        written.append(write_profile_html(profile, plan.folder))
    print_profile(profile)
    console.print("profile: " + ", ".join(escape(str(p)) for p in written), highlight=False)
