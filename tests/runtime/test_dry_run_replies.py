"""A task's own dry-run replies (`Task.dry_run_reply`): asked before the generic synthetic reply,
with the role, the messages, the output estimate and the turn; None keeps the generic one."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from proseval.planning import plan
from proseval.runtime.dryrun import estimate_run
from proseval.runtime.roles import RoleRequest


def test_the_task_reply_is_used_where_given_and_the_counts_stay_the_estimate():
    planned = plan(
        "demo",
        RoleRequest(
            model="openai-compatible/cand",
            roles={"judge": "openai-compatible/judge"},
            base_urls=["http://127.0.0.1:9/v1"],
        ),
    )
    asked: list[tuple[str, int, str]] = []

    def reply(role: str, messages: list[dict[str, str]], tokens: int, turn: str) -> str | None:
        asked.append((role, tokens, turn))
        return "A short answer." if role == "candidate" else None

    generic = asyncio.run(estimate_run(planned.task, planned.bindings, limit=2))
    own = asyncio.run(estimate_run(replace(planned.task, dry_run_reply=reply), planned.bindings, limit=2))
    assert own.errors == 0 and own.internal == 0
    assert [(role, tokens) for role, tokens, _ in asked] == [("candidate", 400), ("judge", 200)] * 2
    assert all(isinstance(turn, str) for _, _, turn in asked)
    # requests and output tokens are the estimate's whatever the reply; the judge's prompt now
    # holds the task's short answer instead of 400 filler tokens
    for role in ("candidate", "judge"):
        assert own.roles[role].requests == generic.roles[role].requests == 2
        assert own.roles[role].output_tokens == generic.roles[role].output_tokens
    assert own.roles["candidate"].input_tokens == generic.roles["candidate"].input_tokens
    assert generic.roles["judge"].input_tokens - own.roles["judge"].input_tokens > 2 * 390
