"""What evaluating every prompt from scratch costs the embedded model, against prefix reuse.

proseval empties llama.cpp's context before each request, so that an answer never depends on
the request before it (`proseval.models.local.clear_state`). llama-cpp-python would otherwise
keep the previous prompt in its KV cache and evaluate only what a new prompt adds to a shared
prefix. This script times both on the path real runs use (`proseval.run`, no response cache):

- the demo (8 prompts; the embedded model as candidate and judge);
- a WritingBench judge run: the first N English queries of the official data, the embedded
  model as the judge (5 criteria per query, one request each), the candidate replaying answers
  the embedded model wrote once before the timing, so only judging is timed.

The two sides alternate, each workload `--repeats` times; medians, their ratio, and whether
the answers matched (prefix reuse changes answers; from scratch never does).

    python bench/local_prefix_reuse.py --data-dir ../shared/data/writingbench --repeats 3

The 20-query WritingBench workload takes about 26 minutes per run from scratch on a 2-core
machine (about 2.5 hours for 3 runs of each side): run it alone, nothing else on the CPU.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import proseval
from _common import machine
from proseval.models import local
from proseval.models.scripted import register_script

SCRATCH, REUSE = "from scratch", "prefix reuse"
CLEAR_STATE = local.clear_state


def answers(run: proseval.Run) -> list[str]:
    """Every call's text, in a fixed order, to compare the two sides' answers."""
    records = sorted(run.records(), key=lambda record: (record.id, record.epoch))
    return [call.text for record in records for call in sorted(record.calls, key=lambda c: (c.role, str(c.turn)))]


def timed(side: str, work: Callable[[], proseval.Run]) -> tuple[float, list[str]]:
    local.clear_state = CLEAR_STATE if side == SCRATCH else (lambda llama: None)
    try:
        start = time.perf_counter()
        run = work()
        return time.perf_counter() - start, answers(run)
    finally:
        local.clear_state = CLEAR_STATE


def demo(out: Path) -> Callable[[], proseval.Run]:
    return lambda: proseval.run("demo", cache=False, out=out)


def writingbench_judging(
    out: Path, data_dir: str, limit: int, judge_tokens: int, answer_tokens: int
) -> Callable[[], proseval.Run]:
    """Replay the embedded model's own answers as the candidate; the embedded model judges, one
    call per criterion (no re-asks, so both sides send the same requests)."""
    params = {"data_dir": data_dir, "lang": "en"}
    register_script("bench-judge", ['{"score": 5, "reason": "not timed"}'])
    written = proseval.run(
        "writingbench",
        params=params,
        limit=limit,
        out=out,
        roles={"judge": "scripted/bench-judge"},
        model="local/smollm2-135m",
        gen={"candidate": {"max_tokens": answer_tokens}},
    )
    # A query too long for the embedded model's context has no answer: replayed as empty, it is
    # scored without the judge.
    by_query = {record.input: record.state.output for record in written.records() if record.state}
    register_script("bench-answers", lambda messages: by_query.get(messages[-1]["content"], ""))
    return lambda: proseval.run(
        "writingbench",
        params={**params, "judge_attempts": 1},
        limit=limit,
        out=out,
        model="scripted/bench-answers",
        roles={"judge": "local/smollm2-135m"},
        gen={"judge": {"max_tokens": judge_tokens}},
        cache=False,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="../shared/data/writingbench", help="official WritingBench data")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per side and workload")
    parser.add_argument("--limit", type=int, default=20, help="WritingBench queries")
    parser.add_argument("--judge-tokens", type=int, default=128, help="judge max_tokens (task default: 2048)")
    parser.add_argument("--answer-tokens", type=int, default=300, help="max_tokens of the replayed answers")
    parser.add_argument("--only", choices=("demo", "writingbench"), help="run one workload only")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        workloads = {}
        if args.only in (None, "demo"):
            workloads["demo (8 samples, candidate + judge)"] = demo(out)
        if args.only in (None, "writingbench"):
            workloads[
                f"WritingBench judging ({args.limit} English queries x 5 criteria, one call each, "
                f"judge max_tokens {args.judge_tokens})"
            ] = writingbench_judging(out, args.data_dir, args.limit, args.judge_tokens, args.answer_tokens)
        print(f"machine: {machine()}", flush=True)
        proseval.run("demo", cache=False, out=out, limit=1)  # warm-up: model loaded, pages in memory
        for name, work in workloads.items():
            seconds: dict[str, list[float]] = {SCRATCH: [], REUSE: []}
            texts: dict[str, list[list[str]]] = {SCRATCH: [], REUSE: []}
            for repeat in range(1, args.repeats + 1):
                for side in (SCRATCH, REUSE):
                    elapsed, text = timed(side, work)
                    seconds[side].append(elapsed)
                    texts[side].append(text)
                    # each timed run as it ends: a long workload shows its progress (and keeps what it measured)
                    print(f"  [{name}] run {repeat}/{args.repeats}, {side}: {elapsed:.1f} s", flush=True)
            scratch, reuse = statistics.median(seconds[SCRATCH]), statistics.median(seconds[REUSE])
            print(f"\n{name}")
            for side in (SCRATCH, REUSE):
                runs = ", ".join(f"{s:.1f}" for s in seconds[side])
                same = all(t == texts[side][0] for t in texts[side])
                print(
                    f"  {side:13s}: median {statistics.median(seconds[side]):7.1f} s  [{runs}]  "
                    f"answers identical across repeats: {same}"
                )
            changed = sum(a != b for a, b in zip(texts[SCRATCH][0], texts[REUSE][0], strict=True))
            print(
                f"  from scratch / prefix reuse: {100 * scratch / reuse:.1f} % of the time "
                f"({scratch - reuse:+.1f} s per run); answers that differ between the sides: "
                f"{changed} of {len(texts[SCRATCH][0])}"
            )


if __name__ == "__main__":
    main()
