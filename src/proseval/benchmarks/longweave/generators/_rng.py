"""Per-sample seeds and random streams.

Seeds follow the official scheme: the SHA-256 digest of the official sample id
(``"GEN_KV_DICT/4k_17"``) read as an integer, modulo 2**32. With the default ``seed=0`` the
key is exactly the official id, so KVG, SMS and the NW category subset reproduce the official
instances; another seed appends ``#seed=<n>`` to the key. Independent streams (text, shuffle,
examples) hash ``"<key>|<stream>"`` so that adding draws to one stream never shifts another.
"""

from __future__ import annotations

import hashlib
import random

TASK_PATHS: dict[str, str] = {
    "cf": "CODE_FIXING",
    "biog": "KG_TO_TEXT",
    "sr": "SALES_REPORT_GENERATION",
    "nw": "AP_STYLE_WRITING",
    "kvg": "GEN_KV_DICT",
    "sms": "STATE_MACHINE",
    "pr": "PARAGRAPH_ORDERING",
}


def official_sample_id(task: str, length: str, index: int) -> str:
    """The sample id the official code would use, e.g. ``STATE_MACHINE/1k_0``."""
    return f"{TASK_PATHS[task]}/{length}_{index}"


def seed_key(task: str, length: str, index: int, seed: int) -> str:
    """The text whose hash seeds a sample; the official id when ``seed == 0``."""
    sample_id = official_sample_id(task, length, index)
    return sample_id if seed == 0 else f"{sample_id}#seed={seed}"


def seed_of(text: str) -> int:
    """SHA-256 of ``text`` as an integer, modulo 2**32 (the official per-sample seed)."""
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16) % 2**32


def main_rng(key: str) -> random.Random:
    """The sample's primary stream (the one the official generators use)."""
    return random.Random(seed_of(key))


def stream_rng(key: str, stream: str) -> random.Random:
    """An independent named stream for the same sample."""
    return random.Random(seed_of(f"{key}|{stream}"))
