"""The options every command that runs a task shares (`typer.Option` declarations), and the role
options as one group that `run` and `score` take alike."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import typer

from ..runtime.config import RunConfig
from ..runtime.roles import RoleRequest
from .requests import role_request

ModelOpt = typer.Option(
    None,
    "--model",
    "-m",
    help="Candidate model, PROVIDER/MODEL (e.g. openai/gpt-4o-mini, "
    "openai-compatible/qwen2.5-7b, anthropic/claude-sonnet-4-5, local/smollm2-135m).",
)
RoleOpt = typer.Option(
    None, "--role", "-r", help="Bind a role: ROLE=PROVIDER/MODEL, e.g. judge=openai/gpt-4o-mini. Repeatable."
)
BaseUrlOpt = typer.Option(
    None, "--base-url", help="OpenAI-compatible (or Anthropic) endpoint; repeat to spread requests over replicas."
)
RoleBaseUrlOpt = typer.Option(None, "--role-base-url", help="ROLE=URL: endpoint for one role only. Repeatable.")
ConcurrencyOpt = typer.Option(
    None, "--concurrency", "-c", help="Requests in flight per role (default: 16 remote, 1 local)."
)
RoleConcurrencyOpt = typer.Option(None, "--role-concurrency", help="ROLE=N: concurrency for one role. Repeatable.")
GenOpt = typer.Option(
    None,
    "--gen",
    "-g",
    help="ROLE.PARAM=VALUE generation setting, e.g. candidate.max_tokens=2048, "
    "judge.temperature=0, candidate.top_k=20, candidate.timeout=1800; ROLE.extra.KEY=VALUE sends a "
    "provider-specific field as given. Only what is set is sent. Repeatable.",
)
ConfigOpt = typer.Option(None, "--config", help="YAML file mirroring these options (flags win).")
DisplayOpt = typer.Option(None, "--display", help="Progress display: rich, plain (log lines) or none.")
NoCacheOpt = typer.Option(None, "--no-cache", help="Neither read nor write the response cache.", show_default=False)
NoProbeOpt = typer.Option(
    False,
    "--no-probe",
    help="Start without the probe: by default every remote model is "
    "first sent one short request with its role's settings, so that a wrong model name, key, "
    "endpoint or setting stops the command before anything is paid for (proseval docs models).",
)
PresetOpt = typer.Option(
    None,
    "--preset",
    help="A named setup of the task, e.g. paper or official (see: proseval "
    "describe TASK); your own options and -g settings win over it.",
)
BatchOpt = typer.Option(
    None,
    "--batch",
    help="ROLE: send this role's requests through the provider's batch API "
    "(OpenAI-compatible /v1/batches or Anthropic Message Batches; cheaper, slower), "
    "collected phase by phase. Repeatable. "
    "See proseval docs many-models, Batch mode.",
)
PromptOpt = typer.Option(
    None,
    "--prompt",
    help="NAME=FILE: send the text of FILE as the task's prompt NAME (see: proseval describe TASK). Repeatable.",
)


@dataclass(frozen=True)
class RoleArgs:
    """What the role options were given: bindings, endpoints, concurrency, generation settings, prompt files."""

    role: list[str] | None = None
    base_url: list[str] | None = None
    role_base_url: list[str] | None = None
    concurrency: int | None = None
    role_concurrency: list[str] | None = None
    gen: list[str] | None = None
    prompt: list[str] | None = None

    def request(self, cfg: RunConfig | Mapping[str, Any], model: str | None) -> RoleRequest:
        """The roles asked for (`role_request`): each option replaces the config file's value."""
        return role_request(
            cfg, model, self.role, self.base_url, self.role_base_url, self.concurrency, self.role_concurrency, self.gen
        )


ROLE_DEFAULTS = RoleArgs()  # a `roles` parameter's default: none of the role options given

ROLE_OPTIONS = {
    "role": (list[str] | None, RoleOpt),
    "base_url": (list[str] | None, BaseUrlOpt),
    "role_base_url": (list[str] | None, RoleBaseUrlOpt),
    "concurrency": (int | None, ConcurrencyOpt),
    "role_concurrency": (list[str] | None, RoleConcurrencyOpt),
    "gen": (list[str] | None, GenOpt),
    "prompt": (list[str] | None, PromptOpt),
}

Command = TypeVar("Command", bound=Callable[..., Any])


def with_role_options(command: Command) -> Command:
    """`command` with the role options (`ROLE_OPTIONS`) as options of its own, in the place of its
    parameter `roles` (the help lists them there), passed on to it as `roles: RoleArgs`."""
    signature = inspect.signature(command, eval_str=True)
    shared = [
        inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=option, annotation=kind)
        for name, (kind, option) in ROLE_OPTIONS.items()
    ]
    parameters = [p for param in signature.parameters.values() for p in (shared if param.name == "roles" else [param])]

    @functools.wraps(command)
    def with_roles(*args: Any, **kwargs: Any) -> Any:
        roles = RoleArgs(**{name: kwargs.pop(name, None) for name in ROLE_OPTIONS})
        return command(*args, roles=roles, **kwargs)

    with_roles.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]  # read by typer
    return with_roles  # type: ignore[return-value]  # called as `command` is
