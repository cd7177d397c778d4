"""Pieces every task generator shares: the Sample envelope and the length sentences."""

from __future__ import annotations

from typing import Any

from proseval.kit import Sample

from ._rng import official_sample_id
from .params import GENERATOR_VERSION, TARGET_WORDS


def build_sample(task: str, length: str, index: int, seed: int, prompt: str, target: dict[str, Any]) -> Sample:
    """Wrap one generated instance in a :class:`Sample` with the standard metadata."""
    return Sample(
        id=f"longweave/{task}@{length}/{index}",
        input=prompt,
        target=target,
        metadata={
            "task": task,
            "length": length,
            "index": index,
            "seed": seed,
            "target_words": TARGET_WORDS[length],
            "official_sample_id": official_sample_id(task, length, index),
            "generator_version": GENERATOR_VERSION,
        },
    )


def words_request(length: str) -> str:
    """The explicit length request of the prose tasks (BioG, SR, NW)."""
    return f"around {TARGET_WORDS[length]:,} words"


def long_output_note(length: str) -> str:
    """The length sentence of the tasks whose output size follows from the material."""
    return (
        f"The complete answer is long (on the order of {TARGET_WORDS[length]:,} tokens). "
        "Write all of it out; do not abbreviate, summarise or stop early."
    )
