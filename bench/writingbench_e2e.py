"""WritingBench end to end against a fake OpenAI-compatible server.

The full benchmark (1,000 queries: 1,000 candidate calls, then 5,000 per-criterion judge calls)
at a fixed server latency and concurrency, compared with the ideal time
(1,000 + 5,000) x L / C. Then the batched judge mode, for the judge-token ratio
batched / per-criterion (as reported by the server, and counted with cl100k_base on the
judge prompts themselves).

    python bench/writingbench_e2e.py --data-dir ../shared/data/writingbench --latency 0.5 --concurrency 64
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
import time
from pathlib import Path

from _common import ROOT, FakeServerProcess, machine
from proseval.benchmarks.writingbench.judging import batched_judge_messages, judge_messages
from proseval.registry import get_task
from proseval.runtime.options import RunOptions
from proseval.runtime.records import RoleBinding
from proseval.runtime.runner import start_run
from proseval.tokens import count_tokens

REPLY = json.dumps({"score": 7, "reason": "The response covers the criterion with minor gaps."})
_NAME = re.compile(r"'name': '((?:[^'\\]|\\.)*)'|\"name\": \"((?:[^\"\\]|\\.)*)\"")


def responder(body: dict) -> str:
    """Runs in the fake server: a valid judge reply for either mode, the same reply otherwise."""
    prompt = body["messages"][-1]["content"]
    names = [a or b for a, b in _NAME.findall(prompt)]
    if len(set(names)) > 1:  # batched: all criteria listed
        return json.dumps({"scores": [{"name": n, "score": 7, "reason": "minor gaps"} for n in dict.fromkeys(names)]})
    return REPLY


def run_mode(url: str, data_dir: str, mode: str, concurrency: int, workdir: Path, limit: int | None):
    task = get_task("writingbench", {"data_dir": data_dir, "judge_mode": mode})
    bindings = {
        role: RoleBinding(
            spec="openai-compatible/fake",
            base_urls=[url],
            concurrency=concurrency,
            config=task.role_configs[role].model_copy(update={"timeout": 60}),
        )
        for role in ("candidate", "judge")
    }
    options = RunOptions(out_dir=workdir, display="none", use_cache=False, limit=limit)
    start = time.perf_counter()
    _, results = asyncio.run(start_run(task, bindings, options))
    return time.perf_counter() - start, results, task


def prompt_tokens(task, mode: str) -> int:
    """cl100k tokens of every judge prompt the mode sends, with the fake server's reply as response."""
    total = 0
    for sample in task.dataset():
        from proseval.benchmarks.writingbench.criteria import Criterion

        criteria = [Criterion.model_validate(c) for c in sample.target["checklist"]]
        if mode == "batched":
            messages = [batched_judge_messages(sample.input, REPLY, criteria)]
        else:
            messages = [judge_messages(sample.input, REPLY, c) for c in criteria]
        total += sum(count_tokens(m["content"]) for msgs in messages for m in msgs)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=str(ROOT.parent / "shared" / "data" / "writingbench"))
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--limit", type=int, default=None, help="only the first N queries")
    args = parser.parse_args()

    print(f"machine: {machine()}")
    server = FakeServerProcess(args.latency, responder="writingbench_e2e:responder")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            seconds, results, task = run_mode(
                server.base_url, args.data_dir, "per-criterion", args.concurrency, Path(tmp), args.limit
            )
            n = results.counts.finished
            judge_calls = results.roles["judge"]["requests"]
            ideal = (n + judge_calls) * args.latency / args.concurrency
            print(
                f"per-criterion: {n} queries, {judge_calls} judge calls, {seconds:.1f} s; ideal {ideal:.1f} s; "
                f"ratio {seconds / ideal:.2f}x (target <= 1.3x); failed {results.counts.failed}, "
                f"unscored {results.counts.unscored}"
            )
            b_seconds, b_results, _ = run_mode(
                server.base_url, args.data_dir, "batched", args.concurrency, Path(tmp), args.limit
            )
            print(f"batched: {b_results.roles['judge']['requests']} judge calls, {b_seconds:.1f} s")
            served = b_results.roles["judge"]["prompt_tokens"] / results.roles["judge"]["prompt_tokens"]
            counted = prompt_tokens(task, "batched") / prompt_tokens(task, "per-criterion")
            print(
                f"judge prompt tokens batched / per-criterion: {served:.3f} (server count), "
                f"{counted:.3f} (cl100k_base on the prompts)"
            )
    finally:
        server.close()


if __name__ == "__main__":
    main()
