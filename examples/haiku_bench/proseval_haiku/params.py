"""The task's options: `proseval run haiku --themes rain,snow --strict`."""

from pydantic import BaseModel, ConfigDict, Field, field_validator


class HaikuParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    themes: list[str] = Field(["rain", "autumn", "the sea"], description="themes to write about")
    strict: bool = Field(False, description="a haiku must have exactly 5-7-5 syllables to pass the form check")

    @field_validator("themes", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        return [t.strip() for t in value.split(",") if t.strip()] if isinstance(value, str) else value
