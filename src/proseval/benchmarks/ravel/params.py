"""Options of the `ravel` task (kept light: imported at start-up)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from proseval.kit import comma_list

TOOL_ROLES = ("planner", "writer", "reviewer", "reviser")


class RavelParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    data_dir: str | None = Field(None, description="folder with the C3EBench files (default: $PROSEVAL_C3EBENCH_DIR)")
    data_file: str | None = Field(None, description="your own End2End items in the C3EBench JSON Lines shape")
    language: list[Literal["en", "zh"]] = Field(["en", "zh"], description="en, zh or both (comma-separated)")
    genre: list[str] | None = Field(None, description="only these genres (the data's sub_task), comma-separated")
    protocol: Literal["agent", "fixed", "no_review", "no_refine"] = Field(
        "agent", description="agent: the policy decides every step; fixed / no_review / no_refine: scripted ablations"
    )
    tau: float = Field(8.0, ge=0, le=10, description="review pass mark: a section scoring at least tau is completed")
    revision_cap: int | None = Field(
        3, ge=0, description="refinements per section before a failing review closes it anyway (none: no cap)"
    )
    max_steps: int = Field(50, ge=1, le=1000, description="T_max: policy decisions per episode")
    history_window: int = Field(10, ge=0, le=200, description="recent actions (with outcomes) shown to the policy")
    max_sections: int | None = Field(
        None,
        ge=1,
        description="largest outline the planner may return (none: no cap, as the official agent; a "
        "cap is a deviation)",
    )
    compat: Literal["fixed", "official"] = Field(
        "fixed",
        description="official: the reference commit's revision cap (a draft resets the revision count; "
        "a review or refine at the cap is skipped, closing the section unreviewed)",
    )
    tool_text: Literal["state", "policy"] = Field(
        "state",
        description="policy: review and refine work on the content and feedback the policy passes in "
        "params (official; the policy is then shown whole section texts and feedback to copy); "
        "state: the tools read them from the state",
    )
    style_guide: str | None = Field(
        None,
        description="one style guide for every item instead of its genre (sub_task); the legacy Chinese "
        "runner used one fixed phrase for all items",
    )
    judge_format: Literal["system", "single"] = Field(
        "system",
        description="single: the judge's rubric and the manuscript in one user message (the January "
        "scripts); system: the rubric as the system message (ravel_bench, as C3EBench)",
    )
    judge_order: Literal["as_given", "swapped"] = Field(
        "as_given",
        description="position-bias probe: swapped shows the final judge the [Candidate] block (the "
        "manuscript, with its label) before the [Reference] block; as_given: the reference "
        "first (usually set by proseval score RUN --swap-order)",
    )
    judge_attempts: int = Field(3, ge=1, le=10, description="judge calls per manuscript while its answer is unusable")
    structured_policy: bool = Field(
        False,
        description="ask the policy for schema-constrained JSON {thought, action, params} (response_format "
        "json_schema; default: plain JSON in the text, as the official agent); replies are "
        "validated all the same",
    )
    structured_tools: bool = Field(
        False, description="ask the planner, writer, reviewer and reviser for schema-constrained JSON too"
    )
    judge_structured: bool = Field(
        False, description="ask the judge for JSON of the End2End rubric's shape (as c3ebench --judge-structured)"
    )

    _split_lists = field_validator("language", "genre", mode="before")(lambda cls, v: comma_list(v))

    @field_validator("revision_cap", "max_sections", mode="before")
    @classmethod
    def _none(cls, value: object) -> object:
        return None if isinstance(value, str) and value.strip().lower() in ("none", "off", "") else value
