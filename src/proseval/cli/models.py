"""`proseval describe-model SPEC`: the request a role would send to a model, and the rules that shaped it."""

from __future__ import annotations

import json
from typing import Any, Optional

import typer
from rich.markup import escape

from ..commandline.console import console, fail
from ..commandline.envfile import load_env_file
from ..commandline.options import PresetOpt
from ..commandline.requests import checked
from ..models.anthropic_messages import ANTHROPIC_BASE_URL, DEFAULT_MAX_TOKENS, api_version, request_body
from ..models.base import GenerateConfig
from ..models.families import RULES_VARIABLE, rules_for, wire_params
from ..models.openai_compat import OPENAI_BASE_URL
from ..models.spec import ModelSpec, parse_model_spec
from ..planning import plan
from ..registry import get_task
from ..runtime.records import RoleBinding
from ..runtime.roles import RoleError, RoleRequest, fit_to_model, nest_generation, parse_assignments, parse_value

app = typer.Typer()  # this module's commands, mounted by name from cli/commands.py

EXAMPLE_MESSAGES = [{"role": "user", "content": "(the task's messages)"}]


def _binding(
    spec: ModelSpec,
    role: str,
    task: Optional[str],
    preset: Optional[str],
    gen: dict[str, dict[str, Any]],
    base_urls: list[str],
    params: dict[str, Any],
) -> tuple[RoleBinding, list[str]]:
    """The binding `role` would get in a run of `task` (with `preset` and the -g settings), or with
    the -g settings alone when no task is named; with the notices a run would print."""
    if task is None:
        if preset is not None:
            fail("--preset goes with --task")
        try:
            config = GenerateConfig.model_validate(gen.get(role, {})).checked()
        except ValueError as exc:
            fail(f"-g {role}.PARAM=VALUE: {exc}")
        binding = RoleBinding(spec=spec.spec, base_urls=list(spec.base_urls), config=config)
        fitted, _ = checked(lambda: fit_to_model(role, binding, spec, gen.get(role, {})))
        return fitted, []
    built = checked(lambda: get_task(task, params))
    others = {r: "scripted/echo" for r in built.roles_required if r != role}
    request = RoleRequest(roles={**others, role: spec.spec}, base_urls=base_urls, generation=gen)
    planned = checked(lambda: plan(task, request, params=params, preset=preset))
    if role not in planned.bindings:
        fail(f"{task} has no role {role} (its roles: {', '.join(sorted(planned.bindings))})")
    return planned.bindings[role], [w for w in planned.warnings if "deviates from the preset" in w]


def request_preview(spec: ModelSpec, config: GenerateConfig) -> tuple[str, dict[str, str], dict[str, Any]]:
    """Where a request of `config` goes, the headers that depend on the model, and its body."""
    rules = rules_for(spec.provider, spec.model)
    if spec.provider == "anthropic":
        url = (spec.base_urls[0] if spec.base_urls else ANTHROPIC_BASE_URL).rstrip("/") + "/v1/messages"
        headers = {"anthropic-version": api_version(spec.model)}
        return url, headers, request_body(spec.model, EXAMPLE_MESSAGES, config, rules)
    base = spec.base_urls[0] if spec.base_urls else OPENAI_BASE_URL if spec.provider == "openai" else "(--base-url)"
    body = {"model": spec.model, "messages": EXAMPLE_MESSAGES, **wire_params(config.sent_params(), rules)}
    return base.rstrip("/") + "/chat/completions", {}, body


@app.command("describe-model")
def describe_model(
    spec: str = typer.Argument(..., help="PROVIDER/MODEL, e.g. openai/gpt-5-mini or anthropic/claude-sonnet-4-5."),
    role: str = typer.Option("candidate", "--role", "-r", help="The role the model would play."),
    task: Optional[str] = typer.Option(
        None,
        "--task",
        "-t",
        help="The task whose settings for the role apply (see: proseval list); without it, only the -g settings.",
    ),
    preset: Optional[str] = PresetOpt,
    param: Optional[list[str]] = typer.Option(
        None,
        "--param",
        "-T",
        help="KEY=VALUE task parameter (e.g. data_dir=PATH for a task whose data must be found). Repeatable.",
    ),
    gen: Optional[list[str]] = typer.Option(
        None, "--gen", "-g", help="ROLE.PARAM=VALUE generation setting, as for run. Repeatable."
    ),
    base_url: Optional[list[str]] = typer.Option(None, "--base-url", help="Endpoint of an OpenAI-compatible model."),
    as_json: bool = typer.Option(False, "--json", help="Print the description as JSON."),
) -> None:
    """Show the request body a role would send to a model, what is not sent and why, and the model's rules."""
    load_env_file()
    try:
        parsed = parse_model_spec(spec, list(base_url or ()))
        settings = nest_generation(((k.strip(), parse_value(v)) for k, _, v in (g.partition("=") for g in gen or ())))
        params = {k: parse_value(v) for k, v in parse_assignments(list(param or ()), "--param").items()}
    except (ValueError, RoleError) as exc:
        fail(str(exc))
    binding, notices = _binding(parsed, role, task, preset, settings, list(base_url or ()), params)
    rules = rules_for(parsed.provider, parsed.model)
    url, headers, body = request_preview(parsed, binding.config)
    description: dict[str, Any] = {
        "model": parsed.spec,
        "role": role,
        "task": task,
        "preset": preset,
        "url": url,
        "headers": headers,
        "body": body,
        "not_sent": binding.not_sent,
        "rules": rules.as_dict(),
        "families": [f.model_dump(by_alias=True, exclude_none=True) for f in rules.families],
    }
    if parsed.provider == "anthropic" and "max_tokens" not in binding.config.sent_params():
        description["notes"] = [f"max_tokens is required by the API: {DEFAULT_MAX_TOKENS} is sent when none is set"]
    if as_json:
        print(json.dumps(description, indent=2, ensure_ascii=False))
        return
    console.print(
        f"[bold]{escape(parsed.spec)}[/] as {role}"
        + (f" in {task}" if task else "")
        + (f" (preset {preset})" if preset else ""),
        highlight=False,
    )
    console.print(f"POST {escape(url)}" + "".join(f"\n{k}: {v}" for k, v in headers.items()), highlight=False)
    console.print_json(json.dumps(body, ensure_ascii=False))
    for item in binding.not_sent:
        console.print(
            f"not sent: {item['setting']}={item['value']!r}: {escape(item['reason'])} ({item['rule']})",
            highlight=False,
            soft_wrap=True,
        )
    for note in notices + description.get("notes", []):
        console.print(f"note: {escape(note)}", highlight=False, soft_wrap=True)
    if not rules.families:
        console.print("rules: none (every setting is sent as it is)", highlight=False)
    for family in rules.families:
        console.print(
            f"rule {family.cite()}: {escape(family.wording)} [{escape(family.source)}]", highlight=False, soft_wrap=True
        )
    console.print(
        f"(rules can be changed or extended with a file named by {RULES_VARIABLE}; see proseval docs models)",
        highlight=False,
    )
