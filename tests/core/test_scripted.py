"""The scripted provider used by tests and failure-mode demonstrations."""

from __future__ import annotations

import pytest

from proseval.models.base import Completion, FatalError, GenerateConfig, RetryableError, Usage
from proseval.models.scripted import ScriptedModel, register_script, unregister_script
from proseval.models.spec import build_model, parse_model_spec

CONFIG = GenerateConfig()


async def test_lists_cycle_and_raise():
    model = ScriptedModel("t", ["a", RetryableError("x"), Completion(text="c", usage=Usage(prompt_tokens=9))])
    assert (await model.generate([], CONFIG)).text == "a"
    with pytest.raises(RetryableError):
        await model.generate([], CONFIG)
    third = await model.generate([], CONFIG)
    assert third.text == "c" and third.usage.prompt_tokens == 9
    assert (await model.generate([], CONFIG)).text == "a"


async def test_callables_and_coroutines_see_the_messages():
    async def reply(messages):
        return messages[-1]["content"].upper()

    model = ScriptedModel("t", reply, latency=0.01)
    completion = await model.generate([{"role": "user", "content": "shout"}], CONFIG)
    assert completion.text == "SHOUT" and completion.latency == 0.01


async def test_registered_scripts_are_reachable_by_spec():
    register_script("hello", ["hello there"])
    try:
        model = build_model(parse_model_spec("scripted/hello"))
        assert (await model.generate([], CONFIG)).text == "hello there"
    finally:
        unregister_script("hello")
    with pytest.raises(FatalError, match="no script named 'hello'"):
        build_model(parse_model_spec("scripted/hello"))


async def test_builtin_scripts():
    assert (await build_model(parse_model_spec("scripted/empty")).generate([], CONFIG)).text == ""
    with pytest.raises(RetryableError):
        await build_model(parse_model_spec("scripted/error")).generate([], CONFIG)
