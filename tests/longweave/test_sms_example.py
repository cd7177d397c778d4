"""The SMS worked example: independent by default, the official leaky one on request."""

from __future__ import annotations

import re

from proseval.benchmarks.longweave.generators import generate
from proseval.registry import get_task

EXAMPLE = re.compile(r'short input "([0-2]+)"')


def example_of(prompt: str) -> str:
    match = EXAMPLE.search(prompt)
    assert match is not None
    return match.group(1)


def test_default_example_does_not_reveal_the_first_answer_rows() -> None:
    samples = [generate("sms", "1k", i) for i in range(40)]
    prefixes = [s.target["input_string"][:3] for s in samples]
    examples = [example_of(s.input) for s in samples]
    assert sum(e == p for e, p in zip(examples, prefixes)) < 10  # 1 in 27 by chance
    assert all("sms_example" not in s.metadata for s in samples)  # generator output unchanged


def test_leaky_example_is_the_input_prefix_as_officially() -> None:
    for index in range(10):
        plain = generate("sms", "2k", index)
        leaky = generate("sms", "2k", index, sms_leaky_example=True)
        prefix = plain.target["input_string"][:3]
        assert example_of(leaky.input) == prefix == leaky.target["example_input"]
        assert leaky.metadata["sms_example"] == "input prefix"
        # Only the example differs: same input, same trace.
        assert leaky.target["expected_outputs"] == plain.target["expected_outputs"]


def test_other_tasks_ignore_the_option() -> None:
    assert generate("kvg", "1k", 0, sms_leaky_example=True) == generate("kvg", "1k", 0)


def test_the_task_option_reaches_the_samples_and_is_recorded() -> None:
    def first(options: dict):
        return next(iter(get_task("longweave", {"task": "sms", "length": "1k", "per_cell": 1, **options}).dataset()))

    default, leaky = first({}), first({"sms_leaky_example": True})
    assert default.metadata["sms_example"] == "independent"
    assert leaky.metadata["sms_example"] == "input prefix"
    assert example_of(leaky.input) == leaky.target["input_string"][:3] != example_of(default.input)
