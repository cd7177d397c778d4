"""Scripted writers and judges with planted properties, for checking that the judge-reliability
analysis recovers them.

A writer's answer carries its planted quality as a token ``planted-quality-<digit>`` (from a hash of the prompt
and an epoch-independent salt) and a planted length in words; judges read both back from the
judge prompt. Each judge differs from the fair one in one known way.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from collections.abc import Callable

QUALITY = re.compile(r"planted-quality-(\d)")
FILLER = re.compile(r"\blorem\b")


def planted_quality(text: str) -> int:
    """4..7: far enough from the 1-10 ends that planted shifts (and `better` up to 2) are never clipped."""
    return 4 + hashlib.sha256(text.encode()).digest()[0] % 4


def writer(base_words: int, spread: float = 1.0, seed: int = 0, better: int = 0) -> Callable[[list[dict]], str]:
    """Answers of about `base_words` words (times 2**u, u in +-spread): the k-th answer to a prompt
    has the same length whatever order the prompts come in. `better` adds to the planted quality."""
    seen: dict[str, int] = {}

    def answer(messages: list[dict]) -> str:
        prompt = messages[-1]["content"]
        seen[prompt] = seen.get(prompt, 0) + 1
        draw = random.Random(f"{seed}/{prompt}/{seen[prompt]}").uniform(-spread, spread)
        words = max(5, round(base_words * 2**draw))
        return f"planted-quality-{planted_quality(prompt) + better} " + " ".join(["lorem"] * words)

    return answer


def read_answer(messages: list[dict]) -> tuple[int, int]:
    """The planted quality and length (words) of the answer inside a judge prompt."""
    text = "\n".join(m["content"] for m in messages)
    found = QUALITY.search(text)
    return (int(found.group(1)) if found else 5), len(FILLER.findall(text))


def clamp(value: float) -> int:
    return max(1, min(10, round(value)))


def judge(
    kind: str = "fair",
    *,
    noise: float = 0.0,
    slope: float = 0.0,
    seed: int = 0,
    fail_every: int = 0,
    reply: Callable[[int], str] | None = None,
) -> Callable[[list[dict]], str]:
    """A judge: the planted quality, plus `slope` points per doubling of length above 100 words,
    plus a uniform integer error in [-noise, noise] (fresh on every call), and an unparsable reply
    on every `fail_every`-th call. `reply` formats the score (default: the demo's JSON)."""
    rng = random.Random(seed)
    calls = 0

    def answer(messages: list[dict]) -> str:
        nonlocal calls
        calls += 1
        if fail_every and calls % fail_every == 0:
            return "I cannot rate this."
        quality, words = read_answer(messages)
        value = quality + slope * math.log2(max(words, 1) / 100) + rng.randint(-round(noise), round(noise))
        score = clamp(value)
        return reply(score) if reply else json.dumps({"score": score, "reason": kind})

    return answer
