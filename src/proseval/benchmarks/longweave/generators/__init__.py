"""Deterministic generators of LongWeave instances (material, anchor, target).

``generate(task, length, index, seed)`` returns a :class:`~proseval.core.sample.Sample` whose
``input`` is the candidate's prompt and whose ``target`` holds what the scorers need. The output
depends only on the four arguments: every random draw comes from a ``random.Random`` seeded
with SHA-256 of the official sample id (see ``_rng``), so samples are byte-identical across
machines. Per-length parameters live in :mod:`.params`.
"""

from __future__ import annotations

from proseval.kit import Sample

from . import biog, cf, kvg, nw, pr, sms, sr
from ._common import build_sample
from ._rng import main_rng, seed_key
from .params import LENGTHS, TASKS, params

_BUILDERS = {
    "cf": cf.build,
    "biog": biog.build,
    "sr": sr.build,
    "nw": nw.build,
    "kvg": kvg.build,
    "sms": sms.build,
    "pr": pr.build,
}

__all__ = ["LENGTHS", "TASKS", "generate", "generate_many"]


def generate(task: str, length: str, index: int, seed: int = 0, *, sms_leaky_example: bool = False) -> Sample:
    """The ``index``-th instance of ``task`` at ``length`` (``"1k"`` ... ``"8k"``).

    ``sms_leaky_example`` builds the SMS worked example from the first input symbols, as the
    official prompt does (recorded as ``metadata["sms_example"] = "input prefix"``); other
    tasks ignore it.
    """
    if task not in _BUILDERS:
        raise ValueError(f"unknown LongWeave task {task!r}; expected one of {', '.join(TASKS)}")
    if length not in LENGTHS:
        raise ValueError(f"unknown LongWeave length {length!r}; expected one of {', '.join(LENGTHS)}")
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise ValueError(f"sample index must be a non-negative integer, got {index!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    key = seed_key(task, length, index, seed)
    if task == "sms" and sms_leaky_example:
        prompt, target = sms.build(main_rng(key), key, length, params(task, length), leaky_example=True)
        sample = build_sample(task, length, index, seed, prompt, target)
        sample.metadata["sms_example"] = "input prefix"
        return sample
    prompt, target = _BUILDERS[task](main_rng(key), key, length, params(task, length))
    return build_sample(task, length, index, seed, prompt, target)


def generate_many(task: str, length: str, n: int, seed: int = 0) -> list[Sample]:
    """Instances ``0 .. n-1`` of ``task`` at ``length``."""
    return [generate(task, length, index, seed) for index in range(n)]
