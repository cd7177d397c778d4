"""Binding models to roles from the user's options, with the checks made before any call."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml
from pydantic import ValidationError

from ..errors import UsageError, describe_validation_error
from ..models.base import GenerateConfig
from ..models.families import RULES_VARIABLE, not_sendable, rules_for
from ..models.spec import EMBEDDED_SPEC, SHARED_URL_PROVIDERS, ModelSpec, parse_model_spec
from ..models.urls import EndpointError, check_url
from .records import RoleBinding

DEMO_NOTICE = (
    "No --model given: the role(s) {roles} use the embedded SmolLM2-135M model. This is a "
    "demonstration of the pipeline, not a meaningful evaluation; a 135M model is not a meaningful "
    "judge. Pass --model and --role ROLE=PROVIDER/MODEL for real numbers."
)


class RoleError(UsageError, ValueError):
    """A role binding, endpoint, concurrency or generation setting that cannot be used as given."""


@dataclass
class RoleRequest:
    """What the user asked for, before it is checked against a task."""

    model: str | None = None
    roles: dict[str, str] = field(default_factory=dict)
    base_urls: list[str] = field(default_factory=list)
    role_base_urls: dict[str, list[str]] = field(default_factory=dict)
    concurrency: int | None = None
    role_concurrency: dict[str, int] = field(default_factory=dict)
    generation: dict[str, dict[str, object]] = field(default_factory=dict)


def parse_assignments(items: list[str], what: str) -> dict[str, str]:
    """`["judge=openai/gpt-4o-mini"]` → `{"judge": "openai/gpt-4o-mini"}`. A name given twice with
    two values is refused (which one was meant cannot be known); twice with one value is once."""
    result: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise RoleError(f"{what} {item!r} must look like NAME=VALUE")
        name, value = name.strip(), value.strip()
        if result.get(name, value) != value:
            raise RoleError(
                f"{what} {name} is given twice ({what} {name}={result[name]}, {what} {name}={value}): give it once"
            )
        result[name] = value
    return result


def parse_value(text: str) -> Any:
    """A command-line value read as YAML (`0.7` → 0.7, `[a, b]` → a list); the text itself if it is not YAML."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def nest_generation(pairs: Iterable[tuple[str, Any]], what: str = "--gen") -> dict[str, dict[str, Any]]:
    """`("judge.temperature", 0)` and `("candidate.extra.KEY", v)` → `{"judge": {"temperature": 0},
    "candidate": {"extra": {"KEY": v}}}`."""
    result: dict[str, dict[str, Any]] = {}
    for key, value in pairs:
        role, dot, param = key.partition(".")
        if not dot or not role or not param:
            raise RoleError(f"{what} {key}={value} must look like ROLE.PARAM=VALUE")
        field_name, dot, extra_key = param.partition(".")
        if field_name == "extra" and dot and extra_key:  # ROLE.extra.KEY=VALUE: a provider-specific field
            result.setdefault(role, {}).setdefault("extra", {})[extra_key] = value
        else:
            result.setdefault(role, {})[param] = value
    return result


def check_base_url(url: str, where: str) -> None:
    """An endpoint must be one requests can be sent to (`models.urls.check_url`: an http(s) URL with
    a host, a port in range, no user name or password): checked before any request."""
    try:
        check_url(url, where)
    except EndpointError as exc:
        raise RoleError(str(exc)) from None


def check_request(request: RoleRequest, required: tuple[str, ...]) -> None:
    """Reject roles the task does not use, malformed endpoints and concurrency below 1."""
    unknown = sorted(set(request.roles) - set(required))
    unknown += sorted(set(request.role_base_urls) - set(required) - set(unknown))
    unknown += sorted(set(request.role_concurrency) - set(required) - set(unknown))
    unknown += sorted(set(request.generation) - set(required) - set(unknown))
    if unknown:
        raise RoleError(f"this task has no role(s) {', '.join(unknown)}; its roles: {', '.join(required)}")
    for url in request.base_urls:
        check_base_url(url, "--base-url")
    for role, urls in request.role_base_urls.items():
        for url in urls:
            check_base_url(url, f"--role-base-url {role}")
    if request.concurrency is not None and request.concurrency < 1:
        raise RoleError(f"--concurrency must be at least 1 (got {request.concurrency})")
    for role, value in request.role_concurrency.items():
        if value < 1:
            raise RoleError(f"--role-concurrency {role} must be at least 1 (got {value})")


def default_concurrency(provider: str) -> int:
    return {"local": 1, "scripted": 64}.get(provider, 16)


def concurrency_for(request: RoleRequest, role: str, provider: str) -> int:
    """A role's concurrency: its --role-concurrency, else --concurrency, else its provider's default."""
    return request.role_concurrency.get(role) or request.concurrency or default_concurrency(provider)


def resolve_roles(
    request: RoleRequest,
    required: tuple[str, ...],
    defaults: dict[str, GenerateConfig],
    *,
    allow_demo: bool = True,
    optional: tuple[str, ...] = (),
    user_set: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[dict[str, RoleBinding], list[str], bool]:
    """Bindings for every role the task needs (and the optional ones the user named), warnings to
    show, and whether it is a demo run.

    Each binding's settings are fitted to its model's family (`fit_to_model`): `user_set` names the
    settings the user gave per role (default: all of `request.generation`; a preset's are not the
    user's), which are refused rather than left out."""
    check_request(request, (*required, *optional))
    if request.model is not None and not request.model.strip():
        raise RoleError(
            "--model is empty; give PROVIDER/MODEL, e.g. openai/gpt-4o-mini (or leave --model out "
            "for a demonstration with the embedded model)"
        )
    specs = dict(request.roles)
    if request.model:
        specs.setdefault("candidate", request.model)
    embedded = [r for r in required if r not in specs] if allow_demo and request.model is None else []
    warnings: list[str] = []
    if embedded:
        specs.update({role: EMBEDDED_SPEC for role in embedded})
        warnings.append(DEMO_NOTICE.format(roles=", ".join(embedded)))
    missing = [role for role in required if role not in specs]
    parsed = {role: _parsed_spec(request, role, text) for role, text in sorted(specs.items())}
    if missing:
        flags = " ".join(f"--role {role}=PROVIDER/MODEL" for role in missing)
        raise RoleError(f"this task needs the role(s) {', '.join(missing)}: add {flags}")
    bindings = {
        role: RoleBinding(
            spec=spec.spec,
            base_urls=list(spec.base_urls),
            config=_generation(request, role, defaults.get(role, GenerateConfig())),
            concurrency=concurrency_for(request, role, spec.provider),
        )
        for role, spec in parsed.items()
    }
    own = request.generation if user_set is None else user_set
    for role, spec in parsed.items():
        bindings[role], notices = fit_to_model(role, bindings[role], spec, own.get(role) or {})
        warnings += notices
    if not embedded:
        warnings += _self_judging(bindings)
    return bindings, warnings, bool(embedded)


def fit_to_model(
    role: str, binding: RoleBinding, spec: ModelSpec, user_set: Mapping[str, Any]
) -> tuple[RoleBinding, list[str]]:
    """`binding` with the settings its model's family refuses (`models.families`) left out and
    recorded in `not_sent`, and a notice for each; a setting the user gave that the model refuses
    is a RoleError naming the rule and the `-g` that unsets it."""
    rules = rules_for(spec.provider, spec.model)
    given = {name for name, value in user_set.items() if value is not None}
    dropped = not_sendable(binding.config.sent_params(), rules, prefer=given)
    refused = [d for d in dropped if d.setting in given]
    if refused:
        flag = "--model" if role == "candidate" else f"--role {role}"
        detail = "; ".join(d.describe(refused=True) for d in refused)
        unset = " ".join(f"-g {role}.{d.setting}=null" for d in refused)
        raise RoleError(
            f"{flag} {spec.spec}: {detail}. Leave it out with {unset}, or change the rule in a "
            f"rules file ({RULES_VARIABLE}, proseval docs models)"
        )
    fitted = binding.model_copy(update={"rules": rules.names})
    if not dropped:
        return fitted, []
    config = binding.config.model_copy(update={d.setting: None for d in dropped})
    notices = [f"{role} ({spec.spec}): {d.describe()}" for d in dropped]
    return fitted.model_copy(update={"config": config, "not_sent": [d.as_dict() for d in dropped]}), notices


def _parsed_spec(request: RoleRequest, role: str, text: str) -> ModelSpec:
    """A role's model spec with its base URLs: --base-url is for OpenAI-compatible servers, so a
    role of any other provider (whose key would go to it) takes only its own --role-base-url, else
    its provider's default (ANTHROPIC_BASE_URL or api.anthropic.com; a named service's)."""
    provider = text.strip().partition("/")[0]
    shared = request.base_urls if provider in SHARED_URL_PROVIDERS else []
    try:
        return parse_model_spec(text, request.role_base_urls.get(role) or shared)
    except ValueError as exc:
        raise RoleError(f"{'--model' if role == 'candidate' else '--role ' + role}: {exc}") from None


def _generation(request: RoleRequest, role: str, config: GenerateConfig) -> GenerateConfig:
    """The task's generation settings for a role with the user's -g settings over them (a task's
    `extra` merged, not replaced)."""
    if not request.generation.get(role):
        return config
    try:
        asked = dict(request.generation[role])
        if isinstance(extra := asked.get("extra"), dict) and config.extra:
            asked["extra"] = {**config.extra, **extra}
        return GenerateConfig.model_validate({**config.model_dump(), **asked}).checked()
    except ValueError as exc:  # a ValidationError, or a value out of range
        detail = describe_validation_error(exc) if isinstance(exc, ValidationError) else str(exc)
        raise RoleError(f"generation settings for {role} (-g {role}.PARAM=VALUE): {detail}") from None


def _self_judging(bindings: dict[str, RoleBinding]) -> list[str]:
    """A warning for each role bound to the candidate model itself (same spec and endpoints)."""
    candidate = bindings.get("candidate")
    if candidate is None:
        return []
    return [
        f"the {role} is the candidate model itself ({binding.spec}): self-judging inflates scores"
        for role, binding in bindings.items()
        if role != "candidate" and (binding.spec, binding.base_urls) == (candidate.spec, candidate.base_urls)
    ]
