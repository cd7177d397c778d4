"""LongWeave generators: public API, determinism, golden hashes, size scaling, parameter docs."""

from __future__ import annotations

import hashlib
import json
import statistics
from pathlib import Path

import pytest

from proseval.benchmarks.longweave.generators import LENGTHS, TASKS, generate, generate_many
from proseval.benchmarks.longweave.generators.params import (
    KNOBS,
    TARGET_WORDS,
    parameter_tables_markdown,
    params,
)

FIXTURES = Path(__file__).parent / "fixtures" / "gen"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "longweave.md"


def _sha(sample) -> str:
    return hashlib.sha256(sample.model_dump_json().encode("utf-8")).hexdigest()


def test_constants() -> None:
    assert TASKS == ("cf", "biog", "sr", "nw", "kvg", "sms", "pr")
    assert LENGTHS == ("1k", "2k", "4k", "8k")


@pytest.mark.parametrize("task", TASKS)
def test_sample_envelope(task: str) -> None:
    sample = generate(task, "2k", 17, seed=3)
    assert sample.id == f"longweave/{task}@2k/17"
    meta = sample.metadata
    assert (meta["task"], meta["length"], meta["index"], meta["seed"]) == (task, "2k", 17, 3)
    assert meta["target_words"] == 2048
    assert isinstance(sample.input, str) and sample.input
    json.dumps(sample.target)  # JSON-serialisable as is


@pytest.mark.parametrize("task", TASKS)
def test_same_arguments_same_json_and_new_index_new_sample(task: str) -> None:
    first = generate(task, "1k", 5).model_dump_json()
    assert generate(task, "1k", 5).model_dump_json() == first
    assert generate(task, "1k", 6).model_dump_json() != first
    assert generate(task, "1k", 5, seed=1).model_dump_json() != first


def test_generate_many_matches_generate() -> None:
    many = generate_many("sms", "4k", 3, seed=2)
    assert [s.model_dump_json() for s in many] == [generate("sms", "4k", i, seed=2).model_dump_json() for i in range(3)]


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="'xyz'"):
        generate("xyz", "1k", 0)
    with pytest.raises(ValueError, match="'3k'"):
        generate("kvg", "3k", 0)
    with pytest.raises(ValueError, match="-1"):
        generate("kvg", "1k", -1)


def test_golden_hashes_regenerate() -> None:
    """Hashes were recorded once; regenerating must give byte-identical JSON on any machine."""
    golden = json.loads((FIXTURES / "golden_sha256.json").read_text(encoding="utf-8"))
    assert len(golden) >= len(TASKS)
    for entry in golden:
        sample = generate(entry["task"], entry["length"], entry["index"], entry["seed"])
        assert _sha(sample) == entry["sha256"], entry


def _size(task: str, target: dict) -> float:
    """A task's natural measure of how much the candidate must write."""
    if task == "cf":
        return len(target["original_code"])
    if task == "biog":
        return len(target["facts"])
    if task == "sr":
        return len(target["qa_pairs"])
    if task == "nw":
        return len(target["statements"])
    if task == "kvg":
        return target["num_entries"]
    if task == "sms":
        return len(target["input_string"])
    return sum(len(s.split()) for s in target["segments"])


@pytest.mark.parametrize("task", TASKS)
def test_sizes_scale_with_length(task: str) -> None:
    means = [statistics.mean(_size(task, generate(task, length, i).target) for i in range(6)) for length in LENGTHS]
    for shorter, longer in zip(means, means[1:]):
        assert 1.2 <= longer / shorter <= 2.6, (task, means)


@pytest.mark.parametrize("task", ["biog", "sr", "nw"])
def test_prose_prompts_ask_for_the_word_target(task: str) -> None:
    for length in LENGTHS:
        assert f"around {TARGET_WORDS[length]:,} words" in generate(task, length, 0).input


@pytest.mark.parametrize("task", ["cf", "kvg", "sms", "pr"])
def test_implicit_length_prompts_state_the_size(task: str) -> None:
    for length in LENGTHS:
        assert f"{TARGET_WORDS[length]:,} tokens" in generate(task, length, 0).input


def test_params_have_a_value_per_length_and_a_known_source() -> None:
    for task, knobs in KNOBS.items():
        for name, knob in knobs.items():
            assert len(knob.values) == len(LENGTHS), (task, name)
            assert knob.source in ("official", "paper", "proseval"), (task, name)
    assert params("kvg", "8k")["num_entries"] == 160
    assert params("sms", "2k")["input_length"] == 110
    assert params("nw", "4k")["num_categories"] == 8
    assert params("cf", "1k")["violation_probability"] == 0.85


def test_docs_show_the_current_parameter_tables() -> None:
    if not DOCS.is_file():
        pytest.skip(f"{DOCS} not present")
    assert parameter_tables_markdown() in DOCS.read_text(encoding="utf-8")
