"""Deterministic scripted models for tests and demonstrations of failure modes.

A script is a list of responses (used in turn, cycling) or a callable receiving the
messages. A response may be a string, a `Completion`, or an exception instance to raise.
Named scripts are registered with `register_script` and used as ``scripted/<name>``.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
from collections.abc import Callable, Sequence
from typing import Any, Union

from .base import Completion, GenerateConfig, Message, RetryableError, Usage

Response = Union[str, Completion, BaseException]
Script = Union[Sequence[Response], Callable[[list[Message]], Any]]

_SCRIPTS: dict[str, Script] = {}


def register_script(name: str, script: Script) -> None:
    """Make `scripted/<name>` answer from `script`."""
    _SCRIPTS[name] = script


def unregister_script(name: str) -> None:
    _SCRIPTS.pop(name, None)


def _builtin(name: str) -> Script | None:
    if name == "echo":
        return lambda messages: messages[-1]["content"] if messages else ""
    if name == "empty":
        return [""]
    if name == "error":
        return [RetryableError("scripted failure", status=500)]
    return None


class ScriptedModel:
    provider = "scripted"

    def __init__(self, name: str, script: Script | None = None, *, latency: float = 0.0):
        script = script if script is not None else _SCRIPTS.get(name) or _builtin(name)
        if script is None:
            known = ", ".join(sorted([*_SCRIPTS, "echo", "empty", "error"]))
            raise ValueError(f"no script named {name!r}; registered scripts: {known}")
        self.name = name
        self.latency = latency
        self.calls: list[list[Message]] = []
        self.configs: list[GenerateConfig] = []  # the settings each call received
        self._script = script
        self._cycle = None if callable(script) else itertools.cycle(list(script))

    async def generate(self, messages: list[Message], config: GenerateConfig) -> Completion:
        self.calls.append(messages)
        self.configs.append(config)
        if self.latency:
            await asyncio.sleep(self.latency)
        if self._cycle is not None:
            response = next(self._cycle)
        else:
            response = self._script(messages)  # type: ignore[operator]  # callable when not a list
            if inspect.isawaitable(response):
                response = await response
        if isinstance(response, BaseException):
            raise response
        if isinstance(response, Completion):
            return response
        text = str(response)
        prompt_words = sum(len(m.get("content", "").split()) for m in messages)
        return Completion(
            text=text,
            finish_reason="stop",
            usage=Usage(prompt_tokens=prompt_words, completion_tokens=len(text.split())),
            latency=self.latency,
        )

    def cache_identity(self) -> dict[str, Any]:
        return {"provider": self.provider, "model": self.name}

    async def aclose(self) -> None:
        return None
