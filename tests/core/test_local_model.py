"""One real generation through the embedded llama.cpp model (needs proseval[local])."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("llama_cpp", reason="the embedded model needs: pip install 'proseval[local]'")

from proseval.models.base import GenerateConfig  # noqa: E402
from proseval.models.local import LocalModel, embedded_model_path  # noqa: E402

pytestmark = pytest.mark.local_model


def test_the_bundled_gguf_is_found_inside_the_package():
    path = embedded_model_path()
    assert path.suffix == ".gguf" and path.stat().st_size > 50_000_000
    assert "site-packages" in str(path) or "dist-packages" in str(path)


async def test_real_generation_does_not_block_the_event_loop():
    model = LocalModel("smollm2-135m", n_ctx=1024)
    ticks = 0

    async def ticker():
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
    assert completion.text.strip()
    assert completion.usage.completion_tokens > 0 and completion.usage.prompt_tokens > 5
    assert completion.finish_reason in {"stop", "length"}
    assert ticks >= 3, "the event loop kept running while llama.cpp generated"


async def test_greedy_generation_is_deterministic():
    model = LocalModel("smollm2-135m", n_ctx=1024)
    messages = [{"role": "user", "content": "Name a colour."}]
    config = GenerateConfig(temperature=0.0, max_tokens=12, seed=3)
    first = await model.generate(messages, config)
    second = await model.generate(messages, config)
    assert first.text == second.text


def test_a_missing_gguf_is_a_clear_error(tmp_path):
    from proseval.models.base import FatalError

    with pytest.raises(FatalError, match="not found"):
        LocalModel(str(tmp_path / "nope.gguf"))
