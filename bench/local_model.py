"""Embedded model speed: tokens/s through proseval vs calling llama.cpp directly.

Both sides use the same loaded GGUF with the same settings and generate greedily from the
same prompt, each evaluating the whole prompt (llama.cpp's reuse of the previous prompt's prefix
is cleared before every direct call, as proseval clears it before every request). Each side is warmed up, then they alternate in blocks of runs (llama.cpp's
compute threads belong to the calling thread, so every switch of caller costs a warm-up
that would otherwise be charged to whichever side comes next). Prints medians and ratio.

    python bench/local_model.py --blocks 4 --block-size 3 --max-tokens 128
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from _common import machine
from proseval.models.base import GenerateConfig
from proseval.models.local import LocalModel, clear_state, load_llama
from proseval.runtime.executor import RoleModel

PROMPT = [{"role": "user", "content": "Write a short paragraph about why libraries matter to a town."}]


def direct(llama, max_tokens: int) -> tuple[int, float]:
    start = time.perf_counter()
    clear_state(llama)  # the same work as proseval: the whole prompt evaluated, no prefix reused
    out = llama.create_chat_completion(messages=PROMPT, temperature=0.0, max_tokens=max_tokens, seed=1)
    return out["usage"]["completion_tokens"], time.perf_counter() - start


async def through_proseval(role: RoleModel, max_tokens: int, i: int) -> tuple[int, float]:
    start = time.perf_counter()
    completion = await role.generate(PROMPT, {"max_tokens": max_tokens}, sample_id=f"bench-{i}")
    return completion.usage.completion_tokens, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=4, help="alternating blocks per side")
    parser.add_argument("--block-size", type=int, default=3, help="runs per block")
    parser.add_argument("--max-tokens", type=int, default=128)
    args = parser.parse_args()

    model = LocalModel("smollm2-135m")
    llama, _ = load_llama(model.path, model.n_ctx)  # the very object proseval uses
    role = RoleModel("candidate", model, GenerateConfig(temperature=0.0, seed=1), concurrency=1, cache=None)
    ours, theirs = [], []

    async def proseval_block(start: int) -> None:
        for i in range(start, start + args.block_size):
            tokens, seconds = await through_proseval(role, args.max_tokens, i)
            ours.append(tokens / seconds)

    for block in range(args.blocks):
        direct(llama, args.max_tokens)  # warm-up of this caller
        for _ in range(args.block_size):
            tokens, seconds = direct(llama, args.max_tokens)
            theirs.append(tokens / seconds)
        asyncio.run(through_proseval(role, args.max_tokens, -1 - block))  # warm-up of proseval's worker
        asyncio.run(proseval_block(block * args.block_size))
    print(f"machine: {machine()}")
    print(
        f"model: {model.path.name}, {args.blocks} alternating blocks of {args.block_size} runs per side, "
        f"up to {args.max_tokens} tokens each"
    )
    print(f"llama.cpp direct : median {statistics.median(theirs):8.1f} tokens/s  {[round(x, 1) for x in theirs]}")
    print(f"through proseval : median {statistics.median(ours):8.1f} tokens/s  {[round(x, 1) for x in ours]}")
    print(f"ratio            : {100 * statistics.median(ours) / statistics.median(theirs):.1f} %")


if __name__ == "__main__":
    main()
