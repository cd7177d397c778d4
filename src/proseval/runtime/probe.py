"""One small request per binding before anything is paid for.

A wrong model name, key or endpoint, or a setting the model refuses, would otherwise be found
only after the candidate's answers were bought (the judge's first call fails). Before a run
writes or sends anything else, every distinct binding (provider, model, endpoints, settings) of
a remote provider is asked one short question with its role's own settings and a token limit of
`PROBE_MAX_TOKENS`; an OpenAI-compatible endpoint is asked for a schema-held answer, so that the
way it takes one is learned here (`models.structured_modes`) and recorded in the header.

Any answer passes, an empty one too (a reasoning model may spend the small budget thinking). A
refusal stops the command within seconds, naming the role; a setting the model refused names the
`-g` that leaves it out. Scripted and in-process models are not probed; `--no-probe` skips it.
What a probe costs is counted with the role's requests. A binding probed once in a process (the
runs of an evaluation set share bindings) is not probed again.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

from ..errors import ProsevalError, UsageError
from ..models.base import FatalError, GenerateConfig, Message, ModelError, RetryableError
from ..models.families import refused_setting
from .executor import RoleModel
from .records import RoleBinding
from .secrets import scrub

PROBE_MESSAGES: list[Message] = [{"role": "user", "content": 'Answer with the JSON object {"ok": true}.'}]
PROBE_MAX_TOKENS = 16
PROBE_TIMEOUT = 60.0
PROBE_ATTEMPTS = 3
UNPROBED = ("local", "scripted")
_PROBE_FORMAT = {
    "type": "json_schema",
    "json_schema": {
        "name": "probe",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {"ok": {"type": "boolean"}},
            "required": ["ok"],
            "additionalProperties": False,
        },
    },
}

# What the probes of this process found, by binding: the structured-output mode (None where not asked).
_probed: dict[str, str | None] = {}


class ProbeFailed(ProsevalError):
    """A binding's probe was refused: the endpoint, key or model cannot serve the run as bound."""


def binding_key(binding: RoleBinding) -> str:
    return json.dumps(
        [binding.spec, sorted(binding.base_urls), binding.config.sent_params()], sort_keys=True, default=str
    )


def _where(role: str, binding: RoleBinding) -> str:
    flag = "--model" if role == "candidate" else f"--role {role}"
    return f"{flag} {binding.spec}"


def explain(error: ModelError, role: str, binding: RoleBinding) -> ProsevalError:
    """The error that ends the command when `role`'s probe was refused with `error`."""
    where = _where(role, binding)
    detail = scrub(str(error))
    setting = refused_setting(detail)
    if setting == "max_tokens" and "max_completion_tokens" in detail:
        return UsageError(
            f"{where}: the model takes its token limit as max_completion_tokens ({detail}). Give it "
            "a rule with `token_limit: max_completion_tokens` in a rules file (PROSEVAL_MODEL_RULES, "
            "proseval docs models)"
        )
    if setting is not None:
        return UsageError(
            f"{where}: the model refused the setting {setting} ({detail}). Leave it out with "
            f"-g {role}.{setting}=null, or give the model's rule in a rules file (proseval docs models)"
        )
    if error.status in (401, 403):
        return ProbeFailed(f"{where}: the key was refused ({detail}); check the provider's key variable")
    if error.status == 404:
        return UsageError(
            f"{where}: the endpoint does not know this model ({detail}); check the model name and the base URL"
        )
    if isinstance(error, RetryableError):
        return ProbeFailed(
            f"{where}: no answer after {PROBE_ATTEMPTS} tries ({detail}); check the endpoint, or "
            "start anyway with --no-probe"
        )
    return UsageError(f"{where}: the probe request was refused ({detail})")


async def _ask(model: RoleModel, config: GenerateConfig) -> Any:
    for attempt in range(PROBE_ATTEMPTS):
        try:
            return await asyncio.wait_for(model.model.generate(PROBE_MESSAGES, config), PROBE_TIMEOUT)
        except asyncio.TimeoutError:
            error: ModelError = RetryableError(f"no answer within {PROBE_TIMEOUT:g}s")
        except RetryableError as exc:
            error = exc
        if attempt + 1 < PROBE_ATTEMPTS:
            await asyncio.sleep(min(4.0, float(error.retry_after or 2**attempt)))
    raise error


async def probe_roles(
    roles: Mapping[str, RoleModel], bindings: Mapping[str, RoleBinding], spend: Any = None
) -> dict[str, str | None]:
    """Probe every distinct remote binding of `roles` once (see the module's text); returns each
    probed role's structured-output mode. Raises the error of the first refused probe."""
    modes: dict[str, str | None] = {}
    for role, model in sorted(roles.items()):
        binding = bindings[role]
        if binding.spec.partition("/")[0] in UNPROBED:
            continue
        key = binding_key(binding)
        if key not in _probed:
            structured = hasattr(model.model, "structured")
            config = binding.config.merged(
                {
                    "max_tokens": PROBE_MAX_TOKENS,
                    "timeout": PROBE_TIMEOUT,
                    **({"response_format": _PROBE_FORMAT} if structured else {}),
                }
            )
            try:
                completion = await _ask(model, config)
            except (FatalError, RetryableError) as exc:
                raise explain(exc, role, binding) from None
            model.count_probe(completion)
            if spend is not None:
                spend.after(role, 0.0, completion, PROBE_MESSAGES)
            _probed[key] = getattr(model.model, "structured", None)
        elif hasattr(model.model, "structured") and _probed[key] is not None:
            model.model.structured = _probed[key]  # another run of this process learned it
        modes[role] = _probed[key]
    return modes


def forget() -> None:
    """Forget what this process probed (tests)."""
    _probed.clear()
