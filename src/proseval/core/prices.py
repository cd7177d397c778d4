"""A user's prices file: what each model's tokens cost, for cost figures proseval never fetches.

    # prices.yaml: prices per million tokens, in the currency named here
    currency: USD
    models:
      openai/gpt-4o-mini: {input: 0.15, output: 0.60}
      openai/gpt-4o: {input: 2.50, output: 10.00, batch_discount: 0.5}
      openai/gpt-5: {input: 1.25, cached_input: 0.125, output: 10.00}

A model is looked up by its role binding (``provider/model``), then by the bare model name.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from .yamlfile import load_yaml_model


class ModelPrice(BaseModel):
    model_config = ConfigDict(extra="forbid")

    input: float = Field(ge=0, description="price per million prompt tokens")
    output: float = Field(ge=0, description="price per million completion tokens (reasoning tokens included)")
    cached_input: float | None = Field(None, ge=0, description="price per million prompt tokens read from the "
                                       "provider's prompt cache (unset: the input price)")
    batch_discount: float = Field(0.0, ge=0, lt=1, description="share taken off in a provider's batch mode")

    def cost(self, prompt_tokens: int, completion_tokens: int, *, cached_tokens: int = 0, batch: bool = False) -> float:
        """What the tokens cost; `cached_tokens` are part of `prompt_tokens`, at `cached_input` when set."""
        cached = min(cached_tokens, prompt_tokens) if self.cached_input is not None else 0
        full = ((prompt_tokens - cached) * self.input + cached * (self.cached_input or 0.0)
                + completion_tokens * self.output) / 1_000_000
        return full * (1 - self.batch_discount) if batch else full


class Prices(BaseModel):
    model_config = ConfigDict(extra="forbid")

    currency: str = "USD"
    models: dict[str, ModelPrice] = Field(default_factory=dict)

    def of(self, spec: str) -> ModelPrice | None:
        """The price of a role binding `provider/model`, or of its bare model name; None if unlisted."""
        return self.models.get(spec) or self.models.get(spec.split("/", 1)[-1])


def read_prices(path: Path) -> Prices:
    """Read a prices file; errors name the file, the line and the key."""
    return load_yaml_model(path, Prices)
