"""The options of a run written as a file: the schema of `proseval run --config FILE.yaml`.

Every key mirrors a `proseval run` flag. Where a flag takes NAME=VALUE (`role`, `gen`,
`prompt`, …) the file may give a list of such strings, as on the command line, or a mapping;
`gen` may also nest settings under each role (`gen: {judge: {temperature: 0}}`).
A relative `prices` path is read from the folder of the file that names it (`prices_beside`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    field_validator,
    model_validator,
)

from ..core.prices import finite_amount
from ..core.yamlfile import load_yaml_model
from ..models.base import GenerateConfig, check_seed
from ..models.urls import check_url
from .roles import nest_generation, parse_assignments, parse_value

Count = Annotated[int, Field(strict=True, ge=1)]
Amount = Annotated[float, Field(strict=True), AfterValidator(finite_amount), Field(gt=0)]  # nan: not finite
Text = Annotated[str, Field(strict=True, min_length=1)]
Url = Annotated[Text, AfterValidator(check_url)]  # an endpoint, checked where it is written (`models.urls`)
Seed = Annotated[int, Field(strict=True), AfterValidator(check_seed)]
Settings = Annotated[GenerateConfig, AfterValidator(GenerateConfig.checked)]  # values range-checked


def _pairs(value: Any) -> list[tuple[str, str]] | None:
    """NAME=VALUE strings (a list, or one) as pairs, repeated names kept; None if `value` is not that."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        return None
    return [parse_assignments([item], "item").popitem() for item in items]


def _mapping(value: Any, *, parse: bool = False) -> Any:
    """NAME=VALUE strings as a mapping (values read as YAML with `parse`); anything else as it is."""
    pairs = _pairs(value)
    if pairs is None:
        return value
    return {name: parse_value(text) if parse else text for name, text in pairs}


class RoleOptions(BaseModel):
    """The role bindings, endpoints, concurrency, generation settings and prompt files a run is
    asked for: the keys `RunConfig` and an evaluation set's entries (`runtime.sets`) share."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: dict[str, Text] = Field(default_factory=dict, validation_alias=AliasChoices("role", "roles"))
    role_base_url: dict[str, list[Url]] = Field(default_factory=dict)
    concurrency: Count | None = None
    role_concurrency: dict[str, Count] = Field(default_factory=dict)
    gen: dict[str, Settings] = Field(default_factory=dict)
    prompt: dict[str, Text] = Field(default_factory=dict, validation_alias=AliasChoices("prompt", "prompts"))
    batch: list[Text] = Field(default_factory=list)  # roles in batch mode (`--batch ROLE`)

    @model_validator(mode="before")
    @classmethod
    def _one_spelling(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            for first, second in (("role", "roles"), ("prompt", "prompts")):
                if first in data and second in data:
                    raise ValueError(f"give {first} or {second}, not both")
        return data

    @field_validator("role", "prompt", mode="before")
    @classmethod
    def _named(cls, value: Any) -> Any:
        return _mapping(value)

    @field_validator("batch", mode="before")
    @classmethod
    def _one_or_more(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("role_concurrency", mode="before")
    @classmethod
    def _counts(cls, value: Any) -> Any:
        return _mapping(value, parse=True)

    @field_validator("role_base_url", mode="before")
    @classmethod
    def _role_urls(cls, value: Any) -> Any:
        if isinstance(value, Mapping):
            return {role: [urls] if isinstance(urls, str) else urls for role, urls in value.items()}
        pairs = _pairs(value)
        if pairs is None:
            return value
        urls: dict[str, list[str]] = {}
        for role, url in pairs:
            urls.setdefault(role, []).append(url)
        return urls

    @field_validator("gen", mode="before")
    @classmethod
    def _settings(cls, value: Any) -> Any:
        if isinstance(value, Mapping):  # {"judge.temperature": 0} or {"judge": {"temperature": 0}}
            nested = {k: v for k, v in value.items() if "." not in str(k) and isinstance(v, Mapping)}
            pairs = [(f"{role}.{name}", v) for role, settings in nested.items() for name, v in settings.items()]
            pairs += [(str(k), v) for k, v in value.items() if k not in nested]
            return nest_generation(pairs, "item")
        mapping = _mapping(value, parse=True)
        return nest_generation(mapping.items(), "item") if isinstance(mapping, dict) else mapping

    def generation(self) -> dict[str, dict[str, Any]]:
        """The generation settings per role, only those the file sets."""
        return {role: config.model_dump(exclude_unset=True) for role, config in self.gen.items()}


class CostOptions(BaseModel):
    """The cost keys a run's config file and a set file share: `prices` (a prices file), `max_cost`
    and `estimate_output` (per role), as the flags `--prices`, `--max-cost` and `--estimate-output`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prices: Text | None = None
    max_cost: Amount | None = None
    estimate_output: dict[str, Count] = Field(default_factory=dict)

    @field_validator("estimate_output", mode="before")
    @classmethod
    def _estimates(cls, value: Any) -> Any:
        return _mapping(value, parse=True)


C = TypeVar("C", bound=CostOptions)


def prices_beside(options: C, path: Path) -> C:
    """`options` with a relative `prices` path taken from the folder of `path`, the file that names it,
    so that the file finds its prices from any working directory."""
    if options.prices is None:
        return options
    return options.model_copy(update={"prices": str(path.parent / options.prices)})


class RunConfig(RoleOptions, CostOptions):
    """What a run is asked to do, as `proseval run` options; command-line flags win over it."""

    task: Text | None = None
    model: Text | None = None
    base_url: list[Url] = Field(default_factory=list)
    preset: Text | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    limit: Count | None = None
    epochs: Count | None = None
    seed: Seed | None = None
    max_attempts: Count | None = None
    out: Text | None = None
    display: Literal["rich", "plain", "none"] | None = None
    no_cache: StrictBool | None = None

    @field_validator("base_url", mode="before")
    @classmethod
    def _urls(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


def load_run_config(path: Path | None) -> RunConfig:
    """The `--config` file checked against `RunConfig` (no file: every option unset)."""
    return RunConfig() if path is None else prices_beside(load_yaml_model(path, RunConfig), path)
