"""What a protocol or scorer may use while working on one sample, as core names it.

The runtime's `SampleContext` (`runtime.context`) is the implementation: it routes the calls to
the models bound to the roles and keeps the run's books. Core types its protocols and scorers with
this interface, so that it does not depend on the runtime.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..models.base import Completion, GenerateConfig, Message
from .prompt import PromptTemplate
from .sample import Sample


class Context(Protocol):
    """The sample being worked on, its prompts, and the models bound to the task's roles."""

    sample: Sample
    epoch: int
    prompts: dict[str, PromptTemplate]

    async def generate(
        self,
        role: str,
        messages: list[Message],
        config: GenerateConfig | dict[str, Any] | None = None,
        *,
        turn: str | int = 0,
    ) -> Completion:
        """Ask the model bound to `role`; `turn` distinguishes several calls for one sample."""

    def prompt(self, name: str) -> PromptTemplate:
        """The task's prompt template `name` (the user's file when one replaced it)."""

    def has_role(self, role: str) -> bool: ...

    def save_checkpoint(self, data: Any) -> None:
        """Keep this sample's progress for a resumed run."""

    def load_checkpoint(self) -> Any | None:
        """The progress saved by an interrupted earlier attempt at this sample, if any."""
