"""The profile's suite file: which benchmarks, at which size, with what data (`suite.yaml`, shipped)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..core.preset import preset_params
from ..core.yamlfile import load_yaml_model
from ..errors import ProsevalError, describe_validation_error
from ..registry import get_entry
from ..runtime.config import Text
from ..runtime.sets import SetTask

Size = Literal["quick", "standard", "paper"]
SIZES: tuple[Size, ...] = ("quick", "standard", "paper")
BUNDLED = "suite.yaml"


def size_named(name: str) -> Size | None:
    """The size called `name`; None when there is none."""
    return next((size for size in SIZES if size == name), None)


class SuiteBenchmark(BaseModel):
    """One benchmark of the suite: its task, what it measures and its task entry at each size."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Text
    task: Text
    dimension: Text
    scale: tuple[float, float] | None = None
    unit: Text | None = None  # the headline's unit, in the papers' figures' words
    lower_is_better: bool = False
    data: Text | None = None  # the data set it reads (`--data NAME=DIR`)
    download: bool = False  # its task takes `download: true`
    get_data: Text | None = None
    drafts_from: Text | None = None  # measured on the answers of that benchmark's run
    sizes: dict[Size, dict[str, Any]]

    @field_validator("task")
    @classmethod
    def _registered(cls, value: str) -> str:
        try:
            get_entry(value)
        except ProsevalError as exc:  # a typo would otherwise read as missing data
            raise ValueError(str(exc).strip("'\"")) from None
        return value

    @model_validator(mode="after")
    def _every_size(self) -> SuiteBenchmark:
        missing = [size for size in SIZES if size not in self.sizes]
        if missing:
            raise ValueError(f"{self.name}: sizes: give {', '.join(missing)}")
        drafts = {"drafts": "drafts.jsonl"} if self.drafts_from else {}  # the profile writes them
        for size in SIZES:
            problem = options_problem(self.entry(size, **drafts))  # entry(): a ValueError names a key the set refuses
            if problem:
                raise ValueError(f"{self.name}: sizes.{size}: {problem}")
        return self

    def entry(self, size: Size, **params: Any) -> SetTask:
        """Its evaluation-set task entry at `size`, with `params` over the suite's."""
        values = dict(self.sizes[size])
        values["params"] = {**values.get("params", {}), **params}
        return SetTask(task=self.task, name=self.name, **values)


def options_problem(entry: SetTask) -> str | None:
    """What the task refuses of the entry's preset and params, checked without building the task
    (building reads the data): so that only missing data can skip a benchmark later."""
    task = get_entry(entry.task)
    try:
        params = preset_params(task.preset(entry.preset), entry.params) if entry.preset else entry.params
        task.params.model_validate(params)
    except ValidationError as exc:
        return describe_validation_error(exc)
    except ProsevalError as exc:
        return str(exc).strip("'\"")
    return None


class Suite(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    benchmarks: list[SuiteBenchmark] = Field(min_length=1)

    @model_validator(mode="after")
    def _names(self) -> Suite:
        names = [b.name for b in self.benchmarks]
        if len(set(names)) != len(names):
            raise ValueError("benchmarks: each name once")
        sources = {b.drafts_from for b in self.benchmarks if b.drafts_from is not None}
        for source in sources:
            if source not in names or self.get(source).drafts_from is not None:
                raise ValueError(f"drafts_from: {source} is not a benchmark of the suite with a run of its own")
        if len(sources) > 1:
            raise ValueError(f"drafts_from: one benchmark's answers for all (got {', '.join(sorted(sources))})")
        return self

    def get(self, name: str) -> SuiteBenchmark:
        return next(b for b in self.benchmarks if b.name == name)


def bundled_text() -> str:
    """The shipped suite file, as written (`proseval profile --show-suite`)."""
    return resources.files(__package__).joinpath(BUNDLED).read_text(encoding="utf-8")


def load_suite(path: Path | None = None) -> Suite:
    """The suite file `path` (default: the shipped one), checked; errors name the file, line and key."""
    if path is not None:
        return load_yaml_model(path, Suite)
    with resources.as_file(resources.files(__package__).joinpath(BUNDLED)) as bundled:
        return load_yaml_model(bundled, Suite)
