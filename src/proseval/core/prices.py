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

import math
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from .yamlfile import load_yaml_model


def finite_amount(value: float) -> float:
    """`value` if it is a finite number. Prices and cost limits are amounts of money: an infinite
    price would make every cost infinite (or, times 0 tokens, nan), an infinite limit no limit."""
    if not math.isfinite(value):
        raise ValueError(f"must be a finite number, not {value}")
    return value


# The finite check comes before the range, so that nan reads as not finite rather than as negative.
Price = Annotated[float, AfterValidator(finite_amount), Field(ge=0)]


class ModelPrice(BaseModel):
    model_config = ConfigDict(extra="forbid")

    input: Price = Field(description="price per million prompt tokens")
    output: Price = Field(description="price per million completion tokens (reasoning tokens included)")
    cached_input: Price | None = Field(
        None,
        description="price per million prompt tokens read from the provider's prompt cache (unset: the input price)",
    )
    batch_discount: Annotated[float, AfterValidator(finite_amount), Field(ge=0, lt=1)] = Field(
        0.0, description="share taken off in a provider's batch mode"
    )

    def cost(self, prompt_tokens: int, completion_tokens: int, *, cached_tokens: int = 0, batch: bool = False) -> float:
        """What the tokens cost; `cached_tokens` are part of `prompt_tokens`, at `cached_input` when set."""
        cached = min(cached_tokens, prompt_tokens) if self.cached_input is not None else 0
        full = (
            (prompt_tokens - cached) * self.input
            + cached * (self.cached_input or 0.0)
            + completion_tokens * self.output
        ) / 1_000_000
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
