"""Generators against the official instances recorded in the shared differential vectors.

KVG and SMS instances are fully reproducible (same seed derivation and call sequence); for PR
only the shuffle rule is, applied to the vectors' own segments and doc ids.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from proseval.benchmarks.longweave.generators import generate
from proseval.benchmarks.longweave.generators._rng import seed_of
from proseval.benchmarks.longweave.generators.pr import shuffle_order


def _instances(shared_dir: Path, task: str) -> list[tuple[str, dict]]:
    path = shared_dir / "vectors" / "longweave" / f"{task}.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    seen: dict[str, tuple[str, dict]] = {}
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            record = json.loads(line)
            instance = record["instance"]
            assert "sample_id" in instance, f"{path}:{number}: no sample_id"
            seen.setdefault(instance["sample_id"], (record["length"], instance))
    return list(seen.values())


def _index(sample_id: str) -> int:
    return int(sample_id.rsplit("_", 1)[1])


def test_kvg_instances_equal_the_official_ones(shared_dir: Path) -> None:
    instances = _instances(shared_dir, "kvg")
    assert len(instances) >= 200
    keys = ("target_key", "target_value", "target_index", "num_entries", "key_length", "value_length")
    for length, inst in instances:
        target = generate("kvg", length, _index(inst["sample_id"])).target
        assert seed_of(inst["sample_id"]) == inst["seed"], inst["sample_id"]
        assert {k: target[k] for k in keys} == {k: inst[k] for k in keys}, inst["sample_id"]


def test_sms_instances_equal_the_official_ones(shared_dir: Path) -> None:
    instances = _instances(shared_dir, "sms")
    assert len(instances) >= 200
    for length, inst in instances:
        target = generate("sms", length, _index(inst["sample_id"])).target
        assert seed_of(inst["sample_id"]) == inst["seed"], inst["sample_id"]
        assert target["input_string"] == inst["input_string"], inst["sample_id"]
        assert target["expected_outputs"] == inst["expected_outputs"], inst["sample_id"]
        assert target["initial_state"] == inst["initial_state"]


def test_pr_shuffle_equals_the_official_one(shared_dir: Path) -> None:
    instances = _instances(shared_dir, "pr")
    assert len(instances) >= 100
    for _length, inst in instances:
        segments = inst["segments"]
        order = shuffle_order(random.Random(seed_of(inst["doc_id"])), len(segments))
        # the official correct_order maps an exact duplicate to its first copy (list.index)
        official_style = [segments.index(segments[j]) for j in order]
        assert official_style == inst["correct_order"], inst["sample_id"]
