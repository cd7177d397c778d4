"""What each model family accepts in a request, as data (`families.yaml`, and the user's own file).

A family names the models it covers by pattern and says, with the provider's own words and the
date the rule was checked, which body field the token limit goes in, which settings it has no
parameter for, which it takes only at their default, which cannot be sent together, how
`reasoning_effort` is sent and which API version is spoken. Two uses:

- `not_sendable` before a run: the settings of a role's configuration that its model would
  refuse, with the reason, so that the run says what it drops (or refuses a setting the user set)
  and its header records it;
- `wire_params` at every request: the body fields as the family wants them (`max_tokens` renamed,
  what it cannot take left out, the effort put where the provider reads it).

A user's file (`PROSEVAL_MODEL_RULES=FILE`, YAML with a `families:` list of the same shape) adds
families after the shipped ones, so that its rules win; proseval docs models shows the format.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import UsageError
from .optionfiles import OptionFileError, read_option_file

RULES_VARIABLE = "PROSEVAL_MODEL_RULES"
SHIPPED = Path(__file__).with_name("families.yaml")
Effort = Literal["reasoning_effort", "output_config", "refused"]


class Family(BaseModel):
    """One entry of a rules file (see `families.yaml` for what each key means)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str
    provider: str
    models: list[str]
    except_: list[str] = Field(default_factory=list, alias="except")
    api_version: str | None = None
    api_versions: list[str] | None = None
    token_limit: str | None = None
    refuses: list[str] = Field(default_factory=list)
    default_only: dict[str, float] = Field(default_factory=dict)
    one_of: list[list[str]] = Field(default_factory=list)
    effort: Effort | None = None
    effort_values: list[str] | None = None
    sampling_with_effort: list[str] | None = None
    wording: str = ""
    source: str = ""
    checked: str = ""

    @field_validator("checked", mode="before")
    @classmethod
    def _date_as_text(cls, value: Any) -> Any:  # YAML reads 2026-12-01 as a date
        return value.isoformat() if isinstance(value, date) else value

    def covers(self, provider: str, model: str) -> bool:
        name = model.lower()
        return (
            provider == self.provider
            and any(fnmatch.fnmatchcase(name, p.lower()) for p in self.models)
            and not any(fnmatch.fnmatchcase(name, p.lower()) for p in self.except_)
        )

    def cite(self) -> str:
        """The rule's name with its date, for messages: "openai-reasoning, checked 2026-12-01"."""
        return f"{self.name}, checked {self.checked}" if self.checked else self.name


@dataclass(frozen=True)
class NotSent:
    """A setting a model would refuse, so proseval does not send it."""

    setting: str
    value: Any
    reason: str
    rule: Family

    def as_dict(self) -> dict[str, Any]:
        return {"setting": self.setting, "value": self.value, "reason": self.reason, "rule": self.rule.cite()}

    def describe(self, refused: bool = False) -> str:
        """One line for a notice (a task's setting left out: "temperature=0.7 not sent: …") or, with
        `refused`, for an error (a setting the user gave: "temperature=0.7 cannot be sent: …")."""
        state = "cannot be sent" if refused else "not sent"
        return f"{self.setting}={self.value!r} {state}: {self.reason} ({self.rule.cite()})"


@dataclass(frozen=True)
class ModelRules:
    """The families that cover one model, folded together (later families win)."""

    families: tuple[Family, ...] = ()
    token_limit: str = "max_tokens"
    api_version: str | None = None
    refuses: Mapping[str, Family] = field(default_factory=dict)
    default_only: Mapping[str, tuple[float, Family]] = field(default_factory=dict)
    one_of: tuple[tuple[tuple[str, ...], Family], ...] = ()
    effort: Effort | None = None
    effort_rule: Family | None = None
    effort_values: tuple[str, ...] | None = None
    sampling_with_effort: tuple[str, ...] = ()

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.families]

    @property
    def plain(self) -> bool:
        """Nothing to rename, leave out or move: the body is the settings as they are."""
        return (
            self.token_limit == "max_tokens"
            and not self.refuses
            and not self.default_only
            and not self.one_of
            and self.effort in (None, "reasoning_effort")
        )

    def as_dict(self) -> dict[str, Any]:
        """What `describe-model` and a run's header show of the rules."""
        return {
            "families": self.names,
            "token_limit": self.token_limit,
            "api_version": self.api_version,
            "refuses": sorted(self.refuses),
            "default_only": {k: v for k, (v, _) in self.default_only.items()},
            "one_of": [list(group) for group, _ in self.one_of],
            "effort": self.effort,
            "effort_values": list(self.effort_values) if self.effort_values else None,
            "sampling_with_effort": list(self.sampling_with_effort) or None,
        }


def _read(path: Path, where: str) -> list[Family]:
    try:
        data = yaml.safe_load(read_option_file(path).decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise UsageError(f"{where} {path}: not UTF-8 text (byte {exc.start})") from None
    except OptionFileError as exc:
        raise UsageError(f"{where} {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f", line {mark.line + 1}" if mark is not None else ""
        raise UsageError(f"{where} {path}{line}: not valid YAML ({getattr(exc, 'problem', None) or exc})") from None
    entries = data.get("families") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise UsageError(f"{where} {path}: expected a mapping with a `families:` list (see proseval docs models)")
    families = []
    for number, entry in enumerate(entries, 1):
        try:
            families.append(Family.model_validate(entry))
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'entry'}: {e['msg']}" for e in exc.errors())
            raise UsageError(f"{where} {path}: family {number}: {problems}") from None
    return families


@functools.lru_cache(maxsize=8)
def _families(user_file: str | None) -> tuple[Family, ...]:
    shipped = _read(SHIPPED, "the shipped model rules")
    extra = _read(Path(user_file), RULES_VARIABLE) if user_file else []
    return tuple(shipped + extra)


def families() -> tuple[Family, ...]:
    """Every family: the shipped ones, then the user's file's (`PROSEVAL_MODEL_RULES`)."""
    return _families(os.environ.get(RULES_VARIABLE) or None)


def check_user_rules() -> None:
    """Read the user's rules file now, so that a broken one stops a command before anything is sent."""
    families()


@functools.lru_cache(maxsize=256)
def _fold(provider: str, model: str, user_file: str | None) -> ModelRules:
    covering = [f for f in _families(user_file) if f.covers(provider, model)]
    version = next((f.api_version for f in reversed(covering) if f.api_version), None)
    applying = [f for f in covering if f.api_versions is None or version in f.api_versions]
    token_limit, effort, effort_rule, values = "max_tokens", None, None, None
    with_effort: tuple[str, ...] = ()
    refuses: dict[str, Family] = {}
    default_only: dict[str, tuple[float, Family]] = {}
    one_of: list[tuple[tuple[str, ...], Family]] = []
    for family in applying:
        token_limit = family.token_limit or token_limit
        refuses.update({name: family for name in family.refuses})
        default_only.update({name: (value, family) for name, value in family.default_only.items()})
        one_of += [(tuple(group), family) for group in family.one_of]
        if family.effort is not None:
            effort, effort_rule = family.effort, family
        values = tuple(family.effort_values) if family.effort_values is not None else values
        with_effort = tuple(family.sampling_with_effort) if family.sampling_with_effort is not None else with_effort
    return ModelRules(
        tuple(applying),
        token_limit,
        version,
        refuses,
        default_only,
        tuple(one_of),
        effort,
        effort_rule,
        values,
        with_effort,
    )


def rules_for(provider: str, model: str) -> ModelRules:
    """The rules of `provider/model` (no family: `ModelRules()`, everything sent as it is)."""
    return _fold(provider, model, os.environ.get(RULES_VARIABLE) or None)


def not_sendable(params: Mapping[str, Any], rules: ModelRules, prefer: Collection[str] = ()) -> list[NotSent]:
    """The settings of `params` (a configuration's sent settings) that `rules` say the model refuses;
    of a group only one of which can be sent, the first in `prefer` (the user's own) is kept."""
    if rules.plain and "reasoning_effort" not in params:
        return []
    dropped: list[NotSent] = []
    for name, value in params.items():
        if name in rules.refuses:
            rule = rules.refuses[name]
            dropped.append(
                NotSent(
                    name,
                    value,
                    f"the model takes no {name}" + (f" (the provider says: {rule.wording})" if rule.wording else ""),
                    rule,
                )
            )
        elif name in rules.default_only and params.get("reasoning_effort") not in rules.sampling_with_effort:
            default, rule = rules.default_only[name]
            if value != default:
                dropped.append(NotSent(name, value, f"this model takes only the default ({default:g})", rule))
    gone = {d.setting for d in dropped}
    for group, rule in rules.one_of:
        present = sorted(
            (name for name in group if name in params and name not in gone),
            key=lambda name: (name not in prefer, group.index(name)),
        )
        reason = f"{' and '.join(group)} cannot both be sent, {present[0]} is kept" if present else ""
        reason += f" (the provider says: {rule.wording})" if rule.wording else ""
        dropped += [NotSent(name, params[name], reason, rule) for name in present[1:]]
    if "reasoning_effort" in params and rules.effort == "refused" and rules.effort_rule is not None:
        dropped.append(
            NotSent(
                "reasoning_effort",
                params["reasoning_effort"],
                "this model has no reasoning effort setting (send its own field with -g ROLE.extra.KEY=VALUE)",
                rules.effort_rule,
            )
        )
    return dropped


def wire_params(params: dict[str, Any], rules: ModelRules) -> dict[str, Any]:
    """The body fields of `params` as the model's family wants them: what it refuses left out,
    `max_tokens` under the family's name, `reasoning_effort` where the provider reads it."""
    if rules.plain:
        return params
    body = dict(params)
    for dropped in not_sendable(params, rules):
        body.pop(dropped.setting, None)
    if "max_tokens" in body and rules.token_limit != "max_tokens":
        body[rules.token_limit] = body.pop("max_tokens")
    if rules.effort == "output_config" and "reasoning_effort" in body:
        effort = body.pop("reasoning_effort")
        body["output_config"] = {**(body.get("output_config") or {}), "effort": effort}
        body.setdefault("thinking", {"type": "adaptive"})
    return body


_ALIASES = {
    "max_completion_tokens": "max_tokens",
    "reasoning.effort": "reasoning_effort",
    "output_config.effort": "reasoning_effort",
    "thinking.budget_tokens": "max_tokens",
}
_SETTINGS = (
    "max_tokens",
    "temperature",
    "top_p",
    "top_k",
    "min_p",
    "repetition_penalty",
    "presence_penalty",
    "frequency_penalty",
    "reasoning_effort",
    "seed",
    "stop",
    "response_format",
)
_QUOTED = re.compile(r"""\bparam:\s*([a-z_.]+)|['"`]([a-z_.]+)['"`]|\b([a-z_]+):\s""")


def refused_setting(detail: str) -> str | None:
    """The generation setting a provider's refusal names (its error text), or None: OpenAI's
    "Unsupported parameter: 'max_tokens' …", "Unsupported value: 'temperature' …", Anthropic's
    "temperature: Extra inputs are not permitted", "`temperature` and `top_p` cannot both be
    specified …" (the last one named: the first is kept)."""
    named = (next(n for n in m.groups() if n) for m in _QUOTED.finditer(detail))
    found = [setting for setting in (_ALIASES.get(n, n) for n in named) if setting in _SETTINGS]
    if not found:
        return None
    return found[-1] if "cannot both" in detail else found[0]
