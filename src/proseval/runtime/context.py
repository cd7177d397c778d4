"""What a protocol or scorer sees while working on one sample."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, TypeVar

from ..core.prompt import PromptTemplate
from ..core.sample import Sample
from ..models.base import (
    Completion,
    ContextOverflowError,
    GenerateConfig,
    Message,
    ModelError,
    UnusableAnswerError,
    Usage,
    error_text,
)
from .batch import BatchFailedError
from .cost import CostLimitReached, RunSpend
from .executor import RoleModel
from .records import Call, Reasoning
from .secrets import scrub

T = TypeVar("T")


class MissingRoleError(KeyError):
    pass


class SampleContext:
    """Routes model calls for one sample to its roles and tallies their token use."""

    def __init__(
        self,
        sample: Sample,
        roles: dict[str, RoleModel],
        *,
        epoch: int = 0,
        prompts: dict[str, PromptTemplate] | None = None,
        checkpoints: Any = None,
        spend: RunSpend | None = None,
    ):
        self.sample = sample
        self.prompts = prompts or {}
        self._checkpoints = checkpoints  # a RunFolder, or None outside a run
        self.epoch = epoch
        self._roles = roles
        self.usage: dict[str, Usage] = {}
        self.calls: list[Call] = []  # answers of roles other than the candidate, for the record
        self.reasoning: list[Reasoning] = []  # every role's reasoning, for the record (never in an answer)
        self.cache_hits = 0
        self.candidate_overflow = False
        self._spend = spend  # the run's cost meter (`runtime.cost`), with --prices
        self.cost_refused = False  # a request was not sent: --max-cost reached (the sample is abandoned)
        self.batch_failure: BatchFailedError | None = None  # a request's batch could not be sent: the sample fails

    def save_checkpoint(self, data: Any) -> None:
        """Keep this sample's progress (JSON-serialisable): a resumed run gets it back from
        `load_checkpoint`, so a long multi-step protocol continues from its last step. Cleared
        once the sample's record is written."""
        if self._checkpoints is not None:
            self._checkpoints.write_checkpoint(self.sample.id, self.epoch, data)

    def load_checkpoint(self) -> Any | None:
        """The progress saved by an interrupted earlier attempt at this sample, if any."""
        return None if self._checkpoints is None else self._checkpoints.read_checkpoint(self.sample.id, self.epoch)

    def prompt(self, name: str) -> PromptTemplate:
        """The task's prompt template `name` (the user's file when one replaced it)."""
        return self.prompts[name]

    def has_role(self, role: str) -> bool:
        return role in self._roles

    def _waiting_for_room(self, room: Awaitable[T]) -> Awaitable[T]:
        """A wait for room under the cost limit. In batch mode the sample counts as waiting on a
        batch meanwhile, so the requests pending there are sent: their answers free the room."""
        batches = next((m.batcher.coordinator for m in self._roles.values() if m.batcher is not None), None)
        return room if batches is None else batches.waiting((self.sample.id, self.epoch), room)

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
        reserved = 0.0
        if self._spend is not None:
            try:
                reserved = await self._spend.before(role, messages, config, wait=self._waiting_for_room)
            except CostLimitReached:
                self.cost_refused = True
                raise
        try:
            completion = await self._roles[role].generate(
                messages, config, sample_id=self.sample.id, epoch=self.epoch, turn=turn
            )
        except ModelError as exc:
            paid = exc.completion if isinstance(exc, UnusableAnswerError) else None
            if self._spend is not None:
                self._spend.after(role, reserved, paid, messages)
            if paid is not None:
                self._tally(role, turn, paid)
            self.candidate_overflow = self.candidate_overflow or (
                role == "candidate" and isinstance(exc, ContextOverflowError)
            )
            if isinstance(exc, BatchFailedError):
                self.batch_failure = self.batch_failure or exc
            if role != "candidate":
                self.calls.append(
                    Call(
                        role=role,
                        turn=turn,
                        text=paid.text if paid else None,
                        finish_reason=paid.finish_reason if paid else None,
                        error=scrub(error_text(exc)),
                    )
                )
            raise
        except BaseException:
            if self._spend is not None:  # cancelled: nothing to record
                self._spend.after(role, reserved, None)
            raise
        if self._spend is not None:
            self._spend.after(role, reserved, completion, messages)
        if role != "candidate":
            self.calls.append(
                Call(
                    role=role,
                    turn=turn,
                    text=completion.text,
                    finish_reason=completion.finish_reason,
                    cached=completion.cached,
                )
            )
        self._tally(role, turn, completion)
        return completion

    def _tally(self, role: str, turn: str | int, completion: Completion) -> None:
        """Count an answer's tokens for the record, and keep its reasoning, if any, apart from it."""
        used = self.usage.get(role)
        if used is None:
            used = self.usage[role] = Usage()
        usage = completion.usage
        used.prompt_tokens += usage.prompt_tokens
        used.completion_tokens += usage.completion_tokens
        used.reasoning_tokens += usage.reasoning_tokens
        used.cached_tokens += usage.cached_tokens
        if completion.reasoning or usage.reasoning_tokens:
            self.reasoning.append(
                Reasoning(role=role, turn=turn, text=completion.reasoning, tokens=usage.reasoning_tokens)
            )
        self.cache_hits += int(completion.cached)
