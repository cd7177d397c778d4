"""KV dictionary generation (KVG): write an N-entry dictionary with one pair at a set index.

The official generator draws, from the sample's primary stream and in this order: the target
key (``choices`` over A-Z), the target value (``choices`` over a-z0-9), a percentile from
5..95 and the index ``round(p/100 * (N-1))``. The same calls are made here, so with ``seed=0``
the instances equal the official ones.
"""

from __future__ import annotations

import random
import string
from typing import Any

from ._common import long_output_note
from ._rng import stream_rng

KEY_ALPHABET = string.ascii_uppercase
FILLER_KEY_ALPHABET = string.ascii_uppercase + "_"
VALUE_ALPHABET = string.ascii_lowercase + string.digits
PERCENTILES = list(range(5, 100, 5))


def draw_target(rng: random.Random, num_entries: int, key_length: int, value_length: int):
    """Return ``(key, value, index)`` with the official call sequence."""
    key = "".join(rng.choices(KEY_ALPHABET, k=key_length))
    value = "".join(rng.choices(VALUE_ALPHABET, k=value_length))
    percentile = rng.choice(PERCENTILES)
    index = min(max(round(percentile / 100 * (num_entries - 1)), 0), num_entries - 1)
    return key, value, index


def reference_dictionary(
    rng: random.Random, target: tuple[str, str, int], n: int, key_length: int, value_length: int
) -> list[list[str]]:
    """A correct answer: ``n`` pairs with the target pair at its index (keys distinct)."""
    key, value, index = target
    taken = {key}
    pairs: list[list[str]] = []
    while len(pairs) < n - 1:
        filler = "".join(rng.choices(FILLER_KEY_ALPHABET, k=key_length))
        if filler not in taken:
            taken.add(filler)
            pairs.append([filler, "".join(rng.choices(VALUE_ALPHABET, k=value_length))])
    pairs.insert(index, [key, value])
    return pairs


def build(rng: random.Random, key: str, length: str, p: dict[str, Any]) -> tuple[str, dict]:
    """Prompt and target of one KVG instance."""
    n, klen, vlen = p["num_entries"], p["key_length"], p["value_length"]
    target_key, target_value, index = draw_target(rng, n, klen, vlen)
    prompt = f"""Write a dictionary with exactly {n} key-value pairs.

Rules:
- It must contain the pair '{target_key}': '{target_value}'.
- That pair must sit at index {index}, counting from 0: exactly {index} pairs come before it \
and {n - 1 - index} after it.
- Every other key is a string of exactly {klen} characters, using only uppercase letters \
A-Z and the underscore.
- Every other value is a string of exactly {vlen} characters, using only lowercase letters \
a-z and digits 0-9.
- Keys are all different. No spaces or other characters inside keys or values.
- Put the whole dictionary on one line, with single-quoted strings: \
{{'KEY_A': 'value_a', 'KEY_B': 'value_b', ...}}

{long_output_note(length)}
Reply with the dictionary only: no code, no explanation."""
    target = {
        "target_key": target_key,
        "target_value": target_value,
        "target_index": index,
        "num_entries": n,
        "key_length": klen,
        "value_length": vlen,
        "reference_dictionary": reference_dictionary(
            stream_rng(key, "kvg-reference"), (target_key, target_value, index), n, klen, vlen
        ),
    }
    return prompt, target
