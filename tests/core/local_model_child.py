"""Child process of the embedded-model tests: real llama.cpp work, reported as one JSON line.

Run by tests/core/test_local_model.py through `proseval.models.local_probe.run_child`, so a
native crash fails those tests with the signal and the CPU instead of killing pytest.
"""

from __future__ import annotations

import asyncio
import json

from proseval.judging.structured import json_schema_format, score_schema
from proseval.models.base import GenerateConfig
from proseval.models.local import LocalModel, load_llama


async def checks() -> dict:
    model = LocalModel("smollm2-135m", n_ctx=1024)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    background = asyncio.create_task(ticker())
    completion = await model.generate(
        [{"role": "user", "content": "What is the capital of France? Answer in one word."}],
        GenerateConfig(temperature=0.0, max_tokens=24, seed=1),
    )
    background.cancel()
    # The same request before and after others: a repeat (its whole prompt is a prefix the KV
    # cache holds), a different request sharing its start, and sampling without a seed.
    colour = [{"role": "user", "content": "Name a colour."}]
    other = [{"role": "user", "content": "Name a colour and say why you like it."}]
    greedy = GenerateConfig(temperature=0.0, max_tokens=12, seed=3)
    greedy_sequence = [(await model.generate(messages, greedy)).text for messages in (colour, colour, other, colour)]
    sampled = GenerateConfig(temperature=0.9, max_tokens=12)
    sampled_sequence = [(await model.generate(messages, sampled)).text for messages in (colour, other, colour)]
    structured = await model.generate(
        [{"role": "user", "content": "Rate the sentence 'The cat sat.' from 1 to 10."}],
        GenerateConfig(
            temperature=0.0,
            max_tokens=32,
            seed=1,
            response_format=json_schema_format("score", score_schema(reason=False)),
        ),
    )
    llama, _ = load_llama(model.path, model.n_ctx)
    return {
        "ok": True,
        "text": completion.text,
        "prompt_tokens": completion.usage.prompt_tokens,
        "completion_tokens": completion.usage.completion_tokens,
        "finish_reason": completion.finish_reason,
        "ticks": ticks,
        "greedy_sequence": greedy_sequence,
        "sampled_sequence": sampled_sequence,
        "structured": structured.text,
        "use_extra_bufts": bool(llama.model_params.use_extra_bufts),
        "n_gpu_layers": llama.model_params.n_gpu_layers,
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(checks())))
