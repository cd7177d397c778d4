"""Replies of realistic length for the fake servers: a writer's answers and a judge's verdicts far
below their `max_tokens` and varying from request to request (fixed by a hash of the request), as
real models' do. A cost limit meets them in `tests/core/test_cost_limit.py` and `bench/cost_limit.py`."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..runtime.dryrun import filler

ANSWER_TOKENS = range(400, 800)  # a writer's answer, in cl100k tokens (WritingBench allows 16,000)
REASON_TOKENS = range(60, 140)  # a judge's reason; its JSON verdict adds a few tokens (WritingBench allows 2,048)


def _pick(body: dict[str, Any], choices: range) -> int:
    digest = hashlib.sha256(json.dumps(body.get("messages"), sort_keys=True).encode()).digest()
    return choices[int.from_bytes(digest[:4], "little") % len(choices)]


def verdict(score: int, reason_tokens: int) -> str:
    """A judge's reply: a JSON score from 1 to 10 and a reason of `reason_tokens` filler tokens."""
    return json.dumps({"score": score, "reason": filler(reason_tokens)})


def writing_reply(body: dict[str, Any]) -> str:
    """A verdict when the request's model name has "judge" in it, else an answer (sizes above)."""
    if "judge" in str(body.get("model")):
        return verdict(_pick(body, range(1, 11)), _pick(body, REASON_TOKENS))
    return filler(_pick(body, ANSWER_TOKENS))
