"""Scripted models for the profile tests (registered in the test process and in its child): two
candidates that write differently and a judge that answers a request for a score with a verdict and
any other request with the request itself, each call counted per model."""

from __future__ import annotations

import asyncio
from collections import Counter

from proseval.models.scripted import register_script, unregister_script

CALLS: Counter[str] = Counter()
NAMES = ("profile-long", "profile-brief", "profile-judge")


def revision_distance_entry(drafts_from: str) -> str:
    """A suite's Revision Distance entry, measuring the answers of benchmark `drafts_from`."""
    return f"""\
  - name: revision-distance
    task: revision-distance
    dimension: revision burden
    lower_is_better: true
    drafts_from: {drafts_from}
    sizes:
      quick: {{params: {{setting: reference-free}}}}
      standard: {{params: {{setting: reference-free}}}}
      paper: {{params: {{setting: reference-free}}}}
"""


# LongWeave (generated: no data to fetch) and Revision Distance on its answers
SMALL_SUITE = """\
benchmarks:
  - name: longweave
    task: longweave
    dimension: long-form generation
    sizes:
      quick: {params: {per_cell: 1, length: [1k, 2k]}}
      standard: {params: {per_cell: 1}}
      paper: {preset: paper}
""" + revision_distance_entry("longweave")


def _script(name: str, reply, latency: float):
    async def answer(messages):
        CALLS[name] += 1
        if latency:
            await asyncio.sleep(latency)
        return reply(messages)

    return answer


def _echo(messages) -> str:
    return messages[-1]["content"] if messages else ""


#: The judge's answer to a request for a JSON score: a score and a reason.
VERDICT = '{"score": 5, "reason": "clear enough"}'


def _judge(messages) -> str:
    """A verdict where the request speaks of a score (the WritingBench and C3EBench judges), the
    request itself elsewhere (LongWeave's and Meeseeks' checks, Meeseeks' extractor, the reviser)."""
    asked = "\n".join(message["content"] for message in messages).lower()
    return VERDICT if "score" in asked else _echo(messages)


def register_all(latency: float = 0.0) -> None:
    CALLS.clear()
    register_script("profile-long", _script("profile-long", _echo, latency))
    register_script("profile-brief", _script("profile-brief", lambda messages: "A brief answer.", latency))
    register_script("profile-judge", _script("profile-judge", _judge, latency))


def unregister_all() -> None:
    for name in NAMES:
        unregister_script(name)
