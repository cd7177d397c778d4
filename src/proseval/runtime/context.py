"""What a protocol or scorer sees while working on one sample."""

from __future__ import annotations

from typing import Any

from ..core.prompt import PromptTemplate
from ..core.sample import Sample
from ..models.base import Completion, ContextOverflowError, GenerateConfig, Message, Usage
from .executor import RoleModel


class MissingRoleError(KeyError):
    pass


class SampleContext:
    """Routes model calls for one sample to its roles and tallies their token use."""

    def __init__(self, sample: Sample, roles: dict[str, RoleModel], *, epoch: int = 0,
                 prompts: dict[str, PromptTemplate] | None = None):
        self.sample = sample
        self.prompts = prompts or {}
        self.epoch = epoch
        self._roles = roles
        self.usage: dict[str, Usage] = {}
        self.cache_hits = 0
        self.candidate_overflow = False

    def prompt(self, name: str) -> PromptTemplate:
        """The task's prompt template `name` (the user's file when one replaced it)."""
        return self.prompts[name]

    def has_role(self, role: str) -> bool:
        return role in self._roles

    async def generate(
        self,
        role: str,
        messages: list[Message],
        config: GenerateConfig | dict[str, Any] | None = None,
        *,
        turn: str | int = 0,
    ) -> Completion:
        """Ask the model bound to `role`; `turn` distinguishes several calls for one sample."""
        if role not in self._roles:
            raise MissingRoleError(f"role {role!r} is not bound")
        try:
            completion = await self._roles[role].generate(
                messages, config, sample_id=self.sample.id, epoch=self.epoch, turn=turn
            )
        except ContextOverflowError:
            self.candidate_overflow = self.candidate_overflow or role == "candidate"
            raise
        used = self.usage.setdefault(role, Usage())
        used.prompt_tokens += completion.usage.prompt_tokens
        used.completion_tokens += completion.usage.completion_tokens
        self.cache_hits += int(completion.cached)
        return completion
