"""The demo task priced on the fake OpenAI-compatible server (`support.cost.PRICES`): its replies, and
the limit at which a run of it stops.

With these prices a demo sample costs about 0.04 (candidate) + 0.07 (judge); a role's requests
reserve their cost at max_tokens (about 0.17 and 0.21) until its first answer, then at the mean of
its answers, so a limit of `LIMIT` lets two samples of a run finish and stops at the third."""

from __future__ import annotations

import json
from typing import Any

from proseval.runtime.dryrun import filler

LIMIT = 0.3


def demo_reply(body: dict[str, Any]) -> str:
    """A verdict of 20 words for the judge, 100 words of text for any other model."""
    if body["model"] == "judge":
        return json.dumps({"score": 7, "reason": filler(20)})
    return filler(100)
