"""Options of the `c3ebench` task and of the construction task (kept light: imported at start-up)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from proseval.benchmarks._shared.c3e.data import DATA_ENV, TaskName
from proseval.kit import comma_list

TASK_NAMES: tuple[TaskName, ...] = ("cloze", "expand", "edit", "end2end")


class C3EParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    data_dir: str | None = Field(
        None,
        description=f"folder with english_dataset.jsonl / chinese_dataset_v2.jsonl "
        f"and the ZH reference-source lists (default: ${DATA_ENV})",
    )
    data_file: str | None = Field(
        None,
        description="your own items in the same JSON Lines shape, e.g. from "
        "proseval c3ebench construct (instead of the official files)",
    )
    language: list[Literal["en", "zh"]] = Field(["en", "zh"], description="en, zh or both (comma-separated)")
    task: list[Literal["cloze", "expand", "edit", "end2end"]] = Field(
        list(TASK_NAMES), description="tasks to run (comma-separated; expand = the data's 'condition')"
    )
    genre: list[str] | None = Field(None, description="only these genres (the data's sub_task), comma-separated")
    reference_source: Literal["human", "hybrid"] | None = Field(
        None, description="ZH only: items whose reference is human-written or was replaced by a model"
    )
    per_task: int | None = Field(
        None,
        ge=1,
        description="at most this many items of each language x task (the "
        "first in file order), e.g. 5 for a quick look at every task",
    )
    order: Literal["interleaved", "file"] = Field(
        "interleaved", description="interleaved alternates language x task, so --limit takes a balanced sample"
    )
    compat: Literal["fixed", "official"] = Field(
        "fixed",
        description="candidate posing: fixed (proseval's, the official posing bugs fixed) or official "
        "(reproduces the official code's posing, bugs included)",
    )
    budget: Literal["role", "reference"] = Field(
        "role",
        description="candidate max_tokens: the role's setting, or the official int(1.5 x reference "
        "characters) per item (which then replaces candidate.max_tokens)",
    )
    reasoning_allowance: int = Field(
        0,
        ge=0,
        le=1_000_000,
        description="with --budget reference: tokens added to each item's budget for a model "
        "that reasons before answering (its thinking counts against max_tokens)",
    )
    judge_no_reference: bool = Field(False, description="ablation: the judge sees no reference; absolute bands")
    judge_no_rubric: bool = Field(False, description="ablation: the score bands are replaced by the bare 1-10 scale")
    judge_no_traits: bool = Field(False, description="ablation: the task-specific traits are left out")
    judge_order: Literal["as_given", "swapped"] = Field(
        "as_given",
        description="position-bias probe: swapped shows the judge the [Candidate] block (with its "
        "label) before the [Reference] block; as_given: the reference first (usually set by "
        "proseval score RUN --swap-order; not with --judge-no-reference)",
    )
    judge_attempts: int = Field(3, ge=1, le=10, description="judge calls per item while its answer is unusable")
    judge_structured: bool = Field(
        False,
        description="ask the judge's endpoint for JSON of the rubric's shape "
        "(response_format json_schema; the embedded model decodes it "
        "with a grammar); replies are parsed and checked all the same",
    )

    _split_lists = field_validator("language", "task", "genre", mode="before")(lambda cls, v: comma_list(v))

    @model_validator(mode="after")
    def _allowance_needs_reference_budget(self) -> C3EParams:
        if self.reasoning_allowance and self.budget != "reference":
            raise ValueError(
                "--reasoning-allowance adds to the reference budget: use it with --budget reference "
                "(otherwise raise -g candidate.max_tokens)"
            )
        return self

    @model_validator(mode="after")
    def _order_needs_two_texts(self) -> C3EParams:
        if self.judge_order == "swapped" and self.judge_no_reference:
            raise ValueError(
                "--judge-order swapped reorders the reference and the candidate: with "
                "--judge-no-reference the judge sees one text, so there is no order to swap"
            )
        return self


class ConstructParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    in_file: str = Field(description="JSON Lines of your own texts: text, and optionally id, language, genre, tasks")
    task: list[Literal["cloze", "expand", "edit", "end2end"]] = Field(
        list(TASK_NAMES), description="item types to build from each text (a text's own 'tasks' field wins)"
    )
    builder_attempts: int = Field(3, ge=1, le=10, description="builder calls per step while its answer fails a check")
    structured: bool = Field(
        False,
        description="ask the builder's endpoint for JSON of each step's shape "
        "(response_format json_schema) where the step answers in JSON",
    )

    _split_lists = field_validator("task", mode="before")(lambda cls, v: comma_list(v))
